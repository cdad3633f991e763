package featurex_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/spgemm"
)

// TestGatherThreads checks that Gather and GatherCSR give the same result
// bit for bit on 1, 2, 3 and 8 goroutines, for dense and sparse features
// (a CSR copy kept or not), on id lists large enough to be split
// (duplicates included, in random order) and on empty and small ones.
func TestGatherThreads(t *testing.T) {
	const n, f = 1000, 24
	rng := rand.New(rand.NewPCG(1, 2))
	dense := make([]float32, n*f)
	sparse := make([]float32, n*f)
	for i := range dense {
		dense[i] = rng.Float32() - 0.5
		if rng.IntN(10) == 0 {
			sparse[i] = rng.Float32() + 0.5
		}
	}
	// Some long rows, so that cutting the CSR copy by entries differs from
	// cutting it by rows.
	for v := 0; v < n; v += 97 {
		for c := range f {
			sparse[v*f+c] = float32(c + 1)
		}
	}
	// 70000 rows are above the split threshold of every path at 8 threads;
	// with -short (the race detector's run) 30000 split the CSR copy's
	// gather into 3 ranges and the others into 8.
	nbig := 70000
	if testing.Short() {
		nbig = 30000
	}
	big := make([]int32, nbig)
	for i := range big {
		big[i] = int32(rng.IntN(n))
	}
	idLists := map[string][]int32{"empty": nil, "small": {5, 5, 0, 999}, "big": big}
	for _, x := range []struct {
		name     string
		features []float32
	}{{"dense", dense}, {"sparse", sparse}} {
		for _, mode := range []featurex.SparseMode{featurex.SparseNever, featurex.SparseAlways} {
			var wantDense map[string][]float32
			var wantCSR map[string]*spgemm.CSR
			for _, threads := range []int{1, 2, 3, 8} {
				s, err := featurex.NewLocal(x.features, f, featurex.LocalOptions{Threads: threads, Sparse: mode})
				if err != nil {
					t.Fatal(err)
				}
				gotDense, gotCSR := map[string][]float32{}, map[string]*spgemm.CSR{}
				for name, ids := range idLists {
					dst := make([]float32, len(ids)*f)
					if err := s.Gather(context.Background(), dst, ids); err != nil {
						t.Fatalf("%s mode %d threads %d %s: Gather: %v", x.name, mode, threads, name, err)
					}
					gotDense[name] = dst
					// A destination holding a larger matrix: its arrays are reused.
					csr := &spgemm.CSR{Indptr: make([]int64, 3), Indices: make([]int32, 1<<20), Data: make([]float32, 1<<20)}
					if err := s.GatherCSR(context.Background(), csr, ids); err != nil {
						t.Fatalf("%s mode %d threads %d %s: GatherCSR: %v", x.name, mode, threads, name, err)
					}
					if err := csr.Validate(); err != nil {
						t.Fatalf("%s mode %d threads %d %s: GatherCSR result: %v", x.name, mode, threads, name, err)
					}
					gotCSR[name] = csr
					// The CSR is the dense gather compressed.
					var want spgemm.CSR
					featurex.CompressRows(&want, dst, len(ids), f)
					if !equalCSR(csr, &want) {
						t.Errorf("%s mode %d threads %d %s: GatherCSR differs from the compressed Gather", x.name, mode, threads, name)
					}
				}
				if threads == 1 {
					wantDense, wantCSR = gotDense, gotCSR
					// One goroutine: check against the definition.
					for name, ids := range idLists {
						for r, id := range ids {
							if !slices.Equal(gotDense[name][r*f:(r+1)*f], x.features[int(id)*f:int(id+1)*f]) {
								t.Fatalf("%s %s: row %d is not vertex %d's features", x.name, name, r, id)
							}
						}
					}
					continue
				}
				for name := range idLists {
					if !slices.Equal(gotDense[name], wantDense[name]) {
						t.Errorf("%s mode %d %s: Gather on %d goroutines differs from 1", x.name, mode, name, threads)
					}
					if !equalCSR(gotCSR[name], wantCSR[name]) {
						t.Errorf("%s mode %d %s: GatherCSR on %d goroutines differs from 1", x.name, mode, name, threads)
					}
				}
			}
		}
	}
}

// TestGatherThreadsError: with the gather split, the error still names the
// first id out of range.
func TestGatherThreadsError(t *testing.T) {
	const n, f = 100, 16
	s, err := featurex.NewLocal(make([]float32, n*f), f, featurex.LocalOptions{Threads: 8})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int32, 50000)
	ids[31000], ids[45000] = 7777, -3
	if err := s.Gather(context.Background(), make([]float32, len(ids)*f), ids); err == nil || !strings.Contains(err.Error(), "ids[31000] = 7777") {
		t.Errorf("Gather: err = %v; want one naming ids[31000] = 7777", err)
	}
	if err := s.GatherCSR(context.Background(), &spgemm.CSR{}, ids); err == nil || !strings.Contains(err.Error(), "ids[31000] = 7777") {
		t.Errorf("GatherCSR: err = %v; want one naming ids[31000] = 7777", err)
	}
}

func equalCSR(a, b *spgemm.CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) &&
		slices.Equal(a.Indices, b.Indices) && slices.Equal(a.Data, b.Data)
}
