//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
	"unsafe"

	"github.com/bulksample/bulksample/internal/cuda"
	"github.com/bulksample/bulksample/internal/cuda/kernels"
)

// Built reports whether this binary was built with the cuda tag.
func Built() bool { return true }

// DeviceCount returns the number of GPUs this process sees (after
// CUDA_VISIBLE_DEVICES), or the driver's error.
func DeviceCount() (int, error) {
	n, err := cuda.DeviceCount()
	if err != nil {
		return 0, fmt.Errorf("gpu: counting CUDA devices: %w", err)
	}
	return n, nil
}

// Open opens CUDA device ordinal: it loads the driver, makes the device's
// primary context current on a thread of its own and loads the kernels'
// fatbin (SASS for sm_80 and sm_90; the driver JIT-compiles its PTX for
// other devices, which Facts' ModuleSeconds shows). Without a driver or a
// GPU it returns the driver's error. With BULKSAMPLE_CUDA_SYNC=1 every
// launch is followed by a synchronisation, so that a failing kernel is
// named in the error (slower; for diagnosis).
func Open(ordinal int) (*Device, error) {
	t0 := time.Now()
	ctx, err := cuda.Open(ordinal)
	if err != nil {
		return nil, fmt.Errorf("gpu: opening CUDA device %d: %w", ordinal, err)
	}
	kt := kernels.Table()
	funcs := make([]cuda.Function, len(kt))
	t1 := time.Now()
	var side cuda.Stream
	err = ctx.Do(func(t *cuda.Thread) error {
		var err error
		if side, err = t.NewStream(); err != nil {
			return err
		}
		mod, err := t.LoadModule(kernels.Image())
		if err != nil {
			return err
		}
		for _, k := range kt {
			f, err := mod.Function(k.Entry())
			if err != nil {
				return err
			}
			funcs[k.ID] = f
		}
		return nil
	})
	if err != nil {
		ctx.Close()
		return nil, fmt.Errorf("gpu: loading the kernels on device %d: %w", ordinal, err)
	}
	opened, module := time.Since(t0), time.Since(t1)
	info := ctx.Info()
	// Enough blocks of 256 threads to fill the device; kernels loop over
	// the rest (grid-stride).
	grid := max(32*info.Multiprocessors, 1)
	syncEach := os.Getenv("BULKSAMPLE_CUDA_SYNC") == "1"
	closeFn := func() error {
		return errors.Join(ctx.Do(func(t *cuda.Thread) error { return t.DestroyStream(side) }), ctx.Close())
	}
	d := &Device{name: info.String(), kt: kt, closeFn: closeFn, native: ctx}
	d.run = func(st stream, fn func(executor) error) error {
		ex := &cudaExec{funcs: funcs, grid: grid, blockGrid: 8 * max(info.Multiprocessors, 1), syncEach: syncEach, costs: &d.costs}
		if st == sideStream {
			// Its own thread: its blocking copies wait for its stream
			// only, and hold up none of the main stream's calls.
			ex.st = side
			return ctx.DoSide(func(t *cuda.Thread) error { ex.t = t; return fn(ex) })
		}
		return ctx.Do(func(t *cuda.Thread) error { ex.t = t; return fn(ex) })
	}
	d.facts = func() (Facts, error) { return cudaFacts(d, ctx, kt, funcs, opened, module) }
	return d, nil
}

// cudaFacts gathers Device.Facts: it loads cuSPARSE and cuBLAS if they are
// not loaded yet (a library that fails to load is described by its error).
func cudaFacts(d *Device, ctx *cuda.Context, kt map[string]kernels.Kernel, funcs []cuda.Function, opened, module time.Duration) (Facts, error) {
	info := ctx.Info()
	f := Facts{Device: d.Name(), ComputeCapability: fmt.Sprintf("%d.%d", info.CCMajor, info.CCMinor),
		Multiprocessors: info.Multiprocessors, MemoryBytes: info.MemoryBytes, Driver: info.DriverPath,
		DriverVersion: info.DriverVersion, OpenSeconds: opened.Seconds(), ModuleSeconds: module.Seconds(), Image: kernels.ImageTargets}
	err := d.do(func(ex executor) error {
		t := ex.(*cudaExec).t
		if sp, err := t.Sparse(); err != nil {
			f.CUSPARSE.Error = err.Error()
		} else {
			f.CUSPARSE = LibraryFacts{Path: sp.Path, Version: sp.Version, Deps: sp.Deps, Features: sp.Features()}
		}
		if bl, err := t.BLAS(); err != nil {
			f.CUBLAS.Error = err.Error()
		} else {
			f.CUBLAS = LibraryFacts{Path: bl.Path, Version: bl.Version, Deps: bl.Deps}
		}
		names := make([]string, 0, len(kt))
		for name := range kt {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			fn := funcs[kt[name].ID]
			a, err := t.Attributes(fn)
			if err != nil {
				return err
			}
			f.Kernels = append(f.Kernels, KernelFacts{Name: fn.Name(), Registers: a.Registers, LocalBytes: a.LocalBytes,
				SharedBytes: a.SharedBytes, ConstBytes: a.ConstBytes, MaxThreadsPerBlock: a.MaxThreadsPerBlock,
				PTXVersion: a.PTXVersion, BinaryVersion: a.BinaryVersion})
		}
		return nil
	})
	if err != nil {
		return f, err
	}
	libs, err := cuda.LoadedLibraries()
	for _, l := range libs {
		f.Loaded = append(f.Loaded, LoadedObject{Path: l.Path, Version: l.Version, Soname: l.Soname, Needed: l.Needed, Runpath: l.Runpath})
	}
	return f, err
}

