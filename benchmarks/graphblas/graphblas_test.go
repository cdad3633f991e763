//go:build graphblas

package graphblas

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

func initForTest(t *testing.T) {
	t.Helper()
	if err := Init(2); err != nil {
		t.Fatalf("Init(2): %v", err)
	}
}

// fromDense builds a CSR from a row-major dense matrix, keeping nonzeros.
func fromDense(rows, cols int, d []float32) *spgemm.CSR {
	c := &spgemm.CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if v := d[i*cols+j]; v != 0 {
				c.Indices = append(c.Indices, int32(j))
				c.Data = append(c.Data, v)
			}
		}
		c.Indptr[i+1] = int64(len(c.Indices))
	}
	return c
}

func toDense(c *spgemm.CSR) []float32 {
	d := make([]float32, c.Rows*c.Cols)
	for i := 0; i < c.Rows; i++ {
		for p := c.Indptr[i]; p < c.Indptr[i+1]; p++ {
			d[i*c.Cols+int(c.Indices[p])] += c.Data[p]
		}
	}
	return d
}

// denseMul is the obviously right product of row-major dense matrices.
func denseMul(n, k, m int, a, b []float32) []float32 {
	c := make([]float32, n*m)
	for i := 0; i < n; i++ {
		for l := 0; l < k; l++ {
			for j := 0; j < m; j++ {
				c[i*m+j] += a[i*k+l] * b[l*m+j]
			}
		}
	}
	return c
}

func randomCSR(rng *rand.Rand, rows, cols int, density float64) *spgemm.CSR {
	d := make([]float32, rows*cols)
	for i := range d {
		if rng.Float64() < density {
			d[i] = float32(rng.IntN(7) + 1) // small integers: exact sums in float32
		}
	}
	return fromDense(rows, cols, d)
}

// gbProduct multiplies a and b with GraphBLAS and returns the product as CSR.
func gbProduct(t *testing.T, a, b *spgemm.CSR) *spgemm.CSR {
	t.Helper()
	ga, err := FromCSR(a)
	if err != nil {
		t.Fatalf("FromCSR(a): %v", err)
	}
	defer ga.Free()
	gb, err := FromCSR(b)
	if err != nil {
		t.Fatalf("FromCSR(b): %v", err)
	}
	defer gb.Free()
	gc, err := Mul(ga, gb)
	if err != nil {
		t.Fatalf("Mul: %v", err)
	}
	defer gc.Free()
	c, err := gc.ToCSR()
	if err != nil {
		t.Fatalf("ToCSR: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("GraphBLAS product is not a valid CSR: %v", err)
	}
	n, err := gc.NVals()
	if err != nil || n != c.NNZ() {
		t.Fatalf("NVals = %d, %v; want %d", n, err, c.NNZ())
	}
	return c
}

func TestMulHandChecked(t *testing.T) {
	initForTest(t)
	// [1 2 0]   [0 1]   [2 1]
	// [0 0 3] · [1 0] = [0 6]
	//           [0 2]
	a := fromDense(2, 3, []float32{1, 2, 0, 0, 0, 3})
	b := fromDense(3, 2, []float32{0, 1, 1, 0, 0, 2})
	c := gbProduct(t, a, b)
	want := &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 2, 3}, Indices: []int32{0, 1, 1}, Data: []float32{2, 1, 6}}
	if !equalCSR(c, want) {
		t.Errorf("got %+v; want %+v", c, want)
	}
}

func TestMulMatchesOursAndDense(t *testing.T) {
	initForTest(t)
	for _, tc := range []struct {
		n, k, m int
		density float64
	}{
		{1, 1, 1, 1},
		{5, 4, 3, 0.5},
		{0, 3, 4, 0.5},
		{4, 0, 3, 0.5},
		{30, 40, 20, 0.1},
		{64, 64, 64, 0.05},
		{100, 80, 120, 0.02},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			a := randomCSR(rng, tc.n, tc.k, tc.density)
			b := randomCSR(rng, tc.k, tc.m, tc.density)
			got := gbProduct(t, a, b)
			if want := denseMul(tc.n, tc.k, tc.m, toDense(a), toDense(b)); !slicesEqual(toDense(got), want) {
				t.Errorf("%dx%d·%dx%d seed %d: GraphBLAS differs from the dense product", tc.n, tc.k, tc.k, tc.m, seed)
			}
			if ours := spgemm.Mul(a, b, &spgemm.MulOptions{Threads: 2}); !equalCSR(got, ours) {
				t.Errorf("%dx%d·%dx%d seed %d: GraphBLAS (nnz %d) differs from spgemm.Mul (nnz %d)",
					tc.n, tc.k, tc.k, tc.m, seed, got.NNZ(), ours.NNZ())
			}
		}
	}
}

