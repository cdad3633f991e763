package spgemm

// Mul computes C = A·B row by row (Gustavson 1978): row i of C is the sum of
// the rows B(k,:) scaled by A(i,k), over the entries of row i of A. The kernel
// follows SuiteSparse:GraphBLAS's saxpy3 (Davis, ACM TOMS 2019/2023,
// Source/mxm/GB_AxB_saxpy3*.c) and Nagasaka et al. (ICPP 2018):
//
//  1. Flop count: flops_i = Σ_k∈A(i,:) nnz(B(k,:)), kept as a prefix sum
//     shaped like Indptr (RowFlops). With a mask, row i's work also counts
//     nnz(M(i,:)).
//  2. Split: the rows are cut into contiguous ranges of equal work (flops plus
//     one per row), par.ChunksPerThread ranges per thread, handed out dynamically;
//     each row is computed by exactly one goroutine.
//  3. Symbolic phase: every row's nnz(C(i,:)) is counted into C.Indptr with
//     the row's accumulator; a scan over the ranges turns counts into offsets,
//     and C.Indices and C.Data are allocated once (or reused).
//  4. Numeric phase: every row is accumulated again, this time with values,
//     straight into its final place, and its column ids sorted.
//
// Accumulator per row, GraphBLAS's rule: the hash table for a row would have
// h = the next power of two >= 2·flops_i slots; if h > b.Cols/16 the row uses
// the dense accumulator, otherwise the hash accumulator.
//
//   - Dense (Gustavson's SPA), per thread: a bitmap of b.Cols bits marks the
//     row's columns and a float32 array of b.Cols holds their values; the
//     symbolic phase only sets bits and counts them, the numeric phase adds
//     every term without a branch (bit |= 1; acc[j] += a·b) and emits the row
//     by walking the bitmap's set bits, which gives the columns sorted with no
//     sort and leaves bitmap and array zeroed for the next row. The bitmap
//     (b.Cols/8 bytes) stays in L1/L2 where an int32 marker would not; the walk
//     costs b.Cols/64 words, at most about 2·flops_i by the rule above.
//   - Hash: open addressing with linear probing and multiplicative hashing of
//     the column id (Knuth), cleared per row in O(h); the row's columns are
//     appended on first insertion, sorted (insertion sort below 32, pdqsort
//     above) and their values looked up again.
//
// Masked rows keep an int32 generation stamp per column (never cleared) to
// tell listed, forbidden and touched columns apart.
//
// Special rows: a row of A with one entry is a scaled copy of a row of B and
// needs no accumulator; when every row of A has exactly one entry and there is
// no mask (A is a row selection Q, the sampling shape P = Q·A), the whole
// product is a gather with no symbolic phase.
//
// Add (C = Add + A·B): Add(i,:) is loaded into the row's accumulator before
// the terms (its values as the starting sums, its columns counted as keys);
// a row with an empty Add(i,:) is computed as without Add.
//
// Masks: with C<M>, M(i,:) is loaded into the accumulator as the set of
// allowed columns and C(i,:) is emitted by walking M(i,:), already sorted;
// with C<¬M>, M(i,:) is loaded as forbidden columns.
//
// Determinism: C(i,j) = 0 + the terms float32(A(i,k)·B(k,j)) added in float32
// in the order of A's row i (k ascending), whatever the thread count, the
// split or the accumulator, so the result has the same bits for any of them
// (and the same as the serial Gustavson reference). The products are
// converted explicitly so that no compiler fuses them into FMAs. A row of A
// with one entry gives exactly A(i,k)·B(k,:) (the sign of a zero kept).
//
// The thresholds are GraphBLAS's starting points; BenchmarkMul* in
// bench_test.go is where to re-tune them.

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/bulksample/bulksample/internal/par"
)

// denseRatio: a row whose hash table would exceed b.Cols/denseRatio slots
// uses the dense accumulator (GraphBLAS GB_AxB_saxpy3_slice_balanced: 16).
const denseRatio = 16

// Mul returns C = A·B over plus-times. See (*CSR).Mul.
func Mul(a, b *CSR, opt *MulOptions) *CSR {
	var c CSR
	return c.Mul(a, b, opt)
}

