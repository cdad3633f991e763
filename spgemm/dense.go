package spgemm

// Interoperation with gonum's mat package: *CSR implements mat.Matrix (At
// by binary search in the row), ToDense expands it and FromMatrix compresses
// any mat.Matrix, reading a *mat.Dense's backing array directly.

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

var _ mat.Matrix = (*CSR)(nil)

// At returns the value at (i, j), 0 where no entry is stored. It costs
// O(log nnz(row i)) and panics with an IndexError if i or j is out of range.
func (m *CSR) At(i, j int) float64 {
	if uint(i) >= uint(m.Rows) {
		panic(IndexError{Op: "At row", Index: i, Len: m.Rows})
	}
	if uint(j) >= uint(m.Cols) {
		panic(IndexError{Op: "At column", Index: j, Len: m.Cols})
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	if p, ok := slices.BinarySearch(m.Indices[lo:hi], int32(j)); ok {
		return float64(m.Data[lo+int64(p)])
	}
	return 0
}

// T returns the implicit transpose of m, for use with gonum; Transpose
// computes an explicit one.
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// ToDense returns a as a gonum dense matrix, with every value converted to
// float64. A matrix with no rows or no columns gives an empty (zero) Dense,
// as gonum cannot allocate a 0-length one.
func ToDense(a *CSR) *mat.Dense {
	if a.Rows == 0 || a.Cols == 0 {
		return &mat.Dense{}
	}
	d := mat.NewDense(a.Rows, a.Cols, nil)
	raw := d.RawMatrix()
	for i := range a.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+a.Cols]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			row[a.Indices[p]] = float64(a.Data[p])
		}
	}
	return d
}

// FromMatrix returns m in CSR form with its values converted to float32.
// Entries that are zero after the conversion are not stored; NaNs are. It
// costs O(rows·cols) and panics with an IndexError if m has more than 2^31
// columns.
func FromMatrix(m mat.Matrix) *CSR {
	rows, cols := m.Dims()
	if int64(cols) > math.MaxInt32 {
		panic(IndexError{Op: "FromMatrix columns", Index: cols, Len: math.MaxInt32})
	}
	c := &CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}
	at := m.At
	if rm, ok := m.(mat.RawMatrixer); ok {
		raw := rm.RawMatrix()
		at = func(i, j int) float64 { return raw.Data[i*raw.Stride+j] }
	}
	for i := range rows {
		for j := range cols {
			if v := float32(at(i, j)); v != 0 {
				c.Indices = append(c.Indices, int32(j))
				c.Data = append(c.Data, v)
			}
		}
		c.Indptr[i+1] = int64(len(c.Indices))
	}
	return c
}
