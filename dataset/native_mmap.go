//go:build unix

package dataset

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the file read-write, copy-on-write (MAP_PRIVATE): callers may
// modify the arrays in memory without touching the file. Pages are read in
// on first use, so loading costs only the pages touched, unless populate
// asks for all of them at once.
func mapFile(path string, populate bool) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size < nativePrefixLen {
		return nil, nil, fmt.Errorf("%s: %w: truncated: %d bytes, shorter than the %d-byte native prefix", path, ErrFormat, size, nativePrefixLen)
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("%s: %d bytes do not fit the address space", path, size)
	}
	flags := syscall.MAP_PRIVATE
	if populate {
		flags |= mapPopulate
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
