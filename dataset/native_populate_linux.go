package dataset

import (
	"os"
	"syscall"
	"unsafe"
)

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map the pages of a
// range for reading in one call, sharing the page cache (no copy-on-write
// break, unlike MAP_POPULATE on a writable private mapping).
const madvPopulateRead = 22

// populate faults in the pages of b, part of a file mapping, before they are
// read, instead of one fault per few pages. On older kernels the advice
// fails and the pages fault in on use, as they would anyway.
func populate(b []byte) {
	if len(b) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	off := int(uintptr(p) % uintptr(os.Getpagesize())) // madvise wants a page-aligned start
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, -off)), len(b)+off), madvPopulateRead)
}