// Mul sets c = A·B over plus-times, with the mask, accumulator and thread
// count of opt (nil means a plain product on GOMAXPROCS threads), and returns
// c. The result satisfies the CSR invariant and has the same bits for any
// thread count and accumulator. c's arrays are reused when their capacity
// suffices; a zero CSR is a valid destination.
//
// The cost is O(flops + nnz(C)·log nnz(C)/row + rows) time, where flops =
// Σ_i Σ_k∈A(i,:) nnz(B(k,:)), plus O(b.Cols) memory per thread for the rows
// that use the dense accumulator.
//
// It panics with a ShapeError if a.Cols != b.Rows or the mask is not a.Rows x
// b.Cols, and with an ArgError if c is a, b or the mask, or shares an array
// with one of them.
func (c *CSR) Mul(a, b *CSR, opt *MulOptions) *CSR {
	var o MulOptions
	if opt != nil {
		o = *opt
	}
	if a.Cols != b.Rows {
		panic(ShapeError{Op: "Mul", ARows: a.Rows, ACols: a.Cols, BRows: b.Rows, BCols: b.Cols})
	}
	if m := o.Mask; m != nil && (m.Rows != a.Rows || m.Cols != b.Cols) {
		panic(ShapeError{Op: "Mul mask", ARows: m.Rows, ACols: m.Cols, BRows: a.Rows, BCols: b.Cols})
	}
	if ad := o.Add; ad != nil && (ad.Rows != a.Rows || ad.Cols != b.Cols) {
		panic(ShapeError{Op: "Mul add", ARows: ad.Rows, ACols: ad.Cols, BRows: a.Rows, BCols: b.Cols})
	}
	if o.Add != nil && (o.Mask != nil || o.ComplementMask) {
		panic(ArgError{Op: "Mul", Msg: "Add cannot be combined with a mask"})
	}
	checkNoAlias("Mul", c, "a", a)
	checkNoAlias("Mul", c, "b", b)
	if o.Mask != nil {
		checkNoAlias("Mul", c, "mask", o.Mask)
	}
	if o.Add != nil {
		checkNoAlias("Mul", c, "add", o.Add)
	}
	threads := par.Threads(o.Threads)

	if o.Mask == nil && o.ComplementMask {
		// ¬(no mask) excludes every entry.
		c.reset(a.Rows, b.Cols, 0)
		return c
	}
	if o.Mask == nil && o.Add == nil && isSelection(a) {
		gatherScaled(c, b, a.Indices, a.Data, o.StructureOnly, threads)
		c.Rows = a.Rows
		return c
	}

	p := &mulProblem{
		a: a, b: b, mask: o.Mask, complement: o.ComplementMask, add: o.Add,
		structure: o.StructureOnly, accum: o.Accumulator,
	}
	p.flops = RowFlops(a, b, threads)
	work := p.flops
	if extra := cmp.Or(p.mask, p.add); extra != nil {
		work = make([]int64, a.Rows+1)
		for i := range work {
			work[i] = p.flops[i] + extra.Indptr[i]
		}
	}
	bounds := par.SplitWork(work, threads*par.ChunksPerThread)
	chunks := len(bounds) - 1
	spaces := make([]mulWorkspace, min(threads, chunks))

	// Symbolic phase: counts into c.Indptr[i+1], totals per range.
	c.Indptr = par.Resize(c.Indptr, a.Rows+1)
	c.Indptr[0] = 0
	chunkNNZ := make([]int64, chunks+1)
	par.For(chunks, threads, func(w, ch int) {
		ws := &spaces[w]
		var total int64
		for i := bounds[ch]; i < bounds[ch+1]; i++ {
			n := ws.count(p, i, nil)
			c.Indptr[i+1] = int64(n)
			total += int64(n)
		}
		chunkNNZ[ch+1] = total
	})
	for ch := range chunks {
		chunkNNZ[ch+1] += chunkNNZ[ch]
	}
	nnz := chunkNNZ[chunks]
	c.Indices = par.Resize(c.Indices, int(nnz))
	c.Data = par.Resize(c.Data, int(nnz))
	c.Rows, c.Cols = a.Rows, b.Cols

	// Numeric phase: each range turns its counts into offsets and fills its
	// rows in place.
	par.For(chunks, threads, func(w, ch int) {
		ws := &spaces[w]
		off := chunkNNZ[ch]
		for i := bounds[ch]; i < bounds[ch+1]; i++ {
			end := off + c.Indptr[i+1]
			idx, val := c.Indices[off:end:end], c.Data[off:end:end]
			if p.structure {
				ws.count(p, i, idx)
				fillOnes(val)
			} else {
				ws.fill(p, i, idx, val)
			}
			c.Indptr[i+1] = end
			off = end
		}
	})
	return c
}

