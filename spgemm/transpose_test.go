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
	// A destination that holds a larger matrix with other values: the
	// method must overwrite every array it reuses.
	dirty := transposeReference(randomMatrix(rand.New(rand.NewPCG(1, 2)), a.Cols+3, a.Rows+5, 0.02, uniformKind, false), 1)
	for _, threads := range []int{1, 2, 3, 8} {
		got := Transpose(a, threads)
		if err := got.Validate(); err != nil {
			t.Fatalf("%s, %d threads: %v", name, threads, err)
		}
		if err := sameBits(got, want); err != nil {
			t.Fatalf("%s, %d threads: %v", name, threads, err)
		}
		if err := sameBits(dirty.Transpose(a, threads), want); err != nil {
			t.Fatalf("%s, %d threads, into a reused CSR: %v", name, threads, err)
		}
		if err := sameBits(Transpose(got, threads), a); err != nil {
			t.Fatalf("%s, %d threads: (Aᵀ)ᵀ != A: %v", name, threads, err)
		}
	}
}

// TestTransposeBlocked forces the blocked bucket sort onto small matrices by
// shrinking the block size, so that every block and range boundary case
// (one column per block, a last block narrower than the others, empty
// blocks, several row ranges) is checked against the reference.
func TestTransposeBlocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var mats []*CSR
	for _, tc := range mulCases() {
		mats = append(mats, randomMatrix(rng, tc.m, tc.k, tc.densA, tc.kindA, false))
	}
	mats = append(mats,
		randomMatrix(rng, 500, 300, 0.05, powerLawKind, false),
		randomMatrix(rng, 300, 777, 0.03, emptyRowsKind, false),
		randomMatrix(rng, 40, 5000, 0, selectionKind, false), // hypersparse
		randomMatrix(rng, 20, 3, 1, uniformKind, false),      // dense columns
		// Enough nonzeros (> 8·par.MinChunkWork) for several row ranges.
		randomMatrix(rng, 1000, 1200, 0.12, uniformKind, false),
		randomMatrix(rng, 3000, 2000, 0.02, powerLawKind, false))
	// One destination for all: every call reuses arrays holding another
	// matrix's transpose.
	reused := new(CSR)
	for mi, a := range mats {
		want := transposeReference(a, 1)
		for _, blockEntries := range []int64{1, 3, 16, 200, 4096} {
			for _, threads := range []int{1, 2, 3, 8} {
				got := transposeBlocked(reused, a, threads, blockEntries)
				if err := got.Validate(); err != nil {
					t.Fatalf("matrix %d (%dx%d), block %d, %d threads: %v", mi, a.Rows, a.Cols, blockEntries, threads, err)
				}
				if err := sameBits(got, want); err != nil {
					t.Fatalf("matrix %d (%dx%d), block %d, %d threads: %v", mi, a.Rows, a.Cols, blockEntries, threads, err)
				}
			}
		}
	}
}
