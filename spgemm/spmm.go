package spgemm

import "slices"

// Sparse times dense (SpMM). MulDense is parallel over ranges of rows of A
// of equal nonzero count; row i of the output is Σ_k A(i,k)·X(k,:) added in
// the order of A's row, with an inner loop over the f features unrolled by
// four (the compiler does not vectorise; the unrolling removes the bounds
// checks and keeps four independent multiply-adds in flight). MulDenseT
// computes Aᵀ·X as (Aᵀ)·X through Transpose, which keeps each output row
// owned by one goroutine and its terms in row order of A: the result is the
// same for any thread count, and equals a serial scatter's. With one thread
// it scatters directly and skips the transpose.

// MulDense computes dst = A·X, where X is a.Cols x f and dst a.Rows x f, both
// row-major. dst is overwritten; it must not overlap x. It costs
// O(nnz(a)·f + a.Rows·f) and panics with a ShapeError if the lengths do not
// match.
func MulDense(dst []float32, a *CSR, x []float32, f int, threads int) {
	if f < 0 || len(x) != a.Cols*f || len(dst) != a.Rows*f {
		panic(ShapeError{Op: "MulDense", ARows: a.Rows, ACols: a.Cols, BRows: len(x) / max(f, 1), BCols: f})
	}
	if a.Rows == 0 || f == 0 {
		return
	}
	parallelRows(a.Indptr, threadsOf(threads), func(_, lo, hi int) {
		mulDenseRows(dst, a, x, f, lo, hi)
	})
}

// mulDenseRows computes rows [lo, hi) of dst = A·X.
func mulDenseRows(dst []float32, a *CSR, x []float32, f int, lo, hi int) {
	for i := lo; i < hi; i++ {
		// Start from +0 and add every term, as the serial scatter of
		// MulDenseT does, so that both agree on the sign of zero.
		out := dst[i*f : (i+1)*f]
		clear(out)
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			k := int(a.Indices[p])
			axpy(out, x[k*f:(k+1)*f], a.Data[p])
		}
	}
}

// axpy sets y += alpha·x; len(x) >= len(y).
func axpy(y, x []float32, alpha float32) {
	n := len(y)
	x = x[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		y4, x4 := y[i:i+4:i+4], x[i:i+4:i+4]
		y4[0] += float32(alpha * x4[0])
		y4[1] += float32(alpha * x4[1])
		y4[2] += float32(alpha * x4[2])
		y4[3] += float32(alpha * x4[3])
	}
	for ; i < n; i++ {
		y[i] += float32(alpha * x[i])
	}
}

// MulDenseT computes dst = Aᵀ·X, where X is a.Rows x f and dst a.Cols x f,
// both row-major. dst is overwritten; it must not overlap x. It costs
// O(nnz(a)·f + a.Cols·f + ranges·a.Rows·log(row length)) with 2 ranges per
// thread, and panics with a ShapeError if the lengths do not match.
func MulDenseT(dst []float32, a *CSR, x []float32, f int, threads int) {
	mulDenseTMode(dst, a, x, f, threads, 1)
}

func mulDenseTMode(dst []float32, a *CSR, x []float32, f int, threads int, mode int) {
	if f < 0 || len(x) != a.Rows*f || len(dst) != a.Cols*f {
		panic(ShapeError{Op: "MulDenseT", ARows: a.Cols, ACols: a.Rows, BRows: len(x) / max(f, 1), BCols: f})
	}
	if a.Cols == 0 || f == 0 {
		return
	}
	threads = threadsOf(threads)
	if threads == 1 || a.NNZ()*int64(f) < transposeMinNNZ {
		mulDenseTColumns(dst, a, x, f, 0, a.Cols)
		return
	}
	if mode == 0 {
		MulDense(dst, Transpose(a, threads), x, f, threads)
		return
	}
	// The cost of output row j is its number of terms, the count of column
	// j in A.
	work := make([]int64, a.Cols+1)
	for _, j := range a.Indices {
		work[j+1]++
	}
	for j := range a.Cols {
		work[j+1] += work[j]
	}
	bounds := splitWork(work, threads*mulDenseTRangesPerThread)
	parallelFor(len(bounds)-1, threads, func(_, c int) {
		mulDenseTColumns(dst, a, x, f, bounds[c], bounds[c+1])
	})
}

// mulDenseTRangesPerThread is how many output row ranges MulDenseT makes
// per thread. Each range costs a binary search in every row of A.
const mulDenseTRangesPerThread = 2

// mulDenseTColumns computes rows [lo, hi) of dst = Aᵀ·X: it walks every row
// i of A, finds the row's columns in [lo, hi) by binary search and adds
// A(i, j)·X(i, :) to row j of dst. Each row of dst thus gets its terms in
// row order of A, whatever the ranges.
func mulDenseTColumns(dst []float32, a *CSR, x []float32, f int, lo, hi int) {
	clear(dst[lo*f : hi*f])
	lo32, hi32 := int32(lo), int32(hi)
	for i := range a.Rows {
		start, end := a.Indptr[i], a.Indptr[i+1]
		row := a.Indices[start:end]
		if lo > 0 && len(row) > 0 && row[0] < lo32 {
			k, _ := slices.BinarySearch(row, lo32)
			row, start = row[k:], start+int64(k)
		}
		vals := a.Data[start:end]
		vals = vals[:len(row)]
		xi := x[i*f : (i+1)*f]
		for p, j := range row {
			if j >= hi32 {
				break
			}
			axpy(dst[int(j)*f:(int(j)+1)*f], xi, vals[p])
		}
	}
}
