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
