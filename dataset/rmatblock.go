package dataset

// Row blocks of an R-MAT graph, built without the edge list. The edges are
// a pure function of their index (rmatEdge), so instead of materialising
// the 2·m directed entries and sorting them (spgemm.FromCOO: the edge list,
// a scratch copy and an output sized for every entry, about 2.5 times the
// file), a block of rows is built in two passes over the edge indices that
// recompute every edge each time (rmatScatter: in batches, grouped by row
// bucket, so that the scattered writes stay local and need no atomics):
//
//  1. count: every entry (u, v) and (v, u) whose row falls in the block
//     adds one to its row;
//  2. place: after a prefix sum, each entry is written at its row's cursor;
//
// then each row is sorted and deduplicated in place and the rows are
// compacted, serially, to the front. Several processes (the ranks of
// `gen rmat` under mpirun, each building its block) share the drawing: in
// each batch a rank draws its share of the edges and sends each entry to
// the rank of its row (BlockComm.AlltoallvInt64), so that the edges are
// drawn once in all rather than once a rank. The block holds only its column ids
// (4 bytes per entry before deduplication), 8 + 4 bytes per row and the
// batch buffers (a quarter of the column ids): the values are all 1 and
// are written without being held. Generating twice costs one more pass of
// hashing, which the local writes more than pay for (R-MAT scale 22: as
// fast as FromCOO, in a third of its memory).

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// rmatRows is rows [lo, hi) of an R-MAT adjacency, values all 1.
type rmatRows struct {
	lo, hi  int
	indptr  []int64 // hi-lo+1 offsets from 0
	indices []int32 // sorted and unique within each row; may have spare capacity
}

func (b *rmatRows) nnz() int64 { return b.indptr[len(b.indptr)-1] }

// rowLengths returns the stored entries of each of the block's rows.
func (b *rmatRows) rowLengths() []int32 {
	deg := make([]int32, b.hi-b.lo)
	for r := range deg {
		deg[r] = int32(b.indptr[r+1] - b.indptr[r])
	}
	return deg
}

// csr returns the block as a (hi-lo) x n CSR with values 1; its Indices
// are the block's, trimmed.
func (b *rmatRows) csr(n int) *spgemm.CSR {
	nnz := b.nnz()
	data := make([]float32, nnz)
	for i := range data {
		data[i] = 1
	}
	return &spgemm.CSR{Rows: b.hi - b.lo, Cols: n, Indptr: b.indptr, Indices: b.indices[:nnz:nnz], Data: data}
}

// rmatBlock returns the rows [lo, hi) of the R-MAT graph of o (defaults
// filled in) whose vertex u of the quadrant descent is named ids[u]: the
// symmetrised graph without self loops and duplicates, as RMAT builds it,
// with its vertices renamed. It is a pure function of (o without Threads,
// ids, lo, hi). With c of several ranks, each building its block (the
// equal cuts of rmatOwner) at once, the ranks share the drawing; an error
// is the exchange's (or ctx's), and every rank must then stop.
func rmatBlock(ctx context.Context, o RMATOptions, ids []int32, lo, hi int, c BlockComm) (*rmatRows, error) {
	rows := hi - lo
	b := &rmatRows{lo: lo, hi: hi, indptr: make([]int64, rows+1)}
	s := newRMATScatter(o, ids, lo, hi, c)
	// Pass 1: row counts, in indptr[r+1].
	count := b.indptr[1:]
	if err := s.pass(ctx, func(entries []uint64) {
		for _, e := range entries {
			count[e>>32]++
		}
	}); err != nil {
		return nil, err
	}
	for r := range rows {
		b.indptr[r+1] += b.indptr[r]
	}
	// Pass 2: place each entry at its row's cursor, indptr[r] (which ends
	// at the row's end, the next row's start: shifted back after).
	b.indices = make([]int32, b.indptr[rows])
	cursor := b.indptr[:rows]
	if err := s.pass(ctx, func(entries []uint64) {
		for _, e := range entries {
			r := e >> 32
			b.indices[cursor[r]] = int32(uint32(e))
			cursor[r]++
		}
	}); err != nil {
		return nil, err
	}
	s = nil // its buffers go before the rows are sorted
	copy(b.indptr[1:], b.indptr[:rows])
	b.indptr[0] = 0
	b.dedupe(par.Threads(o.Threads))
	return b, nil
}

