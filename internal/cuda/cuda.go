//go:build cuda

package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "decl.h"

#define BS_FIELD(name, sym, ret, args) ret(*name) args;
typedef struct { BS_DRIVER_FUNCS(BS_FIELD) } bs_driver;

#define BS_RESOLVE_DRV(name, sym, ret, args) \
	t->name = (ret(*) args)dlsym(h, sym); if (!t->name) return sym;

// bs_resolve_driver returns the first symbol missing from h, or NULL.
static const char *bs_resolve_driver(void *h, bs_driver *t) { BS_DRIVER_FUNCS(BS_RESOLVE_DRV) return NULL; }


// ---- driver calls (cgo cannot call function pointers)
static bs_CUresult d_init(bs_driver *d) { return d->cuInit(0); }
static bs_CUresult d_version(bs_driver *d, int *v) { return d->cuDriverGetVersion(v); }
static bs_CUresult d_count(bs_driver *d, int *n) { return d->cuDeviceGetCount(n); }
static bs_CUresult d_get(bs_driver *d, bs_CUdevice *dev, int ord) { return d->cuDeviceGet(dev, ord); }
static bs_CUresult d_name(bs_driver *d, char *buf, int len, bs_CUdevice dev) { return d->cuDeviceGetName(buf, len, dev); }
static bs_CUresult d_totalmem(bs_driver *d, size_t *b, bs_CUdevice dev) { return d->cuDeviceTotalMem(b, dev); }
static bs_CUresult d_attr(bs_driver *d, int *v, int attr, bs_CUdevice dev) { return d->cuDeviceGetAttribute(v, (bs_CUdevice_attribute)attr, dev); }
static bs_CUresult d_retain(bs_driver *d, bs_CUcontext *c, bs_CUdevice dev) { return d->cuDevicePrimaryCtxRetain(c, dev); }
static bs_CUresult d_release(bs_driver *d, bs_CUdevice dev) { return d->cuDevicePrimaryCtxRelease(dev); }
static bs_CUresult d_setcurrent(bs_driver *d, bs_CUcontext c) { return d->cuCtxSetCurrent(c); }
static bs_CUresult d_sync(bs_driver *d) { return d->cuCtxSynchronize(); }
static bs_CUresult d_alloc(bs_driver *d, bs_CUdeviceptr *p, size_t b) { return d->cuMemAlloc(p, b); }
static bs_CUresult d_free(bs_driver *d, bs_CUdeviceptr p) { return d->cuMemFree(p); }
static bs_CUresult d_htod(bs_driver *d, bs_CUdeviceptr dst, const void *src, size_t b) { return d->cuMemcpyHtoD(dst, src, b); }
static bs_CUresult d_dtoh(bs_driver *d, void *dst, bs_CUdeviceptr src, size_t b) { return d->cuMemcpyDtoH(dst, src, b); }
static bs_CUresult d_meminfo(bs_driver *d, size_t *f, size_t *t) { return d->cuMemGetInfo(f, t); }
static bs_CUresult d_allochost(bs_driver *d, void **p, size_t b) { return d->cuMemAllocHost(p, b); }
static bs_CUresult d_freehost(bs_driver *d, void *p) { return d->cuMemFreeHost(p); }
static bs_CUresult d_hostalloc(bs_driver *d, void **p, size_t b) { return d->cuMemHostAlloc(p, b, BS_CU_MEMHOSTALLOC_PORTABLE | BS_CU_MEMHOSTALLOC_DEVICEMAP); }
static bs_CUresult d_hostptr(bs_driver *d, bs_CUdeviceptr *dp, void *p) { return d->cuMemHostGetDevicePointer(dp, p, 0); }
static bs_CUresult d_htod_async(bs_driver *d, bs_CUdeviceptr dst, const void *src, size_t b, bs_CUstream s) { return d->cuMemcpyHtoDAsync(dst, src, b, s); }
static bs_CUresult d_dtoh_async(bs_driver *d, void *dst, bs_CUdeviceptr src, size_t b, bs_CUstream s) { return d->cuMemcpyDtoHAsync(dst, src, b, s); }
static bs_CUresult d_stream(bs_driver *d, bs_CUstream *s) { return d->cuStreamCreate(s, BS_CU_STREAM_NON_BLOCKING); }
static bs_CUresult d_stdestroy(bs_driver *d, bs_CUstream s) { return d->cuStreamDestroy(s); }
static bs_CUresult d_stsync(bs_driver *d, bs_CUstream s) { return d->cuStreamSynchronize(s); }
static bs_CUresult d_stwait(bs_driver *d, bs_CUstream s, bs_CUevent e) { return d->cuStreamWaitEvent(s, e, 0); }
static bs_CUresult d_function(bs_driver *d, bs_CUfunction *f, bs_CUmodule m, const char *name) { return d->cuModuleGetFunction(f, m, name); }
static bs_CUresult d_unload(bs_driver *d, bs_CUmodule m) { return d->cuModuleUnload(m); }
static bs_CUresult d_funcattr(bs_driver *d, int *v, int attr, bs_CUfunction f) { return d->cuFuncGetAttribute(v, (bs_CUfunction_attribute)attr, f); }
static bs_CUresult d_event(bs_driver *d, bs_CUevent *e, unsigned flags) { return d->cuEventCreate(e, flags); }
static bs_CUresult d_record(bs_driver *d, bs_CUevent e, bs_CUstream s) { return d->cuEventRecord(e, s); }
static bs_CUresult d_evsync(bs_driver *d, bs_CUevent e) { return d->cuEventSynchronize(e); }
static bs_CUresult d_elapsed(bs_driver *d, float *ms, bs_CUevent a, bs_CUevent b) { return d->cuEventElapsedTime(ms, a, b); }
static bs_CUresult d_evdestroy(bs_driver *d, bs_CUevent e) { return d->cuEventDestroy(e); }
static const char *d_errname(bs_driver *d, bs_CUresult r) {
	const char *s = NULL;
	if (d->cuGetErrorName(r, &s) != BS_CUDA_SUCCESS || s == NULL) return "unknown CUresult";
	return s;
}
static const char *d_errstring(bs_driver *d, bs_CUresult r) {
	const char *s = NULL;
	if (d->cuGetErrorString(r, &s) != BS_CUDA_SUCCESS || s == NULL) return "";
	return s;
}

