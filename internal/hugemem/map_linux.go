package hugemem

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// mapRegion maps anonymous memory holding size bytes that start on a huge
// page boundary, advised to use huge pages. It returns the whole mapping (to
// unmap later) and the offset of the aligned start in it; nil if the mapping
// fails. The advice failing (a kernel without transparent huge pages) is not
// an error: the memory is then ordinary pages.
func mapRegion(size int) (raw []byte, off int) {
	// One huge page more than asked leaves room to align the start; the
	// unused ends are address space only, never touched.
	raw, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, 0
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off = int((hugePage - base%hugePage) % hugePage)
	_ = syscall.Madvise(raw[off:off+size], syscall.MADV_HUGEPAGE)
	return raw, off
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), which the syscall
// package does not name.
const madvPopulateWrite = 23

// populateRegion faults in every page that b touches, writable, without
// changing its contents, and reports whether the kernel did; false (an
// older kernel: EINVAL) leaves the caller to touch the pages itself. The
// advice applies to whole pages: b's start is rounded down to its page,
// which is in the same mapping as b.
func populateRegion(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	page := uintptr(syscall.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := start &^ (page - 1)
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, start-lo+uintptr(len(b)), madvPopulateWrite)
	runtime.KeepAlive(b)
	return errno == 0
}

// unmapRegion unmaps a mapping that mapRegion returned.
func unmapRegion(raw []byte) error {
	if err := syscall.Munmap(raw); err != nil {
		return fmt.Errorf("hugemem: munmap %d bytes: %w", len(raw), err)
	}
	return nil
}