// RowFlops returns the flop count of each row of A·B as a prefix sum shaped
// like a.Indptr: row i of the product costs flops[i+1]-flops[i] =
// Σ_k∈A(i,:) nnz(B(k,:)) multiply-adds, and flops[a.Rows] is the total. It
// panics with a ShapeError if a.Cols != b.Rows.
func RowFlops(a, b *CSR, threads int) []int64 {
	if a.Cols != b.Rows {
		panic(ShapeError{Op: "RowFlops", ARows: a.Rows, ACols: a.Cols, BRows: b.Rows, BCols: b.Cols})
	}
	flops := make([]int64, a.Rows+1)
	if a.Rows == 0 {
		return flops
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			var f int64
			for _, k := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
				f += b.Indptr[k+1] - b.Indptr[k]
			}
			flops[i+1] = f
		}
	})
	for i := range a.Rows {
		flops[i+1] += flops[i]
	}
	return flops
}

// isSelection reports whether every row of a has exactly one entry.
func isSelection(a *CSR) bool {
	if len(a.Indptr) != a.Rows+1 {
		return a.Rows == 0
	}
	for i, p := range a.Indptr {
		if p != int64(i) {
			return false
		}
	}
	return true
}

// mulProblem is one product C<M> = A·B being computed.
type mulProblem struct {
	a, b, mask *CSR
	add        *CSR // C = add + A·B (no mask then)
	complement bool // mask is complemented
	structure  bool // pattern only
	accum      Accumulator
	flops      []int64 // RowFlops(a, b)
}

// useDense reports whether row i, whose hash table would need keys slots,
// uses the dense accumulator.
func (p *mulProblem) useDense(keys int64) bool {
	switch p.accum {
	case DenseAccumulator:
		return true
	case HashAccumulator:
		return false
	}
	return hashSize(keys) > int64(p.b.Cols)/denseRatio
}

// hashSize is the number of slots of a hash table for n keys: the next power
// of two >= 2n (a load factor of at most one half).
func hashSize(n int64) int64 {
	if n <= 1 {
		return 2
	}
	return 1 << bits.Len64(uint64(2*n-1))
}

// hashMul is Knuth's multiplicative hashing constant (2^32/φ).
const hashMul = 0x9E3779B1

// mulWorkspace is one goroutine's scratch space for Mul, allocated on first
// use and reused across rows and both phases.
type mulWorkspace struct {
	// Dense accumulator: stamp[j] == touched means column j has a value in
	// vals[j] for the current row. Stamps are never cleared; gen grows.
	stamp []int32
	gen   int32
	// bits has one bit per column, set for the columns of the current
	// (unmasked) row and cleared as the row is emitted; acc holds their
	// values and is zeroed as they are emitted. Both are all zero between
	// rows.
	bits []uint64
	acc  []float32

	// Hash accumulator: keys[s] is column+1 (0: empty slot), hvals[s] its
	// value and state[s] its mask state (masked rows only).
	keys  []uint32
	hvals []float32
	state []uint8
}

// Mask states of a hash slot.
const (
	slotListed  uint8 = iota // in M(i,:), no contribution yet
	slotTouched              // has a contribution
)

// fresh returns a generation g such that no column is stamped g or g+1.
func (w *mulWorkspace) fresh(cols int) int32 {
	if len(w.stamp) < cols {
		w.stamp = make([]int32, cols)
		w.gen = 0
	}
	if w.gen >= math.MaxInt32-2 {
		clear(w.stamp)
		w.gen = 0
	}
	g := w.gen + 1
	w.gen += 2
	return g
}

// bitmap returns the all-zero column bitmap for b.Cols = cols.
func (w *mulWorkspace) bitmap(cols int) []uint64 {
	words := (cols + 63) / 64
	if len(w.bits) < words {
		w.bits = make([]uint64, words)
	}
	return w.bits[:words]
}

