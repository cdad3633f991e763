//go:build !cgo

package kernels

import "unsafe"

// All returns no kernel: a build without cgo has no host build of them.
func All() []Kernel { return nil }

// Alloc returns ErrNoCgo.
func Alloc(bytes int64) (unsafe.Pointer, error) { return nil, ErrNoCgo }

// Free does nothing: Alloc never allocates without cgo.
func Free(p unsafe.Pointer) {}

// RunHost returns ErrNoCgo.
func RunHost(k Kernel, params []uint64, n, stride, offset int64) (Traffic, error) {
	return Traffic{}, ErrNoCgo
}

// RunHostBlocks returns ErrNoCgo.
func RunHostBlocks(k Kernel, params []uint64, grid int64, seed uint64) (Traffic, error) {
	return Traffic{}, ErrNoCgo
}
