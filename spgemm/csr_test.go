package spgemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestValidate checks that every kind of malformed CSR is reported with a
// message naming the problem.
func TestValidate(t *testing.T) {
	good := func() *CSR { // [[1 0 2] [0 0 0] [0 3 0]]
		return &CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 2, 2, 3}, Indices: []int32{0, 2, 1}, Data: []float32{1, 2, 3}}
	}
	tests := []struct {
		name   string
		modify func(m *CSR)
		want   string // substring of the error; "" means valid
	}{
		{"valid", func(m *CSR) {}, ""},
		{"zero value", func(m *CSR) { *m = CSR{} }, ""},
		{"0 x 5 without indptr", func(m *CSR) { *m = CSR{Cols: 5} }, ""},
		{"0 x 0 with indptr", func(m *CSR) { *m = CSR{Indptr: []int64{0}} }, ""},
		{"unsorted", func(m *CSR) { m.Indices[0], m.Indices[1] = 2, 0 }, "not sorted"},
		{"duplicate", func(m *CSR) { m.Indices[1] = 0 }, "duplicate column id 0"},
		{"column out of range", func(m *CSR) { m.Indices[2] = 3 }, "column id 3 (entry 2) outside [0, 3)"},
		{"negative column", func(m *CSR) { m.Indices[0] = -1 }, "column id -1"},
		{"non-monotone indptr", func(m *CSR) { m.Indptr[2] = 1 }, "indptr decreases at row 1"},
		{"indptr[0] not 0", func(m *CSR) { m.Indptr[0] = 1 }, "indptr[0] = 1"},
		{"negative indptr", func(m *CSR) { m.Indptr[0] = -1 }, "indptr[0] = -1"},
		{"indptr too short", func(m *CSR) { m.Indptr = m.Indptr[:3] }, "indptr has length 3, want rows+1 = 4"},
		{"indptr missing", func(m *CSR) { m.Indptr = nil }, "indptr has length 0"},
		{"indices too short", func(m *CSR) { m.Indices = m.Indices[:2] }, "indices has length 2, want indptr[rows] = 3"},
		{"data too long", func(m *CSR) { m.Data = append(m.Data, 4) }, "data has length 4, want indptr[rows] = 3"},
		{"negative rows", func(m *CSR) { m.Rows = -1 }, "negative shape -1 x 3"},
		{"negative cols", func(m *CSR) { m.Cols = -2 }, "negative shape 3 x -2"},
		{"too many columns", func(m *CSR) { m.Cols = 1<<31 + 1 }, "exceed the int32"},
		{"0 rows with entries", func(m *CSR) { *m = CSR{Cols: 2, Indices: []int32{0}, Data: []float32{1}} }, "0 rows but 1 column ids"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := good()
			tc.modify(m)
			err := m.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v; want nil", err)
			case tc.want != "" && err == nil:
				t.Errorf("Validate() = nil; want an error containing %q", tc.want)
			case tc.want != "" && (!strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid)):
				t.Errorf("Validate() = %v; want an ErrInvalid containing %q", err, tc.want)
			}
		})
	}
}

func TestCSRAccessors(t *testing.T) {
	m := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}, {0, 3, 0}})
	if got := m.NNZ(); got != 3 {
		t.Errorf("NNZ = %d; want 3", got)
	}
	if got := m.RowNNZ(0); got != 2 {
		t.Errorf("RowNNZ(0) = %d; want 2", got)
	}
	idx, val := m.Row(2)
	if len(idx) != 1 || idx[0] != 1 || val[0] != 3 {
		t.Errorf("Row(2) = %v, %v; want [1], [3]", idx, val)
	}
	checkPanic(t, func() { m.Row(3) }, IndexError{Op: "Row", Index: 3, Len: 3})
	checkPanic(t, func() { m.RowNNZ(-1) }, IndexError{Op: "RowNNZ", Index: -1, Len: 3})
	c := m.Clone()
	c.Data[0] = 9
	if m.Data[0] != 1 {
		t.Error("Clone shares Data with the original")
	}
	if err := (&CSR{}).Clone().Validate(); err != nil {
		t.Errorf("clone of the zero CSR: %v", err)
	}
}