// d_load loads a module image (a fatbin, a cubin or NUL-terminated PTX),
// with the JIT's error log in log (size bytes).
static bs_CUresult d_load(bs_driver *d, bs_CUmodule *m, const void *image, char *log, size_t size) {
	bs_CUjit_option opts[2] = { BS_CU_JIT_ERROR_LOG_BUFFER, BS_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)size };
	return d->cuModuleLoadDataEx(m, image, 2, opts, vals);
}

// d_launch launches f on grid x block threads with the packed parameter
// buffer params (size bytes), on stream s (NULL: the default stream).
static bs_CUresult d_launch(bs_driver *d, bs_CUfunction f, unsigned grid, unsigned block, const void *params, size_t size, bs_CUstream s) {
	void *extra[] = { BS_CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)params, BS_CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
	                  BS_CU_LAUNCH_PARAM_END };
	return d->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, NULL, extra);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Error is a failed call of a CUDA library.
type Error struct {
	Lib  string // "cuda" (the driver), "cusparse" or "cublas"
	Call string // the function, with its sizes where they help
	Code int    // the status code
	Name string // the library's name of the status, e.g. CUDA_ERROR_OUT_OF_MEMORY
	Msg  string // the driver's description, when it has one
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s: %s (%d)", e.Lib, e.Call, e.Name, e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// The status codes that callers act on.
const (
	cudaErrorNoDevice         = 100 // CUDA_ERROR_NO_DEVICE
	cudaErrorOutOfMemory      = 2   // CUDA_ERROR_OUT_OF_MEMORY
	cusparseInsufficientResrc = 11  // CUSPARSE_STATUS_INSUFFICIENT_RESOURCES
	cusparseNotSupported      = 10  // CUSPARSE_STATUS_NOT_SUPPORTED
)

// IsOutOfMemory reports whether err is the driver's out-of-memory status.
func IsOutOfMemory(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Lib == "cuda" && e.Code == cudaErrorOutOfMemory
}

// IsNotSupported reports whether err is cuSPARSE's
// CUSPARSE_STATUS_NOT_SUPPORTED (an operation this library version or
// algorithm lacks).
func IsNotSupported(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Lib == "cusparse" && e.Code == cusparseNotSupported
}

// IsInsufficientResources reports whether err is cuSPARSE's
// CUSPARSE_STATUS_INSUFFICIENT_RESOURCES (the algorithm's memory needs
// exceed the device's).
func IsInsufficientResources(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Lib == "cusparse" && e.Code == cusparseInsufficientResrc
}

// Info describes an opened device.
type Info struct {
	Ordinal         int
	Name            string
	MemoryBytes     int64
	Multiprocessors int
	CCMajor         int // compute capability
	CCMinor         int
	DriverVersion   int // e.g. 13000 for CUDA 13.0
	DriverPath      string
}

func (i Info) String() string {
	return fmt.Sprintf("%s (device %d, compute capability %d.%d, %d SMs, %.1f GiB, driver CUDA %d.%d)", i.Name, i.Ordinal,
		i.CCMajor, i.CCMinor, i.Multiprocessors, float64(i.MemoryBytes)/(1<<30), i.DriverVersion/1000, i.DriverVersion%1000/10)
}

// Context is an opened device: its primary context, current on one locked
// OS thread that runs every call of Do, and on a second one, started at
// the first DoSide, for work on another stream that must not wait behind
// Do's blocking calls.
type Context struct {
	info   Info
	drv    *C.bs_driver
	dev    C.bs_CUdevice
	ctx    C.bs_CUcontext
	work   chan func()
	side   chan func() // under mu; nil until the first DoSide
	mu     sync.Mutex
	closed bool
	lost   error // set when no thread holds the context (Do returns it)

	// Set and used on the context's thread only.
	sparse *Sparse
	blas   *BLAS
	mods   []*Module
}

// Open opens device ordinal (0 is the first GPU): it loads the driver,
// initialises it and makes the device's primary context current on a new
// locked thread. Without a driver or a GPU it returns the driver's error
// (e.g. "cuda: cuInit: CUDA_ERROR_NO_DEVICE (100)").
func Open(ordinal int) (*Context, error) {
	c := &Context{work: make(chan func())}
	if err := c.startThread(c.work, func() error { return c.init(ordinal) }); err != nil {
		return nil, err
	}
	return c, nil
}

// startThread starts a thread of the context: a goroutine locked to its OS
// thread (never unlocked: the thread ends with the goroutine) that runs
// setup and then every function sent on work. It returns setup's error.
func (c *Context) startThread(work chan func(), setup func() error) error {
	errc := make(chan error)
	go func() {
		runtime.LockOSThread()
		if err := setup(); err != nil {
			errc <- err
			return
		}
		errc <- nil
		for fn := range work {
			fn()
		}
	}()
	return <-errc
}

// makeCurrent makes the context current on the calling thread (a thread
// that replaces one ended by runtime.Goexit).
func (c *Context) makeCurrent() error {
	if c.drv == nil { // a context of the tests, without a driver
		return nil
	}
	return c.check("cuCtxSetCurrent", C.d_setcurrent(c.drv, c.ctx))
}

// loadDriver loads libcuda.so.1 into c.drv and initialises it (cuInit).
func (c *Context) loadDriver() error {
	h, lib, err := openLib("the CUDA driver (no NVIDIA driver on this machine?)", []string{"libcuda.so.1"})
	if err != nil {
		return err
	}
	c.drv = (*C.bs_driver)(C.calloc(1, C.size_t(unsafe.Sizeof(C.bs_driver{}))))
	if miss := C.bs_resolve_driver(h, c.drv); miss != nil {
		return fmt.Errorf("cuda: %s lacks %s: the driver is too old", lib.Path, C.GoString(miss))
	}
	c.info.DriverPath = lib.Path
	return c.check("cuInit", C.d_init(c.drv))
}

// DeviceCount returns the number of CUDA devices the driver shows this
// process (those CUDA_VISIBLE_DEVICES leaves), or the driver's error.
func DeviceCount() (int, error) {
	c := &Context{}
	if err := c.loadDriver(); err != nil {
		return 0, err
	}
	defer C.free(unsafe.Pointer(c.drv))
	var n C.int
	if err := c.check("cuDeviceGetCount", C.d_count(c.drv, &n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (c *Context) init(ordinal int) error {
	if err := c.loadDriver(); err != nil {
		return err
	}
	c.info.Ordinal = ordinal
	var v, n C.int
	if err := c.check("cuDriverGetVersion", C.d_version(c.drv, &v)); err != nil {
		return err
	}
	c.info.DriverVersion = int(v)
	if err := c.check("cuDeviceGetCount", C.d_count(c.drv, &n)); err != nil {
		return err
	}
	if ordinal < 0 || ordinal >= int(n) {
		return fmt.Errorf("cuda: device %d: the machine has %d CUDA device(s)", ordinal, n)
	}
	if err := c.check(fmt.Sprintf("cuDeviceGet(%d)", ordinal), C.d_get(c.drv, &c.dev, C.int(ordinal))); err != nil {
		return err
	}
	var name [256]C.char
	if err := c.check("cuDeviceGetName", C.d_name(c.drv, &name[0], C.int(len(name)), c.dev)); err != nil {
		return err
	}
	c.info.Name = C.GoString(&name[0])
	var total C.size_t
	if err := c.check("cuDeviceTotalMem_v2", C.d_totalmem(c.drv, &total, c.dev)); err != nil {
		return err
	}
	c.info.MemoryBytes = int64(total)
	for _, a := range []struct {
		attr C.int
		dst  *int
	}{{C.BS_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &c.info.Multiprocessors},
		{C.BS_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &c.info.CCMajor},
		{C.BS_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &c.info.CCMinor}} {
		var x C.int
		if err := c.check("cuDeviceGetAttribute", C.d_attr(c.drv, &x, a.attr, c.dev)); err != nil {
			return err
		}
		*a.dst = int(x)
	}
	if err := c.check("cuDevicePrimaryCtxRetain", C.d_retain(c.drv, &c.ctx, c.dev)); err != nil {
		return err
	}
	if err := c.check("cuCtxSetCurrent", C.d_setcurrent(c.drv, c.ctx)); err != nil {
		C.d_release(c.drv, c.dev)
		return err
	}
	return nil
}

// check turns a driver status into an *Error naming call.
func (c *Context) check(call string, r C.bs_CUresult) error {
	if r == C.BS_CUDA_SUCCESS {
		return nil
	}
	return &Error{Lib: "cuda", Call: call, Code: int(r), Name: C.GoString(C.d_errname(c.drv, r)), Msg: C.GoString(C.d_errstring(c.drv, r))}
}

// checkf is check with the call's name formatted only on failure: the
// calls a pipeline makes thousands of times (launches, copies,
// allocations) cost no formatting when they succeed.
func (c *Context) checkf(r C.bs_CUresult, format string, a ...any) error {
	if r == C.BS_CUDA_SUCCESS {
		return nil
	}
	return c.check(fmt.Sprintf(format, a...), r)
}

// Info returns the device's description.
func (c *Context) Info() Info { return c.info }

// ErrClosed is returned by Do on a closed context.
var ErrClosed = errors.New("cuda: context is closed")

// ErrGoexit is returned by Do when its function ended the context's
// goroutine with runtime.Goexit, as testing's t.Fatal and t.Skip do: the
// call did not finish, and a new thread has taken over the context.
// errSideLibrary is the error of Thread.Sparse and Thread.BLAS on DoSide's
// thread: the handles are used on Do's thread only.
var errSideLibrary = errors.New("cuda: cuSPARSE and cuBLAS are used on the thread of Do, not of DoSide")

var ErrGoexit = errors.New("cuda: the function given to Do called runtime.Goexit (t.Fatal or t.Skip inside Do?) and did not finish")

// Do runs fn on the context's thread and returns its error. Calls from
// several goroutines run one after the other. A panic in fn is re-raised
// in the caller; a runtime.Goexit in fn (t.Fatal) returns ErrGoexit, and
// the context goes on, on a new thread.
func (c *Context) Do(fn func(t *Thread) error) error { return c.do(false, fn) }

// DoSide is Do on the context's second thread: calls of DoSide run one
// after the other, and beside those of Do, so that a call that blocks on
// its own stream (Thread.SyncStream) does not hold up Do's. Its Thread
// has no cuSPARSE or cuBLAS (they belong to Do's thread).
func (c *Context) DoSide(fn func(t *Thread) error) error { return c.do(true, fn) }

func (c *Context) do(side bool, fn func(t *Thread) error) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.lost != nil {
		c.mu.Unlock()
		return c.lost
	}
	work := c.work
	if side {
		if c.side == nil {
			ch := make(chan func())
			if err := c.startThread(ch, c.makeCurrent); err != nil {
				c.mu.Unlock()
				return fmt.Errorf("cuda: starting the context's second thread: %w", err)
			}
			c.side = ch
		}
		work = c.side
	}
	c.mu.Unlock()
	type result struct {
		err error
		p   any
	}
	res := make(chan result, 1)
	work <- func() {
		returned := false
		defer func() {
			if returned {
				return
			}
			if p := recover(); p != nil {
				res <- result{p: p}
				return
			}
			// runtime.Goexit: this goroutine and its locked thread end once
			// this returns; another takes the context over first.
			err := c.startThread(work, c.makeCurrent)
			if err != nil {
				err = fmt.Errorf("cuda: no thread holds the context any more: %w", err)
				c.mu.Lock()
				c.lost = err
				c.mu.Unlock()
			}
			res <- result{err: errors.Join(ErrGoexit, err)}
		}()
		err := fn(&Thread{c: c, side: side})
		returned = true
		res <- result{err: err}
	}
	r := <-res
	if r.p != nil {
		panic(r.p)
	}
	return r.err
}

// Close destroys the library handles, unloads the modules and releases the
// primary context; it is idempotent. Memory the caller allocated must be
// freed first.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	lost := c.lost
	c.mu.Unlock()
	err := lost
	if lost == nil {
		err = c.closeOnThread()
	}
	c.mu.Lock()
	c.closed = true
	if lost == nil {
		close(c.work)
		if c.side != nil {
			close(c.side)
		}
	}
	c.mu.Unlock()
	return err
}

// closeOnThread destroys the handles and modules and releases the
// primary context, on the context's thread.
func (c *Context) closeOnThread() error {
	return c.Do(func(t *Thread) error {
		var errs []error
		if c.sparse != nil {
			errs = append(errs, c.sparse.destroy())
		}
		if c.blas != nil {
			errs = append(errs, c.blas.destroy())
		}
		for _, m := range c.mods {
			errs = append(errs, c.check("cuModuleUnload", C.d_unload(c.drv, m.m)))
		}
		if c.drv != nil {
			errs = append(errs, c.check("cuDevicePrimaryCtxRelease_v2", C.d_release(c.drv, c.dev)))
		}
		return errors.Join(errs...)
	})
}

// Thread is the context's thread during Do: its methods are the device
// operations, valid only inside the Do that passed it.
type Thread struct {
	c    *Context
	side bool // DoSide's
}

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uint64

// Alloc allocates bytes of device memory (at least 1).
func (t *Thread) Alloc(bytes int64) (DevicePtr, error) {
	var p C.bs_CUdeviceptr
	if err := t.c.checkf(C.d_alloc(t.c.drv, &p, C.size_t(max(bytes, 1))), "cuMemAlloc_v2(%d bytes)", bytes); err != nil {
		return 0, err
	}
	return DevicePtr(p), nil
}

// Free frees memory from Alloc.
func (t *Thread) Free(p DevicePtr) error {
	return t.c.check("cuMemFree_v2", C.d_free(t.c.drv, C.bs_CUdeviceptr(p)))
}

// CopyHtoD copies bytes from host memory src to dst.
func (t *Thread) CopyHtoD(dst DevicePtr, src unsafe.Pointer, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return t.c.checkf(C.d_htod(t.c.drv, C.bs_CUdeviceptr(dst), src, C.size_t(bytes)), "cuMemcpyHtoD_v2(%d bytes)", bytes)
}

// CopyDtoH copies bytes from src to host memory dst.
func (t *Thread) CopyDtoH(dst unsafe.Pointer, src DevicePtr, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return t.c.checkf(C.d_dtoh(t.c.drv, dst, C.bs_CUdeviceptr(src), C.size_t(bytes)), "cuMemcpyDtoH_v2(%d bytes)", bytes)
}

// AllocHost allocates bytes of page-locked host memory (faster copies;
// for overlapping transfers), freed with FreeHost.
func (t *Thread) AllocHost(bytes int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if err := t.c.check(fmt.Sprintf("cuMemAllocHost_v2(%d bytes)", bytes), C.d_allochost(t.c.drv, &p, C.size_t(max(bytes, 1)))); err != nil {
		return nil, err
	}
	return p, nil
}

// FreeHost frees memory from AllocHost.
func (t *Thread) FreeHost(p unsafe.Pointer) error {
	return t.c.check("cuMemFreeHost", C.d_freehost(t.c.drv, p))
}

// MemInfo returns the device's free and total memory.
func (t *Thread) MemInfo() (free, total int64, err error) {
	var f, tot C.size_t
	if err := t.c.check("cuMemGetInfo_v2", C.d_meminfo(t.c.drv, &f, &tot)); err != nil {
		return 0, 0, err
	}
	return int64(f), int64(tot), nil
}

// Synchronize waits for all work issued so far and returns the first
// error of a kernel that failed.
func (t *Thread) Synchronize() error {
	return t.c.check("cuCtxSynchronize", C.d_sync(t.c.drv))
}

// Module is a loaded module, unloaded by the context's Close.
type Module struct {
	m C.bs_CUmodule
	c *Context
}

// LoadModule loads a module image for the device: a fatbin (the driver
// takes the SASS of the device's architecture, or JIT-compiles the PTX
// when it holds none), a cubin, or NUL-terminated PTX. A failure's error
// carries the JIT's log.
func (t *Thread) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("cuda: LoadModule: empty image")
	}
	ci := C.CBytes(image)
	defer C.free(ci)
	var log [8192]C.char
	m := &Module{c: t.c}
	if err := t.c.check(fmt.Sprintf("cuModuleLoadDataEx(%d bytes)", len(image)), C.d_load(t.c.drv, &m.m, ci, &log[0], C.size_t(len(log)))); err != nil {
		if l := C.GoString(&log[0]); l != "" {
			return nil, fmt.Errorf("%w; JIT log: %s", err, strings.TrimSpace(l))
		}
		return nil, err
	}
	t.c.mods = append(t.c.mods, m)
	return m, nil
}

