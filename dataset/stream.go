package dataset

// Overlapping the stages of a streaming load: decompression runs ahead of
// parsing (readAhead), and the CSR builder's work on one chunk of edges runs
// while the next chunk is parsed (chunkPipe). On a load of edge.csv.gz the
// three stages cost about the same, so this nearly halves the load on two
// cores, for a few MiB of buffers.

import (
	"fmt"
	"io"

	"github.com/bulksample/bulksample/spgemm"
)

// readAhead reads an io.Reader on its own goroutine into a few blocks ahead
// of the consumer. Close stops the goroutine; the underlying reader may be
// closed after it.
type readAhead struct {
	blocks chan []byte // filled blocks, closed after the last
	free   chan []byte // emptied blocks
	done   chan struct{}
	exited chan struct{}
	err    error // the reader's error (io.EOF at the end); set before blocks is closed
	cur    []byte
	last   []byte // the block cur points into, to be freed
}

func newReadAhead(r io.Reader, blockSize, blocks int) *readAhead {
	ra := &readAhead{
		blocks: make(chan []byte, blocks), free: make(chan []byte, blocks),
		done: make(chan struct{}), exited: make(chan struct{}),
	}
	for range blocks {
		ra.free <- make([]byte, blockSize)
	}
	go ra.fill(r)
	return ra
}

