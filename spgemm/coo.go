package spgemm

// FromCOO builds a CSR from coordinate (COO) triples in three passes:
//
//  1. count: every goroutine scans all of src (and dst when symmetrising) and
//     counts the entries of its own contiguous range of rows, straight into
//     Indptr, which is then prefix-summed;
//  2. place: the rows are split into ranges of equal entry counts; every
//     goroutine scans the whole input again and writes the entries of its
//     rows in input order (a stable counting sort that needs no scratch array
//     and no atomics, at the price of each goroutine reading all of src);
//  3. finish: every goroutine sorts its rows by column with a stable sort,
//     merges duplicates and compacts its rows to the front of its range; the
//     ranges are then moved together serially, in order, with memmove.
//
// Peak memory is the input plus the output sized for every entry before
// duplicates are merged (12 bytes per entry incl. the temporary per-goroutine
// sort buffers of the longest row). Each output row is produced by one
// goroutine from entries in input order, so the result, including the
// floating-point sums of duplicates, is identical for any thread count.

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// DuplicatePolicy says what FromCOO does with entries that share a (row,
// column) position.
type DuplicatePolicy int

const (
	// SumDuplicates adds the values of the copies (accumulated in float64, in
	// input order). It is the default, as in scipy's coo_matrix.tocsr.
	SumDuplicates DuplicatePolicy = iota
	// KeepFirst keeps the value of the first copy in input order and drops
	// the others. With Symmetrize, entry k comes before its reverse, and both
	// before entry k+1.
	KeepFirst
	// DropDuplicates keeps one entry per position, whose value is the largest
	// of the copies'. The result does not depend on the input order; a 0/1
	// graph stays 0/1, and symmetrising a weighted graph gives max(A, Aᵀ).
	DropDuplicates
)

func (p DuplicatePolicy) String() string {
	switch p {
	case SumDuplicates:
		return "SumDuplicates"
	case KeepFirst:
		return "KeepFirst"
	case DropDuplicates:
		return "DropDuplicates"
	}
	return fmt.Sprintf("DuplicatePolicy(%d)", int(p))
}

// COOOptions modify FromCOO. The zero value (or nil) sums duplicates, keeps
// self loops, adds no reverse entries and uses GOMAXPROCS goroutines.
type COOOptions struct {
	// Duplicates says how entries with the same (row, column) are merged.
	Duplicates DuplicatePolicy
	// Symmetrize adds the reverse entry (dst, src, val) of every entry
	// (src, dst, val) with src != dst before duplicates are merged; it
	// requires rows == cols.
	// Combine it with KeepFirst or DropDuplicates for an unweighted graph, so
	// that an edge stored in both directions does not get value 2.
	Symmetrize bool
	// DropSelfLoops removes the entries with src == dst.
	DropSelfLoops bool
	// Threads is the number of goroutines; <= 0 means runtime.GOMAXPROCS(0).
	// The result does not depend on it.
	Threads int
}

// ErrCOO is wrapped by every error that FromCOO returns.
var ErrCOO = errors.New("spgemm: invalid COO input")

// cooMinPerThread is the fewest entries worth a goroutine: below it the
// scheduling costs more than the scan (a few microseconds per goroutine).
const cooMinPerThread = 1 << 16

// FromCOO returns the rows x cols CSR of the entries (src[k], dst[k], vals[k]):
// src holds row ids and dst column ids. vals nil means every value is 1.
// Rows come out with sorted, unique column ids (duplicates merged by
// opt.Duplicates). It costs O(T·len(src) + nnz·log(row length)) work for T
// goroutines and shares no array with its inputs, which it leaves unchanged.
//
// It returns an error wrapping ErrCOO that names the first offending entry
// when an id lies outside its range, and an error when the shape is invalid,
// the array lengths differ, or Symmetrize is asked of a non-square matrix.
func FromCOO(rows, cols int, src, dst []int32, vals []float32, opt *COOOptions) (*CSR, error) {
	var o COOOptions
	if opt != nil {
		o = *opt
	}
	if err := checkCOO(rows, cols, src, dst, vals, &o); err != nil {
		return nil, err
	}
	return fromCOO(rows, cols, src, dst, vals, o, cooMinPerThread), nil
}

