package spgemm

import (
	"errors"
	"fmt"
)

// CSR is a sparse matrix in compressed sparse row form. See the package
// documentation for the invariant.
type CSR struct {
	Rows, Cols int
	Indptr     []int64   // len Rows+1; row i is [Indptr[i], Indptr[i+1])
	Indices    []int32   // column ids, sorted and unique within a row
	Data       []float32 // values, parallel to Indices
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int64 {
	if len(m.Indptr) == 0 {
		return 0
	}
	return m.Indptr[len(m.Indptr)-1]
}

// Dims returns the number of rows and columns.
func (m *CSR) Dims() (rows, cols int) { return m.Rows, m.Cols }

// RowNNZ returns the number of entries of row i. It panics if i is out of range.
func (m *CSR) RowNNZ(i int) int {
	if uint(i) >= uint(m.Rows) {
		panic(IndexError{Op: "RowNNZ", Index: i, Len: m.Rows})
	}
	return int(m.Indptr[i+1] - m.Indptr[i])
}

// Row returns views of row i's column ids and values (not copies).
// It panics if i is out of range.
func (m *CSR) Row(i int) ([]int32, []float32) {
	if uint(i) >= uint(m.Rows) {
		panic(IndexError{Op: "Row", Index: i, Len: m.Rows})
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[lo:hi:hi], m.Data[lo:hi:hi]
}

// Clone returns a deep copy of m.
func (m *CSR) Clone() *CSR {
	c := &CSR{Rows: m.Rows, Cols: m.Cols}
	c.Indptr = append([]int64(nil), m.Indptr...)
	c.Indices = append([]int32(nil), m.Indices...)
	c.Data = append([]float32(nil), m.Data...)
	if c.Indptr == nil {
		c.Indptr = make([]int64, m.Rows+1)
	}
	return c
}

// SliceRows returns rows [lo, hi) of m as a (hi-lo) x m.Cols CSR: a view
// that shares m's Indices and Data (capped, so that appending to the view
// never writes into m) and has its own row offsets, m's shifted to start at
// 0, stored in ptr when its capacity allows (pass nil to allocate; a
// caller that slices many ranges reuses the previous view's Indptr). It
// costs O(hi-lo) and panics with an IndexError unless
// 0 <= lo <= hi <= m.Rows.
func (m *CSR) SliceRows(lo, hi int, ptr []int64) *CSR {
	if lo < 0 || lo > hi {
		panic(IndexError{Op: "SliceRows", Index: lo, Len: hi + 1})
	}
	if hi > m.Rows {
		panic(IndexError{Op: "SliceRows", Index: hi, Len: m.Rows + 1})
	}
	base, end := m.Indptr[lo], m.Indptr[hi]
	ptr = append(ptr[:0], m.Indptr[lo:hi+1]...)
	for i := range ptr {
		ptr[i] -= base
	}
	v := &CSR{Rows: hi - lo, Cols: m.Cols, Indptr: ptr, Indices: m.Indices[base:end:end]}
	if m.Data != nil {
		v.Data = m.Data[base:end:end]
	}
	return v
}

// ErrInvalid is wrapped by every error that Validate returns.
var ErrInvalid = errors.New("spgemm: invalid CSR")

// Validate checks the CSR invariant and returns an error naming the first
// violation found, or nil. It costs O(Rows + nnz). It is ValidateOffsets
// followed by ValidateRows(0, m.Rows).
func (m *CSR) Validate() error {
	if err := m.ValidateOffsets(); err != nil {
		return err
	}
	return m.ValidateRows(0, m.Rows)
}

// ValidateOffsets checks the part of the CSR invariant that costs O(Rows):
// the shape, the row offsets and the lengths of the arrays. A CSR that
// passes it may be checked row range by row range, in parallel, with
// ValidateRows.
func (m *CSR) ValidateOffsets() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("%w: negative shape %d x %d", ErrInvalid, m.Rows, m.Cols)
	}
	if int64(m.Cols) > 1<<31 {
		return fmt.Errorf("%w: %d columns exceed the int32 column id range", ErrInvalid, m.Cols)
	}
	if m.Rows == 0 && len(m.Indptr) == 0 {
		if len(m.Indices) != 0 || len(m.Data) != 0 {
			return fmt.Errorf("%w: 0 rows but %d column ids and %d values", ErrInvalid, len(m.Indices), len(m.Data))
		}
		return nil
	}
	if len(m.Indptr) != m.Rows+1 {
		return fmt.Errorf("%w: indptr has length %d, want rows+1 = %d", ErrInvalid, len(m.Indptr), m.Rows+1)
	}
	if m.Indptr[0] != 0 {
		return fmt.Errorf("%w: indptr[0] = %d, want 0", ErrInvalid, m.Indptr[0])
	}
	for i := 0; i < m.Rows; i++ {
		if m.Indptr[i+1] < m.Indptr[i] {
			return fmt.Errorf("%w: indptr decreases at row %d (%d then %d)", ErrInvalid, i, m.Indptr[i], m.Indptr[i+1])
		}
	}
	nnz := m.Indptr[m.Rows]
	if int64(len(m.Indices)) != nnz {
		return fmt.Errorf("%w: indices has length %d, want indptr[rows] = %d", ErrInvalid, len(m.Indices), nnz)
	}
	if int64(len(m.Data)) != nnz {
		return fmt.Errorf("%w: data has length %d, want indptr[rows] = %d", ErrInvalid, len(m.Data), nnz)
	}
	return nil
}

// ValidateRows checks that the column ids of rows [lo, hi) are strictly
// increasing and lie in [0, Cols), and returns an error naming the first
// violation. m must have passed ValidateOffsets; lo and hi outside
// 0 <= lo <= hi <= Rows panic with an IndexError.
func (m *CSR) ValidateRows(lo, hi int) error {
	if lo < 0 || lo > hi {
		panic(IndexError{Op: "ValidateRows", Index: lo, Len: m.Rows + 1})
	}
	if hi > m.Rows {
		panic(IndexError{Op: "ValidateRows", Index: hi, Len: m.Rows + 1})
	}
	cols := uint32(m.Cols)
	for i := lo; i < hi; i++ {
		prev := int32(-1)
		for _, c := range m.Indices[m.Indptr[i]:m.Indptr[i+1]] {
			// One unsigned compare catches negative ids too.
			if uint32(c) >= cols || c <= prev {
				return m.rowError(i)
			}
			prev = c
		}
	}
	return nil
}

// rowError describes the first bad column id of row i.
func (m *CSR) rowError(i int) error {
	prev := int32(-1)
	for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
		c := m.Indices[p]
		switch {
		case c < 0 || int(c) >= m.Cols:
			return fmt.Errorf("%w: row %d: column id %d (entry %d) outside [0, %d)", ErrInvalid, i, c, p, m.Cols)
		case c == prev:
			return fmt.Errorf("%w: row %d: duplicate column id %d (entry %d)", ErrInvalid, i, c, p)
		case c < prev:
			return fmt.Errorf("%w: row %d: column ids not sorted (%d after %d, entry %d)", ErrInvalid, i, c, prev, p)
		}
		prev = c
	}
	return nil
}
