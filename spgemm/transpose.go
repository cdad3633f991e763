package spgemm

// Transpose is a parallel counting sort of the entries by column. The rows
// of A are cut into one range per thread of equal nonzero count; each range
// counts its entries per column (a histogram of a.Cols int64s), the
// histograms are turned into per-range write offsets (column-major prefix
// sum: column j of range t starts after column j of ranges 0..t-1), and each
// range scatters its entries. Within a column the entries arrive in row
// order, so every row of Aᵀ comes out sorted and the result is the same for
// any thread count. The histograms cost threads·a.Cols words, so the number
// of ranges is capped to keep them no larger than the matrix; hypersparse
// inputs run serially.

// transposeMinNNZ is the least nnz worth transposing in parallel.
const transposeMinNNZ = 1 << 16

// Transpose returns Aᵀ, which shares no arrays with a. It costs
// O(nnz + a.Rows + threads·a.Cols).
func Transpose(a *CSR, threads int) *CSR {
	nnz := a.NNZ()
	t := &CSR{Rows: a.Cols, Cols: a.Rows, Indptr: make([]int64, a.Cols+1),
		Indices: make([]int32, nnz), Data: make([]float32, nnz)}
	parts := threadsOf(threads)
	if int64(a.Cols) > 0 {
		parts = int(min(int64(parts), nnz/int64(a.Cols)))
	}
	if nnz < transposeMinNNZ || parts <= 1 {
		transposeSerial(t, a)
		return t
	}
	bounds := splitWork(a.Indptr, parts)
	parts = len(bounds) - 1
	next := make([][]int64, parts)
	parallelFor(parts, parts, func(_, r int) {
		h := make([]int64, a.Cols)
		for _, j := range a.Indices[a.Indptr[bounds[r]]:a.Indptr[bounds[r+1]]] {
			h[j]++
		}
		next[r] = h
	})
	// Column totals, then the column offsets, then each range's offsets.
	colWork := uniformWork(a.Cols, int64(parts))
	parallelRows(colWork, parts, func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			var s int64
			for r := range next {
				s += next[r][j]
			}
			t.Indptr[j+1] = s
		}
	})
	for j := range a.Cols {
		t.Indptr[j+1] += t.Indptr[j]
	}
	parallelRows(colWork, parts, func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			off := t.Indptr[j]
			for r := range next {
				c := next[r][j]
				next[r][j] = off
				off += c
			}
		}
	})
	parallelFor(parts, parts, func(_, r int) {
		pos := next[r]
		for i := bounds[r]; i < bounds[r+1]; i++ {
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				j := a.Indices[p]
				q := pos[j]
				t.Indices[q], t.Data[q] = int32(i), a.Data[p]
				pos[j] = q + 1
			}
		}
	})
	return t
}

// transposeSerial fills t (allocated, Indptr zero) with aᵀ on one goroutine.
func transposeSerial(t, a *CSR) {
	for _, j := range a.Indices {
		t.Indptr[j+1]++
	}
	for j := range a.Cols {
		t.Indptr[j+1] += t.Indptr[j]
	}
	next := make([]int64, a.Cols)
	copy(next, t.Indptr[:a.Cols])
	for i := range a.Rows {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			j := a.Indices[p]
			q := next[j]
			t.Indices[q], t.Data[q] = int32(i), a.Data[p]
			next[j] = q + 1
		}
	}
}