// Function is a kernel of a module.
type Function struct {
	f    C.bs_CUfunction
	name string
}

// Function returns the kernel name of the module.
func (m *Module) Function(name string) (Function, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var f C.bs_CUfunction
	if err := m.c.check(fmt.Sprintf("cuModuleGetFunction(%s)", name), C.d_function(m.c.drv, &f, m.m, cs)); err != nil {
		return Function{}, err
	}
	return Function{f: f, name: name}, nil
}

// Name returns the kernel's entry point.
func (f Function) Name() string { return f.name }

// FuncAttributes are what the driver says of a loaded kernel
// (cuFuncGetAttribute).
type FuncAttributes struct {
	Registers          int // per thread
	LocalBytes         int // per thread: spills and stack
	SharedBytes        int // static shared memory per block
	ConstBytes         int
	MaxThreadsPerBlock int
	PTXVersion         int // e.g. 80: the virtual architecture it was compiled for
	BinaryVersion      int // e.g. 90: the SASS the device runs
}

// Attributes returns f's attributes.
func (t *Thread) Attributes(f Function) (FuncAttributes, error) {
	var a FuncAttributes
	for _, q := range []struct {
		attr C.int
		dst  *int
	}{{C.BS_CU_FUNC_ATTRIBUTE_NUM_REGS, &a.Registers}, {C.BS_CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &a.LocalBytes},
		{C.BS_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &a.SharedBytes}, {C.BS_CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &a.ConstBytes},
		{C.BS_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a.MaxThreadsPerBlock}, {C.BS_CU_FUNC_ATTRIBUTE_PTX_VERSION, &a.PTXVersion},
		{C.BS_CU_FUNC_ATTRIBUTE_BINARY_VERSION, &a.BinaryVersion}} {
		var v C.int
		if err := t.c.check(fmt.Sprintf("cuFuncGetAttribute(%s)", f.name), C.d_funcattr(t.c.drv, &v, q.attr, f.f)); err != nil {
			return a, err
		}
		*q.dst = int(v)
	}
	return a, nil
}

