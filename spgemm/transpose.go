package spgemm

// Transpose is a two-pass radix (bucket) sort of the entries by column,
// blocked for the cache. A direct counting sort scatters every entry to a
// random place in Aᵀ's arrays, two cache misses per entry once Aᵀ is larger
// than the cache. Here the columns are grouped into blocks of 2^shift
// consecutive columns holding about transposeBlockEntries entries on
// average, so that one block of Aᵀ fits in a core's L2 cache:
//
//  1. Rows of A are cut into ranges of equal nonzero count; each range
//     counts its entries per block (ranges x blocks counters, not a
//     histogram per column).
//  2. Each range copies its entries (row, value, column) into the block's
//     region of Aᵀ's arrays (and a column scratch array), at offsets taken
//     block-major, range-minor: the writes go to one stream per block,
//     sequential within each, and within a block the entries stay in row
//     order of A.
//  3. Each block is then counting-sorted by column inside its own region,
//     which is in cache: it counts its columns (filling its part of
//     Aᵀ.Indptr), copies its region to per-thread scratch and scatters it
//     back. Blocks are independent and run in parallel.
//
// Within a column the entries keep the row order of A, so every row of Aᵀ
// comes out sorted; the result is unique and so the same for any thread
// count. Threads write disjoint regions, sharing a cache line at most at a
// region boundary. (An earlier version split the rows of A with a histogram
// per thread and column, which interleaved the pieces of every column
// written by different threads; they fought over those cache lines and it
// ran about 2x slower than the serial loop.) Small matrices, whose Aᵀ fits
// in cache, take the direct counting sort.

import (
	"math/bits"

	"github.com/bulksample/bulksample/internal/par"
)

// transposeBlockEntries is the average number of entries in one column
// block: 64Ki entries are 768 KiB of block scratch (row, value, column),
// within the L2 cache of current cores.
const transposeBlockEntries = 1 << 16

// Transpose returns Aᵀ, which shares no arrays with a. It costs
// O(nnz + a.Rows + a.Cols) time and 4 bytes per nonzero of scratch.
func Transpose(a *CSR, threads int) *CSR {
	return new(CSR).Transpose(a, threads)
}

// Transpose sets c to Aᵀ and returns c, reusing c's arrays when they are
// large enough (a trainer transposes a block of the same size on every
// step; fresh memory is dear, see the design notes). c must not share
// memory with a. It costs what the function Transpose costs; the
// matrices whose transpose fits in cache (up to 2·64Ki entries) need no
// scratch.
func (c *CSR) Transpose(a *CSR, threads int) *CSR {
	checkNoAlias("Transpose", c, "a", a)
	return transposeBlocked(c, a, par.Threads(threads), transposeBlockEntries)
}

// transposeBlocked sets t to aᵀ with blocks of about blockEntries entries.
func transposeBlocked(t, a *CSR, threads int, blockEntries int64) *CSR {
	nnz := a.NNZ()
	t.reset(a.Cols, a.Rows, int(nnz))
	if nnz <= 2*blockEntries {
		transposeDirect(t, a)
		return t
	}
	// Blocks of 2^shift columns, about blockEntries entries each.
	shift := uint(bits.Len64(uint64(int64(a.Cols) * blockEntries / nnz)))
	if shift > 0 {
		shift--
	}
	nb := (a.Cols-1)>>shift + 1
	ranges := par.SplitWork(a.Indptr, threads)
	nr := len(ranges) - 1

	// 1. Entries per range and block.
	off := make([]int64, nr*nb)
	par.For(nr, threads, func(_, r int) {
		cnt := off[r*nb : (r+1)*nb]
		for _, j := range a.Indices[a.Indptr[ranges[r]]:a.Indptr[ranges[r+1]]] {
			cnt[j>>shift]++
		}
	})
	blockStart := make([]int64, nb+1)
	var s int64
	for b := range nb {
		blockStart[b] = s
		for r := range nr {
			c := off[r*nb+b]
			off[r*nb+b] = s
			s += c
		}
	}
	blockStart[nb] = s

	// 2. Bucket the entries by block.
	cols := make([]int32, nnz)
	par.For(nr, threads, func(_, r int) {
		next := off[r*nb : (r+1)*nb]
		for i := ranges[r]; i < ranges[r+1]; i++ {
			lo, hi := a.Indptr[i], a.Indptr[i+1]
			vals := a.Data[lo:hi]
			for p, j := range a.Indices[lo:hi] {
				b := j >> shift
				q := next[b]
				t.Indices[q], t.Data[q], cols[q] = int32(i), vals[p], j
				next[b] = q + 1
			}
		}
	})

	// 3. Counting sort inside each block.
	type scratch struct {
		rows []int32
		vals []float32
		next []int64
	}
	work := make([]scratch, threads)
	par.For(nb, threads, func(w, b int) {
		ws := &work[w]
		lo := b << shift
		hi := min(lo+1<<shift, a.Cols)
		s, e := blockStart[b], blockStart[b+1]
		ends := t.Indptr[lo+1 : hi+1] // this block's part of Indptr
		bcols := cols[s:e]
		for _, j := range bcols {
			ends[int(j)-lo]++
		}
		ws.next = par.Resize(ws.next, hi-lo)
		next := ws.next
		run := s
		for k, c := range ends {
			next[k] = run
			run += c
			ends[k] = run
		}
		ws.rows = append(ws.rows[:0], t.Indices[s:e]...)
		ws.vals = append(ws.vals[:0], t.Data[s:e]...)
		rows, vals := ws.rows, ws.vals[:len(ws.rows)]
		for k, j := range bcols[:len(rows)] {
			q := next[int(j)-lo]
			t.Indices[q], t.Data[q] = rows[k], vals[k]
			next[int(j)-lo] = q + 1
		}
	})
	return t
}

// transposeDirect fills t (sized, Indptr zero) with aᵀ by a counting sort
// on one goroutine. Indptr[j+1] first counts column j, then holds the next
// free place of row j of aᵀ, and ends as that row's end: no scratch.
func transposeDirect(t, a *CSR) {
	ptr := t.Indptr
	for _, j := range a.Indices {
		ptr[j+1]++
	}
	var run int64
	for j := 1; j < len(ptr); j++ {
		run, ptr[j] = run+ptr[j], run
	}
	for i := range a.Rows {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		vals := a.Data[lo:hi]
		for p, j := range a.Indices[lo:hi] {
			q := ptr[j+1]
			t.Indices[q], t.Data[q] = int32(i), vals[p]
			ptr[j+1] = q + 1
		}
	}
}