func TestMulUnfinishedEqualsMul(t *testing.T) {
	initForTest(t)
	rng := rand.New(rand.NewPCG(11, 3))
	a := randomCSR(rng, 60, 70, 0.1)
	b := randomCSR(rng, 70, 50, 0.1)
	ga, _ := FromCSR(a)
	gb, _ := FromCSR(b)
	defer ga.Free()
	defer gb.Free()
	c, err := MulUnfinished(ga, gb)
	if err != nil {
		t.Fatalf("MulUnfinished: %v", err)
	}
	defer c.Free()
	got, err := c.ToCSR() // finishes the pending work
	if err != nil {
		t.Fatalf("ToCSR: %v", err)
	}
	if want := gbProduct(t, a, b); !equalCSR(got, want) {
		t.Errorf("MulUnfinished then ToCSR differs from Mul")
	}
}

func TestRoundTrip(t *testing.T) {
	initForTest(t)
	rng := rand.New(rand.NewPCG(5, 5))
	for _, a := range []*spgemm.CSR{
		{}, // 0 x 0 zero value
		{Rows: 3, Cols: 2, Indptr: make([]int64, 4)},
		randomCSR(rng, 17, 23, 0.3),
	} {
		g, err := FromCSR(a)
		if err != nil {
			t.Fatalf("FromCSR(%dx%d): %v", a.Rows, a.Cols, err)
		}
		if r, c := g.Dims(); r != a.Rows || c != a.Cols {
			t.Errorf("Dims = %d x %d; want %d x %d", r, c, a.Rows, a.Cols)
		}
		back, err := g.ToCSR()
		if err != nil {
			t.Fatalf("ToCSR: %v", err)
		}
		if a.Rows == 0 && len(a.Indptr) == 0 {
			a = &spgemm.CSR{Indptr: []int64{0}}
		}
		if !equalCSR(back, a) {
			t.Errorf("round trip of %dx%d changed it: got %+v; want %+v", a.Rows, a.Cols, back, a)
		}
		if err := g.Free(); err != nil {
			t.Errorf("Free: %v", err)
		}
		if err := g.Free(); err != nil {
			t.Errorf("second Free: %v", err)
		}
		if _, err := g.NVals(); err == nil {
			t.Errorf("NVals of a freed Matrix: no error")
		}
	}
}

func TestFromCSRRejectsInvalid(t *testing.T) {
	initForTest(t)
	bad := &spgemm.CSR{Rows: 1, Cols: 2, Indptr: []int64{0, 2}, Indices: []int32{1, 0}, Data: []float32{1, 1}}
	_, err := FromCSR(bad)
	if !errors.Is(err, spgemm.ErrInvalid) {
		t.Errorf("FromCSR(unsorted row) = %v; want an error wrapping spgemm.ErrInvalid", err)
	}
}

func TestMulShapePanics(t *testing.T) {
	initForTest(t)
	a, _ := FromCSR(&spgemm.CSR{Rows: 2, Cols: 3, Indptr: make([]int64, 3)})
	b, _ := FromCSR(&spgemm.CSR{Rows: 2, Cols: 3, Indptr: make([]int64, 3)})
	defer a.Free()
	defer b.Free()
	defer func() {
		if _, ok := recover().(spgemm.ShapeError); !ok {
			t.Errorf("Mul(2x3, 2x3) did not panic with a spgemm.ShapeError")
		}
	}()
	Mul(a, b)
}

