package gpu

import (
	"errors"
	"fmt"
	"slices"
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
//
// Its streams are as lazy as a GPU's may be: the work issued on a stream
// runs only when something waits for it (a download or a sync of that
// stream, another stream's wait for an event recorded after it, a sync of
// the device, a free, Costs), so that work on one stream that reads what
// another writes without an event between them reads it unwritten.
func NewEmulator(opt EmulatorOptions) *Device {
	if opt.MemoryBytes <= 0 {
		opt.MemoryBytes = 1 << 30
	}
	d := &Device{name: "host emulator", kt: kernels.Table(), exact: opt.Exact}
	em := &emulator{limit: opt.MemoryBytes, order: opt.Order, live: map[uintptr]int64{}, mapped: map[uintptr]int64{}, costs: &d.costs}
	d.run = func(st stream, fn func(executor) error) error {
		em.mu.Lock()
		defer em.mu.Unlock()
		return fn(&emuStream{e: em, st: st})
	}
	d.settle = func() {
		em.mu.Lock()
		defer em.mu.Unlock()
		em.drain()
	}
	return d
}

// emulator is the host executor: C memory, kernels run by kernels.RunHost
// and a queue of work per stream.
type emulator struct {
	mu    sync.Mutex // one run at a time, as on a device's thread
	limit int64
	used  int64
	order uint64 // 0: forward; else the state of the permutations
	live  map[uintptr]int64
	// mapped are the allocations of allocMapped, host memory that does not
	// count against limit.
	mapped map[uintptr]int64
	costs  *costCounter
	q      [numStreams]emuQueue
}

// emuQueue is a stream's work not yet run, and the first error of work run
// while nothing waited for it, returned by the stream's next wait.
type emuQueue struct {
	ops []func() error
	err error
}

// emuEvent is an event of the emulator: its last record.
type emuEvent struct{ last *emuMark }

// emuMark is a record of an event in a stream's work: done once the work
// before it has run.
type emuMark struct {
	st   stream
	done bool
}

// step runs the oldest op of stream st; it reports false when there is
// none. An op's error drops the rest of the stream's queue (on a GPU, the
// work issued after a failure fails too).
func (e *emulator) step(st stream) (bool, error) {
	q := &e.q[st]
	if len(q.ops) == 0 {
		return false, nil
	}
	op := q.ops[0]
	q.ops[0] = nil
	q.ops = q.ops[1:]
	err := op()
	if err != nil {
		clear(q.ops)
		q.ops = q.ops[:0]
	}
	return true, err
}

// flush runs the work of stream st and returns its first error, or the
// error of its work run earlier while nothing waited.
func (e *emulator) flush(st stream) error {
	for {
		ran, err := e.step(st)
		if err != nil || !ran {
			err = errors.Join(e.q[st].err, err)
			e.q[st].err = nil
			return err
		}
	}
}

// until runs the work of m's stream up to m. A wait names a record made
// before it, so the work it runs never waits for the stream running it.
func (e *emulator) until(m *emuMark) error {
	for !m.done {
		ran, err := e.step(m.st)
		if err != nil {
			return fmt.Errorf("emulator: the work an event waits for failed: %w", err)
		}
		if !ran {
			return errors.New("emulator: an event's record was dropped by an earlier failure on its stream")
		}
	}
	return nil
}

// drain runs the work of every stream; an error stays with its stream
// for the stream's next wait.
func (e *emulator) drain() {
	for st := range e.q {
		if err := e.flush(stream(st)); err != nil {
			e.q[st].err = err
		}
	}
}

// drainErr runs the work of every stream and returns their errors.
func (e *emulator) drainErr() error {
	var errs []error
	for st := range e.q {
		errs = append(errs, e.flush(stream(st)))
	}
	return errors.Join(errs...)
}

// emuStream is the emulator's executor on one stream.
type emuStream struct {
	e  *emulator
	st stream
}

func (s *emuStream) enqueue(op func() error) { s.e.q[s.st].ops = append(s.e.q[s.st].ops, op) }

func (s *emuStream) alloc(bytes int64) (mem, error) {
	e := s.e
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

// free waits for the work of every stream, as cuMemFree does, then frees m.
func (s *emuStream) free(m mem) error {
	e := s.e
	if m.host == nil {
		return nil
	}
	bytes, ok := e.live[uintptr(m.host)]
	if !ok {
		return fmt.Errorf("emulator: free of %#x, which is not an allocation", m.addr)
	}
	err := e.drainErr()
	delete(e.live, uintptr(m.host))
	e.used -= bytes
	e.costs.free()
	kernels.Free(m.host)
	return err
}

// upload copies src now (as the driver stages pageable memory) and writes
// it to dst in the stream's turn.
func (s *emuStream) upload(dst mem, src unsafe.Pointer, bytes int64) error {
	if bytes > dst.bytes {
		return fmt.Errorf("emulator: upload of %d bytes into %d", bytes, dst.bytes)
	}
	s.e.costs.upload(bytes)
	staged := slices.Clone(unsafe.Slice((*byte)(src), bytes))
	s.enqueue(func() error {
		copy(unsafe.Slice((*byte)(dst.host), bytes), staged)
		return nil
	})
	return nil
}

func (s *emuStream) download(dst unsafe.Pointer, src mem, bytes int64) error {
	if bytes > src.bytes {
		return fmt.Errorf("emulator: download of %d bytes from %d", bytes, src.bytes)
	}
	s.e.costs.download(bytes)
	if err := s.e.flush(s.st); err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(dst), bytes), unsafe.Slice((*byte)(src.host), bytes))
	return nil
}

