package spgemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestTranspose(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}}) // 2 x 3
	want := csrFromRows(2, [][]float32{{1, 0}, {0, 0}, {2, 0}})
	if err := sameBits(Transpose(a, 1), want); err != nil {
		t.Errorf("hand checked: %v", err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for ci, tc := range mulCases() {
		a := randomMatrix(rng, tc.m, tc.k, tc.densA, tc.kindA, false)
		checkTranspose(t, fmt.Sprintf("%d %s", ci, tc.label), a)
	}
	// Big enough for the parallel counting sort, with empty rows and columns.
	n := 4000
	if testing.Short() {
		n = 1500
	}
	checkTranspose(t, "power law", randomMatrix(rng, n, n/2, 0.01, powerLawKind, false))
	checkTranspose(t, "hypersparse", randomMatrix(rng, 20, 200000, 0, selectionKind, false))
}

func checkTranspose(t *testing.T, name string, a *CSR) {
	t.Helper()
	want := transposeReference(a, 1)
	for _, threads := range []int{1, 2, 3, 8} {
		got := Transpose(a, threads)
		if err := got.Validate(); err != nil {
			t.Fatalf("%s, %d threads: %v", name, threads, err)
		}
		if err := sameBits(got, want); err != nil {
			t.Fatalf("%s, %d threads: %v", name, threads, err)
		}
		if err := sameBits(Transpose(got, threads), a); err != nil {
			t.Fatalf("%s, %d threads: (Aᵀ)ᵀ != A: %v", name, threads, err)
		}
	}
}