// rmatScatter runs the passes of rmatBlock over the generated edges in
// batches: in each, every goroutine generates a range of the batch's edges
// and keeps the entries of the block's rows (both directions of an edge,
// packed as local row << 32 | column), which are then grouped by row
// bucket (2^shift consecutive rows, about 2^16 entries in all) in a
// scratch array, and the buckets are handed out whole to the goroutines.
// So the scattered writes of a pass stay within one bucket's rows at a
// time, where pages and lines are shared, and no two goroutines write one
// row: no atomics. A batch is a sixteenth of the edges: the buffers (the
// goroutines' entries and the scratch copy, 8 bytes each per entry) hold
// a sixteenth of the block's entries twice, a quarter of the size of its
// column ids. With several ranks (c), a rank draws a p-th of each batch
// and exchanges the entries: the send and receive buffers are two more
// arrays of about a batch's entries of the block.
type rmatScatter struct {
	o       RMATOptions
	ids     []int32
	lo      int
	rows    int
	shift   uint
	levels  []*rmatQuadrants
	key     rngKey
	t       int
	local   [][]uint64 // per goroutine: its entries of the batch
	hist    [][]int64  // per goroutine: its entries per bucket, then its offsets
	scratch []uint64   // the batch's entries grouped by bucket
	// With several ranks: the communicator, per goroutine its drawn
	// entries' counts per rank (the entries, global row << 32 | column,
	// are drawn into local, which then takes the received ones), and the
	// batch's send and receive buffers.
	c      BlockComm
	counts [][]int
	send   []int64
	recv   []int64
}

// rmatBatches is the number of batches of a pass.
const rmatBatches = 16

func newRMATScatter(o RMATOptions, ids []int32, lo, hi int, c BlockComm) *rmatScatter {
	s := &rmatScatter{o: o, ids: ids, lo: lo, rows: hi - lo, levels: rmatLevels(o), key: newKey(o.Seed, streamRMATEdge), t: par.Threads(o.Threads)}
	if c != nil && c.Size() > 1 {
		s.c = c
		s.counts = make([][]int, s.t)
		for w := range s.counts {
			s.counts[w] = make([]int, c.Size())
		}
	}
	// Buckets of about 2^16 entries: 2·EdgeFactor entries per row on
	// average (before duplicates are dropped).
	for s.shift < 30 && int64(2*o.EdgeFactor)<<(s.shift+1) <= 1<<16 {
		s.shift++
	}
	s.local = make([][]uint64, s.t)
	s.hist = make([][]int64, s.t)
	nb := s.rows>>s.shift + 1
	for w := range s.t {
		s.hist[w] = make([]int64, nb)
	}
	return s
}

// pass calls apply on the entries of every bucket of every batch of the
// block's entries; apply runs on several goroutines at once, never on
// entries of the same row. With several ranks it is collective: each
// batch is one exchange.
func (s *rmatScatter) pass(ctx context.Context, apply func(entries []uint64)) error {
	m := int64(s.o.EdgeFactor) << s.o.Scale
	batch := max((m+rmatBatches-1)/rmatBatches, 1<<16)
	nb := len(s.hist[0])
	t := s.t
	for k0 := int64(0); k0 < m; k0 += batch {
		k1 := min(k0+batch, m)
		if s.c == nil {
			s.generate(k0, k1)
		} else if err := s.exchange(ctx, k0, k1); err != nil {
			return err
		}
		// Offsets: bucket-major, goroutine-minor; start[b] is where bucket
		// b begins.
		start := make([]int64, nb+1)
		var off int64
		for bk := range nb {
			start[bk] = off
			for w := range t {
				c := s.hist[w][bk]
				s.hist[w][bk] = off
				off += c
			}
		}
		start[nb] = off
		if int64(cap(s.scratch)) < off {
			s.scratch = make([]uint64, off+off/8)
		}
		scratch := s.scratch[:off]
		par.Do(t, func(w int) {
			hist := s.hist[w]
			for _, e := range s.local[w] {
				bk := e >> 32 >> s.shift
				scratch[hist[bk]] = e
				hist[bk]++
			}
		})
		// Apply: contiguous runs of buckets of about equal entries.
		parallelParts(start, t, func(b0, b1 int) { apply(scratch[start[b0]:start[b1]]) })
	}
	return nil
}

// piece returns the i-th of n about equal pieces of [k0, k1).
func piece(k0, k1 int64, i, n int) (int64, int64) {
	return k0 + (k1-k0)*int64(i)/int64(n), k0 + (k1-k0)*int64(i+1)/int64(n)
}

// edge returns the endpoints of generated edge k, renamed by s.ids; ok is
// false for a self loop, which the graph drops.
func (s *rmatScatter) edge(k int64) (fu, fv int32, ok bool) {
	u, v := rmatEdge(s.key, uint64(k), s.levels)
	fu, fv = s.ids[u], s.ids[v]
	return fu, fv, fu != fv
}

