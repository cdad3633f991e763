//go:build unix

package dataset

import (
	"fmt"
	"syscall"
)

// mapFile maps the file read-write, copy-on-write (MAP_PRIVATE): callers may
// modify the arrays in memory without touching the file. Pages are read in
// on first use, so loading costs only the pages touched. (MAP_POPULATE is
// not used: on a writable private mapping it breaks copy-on-write for every
// page, copying the whole file; see populate.)
func mapFile(path string) ([]byte, func() error, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if size < nativePrefixLen {
		return nil, nil, fmt.Errorf("%s: %w: truncated: %d bytes, shorter than the %d-byte native prefix", path, ErrFormat, size, nativePrefixLen)
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("%s: %d bytes do not fit the address space", path, size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