// accumulator returns the all-zero dense value array for b.Cols = cols.
func (w *mulWorkspace) accumulator(cols int) []float32 {
	if len(w.acc) < cols {
		w.acc = make([]float32, cols)
	}
	return w.acc[:cols]
}

// emitBitmap writes the set columns of bm in ascending order into cols and,
// if vals is not nil, their values acc[j] into vals; it leaves bm and acc all
// zero. len(cols) is the number of set bits.
func emitBitmap(bm []uint64, cols []int32, vals, acc []float32) {
	n := 0
	for t, word := range bm {
		if word == 0 {
			continue
		}
		bm[t] = 0
		base := int32(t) << 6
		for word != 0 {
			j := base + int32(bits.TrailingZeros64(word))
			word &= word - 1
			cols[n] = j
			if vals != nil {
				vals[n], acc[j] = acc[j], 0
			}
			n++
		}
	}
}

// table returns an empty hash table of size slots (a power of two) and the
// shift that maps a 32-bit hash to a slot.
func (w *mulWorkspace) table(size int64, withState bool) (keys []uint32, vals []float32, state []uint8, shift uint) {
	if int64(len(w.keys)) < size {
		w.keys = make([]uint32, size)
		w.hvals = make([]float32, size)
	}
	keys, vals = w.keys[:size], w.hvals[:size]
	clear(keys)
	if withState {
		if int64(len(w.state)) < size {
			w.state = make([]uint8, size)
		}
		state = w.state[:size]
	}
	return keys, vals, state, uint(33 - bits.Len64(uint64(size)))
}

// count returns nnz(C(i,:)). If cols is not nil (it then has exactly that
// length), it also writes C(i,:)'s sorted column ids into it.
func (w *mulWorkspace) count(p *mulProblem, i int, cols []int32) int {
	a, b := p.a, p.b
	alo, ahi := a.Indptr[i], a.Indptr[i+1]
	f := p.flops[i+1] - p.flops[i]
	var add []int32
	if p.add != nil {
		add = p.add.Indices[p.add.Indptr[i]:p.add.Indptr[i+1]]
	}
	if f == 0 {
		copy(cols, add)
		return len(add)
	}
	var mrow []int32
	if p.mask != nil {
		mrow = p.mask.Indices[p.mask.Indptr[i]:p.mask.Indptr[i+1]]
		if !p.complement {
			if len(mrow) == 0 {
				return 0
			}
			return w.countAllowed(p, i, mrow, f, cols)
		}
	}
	if len(mrow) == 0 && len(add) == 0 && ahi-alo == 1 {
		k := a.Indices[alo]
		copy(cols, b.Indices[b.Indptr[k]:b.Indptr[k+1]])
		return int(b.Indptr[k+1] - b.Indptr[k])
	}
	keys := f + int64(len(mrow)) + int64(len(add))
	if p.useDense(keys) && len(mrow) == 0 {
		bm := w.bitmap(b.Cols)
		for _, j := range add {
			bm[j>>6] |= 1 << (uint32(j) & 63)
		}
		for _, k := range a.Indices[alo:ahi] {
			for _, j := range b.Indices[b.Indptr[k]:b.Indptr[k+1]] {
				bm[j>>6] |= 1 << (uint32(j) & 63)
			}
		}
		if cols != nil {
			emitBitmap(bm, cols, nil, nil)
			return len(cols)
		}
		n := 0
		for t, word := range bm {
			if word != 0 {
				n += bits.OnesCount64(word)
				bm[t] = 0
			}
		}
		return n
	}
	if p.useDense(keys) {
		g := w.fresh(b.Cols)
		stamp := w.stamp
		forbidden, touched := g, g+1
		for _, j := range mrow {
			stamp[j] = forbidden
		}
		n := 0
		for _, k := range a.Indices[alo:ahi] {
			for _, j := range b.Indices[b.Indptr[k]:b.Indptr[k+1]] {
				if s := stamp[j]; s != touched && s != forbidden {
					stamp[j] = touched
					if cols != nil {
						cols[n] = j
					}
					n++
				}
			}
		}
		if cols != nil {
			sortDenseRow(cols, stamp, touched)
		}
		return n
	}
	table, _, state, shift := w.table(hashSize(keys), len(mrow) > 0)
	mask := hashList(table, state, shift, mrow)
	n := 0
	for _, j := range add { // distinct: Add's row is sorted
		hashInsert(table, shift, mask, j)
		if cols != nil {
			cols[n] = j
		}
		n++
	}
	for _, k := range a.Indices[alo:ahi] {
		for _, j := range b.Indices[b.Indptr[k]:b.Indptr[k+1]] {
			key := uint32(j) + 1
			h := (uint32(j) * hashMul) >> shift
			for {
				if table[h] == key {
					break
				}
				if table[h] == 0 {
					table[h] = key
					if state != nil {
						state[h] = slotTouched
					}
					if cols != nil {
						cols[n] = j
					}
					n++
					break
				}
				h = (h + 1) & mask
			}
		}
	}
	if cols != nil {
		sortInt32s(cols)
	}
	return n
}

