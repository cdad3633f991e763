package featurextest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/spgemm"
)

// NewStore builds the store under test over the n x f row-major features.
type NewStore func(t *testing.T, features []float32, f int) featurex.Store

// Run checks the store that newStore builds against direct reads of the
// features: its sizes, gathers of empty, repeated, permuted and large id
// lists, the sparse gather when the store implements
// featurex.SparseGatherer, an error naming an id out of range (negative and
// too large), an error for a destination of the wrong length, and ctx's
// error when ctx is cancelled.
func Run(t *testing.T, newStore NewStore) {
	for _, tc := range []struct {
		name    string
		n, f    int
		density float64
	}{
		{"dense", 300, 7, 1},
		{"sparse", 5000, 40, 0.03},
		{"one feature", 17, 1, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.f)))
			features := make([]float32, tc.n*tc.f)
			for i := range features {
				if rng.Float64() < tc.density {
					features[i] = float32(rng.NormFloat64())
				}
			}
			s := newStore(t, features, tc.f)
			if s.NumVertices() != tc.n || s.NumFeatures() != tc.f {
				t.Fatalf("sizes %d x %d; want %d x %d", s.NumVertices(), s.NumFeatures(), tc.n, tc.f)
			}
			ctx := context.Background()
			lists := [][]int32{nil, {0}, {int32(tc.n - 1), 0, 3 % int32(tc.n)}}
			perm := rng.Perm(tc.n)
			big := make([]int32, len(perm))
			for i, v := range perm {
				big[i] = int32(v)
			}
			lists = append(lists, big, big[:tc.n/3])
			for _, ids := range lists {
				want := make([]float32, 0, len(ids)*tc.f)
				for _, id := range ids {
					want = append(want, features[int(id)*tc.f:int(id+1)*tc.f]...)
				}
				got := make([]float32, len(ids)*tc.f)
				if err := s.Gather(ctx, got, ids); err != nil {
					t.Fatalf("Gather of %d ids: %v", len(ids), err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("Gather of %d ids differs from the features' rows", len(ids))
				}
				if sg, ok := s.(featurex.SparseGatherer); ok {
					var csr spgemm.CSR
					if err := sg.GatherCSR(ctx, &csr, ids); err != nil {
						t.Fatalf("GatherCSR of %d ids: %v", len(ids), err)
					}
					if err := csr.Validate(); err != nil {
						t.Fatalf("GatherCSR of %d ids: %v", len(ids), err)
					}
					var ref spgemm.CSR
					featurex.CompressRows(&ref, want, len(ids), tc.f)
					if csr.Rows != ref.Rows || csr.Cols != ref.Cols || !slices.Equal(csr.Indptr, ref.Indptr) ||
						!slices.Equal(csr.Indices, ref.Indices) || !slices.Equal(csr.Data, ref.Data) {
						t.Fatalf("GatherCSR of %d ids differs from the compressed rows", len(ids))
					}
				}
			}
			for _, bad := range []int32{int32(tc.n), -1} {
				err := s.Gather(ctx, make([]float32, 2*tc.f), []int32{0, bad})
				if err == nil || !strings.Contains(err.Error(), fmt.Sprint(bad)) {
					t.Errorf("Gather of id %d: err = %v; want an error naming it", bad, err)
				}
				if sg, ok := s.(featurex.SparseGatherer); ok {
					if err := sg.GatherCSR(ctx, &spgemm.CSR{}, []int32{bad}); err == nil || !strings.Contains(err.Error(), fmt.Sprint(bad)) {
						t.Errorf("GatherCSR of id %d: err = %v; want an error naming it", bad, err)
					}
				}
			}
			if err := s.Gather(ctx, make([]float32, tc.f+1), []int32{0}); err == nil {
				t.Error("Gather into a buffer of the wrong length: no error")
			}
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			if err := s.Gather(cctx, make([]float32, tc.f), []int32{0}); !errors.Is(err, context.Canceled) {
				t.Errorf("Gather with a cancelled context: err = %v; want context.Canceled", err)
			}
		})
	}
}
