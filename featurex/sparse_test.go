package featurex_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/featurex/featurextest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestLocalCSRConformance runs the Store conformance kit on a store that
// holds only a CSR matrix (NewLocalCSR), with one and four threads.
func TestLocalCSRConformance(t *testing.T) {
	for _, threads := range []int{1, 4} {
		featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store {
			var a spgemm.CSR
			featurex.CompressRows(&a, x, len(x)/f, f)
			s, err := featurex.NewLocalCSR(&a, featurex.LocalOptions{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	}
}

// TestLocalCSRMatchesDense: a CSR-only store gathers, dense and as CSR,
// exactly what a dense store of the same features gathers, and keeps no
// dense array.
func TestLocalCSRMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, f = 500, 37
	x := make([]float32, n*f)
	for i := range x {
		if rng.IntN(20) == 0 {
			x[i] = float32(rng.IntN(3) + 1)
		}
	}
	var a spgemm.CSR
	featurex.CompressRows(&a, x, n, f)
	sparse, err := featurex.NewLocalCSR(&a, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dense, err := featurex.NewLocal(x, f, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sparse.Features() != nil || !sparse.Sparse() || sparse.CSR() != &a {
		t.Fatal("the CSR store keeps a dense array, or not its matrix")
	}
	ids := []int32{499, 0, 17, 17, 250, 3}
	ctx := context.Background()
	got, want := make([]float32, len(ids)*f), make([]float32, len(ids)*f)
	if err := sparse.Gather(ctx, got, ids); err != nil {
		t.Fatal(err)
	}
	if err := dense.Gather(ctx, want, ids); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("Gather of the CSR store differs from the dense store's")
	}
	var gs, gd spgemm.CSR
	if err := sparse.GatherCSR(ctx, &gs, ids); err != nil {
		t.Fatal(err)
	}
	if err := dense.GatherCSR(ctx, &gd, ids); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gs.Indptr, gd.Indptr) || !slices.Equal(gs.Indices, gd.Indices) || !slices.Equal(gs.Data, gd.Data) {
		t.Error("GatherCSR of the CSR store differs from the dense store's")
	}
	for _, bad := range []struct {
		name string
		a    *spgemm.CSR
		opt  featurex.LocalOptions
	}{
		{"nil", nil, featurex.LocalOptions{}},
		{"no columns", &spgemm.CSR{Rows: 1, Indptr: []int64{0, 0}}, featurex.LocalOptions{}},
		{"never sparse", &a, featurex.LocalOptions{Sparse: featurex.SparseNever}},
		{"bad offsets", &spgemm.CSR{Rows: 1, Cols: 2, Indptr: []int64{0, 1}}, featurex.LocalOptions{}},
	} {
		if _, err := featurex.NewLocalCSR(bad.a, bad.opt); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

// TestNormalizeCSRRows: the CSR rows scaled to sum 1 are NormalizeRows'
// dense rows bit for bit, and a negative value is refused, naming its row
// and column, before any row changes.
func TestNormalizeCSRRows(t *testing.T) {
	x := []float32{1, 0, 3, 0, 0, 0, 0, 2, 0.1, 0.7, 0, 0}
	var a spgemm.CSR
	featurex.CompressRows(&a, x, 3, 4)
	if err := featurex.NormalizeCSRRows(&a); err != nil {
		t.Fatal(err)
	}
	if err := featurex.NormalizeRows(x, 4); err != nil {
		t.Fatal(err)
	}
	var want spgemm.CSR
	featurex.CompressRows(&want, x, 3, 4)
	if !slices.Equal(a.Data, want.Data) {
		t.Errorf("CSR rows %v; dense rows %v", a.Data, want.Data)
	}
	b := spgemm.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 1, 2}, Indices: []int32{0, 2}, Data: []float32{2, -1}}
	var re *featurex.RowError
	if err := featurex.NormalizeCSRRows(&b); !errors.As(err, &re) || re.Row != 1 || re.Col != 2 || b.Data[0] != 2 {
		t.Errorf("negative value: %v (data %v); want a RowError at row 1, column 2 and no change", err, b.Data)
	}
}
