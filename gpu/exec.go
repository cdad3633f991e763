package gpu

// The executor: what the samplers and products need from a device (memory,
// copies, kernel launches), implemented by the CUDA device (exec_cuda.go)
// and by the host emulator (emulator.go), and the pipeline helpers built
// on it (scans, radix sort, named buffers reused from call to call).

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/bulksample/bulksample/internal/cuda/kernels"
)

// mem is a span of device memory: its device address, and where it is
// host memory (the emulator's, or page-locked host memory mapped into a
// GPU's address space: allocMapped) its host address.
type mem struct {
	addr  uint64
	host  unsafe.Pointer // the emulator's memory, or mapped host memory
	bytes int64
}

// at returns the span from byte off on.
func (m mem) at(off int64) mem {
	if off < 0 || off > m.bytes {
		panic(fmt.Sprintf("gpu: offset %d outside a buffer of %d bytes", off, m.bytes))
	}
	r := mem{addr: m.addr + uint64(off), bytes: m.bytes - off}
	if m.host != nil {
		r.host = unsafe.Add(m.host, off)
	}
	return r
}

// stream is a queue of a device's work (a cuda.Stream on a GPU): the work
// issued on one runs in the order issued; the work of two runs in any
// order, and at once, unless an event orders it (executor.record, wait).
type stream int

const (
	// mainStream is the device's default stream: the GNN backend's work
	// (its kernels, cuBLAS and cuSPARSE) and every call that names no
	// other (Device.do).
	mainStream stream = iota
	// sideStream is SampleOn's: a held bulk is sampled on it while the
	// bulk before it trains on mainStream, the two ordered by events
	// (held.go). On a GPU it does not synchronise with mainStream, and its
	// calls run on a second host thread (cuda.Context.DoSide).
	sideStream
	numStreams
)

// event marks a point in a stream's work, for another stream to wait
// for: a cuda.Event on a GPU, an *emuEvent on the emulator.
type event any

// executor runs a call's work on one device, on one stream (Device.doOn).
// Its methods are called by one goroutine at a time (a device's run).
// upload, download and launch are ordered on the executor's stream;
// upload may return before the copy is done (its source may be reused at
// once); download returns when the copy and the stream's work before it
// are done.
type executor interface {
	alloc(bytes int64) (mem, error)
	// free frees m once the device's work is done (it may wait for it).
	free(m mem) error
	upload(dst mem, src unsafe.Pointer, bytes int64) error
	download(dst unsafe.Pointer, src mem, bytes int64) error
	launch(k kernels.Kernel, n int64, params []uint64) error
	// sync waits for all the device's work, on every stream (a timing
	// point).
	sync() error
	// syncStream waits for the work issued on the executor's stream.
	syncStream() error
	// newEvent returns an event to record and wait for, destroyed with
	// destroyEvent.
	newEvent() (event, error)
	destroyEvent(ev event) error
	// record records ev after the work issued so far on the executor's
	// stream.
	record(ev event) error
	// wait makes the work issued from now on on the executor's stream wait
	// for ev's last record (none: no wait), without blocking the host.
	wait(ev event) error
	// memInfo returns the device's free and total memory.
	memInfo() (free, total int64, err error)
	// allocMapped allocates page-locked host memory that kernels read and
	// write in place, across the bus (unified virtual addressing): m.host
	// is its host address, m.addr the device's. freeMapped frees it once
	// the device's work is done.
	allocMapped(bytes int64) (mem, error)
	freeMapped(m mem) error
}

// pipe is one call's view of a device: its executor, the kernels by name,
// the buffers it reuses, and the first error, after which every method
// does nothing (bufio.Writer's convention), so that a pipeline of launches
// checks for errors where it reads results back.
type pipe struct {
	ex    executor
	kt    map[string]kernels.Kernel
	arena *arena
	err   error
	// exact sizes every buffer to what is asked, anew on each request (the
	// emulator's Exact option), so that an access past a buffer's end is
	// an access past its allocation, which AddressSanitizer reports.
	exact bool
}

// arena holds named device buffers that grow as needed and are reused by
// later calls of the same sampler; free releases them. Some buffers must
// be zero between calls (bufZero): zeroed names those known to be.
type arena struct {
	bufs   map[string]mem
	zeroed map[string]bool
}

func newArena() arena { return arena{bufs: map[string]mem{}, zeroed: map[string]bool{}} }

func (a *arena) free(ex executor) error {
	var err error
	for name, m := range a.bufs {
		err = errors.Join(err, ex.free(m))
		delete(a.bufs, name)
	}
	clear(a.zeroed)
	return err
}

// setErr records the first error. The work it stopped may have left the
// arena's zero buffers dirty: they are zeroed again at their next use.
func (p *pipe) setErr(err error) {
	if p.err == nil && err != nil {
		p.err = err
		if p.arena != nil {
			clear(p.arena.zeroed)
		}
	}
}