func TestMaybe(t *testing.T) {
	err := Maybe(func() { Mul(&CSR{Rows: 2, Cols: 3}, &CSR{Rows: 2, Cols: 2}, nil) })
	var se ShapeError
	if !errors.As(err, &se) || se.ARows != 2 || se.BCols != 2 {
		t.Errorf("Maybe = %v; want a ShapeError", err)
	}
	if !strings.Contains(err.Error(), "spgemm: Mul: shape mismatch: 2 x 3 and 2 x 2") {
		t.Errorf("message %q does not name both shapes", err)
	}
	if err := Maybe(func() {}); err != nil {
		t.Errorf("Maybe(no panic) = %v", err)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("other panic: recovered %v; want it to propagate", r)
		}
	}()
	_ = Maybe(func() { panic("other") })
}

// TestValidateRowsRandom corrupts one column id of random matrices and
// checks ValidateRows (and Validate) against a per-entry check, on ranges of
// rows, including extreme ids that would overflow 32-bit differences.
func TestValidateRowsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	extremes := []int32{math.MinInt32, math.MaxInt32, -1, 0}
	for trial := range 300 {
		m := randomMatrix(r, 1+r.IntN(12), 1+r.IntN(12), 0.4, matrixKind(r.IntN(3)), true)
		if m.NNZ() == 0 {
			continue
		}
		p := r.Int64N(m.NNZ())
		v := int32(r.IntN(m.Cols+2) - 1)
		if trial%5 == 0 {
			v = extremes[r.IntN(len(extremes))]
		}
		m.Indices[p] = v
		bad := -1 // the first bad row, by the obvious check
		for i := 0; i < m.Rows && bad < 0; i++ {
			prev := int32(-1)
			for q := m.Indptr[i]; q < m.Indptr[i+1]; q++ {
				if c := m.Indices[q]; c < 0 || int(c) >= m.Cols || c <= prev {
					bad = i
					break
				} else {
					prev = c
				}
			}
		}
		err := m.Validate()
		if (err != nil) != (bad >= 0) || err != nil && !strings.Contains(err.Error(), fmt.Sprintf("row %d:", bad)) {
			t.Fatalf("trial %d: %+v: Validate() = %v, first bad row %d", trial, m, err, bad)
		}
		for lo := 0; lo <= m.Rows; lo++ {
			hi := lo + r.IntN(m.Rows-lo+1)
			err := m.ValidateRows(lo, hi)
			if want := bad >= lo && bad < hi; (err != nil) != want {
				t.Fatalf("trial %d: ValidateRows(%d, %d) = %v, bad row %d", trial, lo, hi, err, bad)
			}
		}
	}
	m := csrFromRows(3, [][]float32{{1, 0, 2}})
	checkPanic(t, func() { m.ValidateRows(0, 2) }, IndexError{Op: "ValidateRows", Index: 2, Len: 2})
	checkPanic(t, func() { m.ValidateRows(-1, 0) }, IndexError{Op: "ValidateRows", Index: -1, Len: 2})
}

// TestSliceRows: a view of rows [lo, hi) holds those rows, shares m's
// arrays without letting an append reach them, reuses its offset buffer,
// and panics with an IndexError outside [0, Rows].
func TestSliceRows(t *testing.T) {
	m := &CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 2, 2, 3}, Indices: []int32{0, 2, 1}, Data: []float32{1, 2, 3}}
	v := m.SliceRows(1, 3, nil)
	if err := v.Validate(); err != nil || v.Rows != 2 || v.Cols != 3 || fmt.Sprint(v.Indptr, v.Indices, v.Data) != "[0 0 1] [1] [3]" {
		t.Errorf("SliceRows(1, 3) = %+v (%v); want rows [] and [1:3]", v, err)
	}
	_ = append(v.Indices, 9)
	if m.Indices[2] != 1 || cap(v.Indices) != 1 {
		t.Errorf("appending to the view reached m: %v", m.Indices)
	}
	buf := make([]int64, 0, 8)
	if w := m.SliceRows(0, 1, buf); &w.Indptr[0] != &buf[:1][0] || w.NNZ() != 2 {
		t.Errorf("SliceRows(0, 1, buf) did not reuse buf or has %d entries", w.NNZ())
	}
	if e := m.SliceRows(3, 3, nil); e.Rows != 0 || e.NNZ() != 0 || len(e.Indptr) != 1 {
		t.Errorf("empty range: %+v", e)
	}
	for _, r := range [][2]int{{-1, 2}, {2, 1}, {0, 4}} {
		err := Maybe(func() { m.SliceRows(r[0], r[1], nil) })
		var ie IndexError
		if !errors.As(err, &ie) {
			t.Errorf("SliceRows(%d, %d): %v; want an IndexError", r[0], r[1], err)
		}
	}
}
