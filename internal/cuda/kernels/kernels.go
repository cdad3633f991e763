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
	// Counted: the host build counts the kernel's global memory traffic
	// (its accesses go through BS_LD and BS_ST); the GNN backend's kernels
	// are not counted.
	Counted bool
	// Threads is the block size of a block kernel (bs_block.h), whose
	// threads cooperate through shared memory and barriers and whose n is
	// its tiles; 0 for a per-thread kernel, whose n is its threads.
	Threads int
}

// Traffic is the global memory a launch on the emulator read and wrote,
// in bytes, as its kernel's accesses declare them (element sizes, not the
// device's 32-byte sectors; an atomic is a read and a write).
type Traffic struct {
	Read, Write int64
	// MaxThread is the most bytes one thread moved in one call: a
	// per-thread kernel's thread, or a block kernel's phase (between two
	// barriers). Far above the launch's mean a thread, it marks serial
	// work (one thread's pass over a long row or a minibatch).
	MaxThread int64
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

//go:embed kernels.fatbin
var fatbin []byte

// ImageTargets describes what Image holds (scripts/ptx.sh's targets;
// TestImageTargets checks it against the image).
const ImageTargets = "SASS for sm_80 and sm_90, PTX for compute_80"

// Image returns the kernels' module image, the fatbin scripts/ptx.sh
// compiles: SASS for sm_80 and sm_90 (A100; H100 and H200), which the
// driver loads as it is, and compute_80 PTX, which it JIT-compiles for
// other devices. The caller must not modify it.
func Image() []byte { return fatbin }

// ErrParams is returned by RunHost when the parameters do not match the
// kernel's struct.
var ErrParams = errors.New("kernels: wrong number of kernel parameters")

// ErrNoCgo is returned by the emulator's calls in a build without cgo,
// which cannot compile the kernels for the host.
var ErrNoCgo = errors.New("kernels: the host emulator needs a cgo build (CGO_ENABLED=1 and a C compiler)")