// buf returns the arena's buffer name with at least bytes bytes (its
// contents are stale), growing it by an eighth more than asked when it
// must move.
func (p *pipe) buf(name string, bytes int64) mem {
	if p.err != nil {
		return mem{}
	}
	if m, ok := p.arena.bufs[name]; ok && m.bytes >= bytes && !(p.exact && m.bytes != bytes) {
		return mem{addr: m.addr, host: m.host, bytes: bytes}
	} else if ok {
		p.setErr(p.ex.free(m))
		delete(p.arena.bufs, name)
	}
	want := max(bytes+bytes/8, 64)
	if p.exact {
		want = bytes
	}
	m, err := p.ex.alloc(want)
	if err != nil {
		p.setErr(fmt.Errorf("gpu: %s: %w", name, err))
		return mem{}
	}
	p.arena.bufs[name] = m
	return mem{addr: m.addr, host: m.host, bytes: bytes}
}

// launch runs kernel name on n threads with the parameters after n:
// mem (its address), int, int64, uint64, float64 (as a double) or bool.
func (p *pipe) launch(name string, n int64, args ...any) {
	if p.err != nil || n <= 0 {
		return
	}
	k, ok := p.kt[name]
	if !ok {
		p.setErr(fmt.Errorf("gpu: no kernel %q", name))
		return
	}
	params := make([]uint64, 1, 1+len(args))
	params[0] = uint64(n)
	for _, a := range args {
		switch v := a.(type) {
		case mem:
			params = append(params, v.addr)
		case int:
			params = append(params, uint64(int64(v)))
		case int64:
			params = append(params, uint64(v))
		case uint64:
			params = append(params, v)
		case float64:
			params = append(params, math.Float64bits(v))
		case bool:
			b := uint64(0)
			if v {
				b = 1
			}
			params = append(params, b)
		default:
			panic(fmt.Sprintf("gpu: kernel %s: parameter of type %T", name, a))
		}
	}
	if err := p.ex.launch(k, n, params); err != nil {
		p.setErr(fmt.Errorf("gpu: kernel %s on %d threads: %w", k.Entry(), n, err))
	}
}

// upload copies the elements of s to dst.
func upload[T any](p *pipe, dst mem, s []T) {
	if p.err != nil || len(s) == 0 {
		return
	}
	bytes := int64(len(s)) * int64(unsafe.Sizeof(s[0]))
	p.setErr(p.ex.upload(dst, unsafe.Pointer(&s[0]), bytes))
}

// download copies len(s) elements from src into s.
func download[T any](p *pipe, s []T, src mem) {
	if p.err != nil || len(s) == 0 {
		return
	}
	bytes := int64(len(s)) * int64(unsafe.Sizeof(s[0]))
	p.setErr(p.ex.download(unsafe.Pointer(&s[0]), src, bytes))
}

// put returns a buffer name holding s.
func put[T any](p *pipe, name string, s []T) mem {
	var z T
	m := p.buf(name, max(int64(len(s)), 1)*int64(unsafe.Sizeof(z)))
	upload(p, m, s)
	return m
}

// readI64 returns element i of the int64 array at m.
func (p *pipe) readI64(m mem, i int64) int64 {
	var v [1]int64
	if p.err != nil {
		return 0
	}
	download(p, v[:], m.at(8*i))
	return v[0]
}

// fetchI64 returns n int64 from m.
func (p *pipe) fetchI64(m mem, n int64) []int64 {
	out := make([]int64, n)
	download(p, out, m)
	return out
}

// blockThreads is the block size of the block kernels (BS_T).
const blockThreads = 256

// tiles returns the tiles of BS_T items covering n items (at least 1).
func tiles(n int64) int64 { return max((n+blockThreads-1)/blockThreads, 1) }

// lookBack returns the control and status words of a look-back kernel of
// the given tiles (bs_block.h): zero when made, and left zero by every
// launch, which resets the words it used. The launches of a pipe run one
// after the other, so they share them.
func (p *pipe) lookBack(ntiles int64) (ctl, status mem) {
	m := p.bufZero("lb", 16+8*ntiles)
	return m, m.at(16)
}

// bufZero is buf for a buffer that its users leave zero (the look-back's
// words, the node-wise tables): a new allocation, or one that a failed
// call may have left dirty, is filled with zeros (a launch); a reused one
// is as its last user left it.
func (p *pipe) bufZero(name string, bytes int64) mem {
	before := p.arena.bufs[name]
	m := p.buf(name, bytes)
	if all := p.arena.bufs[name]; p.err == nil && (all != before || p.arena.zeroed == nil || !p.arena.zeroed[name]) {
		p.launch("fill_i64", all.bytes/8, all, int64(0))
		if p.arena.zeroed != nil {
			p.arena.zeroed[name] = true
		}
	}
	return m
}

// bitLen returns the number of bits of x (0 for 0).
func bitLen(x uint64) int { return bits.Len64(x) }