// fromCOO builds the CSR of checked input with at most one goroutine per
// minPerThread entries (tests lower it to exercise the parallel paths).
func fromCOO(rows, cols int, src, dst []int32, vals []float32, o COOOptions, minPerThread int) *CSR {
	t := threadsOf(o.Threads)
	if maxT := len(src)/minPerThread + 1; t > maxT {
		t = maxT
	}
	if t > rows && rows > 0 {
		t = rows
	}
	if t < 1 {
		t = 1
	}
	b := cooBuilder{rows: rows, cols: cols, src: src, dst: dst, vals: vals, opt: o, threads: t}
	return b.build()
}

// checkCOO validates the arguments of FromCOO, naming the first bad entry.
func checkCOO(rows, cols int, src, dst []int32, vals []float32, o *COOOptions) error {
	if rows < 0 || cols < 0 {
		return fmt.Errorf("%w: negative shape %d x %d", ErrCOO, rows, cols)
	}
	if int64(rows) > 1<<31 || int64(cols) > 1<<31 {
		return fmt.Errorf("%w: shape %d x %d exceeds the int32 id range", ErrCOO, rows, cols)
	}
	if len(dst) != len(src) {
		return fmt.Errorf("%w: %d row ids but %d column ids", ErrCOO, len(src), len(dst))
	}
	if vals != nil && len(vals) != len(src) {
		return fmt.Errorf("%w: %d entries but %d values", ErrCOO, len(src), len(vals))
	}
	if o.Symmetrize && rows != cols {
		return fmt.Errorf("%w: Symmetrize needs a square matrix, have %d x %d", ErrCOO, rows, cols)
	}
	switch o.Duplicates {
	case SumDuplicates, KeepFirst, DropDuplicates:
	default:
		return fmt.Errorf("%w: unknown duplicate policy %v", ErrCOO, o.Duplicates)
	}
	// One compare per id catches negatives too. The scan is memory-bound and
	// cheap next to the build, so it stays serial and reports the first entry.
	for k := range src {
		if uint32(src[k]) >= uint32(rows) {
			return fmt.Errorf("%w: entry %d: row id %d outside [0, %d)", ErrCOO, k, src[k], rows)
		}
		if uint32(dst[k]) >= uint32(cols) {
			return fmt.Errorf("%w: entry %d: column id %d outside [0, %d)", ErrCOO, k, dst[k], cols)
		}
	}
	return nil
}

type cooBuilder struct {
	rows     int
	cols     int
	src, dst []int32
	vals     []float32
	opt      COOOptions
	threads  int
}

func (b *cooBuilder) build() *CSR {
	c := &CSR{Rows: b.rows, Cols: b.cols, Indptr: make([]int64, b.rows+1)}
	t := b.threads

	// Pass 1: count per row, each goroutine for an even share of row ids.
	cooParallel(t, func(w int) {
		lo, hi := int32(int64(b.rows)*int64(w)/int64(t)), int32(int64(b.rows)*int64(w+1)/int64(t))
		b.count(c.Indptr, lo, hi)
	})
	for i := 0; i < b.rows; i++ {
		c.Indptr[i+1] += c.Indptr[i]
	}
	nnz := c.Indptr[b.rows]
	c.Indices = make([]int32, nnz)
	c.Data = make([]float32, nnz)

	// Pass 2: place, each goroutine for a range of rows with ~nnz/t entries.
	bounds := cooSplitRows(c.Indptr, t)
	cooParallel(t, func(w int) {
		b.place(c, bounds[w], bounds[w+1])
	})

	// Pass 3: sort rows, merge duplicates, compact within each range.
	kept := make([]int64, t) // entries kept by range w, compacted at Indptr[bounds[w]]
	newLen := make([]int64, b.rows)
	cooParallel(t, func(w int) {
		kept[w] = b.finish(c, bounds[w], bounds[w+1], newLen)
	})
	// Move the compacted ranges together. Range w's destination never passes
	// the start of range w+1's data, so in-order memmoves are safe.
	var out int64
	for w := 0; w < t; w++ {
		start := c.Indptr[bounds[w]]
		if out != start {
			copy(c.Indices[out:], c.Indices[start:start+kept[w]])
			copy(c.Data[out:], c.Data[start:start+kept[w]])
		}
		out += kept[w]
	}
	for i := 0; i < b.rows; i++ {
		c.Indptr[i+1] = c.Indptr[i] + newLen[i]
	}
	if out < nnz {
		if nnz-out > nnz/8 {
			// Give back the memory of many dropped duplicates.
			c.Indices = slices.Clone(c.Indices[:out])
			c.Data = slices.Clone(c.Data[:out])
		} else {
			c.Indices, c.Data = c.Indices[:out:out], c.Data[:out:out]
		}
	}
	return c
}

