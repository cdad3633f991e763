package spgemm

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
	parallelRows(a.Indptr, threadsOf(threads), func(_, lo, hi int) {
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
	parallelRows(a.Indptr, threadsOf(threads), func(_, lo, hi int) {
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
	parallelRows(a.Indptr, threadsOf(threads), func(_, lo, hi int) {
		plo, phi := a.Indptr[lo], a.Indptr[hi]
		scaleCopy(c.Data[plo:phi], a.Data[plo:phi], alpha)
	})
	return c
}

// Square sets c = a∘a (every stored value squared, as LADIES needs for its
// probabilities, DESIGN.md 3.2) and returns c. c may be a (in place);
// otherwise c's arrays are reused when their capacity suffices.
func (c *CSR) Square(a *CSR, threads int) *CSR {
	c.copyPattern(a)
	if a.Rows == 0 {
		return c
	}
	parallelRows(a.Indptr, threadsOf(threads), func(_, lo, hi int) {
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
	c.Indptr = reuse(c.Indptr, len(a.Indptr))
	copy(c.Indptr, a.Indptr)
	c.Indices = reuse(c.Indices, nnz)
	copy(c.Indices, a.Indices)
	c.Data = reuse(c.Data, nnz)
}
