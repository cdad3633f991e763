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

// mem is a span of device memory: its device address, and on the
// emulator the same address as a host pointer.
type mem struct {
	addr  uint64
	host  unsafe.Pointer // emulator only
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

// executor runs a call's work on one device. Its methods are called by one
// goroutine at a time (a device's run).
type executor interface {
	alloc(bytes int64) (mem, error)
	free(m mem) error
	upload(dst mem, src unsafe.Pointer, bytes int64) error
	download(dst unsafe.Pointer, src mem, bytes int64) error
	launch(k kernels.Kernel, n int64, params []uint64) error
	// sync waits for the launched work (a timing point).
	sync() error
	// memInfo returns the device's free and total memory.
	memInfo() (free, total int64, err error)
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
// later calls of the same sampler; free releases them.
type arena struct {
	bufs map[string]mem
}

func (a *arena) free(ex executor) error {
	var err error
	for name, m := range a.bufs {
		err = errors.Join(err, ex.free(m))
		delete(a.bufs, name)
	}
	return err
}

// setErr records the first error.
func (p *pipe) setErr(err error) {
	if p.err == nil && err != nil {
		p.err = err
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

// scanChunk is the number of elements one thread of a scan sums.
const scanChunk = 16

// scan returns the buffer name holding the exclusive prefix sums of the n
// integers at in (int32, or int64 when wide) with the total at [n]: n+1
// int64.
func (p *pipe) scan(name string, in mem, wide bool, n int64) mem {
	out := p.buf(name, (n+1)*8)
	p.scanInto(in, wide, n, out, 0)
	return out
}

func (p *pipe) scanInto(in mem, wide bool, n int64, out mem, depth int) {
	if n == 0 {
		p.launch("fill_i64", 1, out, int64(0))
		return
	}
	nch := (n + scanChunk - 1) / scanChunk
	base := p.buf(fmt.Sprintf("scan.base.%d", depth), (nch+1)*8)
	if nch == 1 {
		p.launch("fill_i64", 1, base, int64(0))
	} else {
		partial := p.buf(fmt.Sprintf("scan.partial.%d", depth), nch*8)
		p.launch("scan_partial", nch, in, wide, n, int64(scanChunk), partial)
		p.scanInto(partial, true, nch, base, depth+1)
	}
	p.launch("scan_apply", nch, in, wide, n, int64(scanChunk), base, out)
}

// sortChunk is the number of pairs one thread of the radix sort handles.
const sortChunk = 256

// sortPairs sorts the n (uint64 key, uint32 value) pairs at keys and vals
// stably by the key's low keyBits bits (the others must be 0), 8 bits a
// pass, and returns where the sorted pairs are: keys and vals themselves,
// or the arena's buffers prefix+".k" and prefix+".v".
func (p *pipe) sortPairs(prefix string, keys, vals mem, n int64, keyBits int) (mem, mem) {
	if n <= 1 {
		return keys, vals
	}
	nch := (n + sortChunk - 1) / sortChunk
	hist := p.buf(prefix+".hist", 256*nch*4)
	k2, v2 := p.buf(prefix+".k", n*8), p.buf(prefix+".v", n*4)
	for shift := 0; shift < keyBits; shift += 8 {
		p.launch("rs_hist", nch, keys, n, int64(sortChunk), int64(shift), hist)
		offs := p.scan(prefix+".offs", hist, false, 256*nch)
		p.launch("rs_scatter", nch, keys, vals, n, int64(sortChunk), int64(shift), offs, k2, v2)
		keys, vals, k2, v2 = k2, v2, keys, vals
	}
	return keys, vals
}

// bitLen returns the number of bits of x (0 for 0).
func bitLen(x uint64) int { return bits.Len64(x) }

// tables returns the keys (all -1) and values (all MaxInt32) of k hash
// tables whose offsets are toff (k+1 entries), in the buffers prefix+".keys"
// and prefix+".vals" (bs_ht_insert's tables).
func (p *pipe) tables(prefix string, toff mem, k int64) (keys, vals mem) {
	n := p.readI64(toff, k)
	keys, vals = p.buf(prefix+".keys", n*4), p.buf(prefix+".vals", n*4)
	p.launch("fill_i32", n, keys, int64(-1))
	p.launch("fill_i32", n, vals, int64(math.MaxInt32))
	return keys, vals
}
