package gpu

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/bulksample/bulksample/internal/cuda/kernels"
)

// EmulatorOptions configure NewEmulator.
type EmulatorOptions struct {
	// MemoryBytes is the device memory the emulator reports (free and
	// total) and allows in all; 0 means 1 GiB.
	MemoryBytes int64
	// Order chooses the order of the threads of each launch: 0 runs them
	// forward, and any other value a permutation derived from it (a new one
	// for every launch), so that a test can check that no kernel depends on
	// the order of its threads.
	Order uint64
	// Exact gives every buffer exactly the size a pipeline asks for, freshly
	// allocated when the size changes (instead of reusing larger ones), so
	// that a kernel reading or writing past the end of a buffer touches
	// memory outside any allocation: under `go test -asan` the
	// AddressSanitizer reports it, with the kernel's stack.
	Exact bool
}

// NewEmulator returns a Device that runs the kernels on the host, one
// thread at a time over an emulated grid, from the same per-thread
// functions the PTX holds (package kernels compiles them for the host):
// the samplers and the row-gather product on it compute what they compute
// on a GPU, slowly. It is for tests, and for checking a pipeline where no
// GPU is at hand; products that need cuSPARSE return ErrNoLibrary on it.
func NewEmulator(opt EmulatorOptions) *Device {
	if opt.MemoryBytes <= 0 {
		opt.MemoryBytes = 1 << 30
	}
	d := &Device{name: "host emulator", kt: kernels.Table(), exact: opt.Exact}
	em := &emulator{limit: opt.MemoryBytes, order: opt.Order, live: map[uintptr]int64{}, costs: &d.costs}
	d.run = func(fn func(executor) error) error {
		em.mu.Lock()
		defer em.mu.Unlock()
		return fn(em)
	}
	return d
}

// emulator is the host executor: C memory and kernels run by
// kernels.RunHost.
type emulator struct {
	mu    sync.Mutex // one run at a time, as on a device's thread
	limit int64
	used  int64
	order uint64 // 0: forward; else the state of the permutations
	live  map[uintptr]int64
	costs *costCounter
}

func (e *emulator) alloc(bytes int64) (mem, error) {
	if e.used+bytes > e.limit {
		return mem{}, fmt.Errorf("emulator: out of memory: %d bytes wanted, %d of %d free", bytes, e.limit-e.used, e.limit)
	}
	p, err := kernels.Alloc(bytes)
	if err != nil {
		return mem{}, err
	}
	e.used += bytes
	e.live[uintptr(p)] = bytes
	e.costs.alloc(bytes)
	return mem{addr: uint64(uintptr(p)), host: p, bytes: bytes}, nil
}

func (e *emulator) free(m mem) error {
	if m.host == nil {
		return nil
	}
	bytes, ok := e.live[uintptr(m.host)]
	if !ok {
		return fmt.Errorf("emulator: free of %#x, which is not an allocation", m.addr)
	}
	delete(e.live, uintptr(m.host))
	e.used -= bytes
	e.costs.free()
	kernels.Free(m.host)
	return nil
}

func (e *emulator) upload(dst mem, src unsafe.Pointer, bytes int64) error {
	if bytes > dst.bytes {
		return fmt.Errorf("emulator: upload of %d bytes into %d", bytes, dst.bytes)
	}
	e.costs.upload(bytes)
	copy(unsafe.Slice((*byte)(dst.host), bytes), unsafe.Slice((*byte)(src), bytes))
	return nil
}

func (e *emulator) download(dst unsafe.Pointer, src mem, bytes int64) error {
	if bytes > src.bytes {
		return fmt.Errorf("emulator: download of %d bytes from %d", bytes, src.bytes)
	}
	e.costs.download(bytes)
	copy(unsafe.Slice((*byte)(dst), bytes), unsafe.Slice((*byte)(src.host), bytes))
	return nil
}

func (e *emulator) launch(k kernels.Kernel, n int64, params []uint64) error {
	if k.Threads > 0 {
		return e.launchBlocks(k, n, params)
	}
	stride, offset := int64(1), int64(0)
	if e.order != 0 && n > 1 {
		e.order = e.order*6364136223846793005 + 1442695040888963407
		offset = int64(e.order>>1) % n
		stride = int64(e.order>>33)%n | 1
		for gcd(stride, n) != 1 {
			stride = stride%(n-1) + 1
		}
	}
	tr, err := kernels.RunHost(k, params, n, stride, offset)
	if err == nil {
		e.costs.launch(k, n, tr)
	}
	return err
}

// launchBlocks runs the n tiles of block kernel k on a few blocks: three
// in turn when the order is forward, else 1 to 8 interleaved at random
// (kernels.RunHostBlocks), a new choice per launch.
func (e *emulator) launchBlocks(k kernels.Kernel, n int64, params []uint64) error {
	grid, seed := min(n, 3), uint64(0)
	if e.order != 0 {
		e.order = e.order*6364136223846793005 + 1442695040888963407
		seed = e.order | 1
		grid = min(n, int64(e.order>>40)%8+1)
	}
	tr, err := kernels.RunHostBlocks(k, params, max(grid, 1), seed)
	if err == nil {
		e.costs.launch(k, n*int64(k.Threads), tr)
	}
	return err
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (e *emulator) sync() error {
	e.costs.sync()
	return nil
}

func (e *emulator) memInfo() (free, total int64, err error) { return e.limit - e.used, e.limit, nil }