// countAllowed is count for a row with a (non-complemented) mask row mrow.
func (w *mulWorkspace) countAllowed(p *mulProblem, i int, mrow []int32, f int64, cols []int32) int {
	a, b := p.a, p.b
	alo, ahi := a.Indptr[i], a.Indptr[i+1]
	n := 0
	if p.useDense(min(f, int64(len(mrow)))) {
		g := w.fresh(b.Cols)
		stamp := w.stamp
		listed, touched := g, g+1
		for _, j := range mrow {
			stamp[j] = listed
		}
		for _, k := range a.Indices[alo:ahi] {
			for _, j := range b.Indices[b.Indptr[k]:b.Indptr[k+1]] {
				if stamp[j] == listed {
					stamp[j] = touched
					n++
				}
			}
		}
		if cols != nil {
			m := 0
			for _, j := range mrow {
				if stamp[j] == touched {
					cols[m] = j
					m++
				}
			}
		}
		return n
	}
	table, _, state, shift := w.table(hashSize(int64(len(mrow))), true)
	mask := hashList(table, state, shift, mrow)
	for _, k := range a.Indices[alo:ahi] {
		for _, j := range b.Indices[b.Indptr[k]:b.Indptr[k+1]] {
			key := uint32(j) + 1
			h := (uint32(j) * hashMul) >> shift
			for table[h] != 0 {
				if table[h] == key {
					if state[h] == slotListed {
						state[h] = slotTouched
						n++
					}
					break
				}
				h = (h + 1) & mask
			}
		}
	}
	if cols != nil {
		m := 0
		for _, j := range mrow {
			if s := hashFind(table, shift, j); state[s] == slotTouched {
				cols[m] = j
				m++
			}
		}
	}
	return n
}

// hashList inserts the columns of a mask row into an empty hash table,
// marking them slotListed (allowed, not yet produced), and returns the
// table's index mask.
func hashList(table []uint32, state []uint8, shift uint, mrow []int32) uint32 {
	mask := uint32(len(table) - 1)
	for _, j := range mrow {
		state[hashInsert(table, shift, mask, j)] = slotListed
	}
	return mask
}

// hashInsert enters column j, which table does not hold, by linear probing
// (mask = len(table)-1) and returns its slot.
func hashInsert(table []uint32, shift uint, mask uint32, j int32) uint32 {
	h := (uint32(j) * hashMul) >> shift
	for table[h] != 0 {
		h = (h + 1) & mask
	}
	table[h] = uint32(j) + 1
	return h
}

// hashFind returns the slot of column j in table, or -1.
func hashFind(table []uint32, shift uint, j int32) int {
	mask := uint32(len(table) - 1)
	key := uint32(j) + 1
	h := (uint32(j) * hashMul) >> shift
	for table[h] != 0 {
		if table[h] == key {
			return int(h)
		}
		h = (h + 1) & mask
	}
	return -1
}