// Launch launches f on grid blocks of block threads, on the default
// stream, with the kernel's parameters packed in params (a struct of
// 8-byte members). It returns launch errors; a failure while the kernel
// runs shows at the next synchronising call.
func (t *Thread) Launch(f Function, grid, block int, params []uint64) error {
	return t.LaunchOn(Stream{}, f, grid, block, params)
}

// LaunchOn is Launch on stream s.
func (t *Thread) LaunchOn(s Stream, f Function, grid, block int, params []uint64) error {
	if len(params) == 0 {
		return fmt.Errorf("cuda: launch of %s without parameters", f.name)
	}
	return t.c.checkf(C.d_launch(t.c.drv, f.f, C.uint(grid), C.uint(block), unsafe.Pointer(&params[0]), C.size_t(8*len(params)), s.s),
		"cuLaunchKernel(%s, %d x %d threads)", f.name, grid, block)
}

// Event is a CUDA event: a point in a stream's work, for timing it
// (NewEvent) or for making another stream wait for it (NewSyncEvent,
// WaitEvent).
type Event struct{ e C.bs_CUevent }

// NewEvent creates an event that records times; destroy it with
// DestroyEvent.
func (t *Thread) NewEvent() (Event, error) {
	var e C.bs_CUevent
	err := t.c.check("cuEventCreate", C.d_event(t.c.drv, &e, 0))
	return Event{e}, err
}

