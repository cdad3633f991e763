package gpu

import (
	"errors"
	"fmt"
	"sync"

	"github.com/bulksample/bulksample/internal/cuda/kernels"
)

// Device is a GPU that samplers and products run on (Open), or the host
// emulator (NewEmulator). It is safe for concurrent use: its work runs one
// call at a time, on the one OS thread that holds its CUDA context.
type Device struct {
	name string
	kt   map[string]kernels.Kernel
	// run runs fn with the device's executor on stream st, one call of a
	// stream at a time (on a GPU, inside the context's thread: Do's for
	// mainStream, DoSide's for sideStream).
	run func(st stream, fn func(executor) error) error
	// settle runs the work the emulator has queued (nil on a GPU), so
	// that Costs counts its traffic.
	settle func()
	// closeFn releases the device (nil: nothing to release).
	closeFn func() error
	// exact: buffers of exactly the asked size (EmulatorOptions.Exact).
	exact bool
	// native is the *cuda.Context of a GPU (device_cuda.go); nil otherwise.
	native any
	// facts returns the GPU's Facts (device_cuda.go); nil on the emulator.
	facts func() (Facts, error)
	// costs counts the executor's work (Costs).
	costs costCounter

	mu     sync.Mutex
	closed bool
}

// ErrNotBuilt is returned by Open in a binary built without the cuda tag.
var ErrNotBuilt = errors.New("gpu: this bulksample was built without CUDA support: build it with `make build CUDA=1` (or go build -tags cuda ./cmd/bulksample); it then runs on machines with and without a GPU")

// ErrNoLibrary is returned for work that needs a CUDA library (cuSPARSE)
// on a device without it: the host emulator.
var ErrNoLibrary = errors.New("gpu: this device has no cuSPARSE (the host emulator runs only bulksample's own kernels)")

// ErrClosed is returned by the methods of a closed Device.
var ErrClosed = errors.New("gpu: device is closed")

// Facts describes the GPU and what this process loaded for it (Facts'
// comment); on the host emulator, or without the cuda tag, it returns
// ErrNoLibrary or ErrNotBuilt.
func (d *Device) Facts() (Facts, error) {
	if d.facts == nil {
		if !Built() {
			return Facts{}, ErrNotBuilt
		}
		return Facts{}, ErrNoLibrary
	}
	return d.facts()
}

// Name describes the device, e.g. "NVIDIA H100 80GB HBM3 (device 0, driver 13.0)".
func (d *Device) Name() string { return d.name }

// MemoryInfo returns the device's free and total memory in bytes.
func (d *Device) MemoryInfo() (free, total int64, err error) {
	err = d.do(func(ex executor) error {
		var e error
		free, total, e = ex.memInfo()
		return e
	})
	return free, total, err
}

// do runs fn on the device's main stream unless it is closed.
func (d *Device) do(fn func(executor) error) error { return d.doOn(mainStream, fn) }

// doOn runs fn on stream st unless the device is closed.
func (d *Device) doOn(st stream, fn func(executor) error) error {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return d.run(st, fn)
}

// Close releases the device. Samplers and products made on it must be
// closed first; Close is idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if d.closeFn != nil {
		return d.closeFn()
	}
	return nil
}

// newPipe returns a pipe on ex with the device's kernels and arena a.
func (d *Device) newPipe(ex executor, a *arena) *pipe {
	return &pipe{ex: ex, kt: d.kt, arena: a, exact: d.exact}
}

// checkFits returns an error naming both sizes if bytes of device memory
// (what) do not fit the device's free memory.
func (d *Device) checkFits(what string, bytes int64) error {
	free, total, err := d.MemoryInfo()
	if err != nil {
		return err
	}
	if bytes > free {
		return fmt.Errorf("gpu: %s needs %s of device memory; %s has %s free of %s", what, sizeString(bytes), d.name, sizeString(free), sizeString(total))
	}
	return nil
}

// sizeString writes bytes in MiB or GiB, with the exact count.
func sizeString(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB (%d bytes)", float64(b)/(1<<30), b)
	default:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(b)/(1<<20), b)
	}
}