// fill writes C(i,:) into cols and vals, which have exactly nnz(C(i,:))
// entries (from count).
func (w *mulWorkspace) fill(p *mulProblem, i int, cols []int32, vals []float32) {
	if len(cols) == 0 {
		return
	}
	a, b := p.a, p.b
	alo, ahi := a.Indptr[i], a.Indptr[i+1]
	f := p.flops[i+1] - p.flops[i]
	var add []int32
	var addVals []float32
	if p.add != nil {
		lo, hi := p.add.Indptr[i], p.add.Indptr[i+1]
		add, addVals = p.add.Indices[lo:hi], p.add.Data[lo:hi]
	}
	if f == 0 {
		copy(cols, add)
		copy(vals, addVals)
		return
	}
	var mrow []int32
	if p.mask != nil {
		mrow = p.mask.Indices[p.mask.Indptr[i]:p.mask.Indptr[i+1]]
		if !p.complement {
			w.fillAllowed(p, i, mrow, f, cols, vals)
			return
		}
	}
	if len(mrow) == 0 && len(add) == 0 && ahi-alo == 1 {
		k, av := a.Indices[alo], a.Data[alo]
		blo, bhi := b.Indptr[k], b.Indptr[k+1]
		copy(cols, b.Indices[blo:bhi])
		scaleCopy(vals, b.Data[blo:bhi], av)
		return
	}
	keys := f + int64(len(mrow)) + int64(len(add))
	if p.useDense(keys) && len(mrow) == 0 {
		bm, acc := w.bitmap(b.Cols), w.accumulator(b.Cols)
		for t, j := range add {
			bm[j>>6] |= 1 << (uint32(j) & 63)
			acc[j] = addVals[t]
		}
		for pa := alo; pa < ahi; pa++ {
			k, av := a.Indices[pa], a.Data[pa]
			blo, bhi := b.Indptr[k], b.Indptr[k+1]
			bi := b.Indices[blo:bhi]
			bv := b.Data[blo:bhi]
			bv = bv[:len(bi)]
			for t, j := range bi {
				bm[j>>6] |= 1 << (uint32(j) & 63)
				acc[j] += float32(av * bv[t])
			}
		}
		emitBitmap(bm, cols, vals, acc)
		return
	}
	if p.useDense(keys) {
		g := w.fresh(b.Cols)
		stamp, acc := w.stamp, w.accumulator(b.Cols)
		forbidden, touched := g, g+1
		for _, j := range mrow {
			stamp[j] = forbidden
		}
		n := 0
		for pa := alo; pa < ahi; pa++ {
			k, av := a.Indices[pa], a.Data[pa]
			blo, bhi := b.Indptr[k], b.Indptr[k+1]
			bv := b.Data[blo:bhi]
			for t, j := range b.Indices[blo:bhi] {
				if s := stamp[j]; s == touched {
					acc[j] += float32(av * bv[t])
				} else if s != forbidden {
					stamp[j] = touched
					acc[j] += float32(av * bv[t])
					cols[n] = j
					n++
				}
			}
		}
		sortDenseRow(cols, stamp, touched)
		for t, j := range cols {
			vals[t], acc[j] = acc[j], 0
		}
		return
	}
	table, hv, state, shift := w.table(hashSize(keys), len(mrow) > 0)
	mask := hashList(table, state, shift, mrow)
	n := 0
	for t, j := range add { // distinct: Add's row is sorted
		hv[hashInsert(table, shift, mask, j)] = addVals[t]
		cols[n] = j
		n++
	}
	for pa := alo; pa < ahi; pa++ {
		k, av := a.Indices[pa], a.Data[pa]
		blo, bhi := b.Indptr[k], b.Indptr[k+1]
		bv := b.Data[blo:bhi]
		for t, j := range b.Indices[blo:bhi] {
			key := uint32(j) + 1
			h := (uint32(j) * hashMul) >> shift
			for {
				if table[h] == key {
					if state == nil || state[h] == slotTouched {
						hv[h] += float32(av * bv[t])
					}
					break
				}
				if table[h] == 0 {
					table[h] = key
					hv[h] = 0 + float32(av*bv[t])
					if state != nil {
						state[h] = slotTouched
					}
					cols[n] = j
					n++
					break
				}
				h = (h + 1) & mask
			}
		}
	}
	sortInt32s(cols)
	for t, j := range cols {
		vals[t] = hv[hashFind(table, shift, j)]
	}
}