// NewSyncEvent creates an event without timing (CU_EVENT_DISABLE_TIMING,
// the cheaper kind), for ordering streams; destroy it with DestroyEvent.
func (t *Thread) NewSyncEvent() (Event, error) {
	var e C.bs_CUevent
	err := t.c.check("cuEventCreate", C.d_event(t.c.drv, &e, C.BS_CU_EVENT_DISABLE_TIMING))
	return Event{e}, err
}

// Record records e after the work issued so far on the default stream.
func (t *Thread) Record(e Event) error { return t.RecordOn(Stream{}, e) }

// RecordOn records e after the work issued so far on stream s: a stream
// that waits for e (WaitEvent) waits for that work.
func (t *Thread) RecordOn(s Stream, e Event) error {
	return t.c.check("cuEventRecord", C.d_record(t.c.drv, e.e, s.s))
}

// Stream is a queue of device work: the work of one stream runs in the
// order issued, that of two in any order unless an event orders it. The
// zero Stream is the default (legacy) stream, which cuBLAS and cuSPARSE
// use unless told otherwise.
type Stream struct{ s C.bs_CUstream }

// NewStream creates a stream that does not synchronise with the default
// stream (CU_STREAM_NON_BLOCKING): work on the default stream, cuBLAS's
// and cuSPARSE's included, neither waits for it nor makes it wait.
// Destroy it with DestroyStream.
func (t *Thread) NewStream() (Stream, error) {
	var s C.bs_CUstream
	err := t.c.check("cuStreamCreate", C.d_stream(t.c.drv, &s))
	return Stream{s}, err
}

