package spgemm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRowSumsAndNormalizeRows(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 3}, {0, 0, 0}, {0, -2, 2}, {0, 0.5, 0}})
	if got, want := RowSums(a, 2), []float64{4, 0, 0, 0.5}; !slices.Equal(got, want) {
		t.Errorf("RowSums = %v; want %v", got, want)
	}
	NormalizeRows(a, 2)
	want := csrFromRows(3, [][]float32{{0.25, 0, 0.75}, {0, 0, 0}, {0, -2, 2}, {0, 1, 0}})
	if err := sameBits(a, want); err != nil {
		t.Errorf("NormalizeRows: %v (rows summing to 0 must be unchanged)", err)
	}

	rng := rand.New(rand.NewPCG(17, 18))
	big := randomMatrix(rng, 3000, 2000, 0.01, powerLawKind, false)
	for i := range big.Data {
		big.Data[i] = float32(math.Abs(float64(big.Data[i]))) + 1e-3
	}
	wantSums := rowSumsReference(big, 1)
	wantNorm := big.Clone()
	normalizeRowsReference(wantNorm, 1)
	for _, threads := range []int{1, 2, 3, 8} {
		if got := RowSums(big, threads); !slices.Equal(got, wantSums) {
			t.Errorf("RowSums, %d threads: differs from the serial reference", threads)
		}
		got := big.Clone()
		NormalizeRows(got, threads)
		if err := sameBits(got, wantNorm); err != nil {
			t.Errorf("NormalizeRows, %d threads: %v", threads, err)
		}
		for i, s := range RowSums(got, threads) {
			if got.RowNNZ(i) > 0 && math.Abs(s-1) > 1e-5 {
				t.Fatalf("NormalizeRows, %d threads: row %d sums to %v", threads, i, s)
			}
		}
	}
}

func TestScaleAndSquare(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, -3}, {0, 0, 0}, {0, 2, 0}})
	var c CSR
	c.Scale(-2, a, 1)
	if err := sameBits(&c, csrFromRows(3, [][]float32{{-2, 0, 6}, {0, 0, 0}, {0, -4, 0}})); err != nil {
		t.Errorf("Scale: %v", err)
	}
	c.Square(a, 2)
	if err := sameBits(&c, csrFromRows(3, [][]float32{{1, 0, 9}, {0, 0, 0}, {0, 4, 0}})); err != nil {
		t.Errorf("Square: %v", err)
	}
	if a.Data[2] != 2 {
		t.Error("Square changed its operand")
	}
	a.Square(a, 2) // in place
	if err := sameBits(a, &c); err != nil {
		t.Errorf("Square in place: %v", err)
	}
	var z CSR
	z.Scale(0, a, 1)
	if z.NNZ() != a.NNZ() {
		t.Errorf("Scale by 0 stored %d entries; want the pattern kept (%d)", z.NNZ(), a.NNZ())
	}
	if err := z.Validate(); err != nil {
		t.Error(err)
	}
	var e CSR
	if err := e.Square(&CSR{}, 1).Validate(); err != nil {
		t.Errorf("Square of the empty matrix: %v", err)
	}
}

// TestSymNormalizeWithSelfLoops checks D_r^-1/2 (A+I) D_c^-1/2 by hand: a
// path 0-1-2 (degrees plus one: 2, 3, 2) with an existing self loop of
// weight 2 on vertex 2, and against a dense reference on a random matrix.
func TestSymNormalizeWithSelfLoops(t *testing.T) {
	a := csrFromRows(3, [][]float32{{0, 1, 0}, {1, 0, 1}, {0, 1, 2}})
	// A+I = [[1 1 0] [1 1 1] [0 1 3]]: row sums 2, 3, 4; column sums 2, 3, 4.
	s2, s3, s4 := math.Sqrt(2), math.Sqrt(3), math.Sqrt(4)
	want := csrFromRows(3, [][]float32{
		{float32(1 / (s2 * s2)), float32(1 / (s2 * s3)), 0},
		{float32(1 / (s3 * s2)), float32(1 / (s3 * s3)), float32(1 / (s3 * s4))},
		{0, float32(1 / (s4 * s3)), float32(3 / (s4 * s4))},
	})
	got := SymNormalizeWithSelfLoops(a, 2)
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	if got.NNZ() != 7 {
		t.Errorf("nnz %d; want 7 (the 4 edges, 2 inserted self loops and the existing one)", got.NNZ())
	}
	for i := range 3 {
		for j := range 3 {
			if g, w := got.At(i, j), want.At(i, j); math.Abs(g-w) > 1e-7 {
				t.Errorf("(%d, %d) = %v; want %v", i, j, g, w)
			}
		}
	}
	if a.NNZ() != 5 || a.At(2, 2) != 2 {
		t.Error("SymNormalizeWithSelfLoops modified its input")
	}

	rng := rand.New(rand.NewPCG(5, 6))
	r := randomMatrix(rng, 200, 200, 0.03, powerLawKind, false)
	for i := range r.Data {
		r.Data[i] = float32(math.Abs(float64(r.Data[i]))) + 0.1
	}
	n := r.Rows
	dense := make([][]float64, n)
	rs, cs := make([]float64, n), make([]float64, n)
	for i := range n {
		dense[i] = make([]float64, n)
		for j := range n {
			dense[i][j] = r.At(i, j)
		}
		dense[i][i]++
	}
	for i := range n {
		for j := range n {
			rs[i] += dense[i][j]
			cs[j] += dense[i][j]
		}
	}
	for _, threads := range []int{1, 3} {
		got := SymNormalizeWithSelfLoops(r, threads)
		if err := got.Validate(); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := range n {
				w := dense[i][j] / math.Sqrt(rs[i]*cs[j])
				if g := got.At(i, j); math.Abs(g-w) > 1e-6*math.Max(1, math.Abs(w)) {
					t.Fatalf("%d threads: (%d, %d) = %v; want %v", threads, i, j, g, w)
				}
			}
		}
	}
}