func TestVersion(t *testing.T) {
	initForTest(t)
	v, err := Version()
	if err != nil || !strings.HasPrefix(v, "SuiteSparse:GraphBLAS ") {
		t.Errorf("Version() = %q, %v", v, err)
	}
}

func TestErrorNamesCall(t *testing.T) {
	e := &Error{Call: "GrB_mxm", Info: -102, Name: "GrB_OUT_OF_MEMORY"}
	if got, want := e.Error(), "graphblas: GrB_mxm: GrB_OUT_OF_MEMORY (-102)"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
}

func equalCSR(a, b *spgemm.CSR) bool {
	if a.Rows != b.Rows || a.Cols != b.Cols || len(a.Indptr) != len(b.Indptr) || a.NNZ() != b.NNZ() {
		return false
	}
	for i := range a.Indptr {
		if a.Indptr[i] != b.Indptr[i] {
			return false
		}
	}
	for p := int64(0); p < a.NNZ(); p++ {
		if a.Indices[p] != b.Indices[p] || a.Data[p] != b.Data[p] {
			return false
		}
	}
	return true
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5*math.Max(1, math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

func TestSortRows(t *testing.T) {
	c := &spgemm.CSR{Rows: 2, Cols: 4, Indptr: []int64{0, 3, 4},
		Indices: []int32{3, 0, 2, 1}, Data: []float32{30, 0.5, 20, 10}}
	sortRows(c)
	want := &spgemm.CSR{Rows: 2, Cols: 4, Indptr: []int64{0, 3, 4},
		Indices: []int32{0, 2, 3, 1}, Data: []float32{0.5, 20, 30, 10}}
	if !equalCSR(c, want) {
		t.Errorf("sortRows: got %+v; want %+v", c, want)
	}
}

func TestViewMatchesToCSR(t *testing.T) {
	initForTest(t)
	rng := rand.New(rand.NewPCG(9, 9))
	a := randomCSR(rng, 40, 30, 0.1)
	b := randomCSR(rng, 30, 50, 0.1)
	ga, _ := FromCSR(a)
	gb, _ := FromCSR(b)
	defer ga.Free()
	defer gb.Free()
	for _, m := range []*Matrix{ga, mustMul(t, ga, gb)} {
		want, err := m.ToCSR()
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // a second View sees the arrays packed back unchanged
			err = m.View(func(indptr, indices []uint64, data []float32) error {
				got := &spgemm.CSR{Rows: want.Rows, Cols: want.Cols, Indptr: make([]int64, len(indptr)),
					Indices: make([]int32, len(indices)), Data: append([]float32(nil), data...)}
				for i, p := range indptr {
					got.Indptr[i] = int64(p)
				}
				for p, j := range indices {
					got.Indices[p] = int32(j)
				}
				if !equalCSR(got, want) {
					t.Errorf("View arrays differ from ToCSR: got %+v; want %+v", got, want)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("View: %v", err)
			}
		}
	}
	sentinel := errors.New("stop")
	if err := ga.View(func(_, _ []uint64, _ []float32) error { return sentinel }); err != sentinel {
		t.Errorf("View returned %v; want fn's error", err)
	}
	if n, err := ga.NVals(); err != nil || n != a.NNZ() {
		t.Errorf("after a failing fn, NVals = %d, %v; want %d", n, err, a.NNZ())
	}
	empty, _ := FromCSR(&spgemm.CSR{Rows: 2, Cols: 2, Indptr: make([]int64, 3)})
	defer empty.Free()
	if err := empty.View(func(indptr, indices []uint64, _ []float32) error {
		if len(indptr) != 3 || indptr[2] != 0 || len(indices) != 0 {
			t.Errorf("View of an empty 2x2: indptr %v, %d column ids", indptr, len(indices))
		}
		return nil
	}); err != nil {
		t.Errorf("View of an empty matrix: %v", err)
	}
}

func mustMul(t *testing.T, a, b *Matrix) *Matrix {
	t.Helper()
	c, err := Mul(a, b)
	if err != nil {
		t.Fatalf("Mul: %v", err)
	}
	t.Cleanup(func() { c.Free() })
	return c
}