// DestroyStream destroys s once its work is done.
func (t *Thread) DestroyStream(s Stream) error {
	return t.c.check("cuStreamDestroy_v2", C.d_stdestroy(t.c.drv, s.s))
}

// SyncStream waits for the work issued on s and returns the first error of
// a kernel that failed.
func (t *Thread) SyncStream(s Stream) error {
	return t.c.check("cuStreamSynchronize", C.d_stsync(t.c.drv, s.s))
}

// WaitEvent makes the work issued on s from now on wait for e's last
// record (none: no wait), without blocking the host.
func (t *Thread) WaitEvent(s Stream, e Event) error {
	return t.c.check("cuStreamWaitEvent", C.d_stwait(t.c.drv, s.s, e.e))
}

// CopyHtoDAsync copies bytes from host memory src to dst on stream s. From
// pageable memory the driver stages src before it returns, so src may be
// reused at once.
func (t *Thread) CopyHtoDAsync(s Stream, dst DevicePtr, src unsafe.Pointer, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return t.c.checkf(C.d_htod_async(t.c.drv, C.bs_CUdeviceptr(dst), src, C.size_t(bytes), s.s), "cuMemcpyHtoDAsync_v2(%d bytes)", bytes)
}

// CopyDtoHAsync copies bytes from src to host memory dst on stream s: into
// pageable memory it returns once the copy is done; into page-locked memory
// dst is valid after s's next synchronisation.
func (t *Thread) CopyDtoHAsync(s Stream, dst unsafe.Pointer, src DevicePtr, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return t.c.checkf(C.d_dtoh_async(t.c.drv, dst, C.bs_CUdeviceptr(src), C.size_t(bytes), s.s), "cuMemcpyDtoHAsync_v2(%d bytes)", bytes)
}

