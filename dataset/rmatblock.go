package dataset

// Row blocks of an R-MAT graph, built without the edge list. The edges are
// a pure function of their index (rmatEdge), so instead of materialising
// the 2·m directed entries and sorting them (spgemm.FromCOO: the edge list,
// a scratch copy and an output sized for every entry, about 2.5 times the
// file), a block of rows is built in two passes over the edge indices that
// recompute every edge each time:
//
//  1. count: every entry (u, v) and (v, u) whose row falls in the block
//     adds one to its row (atomically: the goroutines take interleaved
//     edge ranges);
//  2. place: after a prefix sum, each entry is written at its row's cursor;
//
// then each row is sorted and deduplicated in place and the rows are
// compacted, serially, to the front. The block holds only its column ids
// (4 bytes per entry before deduplication) and 8 + 4 bytes per row: the
// values are all 1 and are written without being held. Generating twice
// costs about one more pass of hashing (cheap next to the scattered writes
// both ways pay).

import (
	"slices"
	"sync"
	"sync/atomic"

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
// ids, lo, hi).
func rmatBlock(o RMATOptions, ids []int32, lo, hi int) *rmatRows {
	m := int64(o.EdgeFactor) << o.Scale
	levels := rmatLevels(o)
	key := newKey(o.Seed, streamRMATEdge)
	t := numThreads(o.Threads)
	rows := hi - lo
	b := &rmatRows{lo: lo, hi: hi, indptr: make([]int64, rows+1)}
	// Every goroutine takes chunks of edges in turn, so that a heavy range
	// does not keep one busy alone.
	const chunk = 1 << 16
	forEdges := func(fn func(u, v int32)) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range t {
			wg.Go(func() {
				for {
					k0 := next.Add(chunk) - chunk
					if k0 >= m {
						return
					}
					for k := k0; k < min(k0+chunk, m); k++ {
						u, v := rmatEdge(key, uint64(k), levels)
						fu, fv := ids[u], ids[v]
						if fu != fv {
							fn(fu, fv)
						}
					}
				}
			})
		}
		wg.Wait()
	}
	// Pass 1: row counts, in indptr[r+1].
	in := func(x int32) bool { return uint32(int(x)-lo) < uint32(rows) }
	forEdges(func(u, v int32) {
		if in(u) {
			atomic.AddInt64(&b.indptr[int(u)-lo+1], 1)
		}
		if in(v) {
			atomic.AddInt64(&b.indptr[int(v)-lo+1], 1)
		}
	})
	for r := range rows {
		b.indptr[r+1] += b.indptr[r]
	}
	// Pass 2: place each entry at its row's cursor, indptr[r] (which ends
	// at the row's end, the next row's start: shifted back after).
	b.indices = make([]int32, b.indptr[rows])
	cursor := b.indptr[:rows]
	forEdges(func(u, v int32) {
		if in(u) {
			b.indices[atomic.AddInt64(&cursor[int(u)-lo], 1)-1] = v
		}
		if in(v) {
			b.indices[atomic.AddInt64(&cursor[int(v)-lo], 1)-1] = u
		}
	})
	copy(b.indptr[1:], b.indptr[:rows])
	b.indptr[0] = 0
	b.dedupe(t)
	return b
}

// dedupe sorts every row, drops its duplicates and compacts the rows to
// the front of indices, rewriting indptr.
func (b *rmatRows) dedupe(t int) {
	rows := b.hi - b.lo
	kept := make([]int32, rows)
	nnz := b.indptr[rows]
	var wg sync.WaitGroup
	lo := 0
	for w := 1; w <= t; w++ {
		hi := rows
		if w < t {
			hi, _ = slices.BinarySearch(b.indptr, nnz*int64(w)/int64(t))
			hi = min(max(hi, lo), rows)
		}
		if lo := lo; hi > lo {
			wg.Go(func() {
				for r := lo; r < hi; r++ {
					row := b.indices[b.indptr[r]:b.indptr[r+1]]
					slices.Sort(row)
					kept[r] = int32(len(slices.Compact(row)))
				}
			})
		}
		lo = hi
	}
	wg.Wait()
	var w int64
	for r := range rows {
		start := b.indptr[r]
		copy(b.indices[w:], b.indices[start:start+int64(kept[r])])
		b.indptr[r] = w
		w += int64(kept[r])
	}
	b.indptr[rows] = w
}
