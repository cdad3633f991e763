package spgemm

import (
	"math"
	"slices"

	"github.com/bulksample/bulksample/internal/par"
)

// Element-wise operations and row reductions. They are embarrassingly
// parallel over ranges of rows of equal nonzero count; sums are accumulated
// in float64 in row order, so the result is the same for any thread count.

// RowSums returns the sum of each row's values, accumulated in float64 in
// the order of the row.
func RowSums(a *CSR, threads int) []float64 {
	s := make([]float64, a.Rows)
	if a.Rows == 0 {
		return s
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			var sum float64
			for _, v := range a.Data[a.Indptr[i]:a.Indptr[i+1]] {
				sum += float64(v)
			}
			s[i] = sum
		}
	})
	return s
}

// NormalizeRows scales each row of a in place so that its values sum to 1:
// each value v of row i becomes float32(v / s_i) with s_i the row's float64
// sum. Rows that sum to 0 are left unchanged.
func NormalizeRows(a *CSR, threads int) {
	if a.Rows == 0 {
		return
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			NormalizeVec(a.Data[a.Indptr[i]:a.Indptr[i+1]])
		}
	})
}

// NormalizeVec scales v in place so that its values sum to 1: each value x
// becomes float32(x / s) with s the float64 sum of v. A vector that sums to
// 0 is left unchanged. It is the row normalisation of NormalizeRows, of
// featurex.NormalizeRows and of the samplers' probability rows, written
// once.
func NormalizeVec(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x)
	}
	if sum == 0 {
		return
	}
	for t, x := range v {
		v[t] = float32(float64(x) / sum)
	}
}

// Scale sets c = alpha·a (every stored value multiplied by alpha; the
// pattern is kept, including entries that become 0) and returns c. c may be
// a (in place); otherwise c's arrays are reused when their capacity suffices.
func (c *CSR) Scale(alpha float32, a *CSR, threads int) *CSR {
	c.copyPattern(a)
	if a.Rows == 0 {
		return c
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		plo, phi := a.Indptr[lo], a.Indptr[hi]
		scaleCopy(c.Data[plo:phi], a.Data[plo:phi], alpha)
	})
	return c
}

// Square sets c = a∘a (every stored value squared, as LADIES needs for its
// probabilities, docs/design.md 3.2) and returns c. c may be a (in place);
// otherwise c's arrays are reused when their capacity suffices.
func (c *CSR) Square(a *CSR, threads int) *CSR {
	c.copyPattern(a)
	if a.Rows == 0 {
		return c
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		plo, phi := a.Indptr[lo], a.Indptr[hi]
		dst, src := c.Data[plo:phi], a.Data[plo:phi]
		for t, v := range src {
			dst[t] = v * v
		}
	})
	return c
}

// copyPattern gives c a's shape and pattern, with room for its values; it
// does nothing to the arrays c shares with a.
func (c *CSR) copyPattern(a *CSR) {
	if c == a {
		return
	}
	nnz := int(a.NNZ())
	c.Rows, c.Cols = a.Rows, a.Cols
	c.Indptr = par.Resize(c.Indptr, len(a.Indptr))
	copy(c.Indptr, a.Indptr)
	c.Indices = par.Resize(c.Indices, nnz)
	copy(c.Indices, a.Indices)
	c.Data = par.Resize(c.Data, nnz)
}

// SymNormalizeWithSelfLoops returns a new matrix D_r^-1/2 (A+I) D_c^-1/2
// for the square matrix a, where D_r holds the row sums and D_c the column
// sums of A+I (both the degrees plus one for a symmetric 0/1 adjacency):
// the normalised adjacency of GCN (Kipf and Welling, 2017) and of the LADIES
// paper. A diagonal entry of a is added to the 1 of I; a missing one is
// inserted in order. Sums are float64. It shares no arrays with a and panics
// with a ShapeError if a is not square.
func SymNormalizeWithSelfLoops(a *CSR, threads int) *CSR {
	if a.Rows != a.Cols {
		panic(ShapeError{Op: "SymNormalizeWithSelfLoops", ARows: a.Rows, ACols: a.Cols, BRows: a.Rows, BCols: a.Cols})
	}
	colSum := make([]float64, a.Cols)
	c, rowSum := addSelfLoops(a, 0, colSum, par.Threads(threads))
	ScaleSymmetric(c, rowSum, colSum, threads)
	return c
}

// AddSelfLoops returns A+I restricted to the row block a of a square
// matrix, whose local row i is global row first+i (its diagonal entry is
// column first+i), with the row sums of A+I, and adds the block's column
// sums to colSum (len a.Cols) as SelfLoopSums does: the first step of
// SymNormalizeWithSelfLoops. Adding a matrix's row blocks in block order
// gives its column sums bit for bit, which lets distributed ranks normalise
// their blocks exactly as one process does. The rows of A+I are built on
// GOMAXPROCS goroutines; the result does not depend on their number. It
// panics with an IndexError if the block's diagonal leaves the columns.
func AddSelfLoops(a *CSR, first int, colSum []float64) (*CSR, []float64) {
	return addSelfLoops(a, first, colSum, par.Threads(0))
}

