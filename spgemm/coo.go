package spgemm

// FromCOO builds a CSR from coordinate (COO) triples in four passes, a
// two-level (blocked) stable counting sort that keeps every random write
// inside a cache-sized region:
//
//  1. count: the input is split into one contiguous chunk per goroutine;
//     each counts its entries per row block (blocks of 2^k consecutive rows,
//     about cooBlockEntries entries each on average);
//  2. partition: each goroutine copies its chunk's (row, column, value)
//     triples into a scratch array grouped by block, at offsets that put
//     chunk 0 before chunk 1 within a block, so input order is kept;
//  3. place: each goroutine takes whole blocks, counts their rows, and after
//     a serial prefix sum writes their entries to the final arrays; a block's
//     destination region is small, so the scattered writes hit the cache;
//  4. finish: each goroutine sorts its rows by column with a stable sort
//     (insertion, pdqsort on packed keys, or LSD radix by length), merges
//     duplicates and compacts its rows to the front of its range; the ranges
//     are then moved together serially, in order, with memmove.
//
// Peak memory is the input, the scratch triples (8 bytes per entry, 12 with
// values) and the output sized for every entry before duplicates are merged
// (8 bytes per entry plus the row offsets): about twice the output. Every
// row's entries reach it in input order and each row is finished by one
// goroutine, so the result, including the floating-point sums of duplicates,
// is identical for any thread count.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/internal/par"
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
	return fromCOO(rows, cols, src, dst, vals, o, cooMinPerThread, cooBlockEntries), nil
}

// fromCOO builds the CSR of checked input with at most one goroutine per
// minPerThread entries and row blocks of about blockEntries entries (tests
// lower both to exercise the parallel and blocked paths on small inputs).
func fromCOO(rows, cols int, src, dst []int32, vals []float32, o COOOptions, minPerThread int, blockEntries int64) *CSR {
	t := par.Threads(o.Threads)
	if maxT := len(src)/minPerThread + 1; t > maxT {
		t = maxT
	}
	if t > rows && rows > 0 {
		t = rows
	}
	if t < 1 {
		t = 1
	}
	b := cooBuilder{rows: rows, cols: cols, src: src, dst: dst, vals: vals, opt: o, threads: t, blockEntries: blockEntries}
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
	return cooCheckIDs(rows, cols, src, dst, 0)
}