// count adds to indptr[i+1] the number of entries of every row i in [lo, hi).
func (b *cooBuilder) count(indptr []int64, lo, hi int32) {
	cnt := indptr[1:]
	drop := b.opt.DropSelfLoops
	for k, s := range b.src {
		d := b.dst[k]
		if drop && s == d {
			continue
		}
		if s >= lo && s < hi {
			cnt[s]++
		}
		if b.opt.Symmetrize && s != d && d >= lo && d < hi {
			cnt[d]++
		}
	}
}

// place writes the entries of rows [lo, hi) in input order, keeping the
// next free slot of each of its rows in a local array.
func (b *cooBuilder) place(c *CSR, lo, hi int) {
	if lo == hi {
		return
	}
	next := slices.Clone(c.Indptr[lo:hi])
	l, h := int32(lo), int32(hi)
	drop, sym := b.opt.DropSelfLoops, b.opt.Symmetrize
	for k, s := range b.src {
		d := b.dst[k]
		if drop && s == d {
			continue
		}
		v := float32(1)
		if b.vals != nil {
			v = b.vals[k]
		}
		if s >= l && s < h {
			p := next[s-l]
			c.Indices[p], c.Data[p] = d, v
			next[s-l] = p + 1
		}
		if sym && s != d && d >= l && d < h {
			p := next[d-l]
			c.Indices[p], c.Data[p] = s, v
			next[d-l] = p + 1
		}
	}
}

// finish sorts every row of [lo, hi) by column (stably), merges duplicates,
// records each row's new length in newLen and packs the rows to the front of
// the range. It returns the number of entries kept.
func (b *cooBuilder) finish(c *CSR, lo, hi int, newLen []int64) int64 {
	var keys []uint64
	var ibuf []int32
	var vbuf []float32
	out := c.Indptr[lo]
	for i := lo; i < hi; i++ {
		p, q := c.Indptr[i], c.Indptr[i+1]
		idx, val := c.Indices[p:q], c.Data[p:q]
		switch {
		case len(idx) >= cooRadixMin:
			ibuf, vbuf = cooRadixSortRow(idx, val, ibuf, vbuf)
		case len(idx) > cooInsertionMax:
			keys, vbuf = cooSortRow(idx, val, keys, vbuf)
		default:
			cooInsertionSort(idx, val)
		}
		m := cooMerge(idx, val, b.opt.Duplicates)
		copy(c.Indices[out:], idx[:m])
		copy(c.Data[out:], val[:m])
		out += int64(m)
		newLen[i] = int64(m)
	}
	return out - c.Indptr[lo]
}

// cooInsertionMax is the longest row sorted by insertion; longer rows use a
// pattern-defeating quicksort on packed (column, position) keys. Insertion
// sort wins below a few dozen entries (the same cut-off as the standard
// library's sort).
const cooInsertionMax = 24

// cooInsertionSort sorts idx ascending, moving val along; it is stable.
func cooInsertionSort(idx []int32, val []float32) {
	for i := 1; i < len(idx); i++ {
		c, v := idx[i], val[i]
		j := i
		for ; j > 0 && idx[j-1] > c; j-- {
			idx[j], val[j] = idx[j-1], val[j-1]
		}
		idx[j], val[j] = c, v
	}
}

