package spgemm

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// Test matrices and the naive dense reference every kernel is checked
// against.

// denseMatrix is a row-major dense matrix with, per position, whether a
// sparse result should store an entry there (structural nonzero).
type denseMatrix struct {
	rows, cols int
	val        []float64
	present    []bool
}

func newDenseMatrix(rows, cols int) *denseMatrix {
	return &denseMatrix{rows: rows, cols: cols, val: make([]float64, rows*cols), present: make([]bool, rows*cols)}
}

// denseOf expands a.
func denseOf(a *CSR) *denseMatrix {
	d := newDenseMatrix(a.Rows, a.Cols)
	for i := range a.Rows {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			d.val[i*a.Cols+int(a.Indices[p])] = float64(a.Data[p])
			d.present[i*a.Cols+int(a.Indices[p])] = true
		}
	}
	return d
}

// sameBits reports whether a and b are identical, bit for bit.
func sameBits(a, b *CSR) error {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return fmt.Errorf("shape %d x %d vs %d x %d", a.Rows, a.Cols, b.Rows, b.Cols)
	}
	if a.NNZ() != b.NNZ() {
		return fmt.Errorf("nnz %d vs %d", a.NNZ(), b.NNZ())
	}
	for i := range a.Rows + 1 {
		if a.Indptr[i] != b.Indptr[i] {
			return fmt.Errorf("indptr[%d] %d vs %d", i, a.Indptr[i], b.Indptr[i])
		}
	}
	for p := range a.NNZ() {
		if a.Indices[p] != b.Indices[p] {
			return fmt.Errorf("indices[%d] %d vs %d", p, a.Indices[p], b.Indices[p])
		}
		if math.Float32bits(a.Data[p]) != math.Float32bits(b.Data[p]) {
			return fmt.Errorf("data[%d] %v vs %v", p, a.Data[p], b.Data[p])
		}
	}
	return nil
}

// csrFromRows builds a CSR from dense rows, storing the non-zero values.
func csrFromRows(cols int, rows [][]float32) *CSR {
	c := &CSR{Rows: len(rows), Cols: cols, Indptr: make([]int64, len(rows)+1)}
	for i, r := range rows {
		for j, v := range r {
			if v != 0 {
				c.Indices = append(c.Indices, int32(j))
				c.Data = append(c.Data, v)
			}
		}
		c.Indptr[i+1] = int64(len(c.Indices))
	}
	return c
}

// matrixKind says how randomMatrix lays out a matrix's entries.
type matrixKind int

const (
	uniformKind   matrixKind = iota // each entry present with the density
	emptyRowsKind                   // uniform, but every third row empty
	skewedKind                      // uniform and sparse, one row full
	selectionKind                   // exactly one entry per row (a row selection)
	powerLawKind                    // row lengths from a power law, columns skewed too
)

func (k matrixKind) String() string {
	return [...]string{"uniform", "empty-rows", "skewed", "selection", "power-law"}[k]
}

// randomMatrix returns a seeded rows x cols matrix of the given kind. With
// integer values (small, non-zero) every float32 sum in the tests is exact.
func randomMatrix(rng *rand.Rand, rows, cols int, density float64, kind matrixKind, integer bool) *CSR {
	c := &CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}
	value := func() float32 {
		if integer {
			v := float32(rng.IntN(7) - 3)
			if v == 0 {
				v = 4
			}
			return v
		}
		return float32(rng.NormFloat64())
	}
	for i := range rows {
		switch {
		case cols == 0:
		case kind == selectionKind:
			c.Indices = append(c.Indices, int32(rng.IntN(cols)))
			c.Data = append(c.Data, value())
		case kind == emptyRowsKind && i%3 == 0:
		case kind == skewedKind && i == rows/2:
			for j := range cols {
				c.Indices = append(c.Indices, int32(j))
				c.Data = append(c.Data, value())
			}
		case kind == powerLawKind:
			// Degree ~ Pareto(1), capped at cols; columns biased to low ids.
			deg := min(cols, int(float64(max(1, int(density*float64(cols))))/math.Sqrt(1-rng.Float64()+1e-12)))
			seen := make(map[int32]bool, deg)
			for range deg {
				j := int32(math.Min(float64(cols-1), float64(cols)*math.Pow(rng.Float64(), 2)))
				seen[j] = true
			}
			for _, j := range slices.Sorted(maps.Keys(seen)) {
				c.Indices = append(c.Indices, j)
				c.Data = append(c.Data, value())
			}
		default:
			for j := range cols {
				if rng.Float64() < density {
					c.Indices = append(c.Indices, int32(j))
					c.Data = append(c.Data, value())
				}
			}
		}
		c.Indptr[i+1] = int64(len(c.Indices))
	}
	return c
}
