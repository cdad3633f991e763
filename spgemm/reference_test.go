package spgemm

// The serial reference bodies that the kernel API started with (commit
// 493ee18), kept unexported as the peer of the benchmarks (speed-up ratios in
// one run) and as a second, independent check in the tests.

// mulReference is the serial Gustavson product the package started with: a
// dense accumulator per row and an insertion sort of the row's columns. It
// honours Mask, ComplementMask (with a mask) and StructureOnly.
func mulReference(a, b *CSR, opt *MulOptions) *CSR {
	c := &CSR{}
	if opt == nil {
		opt = &MulOptions{}
	}
	if a.Cols != b.Rows {
		panic(ShapeError{Op: "Mul", ARows: a.Rows, ACols: a.Cols, BRows: b.Rows, BCols: b.Cols})
	}
	if m := opt.Mask; m != nil && (m.Rows != a.Rows || m.Cols != b.Cols) {
		panic(ShapeError{Op: "Mul mask", ARows: m.Rows, ACols: m.Cols, BRows: a.Rows, BCols: b.Cols})
	}
	acc := make([]float32, b.Cols)
	seen := make([]bool, b.Cols)
	inMask := make([]bool, b.Cols)
	var cols []int32
	indptr := make([]int64, 1, a.Rows+1)
	var indices []int32
	var data []float32
	for i := 0; i < a.Rows; i++ {
		if opt.Mask != nil {
			mc, _ := opt.Mask.Row(i)
			for _, j := range mc {
				inMask[j] = true
			}
		}
		cols = cols[:0]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			k, av := a.Indices[p], a.Data[p]
			for q := b.Indptr[k]; q < b.Indptr[k+1]; q++ {
				j := b.Indices[q]
				if opt.Mask != nil && inMask[j] == opt.ComplementMask {
					continue
				}
				if !seen[j] {
					seen[j] = true
					cols = append(cols, j)
				}
				acc[j] += float32(av * b.Data[q])
			}
		}
		sortInt32Reference(cols)
		for _, j := range cols {
			indices = append(indices, j)
			v := acc[j]
			if opt.StructureOnly {
				v = 1
			}
			data = append(data, v)
			acc[j], seen[j] = 0, false
		}
		if opt.Mask != nil {
			mc, _ := opt.Mask.Row(i)
			for _, j := range mc {
				inMask[j] = false
			}
		}
		indptr = append(indptr, int64(len(indices)))
	}
	*c = CSR{Rows: a.Rows, Cols: b.Cols, Indptr: indptr, Indices: indices, Data: data}
	return c
}

func sortInt32Reference(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// mulDenseReference computes dst = A·X, where X is a.Cols x f and dst a.Rows x f, both
// row-major. dst is overwritten. It panics if the lengths do not match.
func mulDenseReference(dst []float32, a *CSR, x []float32, f int, threads int) {
	if len(x) != a.Cols*f || len(dst) != a.Rows*f {
		panic(ShapeError{Op: "MulDense", ARows: a.Rows, ACols: a.Cols, BRows: len(x) / max(f, 1), BCols: f})
	}
	clear(dst)
	for i := 0; i < a.Rows; i++ {
		out := dst[i*f : (i+1)*f]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			v, row := a.Data[p], x[int(a.Indices[p])*f:int(a.Indices[p]+1)*f]
			for j := range out {
				out[j] += float32(v * row[j])
			}
		}
	}
}

// mulDenseTReference computes dst = Aᵀ·X, where X is a.Rows x f and dst a.Cols x f,
// both row-major. dst is overwritten. It panics if the lengths do not match.
func mulDenseTReference(dst []float32, a *CSR, x []float32, f int, threads int) {
	if len(x) != a.Rows*f || len(dst) != a.Cols*f {
		panic(ShapeError{Op: "MulDenseT", ARows: a.Cols, ACols: a.Rows, BRows: len(x) / max(f, 1), BCols: f})
	}
	clear(dst)
	for i := 0; i < a.Rows; i++ {
		row := x[i*f : (i+1)*f]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			v, out := a.Data[p], dst[int(a.Indices[p])*f:int(a.Indices[p]+1)*f]
			for j := range out {
				out[j] += float32(v * row[j])
			}
		}
	}
}