// cooSortRow sorts idx ascending, moving val along, stably: the keys pack the
// column above the original position, so they are unique and an unstable
// sort of them is stable for the columns. keys and vbuf are scratch buffers,
// grown as needed and returned for reuse.
func cooSortRow(idx []int32, val []float32, keys []uint64, vbuf []float32) ([]uint64, []float32) {
	keys = slices.Grow(keys[:0], len(idx))[:len(idx)]
	for j, c := range idx {
		keys[j] = uint64(uint32(c))<<32 | uint64(j)
	}
	slices.Sort(keys)
	vbuf = append(vbuf[:0], val...)
	for j, k := range keys {
		idx[j] = int32(k >> 32)
		val[j] = vbuf[uint32(k)]
	}
	return keys, vbuf
}

// cooRadixMin is the shortest row sorted by LSD radix sort (8-bit digits,
// passes over digits above the largest column skipped): from a few hundred
// entries its linear passes beat the O(n log n) comparisons of pdqsort
// (BenchmarkFromCOO on R-MAT hubs).
const cooRadixMin = 256

// cooRadixSortRow sorts idx ascending, moving val along, by a stable LSD
// radix sort. ibuf and vbuf are scratch buffers, grown as needed and
// returned for reuse.
func cooRadixSortRow(idx []int32, val []float32, ibuf []int32, vbuf []float32) ([]int32, []float32) {
	n := len(idx)
	ibuf = slices.Grow(ibuf[:0], n)[:n]
	vbuf = slices.Grow(vbuf[:0], n)[:n]
	var bitsUsed uint32
	for _, c := range idx {
		bitsUsed |= uint32(c)
	}
	src, srcV, dst, dstV := idx, val, ibuf, vbuf
	var count [256]int
	for shift := 0; shift < 32 && bitsUsed>>shift != 0; shift += 8 {
		count = [256]int{}
		for _, c := range src {
			count[uint32(c)>>shift&0xff]++
		}
		if count[uint32(src[0])>>shift&0xff] == n {
			continue // one digit value: the pass would not move anything
		}
		sum := 0
		for d, k := range count {
			count[d] = sum
			sum += k
		}
		for j, c := range src {
			d := uint32(c) >> shift & 0xff
			p := count[d]
			dst[p], dstV[p] = c, srcV[j]
			count[d] = p + 1
		}
		src, dst, srcV, dstV = dst, src, dstV, srcV
	}
	if &src[0] != &idx[0] {
		copy(idx, src)
		copy(val, srcV)
	}
	return ibuf, vbuf
}

// cooMerge merges runs of equal columns of a sorted row in place by policy
// and returns the new length.
func cooMerge(idx []int32, val []float32, policy DuplicatePolicy) int {
	m := 0
	for j := 0; j < len(idx); {
		c := idx[j]
		e := j + 1
		for e < len(idx) && idx[e] == c {
			e++
		}
		v := val[j]
		if e-j > 1 {
			switch policy {
			case SumDuplicates:
				s := 0.0
				for _, x := range val[j:e] {
					s += float64(x)
				}
				v = float32(s)
			case DropDuplicates:
				for _, x := range val[j+1 : e] {
					v = max(v, x)
				}
			}
		}
		idx[m], val[m] = c, v
		m++
		j = e
	}
	return m
}

// cooSplitRows returns t+1 row bounds that split the rows into t ranges
// of about equal entry counts, given the prefix-summed indptr.
func cooSplitRows(indptr []int64, t int) []int {
	rows := len(indptr) - 1
	nnz := indptr[rows]
	bounds := make([]int, t+1)
	for w := 1; w < t; w++ {
		target := nnz * int64(w) / int64(t)
		i, _ := slices.BinarySearch(indptr, target)
		bounds[w] = max(min(i, rows), bounds[w-1])
	}
	bounds[t] = rows
	return bounds
}

// cooParallel runs fn(0), ..., fn(t-1) on t goroutines and waits.
func cooParallel(t int, fn func(w int)) {
	if t == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := range t {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}