func (ra *readAhead) fill(r io.Reader) {
	defer close(ra.exited)
	defer close(ra.blocks)
	for {
		var b []byte
		select {
		case b = <-ra.free:
		case <-ra.done:
			return
		}
		n := 0
		var err error
		for n < len(b) && err == nil {
			var k int
			k, err = r.Read(b[n:])
			n += k
		}
		if n > 0 {
			select {
			case ra.blocks <- b[:n]:
			case <-ra.done:
				return
			}
		}
		if err != nil {
			ra.err = err
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.last != nil {
			ra.free <- ra.last[:cap(ra.last)] // never blocks: free holds every block
			ra.last = nil
		}
		b, ok := <-ra.blocks
		if !ok {
			return 0, ra.err
		}
		ra.cur, ra.last = b, b
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops the reading goroutine and waits for it.
func (ra *readAhead) Close() {
	close(ra.done)
	<-ra.exited
}

// chunkPipe hands chunks of edges to a consumer (the CSR builder) on a
// second goroutine while the producer fills the next chunk: two buffers
// alternate, and chunks reach the consumer one at a time, in order. A
// weighted pipe also carries one value per edge.
type chunkPipe struct {
	bufs    [2][2][]int32 // [buffer][src, dst]
	vals    [2][]float32  // [buffer]; nil unless weighted
	cur     int           // the buffer the producer fills
	pending chan error    // the consumer's result on the other buffer; nil if idle
	fn      func(src, dst []int32, vals []float32) error
}

func newChunkPipe(size int64, fn func(src, dst []int32) error) *chunkPipe {
	return newWeightedChunkPipe(size, false, func(src, dst []int32, _ []float32) error { return fn(src, dst) })
}

// newWeightedChunkPipe is newChunkPipe whose chunks carry values when
// weighted (nil values otherwise).
func newWeightedChunkPipe(size int64, weighted bool, fn func(src, dst []int32, vals []float32) error) *chunkPipe {
	p := &chunkPipe{fn: fn}
	for i := range p.bufs {
		p.bufs[i] = [2][]int32{make([]int32, size), make([]int32, size)}
		if weighted {
			p.vals[i] = make([]float32, size)
		}
	}
	return p
}

// buffers returns the buffers to fill.
func (p *chunkPipe) buffers() (src, dst []int32) { return p.bufs[p.cur][0], p.bufs[p.cur][1] }

// values returns the value buffer to fill, nil unless the pipe is weighted.
func (p *chunkPipe) values() []float32 { return p.vals[p.cur] }

// send hands the first k entries of the buffers to the consumer and returns
// the consumer's error on the previous chunk, if any.
func (p *chunkPipe) send(k int) error {
	if err := p.wait(); err != nil {
		return err
	}
	src, dst, vals := p.bufs[p.cur][0][:k], p.bufs[p.cur][1][:k], p.vals[p.cur]
	if vals != nil {
		vals = vals[:k]
	}
	ch := make(chan error, 1)
	go func() { ch <- p.fn(src, dst, vals) }()
	p.pending = ch
	p.cur ^= 1
	return nil
}

// wait waits for the consumer to finish the chunk it has and returns its
// error. Producers defer it, so that no consumer outlives a failed load.
func (p *chunkPipe) wait() error {
	if p.pending == nil {
		return nil
	}
	err := <-p.pending
	p.pending = nil
	return err
}

// buildCSR builds an n x n CSR in the two streaming passes of a
// spgemm.CSRBuilder. read(pass, emit) must hand emit the same entries
// (rows, cols and, for weighted input, vals; nil otherwise) on both passes:
// the first pass counts them, the second places them into the final arrays.
// Errors of the builder are prefixed with name.
func buildCSR(name string, n int, opt *spgemm.COOOptions, read func(pass int, emit func(rows, cols []int32, vals []float32) error) error) (*spgemm.CSR, error) {
	return buildCSRRows(name, n, 0, n, opt, read)
}

// buildCSRRows builds rows [lo, hi) of the n x n CSR that buildCSR builds
// from the same entries, as a (hi-lo) x n CSR whose row r is row lo+r: equal,
// bit for bit, to those rows of buildCSR's result. Both passes keep only the
// entries whose row lies in the range, reverse entries included, so the
// builder holds the block's arrays and hi-lo counters, never the graph's.
func buildCSRRows(name string, n, lo, hi int, opt *spgemm.COOOptions, read func(pass int, emit func(rows, cols []int32, vals []float32) error) error) (*spgemm.CSR, error) {
	var o spgemm.COOOptions
	if opt != nil {
		o = *opt
	}
	var f *rowFilter
	if lo != 0 || hi != n {
		if lo < 0 || lo > hi || hi > n {
			return nil, fmt.Errorf("%s: row block [%d, %d) outside the %d rows", name, lo, hi, n)
		}
		// The filter adds the reverse entries and drops the self loops
		// itself: the builder sees the block's entries as they are.
		f = &rowFilter{n: int32(n), lo: int32(lo), hi: int32(hi), sym: o.Symmetrize, drop: o.DropSelfLoops}
		o.Symmetrize, o.DropSelfLoops = false, false
	}
	b, err := spgemm.NewCSRBuilder(hi-lo, n, &o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for pass := range 2 {
		err := read(pass, func(rows, cols []int32, vals []float32) error {
			if f != nil {
				var err error
				if rows, cols, vals, err = f.keep(rows, cols, vals); err != nil {
					return err
				}
			}
			if pass == 0 {
				return b.Count(rows, cols)
			}
			return b.Place(rows, cols, vals)
		})
		if err != nil {
			return nil, err
		}
	}
	adj, err := b.CSR()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return adj, nil
}

// rowFilter keeps the entries of one row block of a chunk, reverse entries
// included, renumbering their rows from 0. It reuses its buffers: the
// builder consumes one chunk before the next is filtered.
type rowFilter struct {
	n, lo, hi int32
	sym, drop bool // add reverse entries; drop self loops

	rows, cols []int32
	vals       []float32
}

// keep returns the entries of the chunk whose rows lie in [lo, hi), in the
// order in which a spgemm.CSRBuilder with the filter's options would place
// them: each entry, then its reverse. Ids outside [0, n) are an error
// (wrapping spgemm.ErrCOO), as the whole builder reports them.
func (f *rowFilter) keep(rows, cols []int32, vals []float32) ([]int32, []int32, []float32, error) {
	f.rows, f.cols, f.vals = f.rows[:0], f.cols[:0], f.vals[:0]
	add := func(r, c int32, v float32, weighted bool) {
		f.rows = append(f.rows, r-f.lo)
		f.cols = append(f.cols, c)
		if weighted {
			f.vals = append(f.vals, v)
		}
	}
	w := vals != nil
	for k, r := range rows {
		c := cols[k]
		if uint32(r) >= uint32(f.n) || uint32(c) >= uint32(f.n) {
			return nil, nil, nil, fmt.Errorf("%w: entry (%d, %d) outside the %d x %d matrix", spgemm.ErrCOO, r, c, f.n, f.n)
		}
		var v float32
		if w {
			v = vals[k]
		}
		if r == c && f.drop {
			continue
		}
		if r >= f.lo && r < f.hi {
			add(r, c, v, w)
		}
		if f.sym && r != c && c >= f.lo && c < f.hi {
			add(c, r, v, w)
		}
	}
	if !w {
		return f.rows, f.cols, nil, nil
	}
	return f.rows, f.cols, f.vals, nil
}