// transposeReference returns Aᵀ.
func transposeReference(a *CSR, threads int) *CSR {
	t := &CSR{Rows: a.Cols, Cols: a.Rows, Indptr: make([]int64, a.Cols+1)}
	for _, j := range a.Indices {
		t.Indptr[j+1]++
	}
	for j := 0; j < a.Cols; j++ {
		t.Indptr[j+1] += t.Indptr[j]
	}
	nnz := a.NNZ()
	t.Indices, t.Data = make([]int32, nnz), make([]float32, nnz)
	next := append([]int64(nil), t.Indptr[:a.Cols]...)
	for i := 0; i < a.Rows; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			j := a.Indices[p]
			t.Indices[next[j]], t.Data[next[j]] = int32(i), a.Data[p]
			next[j]++
		}
	}
	return t
}

// gatherRowsReference returns Q·A for the row selection Q = I[rows, :]: row r of the
// result is row rows[r] of a. It panics with an IndexError if a row id is
// outside [0, a.Rows).
func gatherRowsReference(a *CSR, rows []int32, threads int) *CSR {
	g := &CSR{Rows: len(rows), Cols: a.Cols, Indptr: make([]int64, len(rows)+1)}
	for r, i := range rows {
		if uint(i) >= uint(a.Rows) {
			panic(IndexError{Op: "GatherRows", Index: int(i), Len: a.Rows})
		}
		g.Indptr[r+1] = g.Indptr[r] + a.Indptr[i+1] - a.Indptr[i]
	}
	g.Indices, g.Data = make([]int32, g.NNZ()), make([]float32, g.NNZ())
	for r, i := range rows {
		copy(g.Indices[g.Indptr[r]:], a.Indices[a.Indptr[i]:a.Indptr[i+1]])
		copy(g.Data[g.Indptr[r]:], a.Data[a.Indptr[i]:a.Indptr[i+1]])
	}
	return g
}

// extractColumnsReference returns A·Q_C for the column map colMap (len a.Cols): entry
// (i, j) of a is kept as (i, colMap[j]) when colMap[j] >= 0 and dropped when
// colMap[j] < 0. The result has newCols columns; colMap must be injective on
// its non-negative values and each value < newCols (else IndexError).
func extractColumnsReference(a *CSR, colMap []int32, newCols int, threads int) *CSR {
	if len(colMap) != a.Cols {
		panic(ShapeError{Op: "ExtractColumns", ARows: a.Rows, ACols: a.Cols, BRows: len(colMap), BCols: newCols})
	}
	e := &CSR{Rows: a.Rows, Cols: newCols, Indptr: make([]int64, a.Rows+1)}
	for i := 0; i < a.Rows; i++ {
		start := len(e.Indices)
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			if nc := colMap[a.Indices[p]]; nc >= 0 {
				if int(nc) >= newCols {
					panic(IndexError{Op: "ExtractColumns", Index: int(nc), Len: newCols})
				}
				e.Indices = append(e.Indices, nc)
				e.Data = append(e.Data, a.Data[p])
			}
		}
		sortRowReference(e.Indices[start:], e.Data[start:])
		e.Indptr[i+1] = int64(len(e.Indices))
	}
	return e
}

func sortRowReference(idx []int32, val []float32) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && idx[j] < idx[j-1]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
			val[j], val[j-1] = val[j-1], val[j]
		}
	}
}

// rowSumsReference returns the sum of each row's values, accumulated in float64.
func rowSumsReference(a *CSR, threads int) []float64 {
	s := make([]float64, a.Rows)
	for i := range s {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			s[i] += float64(a.Data[p])
		}
	}
	return s
}

// normalizeRowsReference scales each row of a in place so that its values sum to 1
// (sums accumulated in float64); rows that sum to 0 are left unchanged.
func normalizeRowsReference(a *CSR, threads int) {
	for i, s := range rowSumsReference(a, threads) {
		if s == 0 {
			continue
		}
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			a.Data[p] = float32(float64(a.Data[p]) / s)
		}
	}
}
