package kernels

import (
	_ "embed"
	"errors"
)

// Kernel is one kernel of the PTX and the emulator.
type Kernel struct {
	ID     int    // index in the emulator's table
	Name   string // its name; the PTX's entry point is "bs_" + Name
	Params int    // the words of its parameter struct
}

// Entry returns the name of the kernel's entry point in the PTX.
func (k Kernel) Entry() string { return "bs_" + k.Name }

// Table returns every kernel by name.
func Table() map[string]Kernel {
	t := make(map[string]Kernel)
	for _, k := range All() {
		t[k.Name] = k
	}
	return t
}

//go:embed kernels.ptx
var ptx string

// PTX returns the kernels compiled to PTX (compute_80), NUL-terminated as
// cuModuleLoadData wants it.
func PTX() string { return ptx + "\x00" }

// ErrParams is returned by RunHost when the parameters do not match the
// kernel's struct.
var ErrParams = errors.New("kernels: wrong number of kernel parameters")

// ErrNoCgo is returned by the emulator's calls in a build without cgo,
// which cannot compile the kernels for the host.
var ErrNoCgo = errors.New("kernels: the host emulator needs a cgo build (CGO_ENABLED=1 and a C compiler)")