// launch checks k's parameters and queues the launch; its other errors
// show where the stream is waited for, as on a GPU.
func (s *emuStream) launch(k kernels.Kernel, n int64, params []uint64) error {
	if len(params) != k.Params {
		return fmt.Errorf("%w: %s takes %d words, got %d", kernels.ErrParams, k.Name, k.Params, len(params))
	}
	threads := n
	if k.Threads > 0 {
		threads = n * int64(k.Threads)
	}
	s.e.costs.launch(k, threads)
	params = slices.Clone(params)
	s.enqueue(func() error { return s.e.run(k, n, params) })
	return nil
}

// run runs a launch of k on n threads (tiles, for a block kernel).
func (e *emulator) run(k kernels.Kernel, n int64, params []uint64) error {
	var tr kernels.Traffic
	var err error
	if k.Threads > 0 {
		tr, err = e.runBlocks(k, n, params)
	} else {
		stride, offset := int64(1), int64(0)
		if e.order != 0 && n > 1 {
			e.order = e.order*6364136223846793005 + 1442695040888963407
			offset = int64(e.order>>1) % n
			stride = int64(e.order>>33)%n | 1
			for gcd(stride, n) != 1 {
				stride = stride%(n-1) + 1
			}
		}
		tr, err = kernels.RunHost(k, params, n, stride, offset)
	}
	if err != nil {
		return fmt.Errorf("gpu: kernel %s on %d threads: %w", k.Entry(), n, err)
	}
	e.costs.traffic(k, tr)
	return nil
}

// runBlocks runs the n tiles of block kernel k on a few blocks: three
// in turn when the order is forward, else 1 to 8 interleaved at random
// (kernels.RunHostBlocks), a new choice per launch.
func (e *emulator) runBlocks(k kernels.Kernel, n int64, params []uint64) (kernels.Traffic, error) {
	grid, seed := min(n, 3), uint64(0)
	if e.order != 0 {
		e.order = e.order*6364136223846793005 + 1442695040888963407
		seed = e.order | 1
		grid = min(n, int64(e.order>>40)%8+1)
	}
	return kernels.RunHostBlocks(k, params, max(grid, 1), seed)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (s *emuStream) sync() error {
	s.e.costs.sync()
	return s.e.drainErr()
}

func (s *emuStream) syncStream() error {
	s.e.costs.syncStream()
	return s.e.flush(s.st)
}

func (s *emuStream) newEvent() (event, error) { return &emuEvent{}, nil }

func (s *emuStream) destroyEvent(event) error { return nil }

func (s *emuStream) record(ev event) error {
	m := &emuMark{st: s.st}
	ev.(*emuEvent).last = m
	s.e.costs.record()
	s.enqueue(func() error { m.done = true; return nil })
	return nil
}

func (s *emuStream) wait(ev event) error {
	s.e.costs.wait()
	m := ev.(*emuEvent).last
	if m == nil || m.done {
		return nil
	}
	if m.st == s.st {
		return nil // a stream's own work is in order
	}
	s.enqueue(func() error { return s.e.until(m) })
	return nil
}

// allocMapped allocates host memory outside the device's limit: on the
// emulator all memory is the host's, read by the kernels in place.
func (s *emuStream) allocMapped(bytes int64) (mem, error) {
	p, err := kernels.Alloc(bytes)
	if err != nil {
		return mem{}, err
	}
	s.e.mapped[uintptr(p)] = bytes
	s.e.costs.allocMapped(bytes)
	return mem{addr: uint64(uintptr(p)), host: p, bytes: bytes}, nil
}

// freeMapped waits for the work of every stream, which may read m, and
// frees it.
func (s *emuStream) freeMapped(m mem) error {
	if _, ok := s.e.mapped[uintptr(m.host)]; !ok || m.host == nil {
		return fmt.Errorf("emulator: freeMapped of %#x, which is not a mapped allocation", m.addr)
	}
	err := s.e.drainErr()
	delete(s.e.mapped, uintptr(m.host))
	kernels.Free(m.host)
	return err
}

func (s *emuStream) memInfo() (free, total int64, err error) {
	return s.e.limit - s.e.used, s.e.limit, nil
}