// fillAllowed is fill for a row with a (non-complemented) mask row mrow; the
// row comes out in mrow's (sorted) order.
func (w *mulWorkspace) fillAllowed(p *mulProblem, i int, mrow []int32, f int64, cols []int32, vals []float32) {
	a, b := p.a, p.b
	alo, ahi := a.Indptr[i], a.Indptr[i+1]
	if p.useDense(min(f, int64(len(mrow)))) {
		g := w.fresh(b.Cols)
		stamp, acc := w.stamp, w.accumulator(b.Cols)
		listed, touched := g, g+1
		for _, j := range mrow {
			stamp[j] = listed
		}
		for pa := alo; pa < ahi; pa++ {
			k, av := a.Indices[pa], a.Data[pa]
			blo, bhi := b.Indptr[k], b.Indptr[k+1]
			bv := b.Data[blo:bhi]
			for t, j := range b.Indices[blo:bhi] {
				if s := stamp[j]; s == touched {
					acc[j] += float32(av * bv[t])
				} else if s == listed {
					stamp[j] = touched
					acc[j] += float32(av * bv[t])
				}
			}
		}
		n := 0
		for _, j := range mrow {
			if stamp[j] == touched {
				cols[n], vals[n], acc[j] = j, acc[j], 0
				n++
			}
		}
		return
	}
	table, hv, state, shift := w.table(hashSize(int64(len(mrow))), true)
	mask := hashList(table, state, shift, mrow)
	for pa := alo; pa < ahi; pa++ {
		k, av := a.Indices[pa], a.Data[pa]
		blo, bhi := b.Indptr[k], b.Indptr[k+1]
		bv := b.Data[blo:bhi]
		for t, j := range b.Indices[blo:bhi] {
			key := uint32(j) + 1
			h := (uint32(j) * hashMul) >> shift
			for table[h] != 0 {
				if table[h] == key {
					if state[h] == slotTouched {
						hv[h] += float32(av * bv[t])
					} else {
						state[h] = slotTouched
						hv[h] = 0 + float32(av*bv[t])
					}
					break
				}
				h = (h + 1) & mask
			}
		}
	}
	n := 0
	for _, j := range mrow {
		if s := hashFind(table, shift, j); state[s] == slotTouched {
			cols[n], vals[n] = j, hv[s]
			n++
		}
	}
}

// sortDenseRow sorts the column ids of a dense-accumulator row, either by
// walking the stamps between its least and greatest column (when that range
// is narrow next to n·log2 n) or by sorting.
func sortDenseRow(cols []int32, stamp []int32, touched int32) {
	n := len(cols)
	if n < insertionSortMax {
		insertionSortInt32s(cols)
		return
	}
	lo, hi := cols[0], cols[0]
	for _, j := range cols[1:] {
		lo, hi = min(lo, j), max(hi, j)
	}
	if int(hi-lo) <= n*bits.Len(uint(n)) {
		m := 0
		for j := lo; j <= hi; j++ {
			if stamp[j] == touched {
				cols[m] = j
				m++
			}
		}
		return
	}
	sortInt32s(cols)
}

// gatherScaled sets c's arrays to the rows of b selected by rows, each scaled
// by the matching scale (nil: by 1), or with values 1 if structure: row r of
// c is scale[r]·b(rows[r],:). It sets c.Cols but leaves c.Rows to the caller.
// rows must be in range.
func gatherScaled(c *CSR, b *CSR, rows []int32, scale []float32, structure bool, threads int) {
	n := len(rows)
	c.Indptr = par.Resize(c.Indptr, n+1)
	c.Indptr[0] = 0
	var nnz int64
	for r, k := range rows {
		nnz += b.Indptr[k+1] - b.Indptr[k]
		c.Indptr[r+1] = nnz
	}
	c.Indices = par.Resize(c.Indices, int(nnz))
	c.Data = par.Resize(c.Data, int(nnz))
	c.Rows, c.Cols = n, b.Cols
	par.ForWork(c.Indptr, threads, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			k := rows[r]
			blo, bhi := b.Indptr[k], b.Indptr[k+1]
			out := c.Indptr[r]
			copy(c.Indices[out:], b.Indices[blo:bhi])
			dst := c.Data[out : out+bhi-blo]
			switch {
			case structure:
				fillOnes(dst)
			case scale == nil || scale[r] == 1:
				copy(dst, b.Data[blo:bhi])
			default:
				scaleCopy(dst, b.Data[blo:bhi], scale[r])
			}
		}
	})
}

// scaleCopy sets dst[t] = alpha·src[t]; len(dst) == len(src).
func scaleCopy(dst, src []float32, alpha float32) {
	src = src[:len(dst)]
	for t, v := range src {
		dst[t] = alpha * v
	}
}

// fillOnes sets every element of v to 1.
func fillOnes(v []float32) {
	for t := range v {
		v[t] = 1
	}
}
