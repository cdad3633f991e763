package spgemm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAddSelfLoopsThreads: the rows, row sums and column sums of A+I are the
// same bit for bit on any number of goroutines, for a block of rows that
// starts inside the matrix, with non-integer weights (a diagonal entry of
// 1e-8 plus 1 rounds differently in float32 and float64) and rows with
// and without a diagonal entry. The matrix is large enough to be split.
func TestAddSelfLoopsThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := randomMatrix(rng, 3000, 3000, 0.01, powerLawKind, false)
	for i := range a.Data {
		a.Data[i] = rng.Float32() + 1e-8
	}
	block := GatherRows(a, seq(500, 2900), 1) // global rows 500..2899
	var want *CSR
	var wantRow, wantCol []float64
	for _, threads := range []int{1, 2, 3, 8} {
		colSum := make([]float64, a.Cols)
		colSum[7] = 0.1 // sums are added to what colSum holds
		got, rowSum := addSelfLoops(block, 500, colSum, threads)
		if err := got.Validate(); err != nil {
			t.Fatalf("%d threads: %v", threads, err)
		}
		if threads == 1 {
			want, wantRow, wantCol = got, rowSum, colSum
			if got.NNZ() <= block.NNZ() {
				t.Fatalf("A+I has %d entries, A %d: no diagonal inserted", got.NNZ(), block.NNZ())
			}
			continue
		}
		if !slices.Equal(got.Indptr, want.Indptr) || !slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Data, want.Data) {
			t.Errorf("%d threads: A+I differs from 1 thread", threads)
		}
		if !slices.Equal(rowSum, wantRow) || !slices.Equal(colSum, wantCol) {
			t.Errorf("%d threads: row or column sums differ from 1 thread", threads)
		}
	}
}

func seq(lo, hi int) []int32 {
	s := make([]int32, 0, hi-lo)
	for v := lo; v < hi; v++ {
		s = append(s, int32(v))
	}
	return s
}