// generate draws the edges [k0, k1), each goroutine a range of them, and
// keeps in its local entries (local row << 32 | column) those of the
// block's rows, counted per bucket in its hist.
func (s *rmatScatter) generate(k0, k1 int64) {
	t, lo, rows := s.t, s.lo, uint32(s.rows)
	par.Do(t, func(w int) {
		local, hist := s.local[w][:0], s.hist[w]
		clear(hist)
		from, to := piece(k0, k1, w, t)
		for k := from; k < to; k++ {
			fu, fv, ok := s.edge(k)
			if !ok {
				continue
			}
			if r := uint32(int(fu) - lo); r < rows {
				local = append(local, uint64(r)<<32|uint64(uint32(fv)))
				hist[r>>s.shift]++
			}
			if r := uint32(int(fv) - lo); r < rows {
				local = append(local, uint64(r)<<32|uint64(uint32(fu)))
				hist[r>>s.shift]++
			}
		}
		s.local[w] = local
	})
}

// exchange is generate shared by the ranks of s.c: this rank draws its
// p-th of the edges [k0, k1) (each goroutine a range of it), sends every
// entry to the rank whose block holds its row (rmatOwner) and keeps what
// it receives, cut into the goroutines' local entries and counted per
// bucket as generate leaves them. The entries of the block's rows are the
// same as generate's, in another order, which neither pass depends on.
func (s *rmatScatter) exchange(ctx context.Context, k0, k1 int64) error {
	p, rank, t := s.c.Size(), s.c.Rank(), s.t
	n := 1 << s.o.Scale
	mine0, mine1 := piece(k0, k1, rank, p)
	par.Do(t, func(w int) {
		drawn, counts := s.local[w][:0], s.counts[w]
		clear(counts)
		from, to := piece(mine0, mine1, w, t)
		for k := from; k < to; k++ {
			fu, fv, ok := s.edge(k)
			if !ok {
				continue
			}
			drawn = append(drawn, uint64(uint32(fu))<<32|uint64(uint32(fv)), uint64(uint32(fv))<<32|uint64(uint32(fu)))
			counts[rmatOwner(fu, n, p)]++
			counts[rmatOwner(fv, n, p)]++
		}
		s.local[w] = drawn
	})
	// The send buffer, rank-major and goroutine-minor.
	sendCounts := make([]int, p)
	offsets := make([][]int, t)
	var off int
	for d := range p {
		for w := range t {
			if offsets[w] == nil {
				offsets[w] = make([]int, p)
			}
			offsets[w][d] = off
			off += s.counts[w][d]
			sendCounts[d] += s.counts[w][d]
		}
	}
	if cap(s.send) < off {
		s.send = make([]int64, off+off/8)
	}
	send := s.send[:off]
	par.Do(t, func(w int) {
		at := offsets[w]
		for _, e := range s.local[w] {
			d := rmatOwner(int32(e>>32), n, p)
			send[at[d]] = int64(e)
			at[d]++
		}
	})
	recv, err := s.c.AlltoallvInt64(ctx, send, sendCounts, s.recv)
	s.recv = recv
	if err != nil {
		return fmt.Errorf("dataset: exchanging R-MAT entries on rank %d of %d: %w", rank, p, err)
	}
	lo, rows := s.lo, uint32(s.rows)
	bad := make([]error, t)
	par.Do(t, func(w int) {
		local, hist := s.local[w][:0], s.hist[w]
		clear(hist)
		for _, e := range recv[len(recv)*w/t : len(recv)*(w+1)/t] {
			r := uint32(int(uint32(uint64(e)>>32)) - lo)
			if r >= rows {
				bad[w] = fmt.Errorf("dataset: rank %d of %d received an R-MAT entry of row %d, outside its rows [%d, %d)", rank, p, uint64(e)>>32, lo, lo+int(rows))
				return
			}
			local = append(local, uint64(r)<<32|uint64(uint32(e)))
			hist[r>>s.shift]++
		}
		s.local[w] = local
	})
	return errors.Join(bad...)
}

// rmatOwner returns the rank whose block holds row v of an n-vertex graph
// cut into p equal blocks [⌊r·n/p⌋, ⌊(r+1)·n/p⌋): the largest r with
// ⌊r·n/p⌋ <= v, that is ⌊((v+1)·p - 1) / n⌋.
func rmatOwner(v int32, n, p int) int {
	return int((int64(v+1)*int64(p) - 1) / int64(n))
}

// dedupe sorts every row, drops its duplicates and compacts the rows to
// the front of indices, rewriting indptr.
func (b *rmatRows) dedupe(t int) {
	rows := b.hi - b.lo
	kept := make([]int32, rows)
	parallelParts(b.indptr, t, func(lo, hi int) {
		var buf []int32
		for r := lo; r < hi; r++ {
			row := b.indices[b.indptr[r]:b.indptr[r+1]]
			buf = spgemm.SortIDs(row, buf)
			kept[r] = int32(len(slices.Compact(row)))
		}
	})
	var w int64
	for r := range rows {
		start := b.indptr[r]
		copy(b.indices[w:], b.indices[start:start+int64(kept[r])])
		b.indptr[r] = w
		w += int64(kept[r])
	}
	b.indptr[rows] = w
}