// cooCheckIDs returns an error naming the first entry whose row or column id
// is out of range; entry k is called base+k.
func cooCheckIDs(rows, cols int, src, dst []int32, base int64) error {
	// One compare per id catches negatives too. The scan is memory-bound and
	// cheap next to the build, so it stays serial and reports the first entry.
	for k := range src {
		if uint32(src[k]) >= uint32(rows) {
			return fmt.Errorf("%w: entry %d: row id %d outside [0, %d)", ErrCOO, base+int64(k), src[k], rows)
		}
		if uint32(dst[k]) >= uint32(cols) {
			return fmt.Errorf("%w: entry %d: column id %d outside [0, %d)", ErrCOO, base+int64(k), dst[k], cols)
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

	blockEntries int64 // average entries per row block of the placement
}

func (b *cooBuilder) build() *CSR {
	c := &CSR{Rows: b.rows, Cols: b.cols, Indptr: make([]int64, b.rows+1)}
	t := b.threads
	if b.rows == 0 {
		c.Indices, c.Data = []int32{}, []float32{}
		return c
	}
	// Row blocks of 2^shift rows, about cooBlockEntries entries each.
	est := int64(len(b.src))
	if b.opt.Symmetrize {
		est *= 2
	}
	target := max(1, est/b.blockEntries)
	shift := 0
	for shift < 31 && int64((b.rows-1)>>shift+1) > target {
		shift++
	}
	nb := (b.rows-1)>>shift + 1

	// Pass 1: entries per (chunk, block).
	chunk := func(w int) (int, int) { return len(b.src) * w / t, len(b.src) * (w + 1) / t }
	counts := make([][]int64, t)
	par.Do(t, func(w int) {
		counts[w] = make([]int64, nb)
		lo, hi := chunk(w)
		b.countBlocks(counts[w], lo, hi, shift)
	})
	// Offsets: blocks in order, chunks in order within a block.
	blockStart := make([]int64, nb+1)
	var pos int64
	for k := range nb {
		blockStart[k] = pos
		for w := range t {
			cnt := counts[w][k]
			counts[w][k] = pos
			pos += cnt
		}
	}
	blockStart[nb] = pos
	nnz := pos

	// Pass 2: partition the triples by block.
	sc := cooScratch{rows: make([]int32, nnz), cols: make([]int32, nnz)}
	if b.vals != nil {
		sc.vals = make([]float32, nnz)
	}
	par.Do(t, func(w int) {
		lo, hi := chunk(w)
		b.partition(&sc, counts[w], lo, hi, shift)
	})

	// Pass 3: row counts, prefix sum, placement, whole blocks per goroutine.
	bb := cooSplitRows(blockStart, t)
	par.Do(t, func(w int) {
		for _, r := range sc.rows[blockStart[bb[w]]:blockStart[bb[w+1]]] {
			c.Indptr[r+1]++
		}
	})
	for i := range b.rows {
		c.Indptr[i+1] += c.Indptr[i]
	}
	c.Indices = make([]int32, nnz)
	c.Data = make([]float32, nnz)
	par.Do(t, func(w int) {
		for k := bb[w]; k < bb[w+1]; k++ {
			lo, hi := k<<shift, min((k+1)<<shift, b.rows)
			sc.place(c, blockStart[k], blockStart[k+1], lo, hi)
		}
	})
	sc = cooScratch{}
	cooFinish(c, t, b.opt.Duplicates, make([]int64, b.rows), 8)
	return c
}

// cooFinish sorts every row of c, whose entries have been placed in input
// order (duplicates included) in the ranges of c.Indptr, merges duplicates by
// policy and packs the rows together, on t goroutines. newLen is scratch of
// c.Rows elements. When more than 1/shrink of the entries were dropped, the
// arrays are copied to their new length to give the memory back.
func cooFinish(c *CSR, t int, policy DuplicatePolicy, newLen []int64, shrink int64) {
	nnz := c.Indptr[c.Rows]
	bounds := cooSplitRows(c.Indptr, t)
	kept := make([]int64, t) // entries kept by range w, compacted at Indptr[bounds[w]]
	par.Do(t, func(w int) {
		kept[w] = cooFinishRows(c, bounds[w], bounds[w+1], newLen, policy)
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
	for i := 0; i < c.Rows; i++ {
		c.Indptr[i+1] = c.Indptr[i] + newLen[i]
	}
	if out < nnz {
		if nnz-out > nnz/shrink {
			// Give back the memory of many dropped duplicates.
			c.Indices = slices.Clone(c.Indices[:out])
			c.Data = slices.Clone(c.Data[:out])
		} else {
			c.Indices, c.Data = c.Indices[:out:out], c.Data[:out:out]
		}
	}
}

// cooBlockEntries is the average number of entries per row block of the
// placement pass: 64Ki entries are 512 KiB of output, which stays in a
// core's L2 cache while the block's entries are scattered into it.
const cooBlockEntries = 1 << 16

// countBlocks adds to cnt[k] the number of entries of input chunk [lo, hi)
// (reverse entries included) whose row lies in block k.
func (b *cooBuilder) countBlocks(cnt []int64, lo, hi, shift int) {
	drop, sym := b.opt.DropSelfLoops, b.opt.Symmetrize
	for k, s := range b.src[lo:hi] {
		d := b.dst[lo+k]
		if s == d {
			if !drop {
				cnt[s>>shift]++
			}
			continue
		}
		cnt[s>>shift]++
		if sym {
			cnt[d>>shift]++
		}
	}
}

// cooScratch holds the triples grouped by row block.
type cooScratch struct {
	rows, cols []int32
	vals       []float32 // nil: all ones
}

// partition copies the entries of input chunk [lo, hi) (and their reverses)
// to the scratch arrays, advancing next[k], the chunk's next free slot in
// block k.
func (b *cooBuilder) partition(sc *cooScratch, next []int64, lo, hi, shift int) {
	drop, sym := b.opt.DropSelfLoops, b.opt.Symmetrize
	put := func(r, c int32, k int) {
		p := next[r>>shift]
		sc.rows[p], sc.cols[p] = r, c
		if sc.vals != nil {
			sc.vals[p] = b.vals[k]
		}
		next[r>>shift] = p + 1
	}
	for k := lo; k < hi; k++ {
		s, d := b.src[k], b.dst[k]
		if s == d {
			if !drop {
				put(s, d, k)
			}
			continue
		}
		put(s, d, k)
		if sym {
			put(d, s, k)
		}
	}
}

// place writes scratch entries [p, q), which all lie in rows [lo, hi), to
// their rows in c in order.
func (sc *cooScratch) place(c *CSR, p, q int64, lo, hi int) {
	next := slices.Clone(c.Indptr[lo:hi])
	for i := p; i < q; i++ {
		r := int(sc.rows[i]) - lo
		o := next[r]
		c.Indices[o] = sc.cols[i]
		if sc.vals != nil {
			c.Data[o] = sc.vals[i]
		} else {
			c.Data[o] = 1
		}
		next[r] = o + 1
	}
}

// cooFinishRows sorts every row of [lo, hi) by column (stably), merges
// duplicates by policy, records each row's new length in newLen and packs the
// rows to the front of the range. It returns the number of entries kept.
func cooFinishRows(c *CSR, lo, hi int, newLen []int64, policy DuplicatePolicy) int64 {
	var keys []uint64
	var ibuf []int32
	var vbuf []float32
	out := c.Indptr[lo]
	for i := lo; i < hi; i++ {
		p, q := c.Indptr[i], c.Indptr[i+1]
		idx, val := c.Indices[p:q], c.Data[p:q]
		switch {
		case len(idx) >= cooRadixMin:
			ibuf, vbuf = radixSortRow(idx, val, ibuf, vbuf)
		case len(idx) > cooInsertionMax:
			keys, vbuf = cooSortRow(idx, val, keys, vbuf)
		default:
			cooInsertionSort(idx, val)
		}
		m := cooMerge(idx, val, policy)
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

// radixSortRow sorts idx ascending, moving val along, by a stable LSD
// radix sort. ibuf and vbuf are scratch buffers, grown as needed and
// returned for reuse. SortIDs sorts ids alone with V = struct{}, whose
// slices take no memory and whose moves compile to nothing.
func radixSortRow[V float32 | struct{}](idx []int32, val []V, ibuf []int32, vbuf []V) ([]int32, []V) {
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