// AllocMapped allocates bytes of page-locked host memory mapped into the
// device's address space (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP):
// kernels read it at the device address returned, across the bus, with no
// copy (unified virtual addressing). Free it with FreeHost.
func (t *Thread) AllocMapped(bytes int64) (unsafe.Pointer, DevicePtr, error) {
	var p unsafe.Pointer
	if err := t.c.checkf(C.d_hostalloc(t.c.drv, &p, C.size_t(max(bytes, 1))), "cuMemHostAlloc(%d bytes, DEVICEMAP)", bytes); err != nil {
		return nil, 0, err
	}
	var dp C.bs_CUdeviceptr
	if err := t.c.check("cuMemHostGetDevicePointer_v2", C.d_hostptr(t.c.drv, &dp, p)); err != nil {
		_ = t.FreeHost(p)
		return nil, 0, err
	}
	return p, DevicePtr(dp), nil
}

// Elapsed waits for end and returns the milliseconds between start and end.
func (t *Thread) Elapsed(start, end Event) (float32, error) {
	if err := t.c.check("cuEventSynchronize", C.d_evsync(t.c.drv, end.e)); err != nil {
		return 0, err
	}
	var ms C.float
	err := t.c.check("cuEventElapsedTime", C.d_elapsed(t.c.drv, &ms, start.e, end.e))
	return float32(ms), err
}

// DestroyEvent destroys e.
func (t *Thread) DestroyEvent(e Event) error {
	return t.c.check("cuEventDestroy_v2", C.d_evdestroy(t.c.drv, e.e))
}

// Info returns the device's description.
func (t *Thread) Info() Info { return t.c.info }