// addSelfLoops is AddSelfLoops on threads goroutines. The sums come from
// SelfLoopSums (one pass in row order, which their bits depend on); the
// rows, independent of each other, are built in parallel.
func addSelfLoops(a *CSR, first int, colSum []float64, threads int) (*CSR, []float64) {
	rowSum := make([]float64, a.Rows)
	SelfLoopSums(a, first, rowSum, colSum)
	n := a.Rows
	c := &CSR{Rows: n, Cols: a.Cols, Indptr: make([]int64, n+1)}
	// Row lengths (one more where the diagonal is missing), then offsets.
	par.ForWork(a.Indptr, threads, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			lo, hi := a.Indptr[i], a.Indptr[i+1]
			c.Indptr[i+1] = hi - lo
			if _, found := slices.BinarySearch(a.Indices[lo:hi], int32(first+i)); !found {
				c.Indptr[i+1]++
			}
		}
	})
	for i := range n {
		c.Indptr[i+1] += c.Indptr[i]
	}
	nnz := c.Indptr[n]
	c.Indices, c.Data = make([]int32, nnz), make([]float32, nnz)
	// Each row's entries in column order with the diagonal in its place.
	par.ForWork(c.Indptr, threads, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p := c.Indptr[i]
			selfLoopRow(a, i, int32(first+i), func(j int32, v float64) {
				c.Indices[p], c.Data[p] = j, float32(v)
				p++
			})
		}
	})
	return c, rowSum
}

// SelfLoopSums adds the row sums of A+I to rowSum (len a.Rows) and its
// column sums to colSum (len a.Cols), where a is the row block of a square
// matrix whose local row i is global row first+i and I has its ones at
// (i, first+i): the degrees of D_r^-1/2 (A+I) D_c^-1/2 (GCN's normalised
// adjacency, SymNormalizeWithSelfLoops), without forming A+I. The sums are
// float64, in a fixed order (row by row; in each row the self loop's 1,
// then the entries in order), so that adding a matrix's row blocks in block
// order gives its column sums bit for bit. It panics with an IndexError if
// the block's diagonal leaves the columns or a length is wrong.
func SelfLoopSums(a *CSR, first int, rowSum, colSum []float64) {
	if first < 0 || first+a.Rows > a.Cols || len(colSum) != a.Cols || len(rowSum) != a.Rows {
		panic(IndexError{Op: "SelfLoopSums", Index: first + a.Rows, Len: a.Cols})
	}
	for i := range a.Rows {
		s := rowSum[i] + 1 // the self loop
		colSum[first+i]++
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			v := float64(a.Data[p])
			s += v
			colSum[a.Indices[p]] += v
		}
		rowSum[i] = s
	}
}

// selfLoopRow calls emit with the column and float64 value of each entry
// of row i of A+I, in column order, where d is the row's diagonal column:
// A's entries, the diagonal one plus 1, or a 1 inserted in order.
func selfLoopRow(a *CSR, i int, d int32, emit func(j int32, v float64)) {
	self := false
	for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
		j, v := a.Indices[q], float64(a.Data[q])
		if j == d {
			v++
			self = true
		} else if j > d && !self {
			emit(d, 1)
			self = true
		}
		emit(j, v)
	}
	if !self {
		emit(d, 1)
	}
}

// ScaleSymmetric multiplies entry (i, j) of c by 1/sqrt(rowSum[i]) and
// 1/sqrt(colSum[j]), in float64, in place: the last step of
// SymNormalizeWithSelfLoops, for the sums AddSelfLoops returns. It replaces
// rowSum and colSum by their inverse square roots (InvSqrt) and scales with
// ScaleRowsCols.
func ScaleSymmetric(c *CSR, rowSum, colSum []float64, threads int) {
	InvSqrt(rowSum)
	InvSqrt(colSum)
	ScaleRowsCols(c.Data, c, rowSum, colSum, threads)
}

// InvSqrt replaces every x[i] by 1/sqrt(x[i]), in float64: the diagonal of
// D^-1/2 for the sums of SelfLoopSums (the degrees plus one).
func InvSqrt(x []float64) {
	for i, v := range x {
		x[i] = 1 / math.Sqrt(v)
	}
}

// ScaleRowsCols sets dst[p] = a.Data[p]·rowScale[i]·colScale[j] for every
// stored entry p = (i, j) of a, multiplied in float64 in that order and
// rounded once to float32; dst (len a.NNZ()) may be a.Data itself. It is
// the one scaling of the normalised adjacencies D_r^-1/2 (A+I) D_c^-1/2
// (GCN's, LADIES'), whatever the scales: the inverse square roots of
// SelfLoopSums' sums (SymNormalizeWithSelfLoops, the blocks of a
// distributed matrix, a sampled block's own degrees) or of a graph's
// degrees. The rows are split over threads goroutines; the result does not
// depend on their number. It panics with a ShapeError if a length is wrong.
func ScaleRowsCols(dst []float32, a *CSR, rowScale, colScale []float64, threads int) {
	if len(dst) != int(a.NNZ()) || len(rowScale) != a.Rows || len(colScale) != a.Cols {
		panic(ShapeError{Op: "ScaleRowsCols", ARows: a.Rows, ACols: a.Cols, BRows: len(rowScale), BCols: len(colScale)})
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			ri := rowScale[i]
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				dst[p] = float32(float64(a.Data[p]) * ri * colScale[a.Indices[p]])
			}
		}
	})
}
