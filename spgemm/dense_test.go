package spgemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestGonumInterop(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}})
	d := ToDense(a)
	if want := mat.NewDense(2, 3, []float64{1, 0, 2, 0, 0, 0}); !mat.Equal(d, want) {
		t.Errorf("ToDense = %v; want %v", mat.Formatted(d), mat.Formatted(want))
	}
	if !mat.Equal(a, d) { // *CSR is a mat.Matrix
		t.Error("mat.Equal(CSR, its dense form) is false")
	}
	if got := a.T().At(2, 0); got != 2 {
		t.Errorf("T().At(2, 0) = %v; want 2", got)
	}
	back := FromMatrix(d)
	if err := sameBits(back, a); err != nil {
		t.Errorf("FromMatrix(ToDense(a)): %v", err)
	}
	// Through the generic mat.Matrix path (a transpose view) as well.
	if err := sameBits(FromMatrix(d.T()), Transpose(a, 1)); err != nil {
		t.Errorf("FromMatrix(transpose view): %v", err)
	}
	// 1e-50 is 0 in float32 and is dropped; NaN is kept.
	odd := FromMatrix(mat.NewDense(1, 3, []float64{1e-50, math.NaN(), 0}))
	if odd.NNZ() != 1 || odd.Indices[0] != 1 {
		t.Errorf("FromMatrix([1e-50 NaN 0]) = %+v; want one entry at column 1", odd)
	}
	if e := ToDense(&CSR{Rows: 3}); !e.IsEmpty() {
		t.Error("ToDense(3 x 0) is not the empty Dense")
	}
	if err := FromMatrix(&mat.Dense{}).Validate(); err != nil {
		t.Errorf("FromMatrix(empty): %v", err)
	}
	checkPanic(t, func() { a.At(2, 0) }, IndexError{Op: "At row", Index: 2, Len: 2})
	checkPanic(t, func() { a.At(0, -1) }, IndexError{Op: "At column", Index: -1, Len: 3})

	// The product agrees with gonum's dense product.
	rng := rand.New(rand.NewPCG(19, 20))
	x := randomMatrix(rng, 30, 20, 0.2, uniformKind, true)
	y := randomMatrix(rng, 20, 25, 0.2, uniformKind, true)
	var want mat.Dense
	want.Mul(ToDense(x), ToDense(y))
	if got := Mul(x, y, nil); !mat.Equal(got, &want) {
		t.Error("Mul disagrees with mat.Dense.Mul")
	}
}
