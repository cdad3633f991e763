package spgemm

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
// O(nnz(a)·f + a.Cols·f), plus a transpose of a when threads > 1, and panics
// with a ShapeError if the lengths do not match.
func MulDenseT(dst []float32, a *CSR, x []float32, f int, threads int) {
	if f < 0 || len(x) != a.Rows*f || len(dst) != a.Cols*f {
		panic(ShapeError{Op: "MulDenseT", ARows: a.Cols, ACols: a.Rows, BRows: len(x) / max(f, 1), BCols: f})
	}
	if a.Cols == 0 || f == 0 {
		return
	}
	threads = threadsOf(threads)
	if threads == 1 || a.NNZ()*int64(f) < transposeMinNNZ {
		clear(dst)
		for i := range a.Rows {
			row := x[i*f : (i+1)*f]
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				k := int(a.Indices[p])
				axpy(dst[k*f:(k+1)*f], row, a.Data[p])
			}
		}
		return
	}
	MulDense(dst, Transpose(a, threads), x, f, threads)
}