// cudaExec is the executor of a CUDA device on one stream, valid inside
// one Do (or DoSide).
type cudaExec struct {
	t         *cuda.Thread
	st        cuda.Stream     // the zero Stream: the default stream
	funcs     []cuda.Function // by kernel ID
	grid      int             // blocks of a per-thread kernel's grid-stride loop
	blockGrid int             // the most blocks of a block kernel
	syncEach  bool
	costs     *costCounter
}

// ownStream reports whether e issues on a stream of its own (SampleOn's),
// whose copies are asynchronous on it, rather than on the default stream.
func (e *cudaExec) ownStream() bool { return e.st != cuda.Stream{} }

func (e *cudaExec) alloc(bytes int64) (mem, error) {
	p, err := e.t.Alloc(bytes)
	if err != nil {
		return mem{}, err
	}
	e.costs.alloc(bytes)
	return mem{addr: uint64(p), bytes: bytes}, nil
}

func (e *cudaExec) free(m mem) error {
	if m.addr == 0 {
		return nil
	}
	e.costs.free()
	return e.t.Free(cuda.DevicePtr(m.addr))
}

func (e *cudaExec) upload(dst mem, src unsafe.Pointer, bytes int64) error {
	if bytes > dst.bytes {
		return fmt.Errorf("gpu: upload of %d bytes into a buffer of %d", bytes, dst.bytes)
	}
	e.costs.upload(bytes)
	if e.ownStream() {
		return e.t.CopyHtoDAsync(e.st, cuda.DevicePtr(dst.addr), src, bytes)
	}
	return e.t.CopyHtoD(cuda.DevicePtr(dst.addr), src, bytes)
}

func (e *cudaExec) download(dst unsafe.Pointer, src mem, bytes int64) error {
	if bytes > src.bytes {
		return fmt.Errorf("gpu: download of %d bytes from a buffer of %d", bytes, src.bytes)
	}
	e.costs.download(bytes)
	if e.ownStream() {
		// Into pageable memory the copy is done when it returns; the
		// stream's sync makes that so whatever the memory.
		if err := e.t.CopyDtoHAsync(e.st, dst, cuda.DevicePtr(src.addr), bytes); err != nil {
			return err
		}
		return e.t.SyncStream(e.st)
	}
	return e.t.CopyDtoH(dst, cuda.DevicePtr(src.addr), bytes)
}

func (e *cudaExec) launch(k kernels.Kernel, n int64, params []uint64) error {
	if len(params) != k.Params {
		return fmt.Errorf("%w: %s takes %d words, got %d", kernels.ErrParams, k.Name, k.Params, len(params))
	}
	block, blocks, threads := 256, 0, n
	if k.Threads > 0 {
		// A block kernel's n is its tiles, taken by tickets: any number of
		// blocks finishes them; a few per multiprocessor keep it busy.
		block, blocks, threads = k.Threads, int(min(n, int64(e.blockGrid))), n*int64(k.Threads)
	} else {
		blocks = int(min((n+int64(block)-1)/int64(block), int64(e.grid)))
	}
	if err := e.t.LaunchOn(e.st, e.funcs[k.ID], blocks, block, params); err != nil {
		return err
	}
	e.costs.launch(k, threads)
	if e.syncEach {
		return e.t.SyncStream(e.st)
	}
	return nil
}

func (e *cudaExec) sync() error {
	e.costs.sync()
	return e.t.Synchronize()
}

func (e *cudaExec) syncStream() error {
	e.costs.syncStream()
	return e.t.SyncStream(e.st)
}

func (e *cudaExec) newEvent() (event, error) { return e.t.NewSyncEvent() }

func (e *cudaExec) destroyEvent(ev event) error { return e.t.DestroyEvent(ev.(cuda.Event)) }

func (e *cudaExec) record(ev event) error {
	e.costs.record()
	return e.t.RecordOn(e.st, ev.(cuda.Event))
}

func (e *cudaExec) wait(ev event) error {
	e.costs.wait()
	return e.t.WaitEvent(e.st, ev.(cuda.Event))
}

func (e *cudaExec) memInfo() (free, total int64, err error) { return e.t.MemInfo() }

func (e *cudaExec) allocMapped(bytes int64) (mem, error) {
	h, p, err := e.t.AllocMapped(bytes)
	if err != nil {
		return mem{}, err
	}
	e.costs.allocMapped(bytes)
	return mem{addr: uint64(p), host: h, bytes: bytes}, nil
}

// freeMapped waits for the device's work, which may read m, and frees it.
func (e *cudaExec) freeMapped(m mem) error {
	return errors.Join(e.t.Synchronize(), e.t.FreeHost(m.host))
}

// CUDA returns the device's CUDA context (nil on the emulator), for code
// that calls the libraries itself (cuBLAS, cuSPARSE's SpMM) on the same
// device and thread as the samplers: its Do runs after any call of the
// samplers, and Array.Ptr and Buffer addresses are valid in it.
func (d *Device) CUDA() *cuda.Context {
	c, _ := d.native.(*cuda.Context)
	return c
}
