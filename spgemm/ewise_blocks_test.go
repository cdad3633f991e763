package spgemm

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSymNormalizeByRowBlocks: AddSelfLoops over row blocks in order, then
// ScaleSymmetric, gives SymNormalizeWithSelfLoops bit for bit (what
// distributed ranks rely on), on a weighted matrix with some diagonal
// entries present.
func TestSymNormalizeByRowBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 97
	var src, dst []int32
	var val []float32
	for range 600 {
		src, dst, val = append(src, int32(rng.IntN(n))), append(dst, int32(rng.IntN(n))), append(val, 0.25+rng.Float32())
	}
	a, err := FromCOO(n, n, src, dst, val, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := SymNormalizeWithSelfLoops(a, 1)
	for _, blocks := range []int{1, 2, 5} {
		colSum := make([]float64, n)
		parts := make([]*CSR, blocks)
		rowSums := make([][]float64, blocks)
		for b := range blocks {
			lo, hi := b*n/blocks, (b+1)*n/blocks
			rows := make([]int32, hi-lo)
			for i := range rows {
				rows[i] = int32(lo + i)
			}
			parts[b], rowSums[b] = AddSelfLoops(GatherRows(a, rows, 1), lo, colSum)
		}
		got := &CSR{Rows: n, Cols: n, Indptr: []int64{0}}
		for b, p := range parts {
			ScaleSymmetric(p, rowSums[b], append([]float64(nil), colSum...), 1)
			for i := range p.Rows {
				got.Indptr = append(got.Indptr, got.Indptr[len(got.Indptr)-1]+p.Indptr[i+1]-p.Indptr[i])
			}
			got.Indices, got.Data = append(got.Indices, p.Indices...), append(got.Data, p.Data...)
		}
		if !reflect.DeepEqual(got.Indptr, want.Indptr) || !reflect.DeepEqual(got.Indices, want.Indices) || !reflect.DeepEqual(got.Data, want.Data) {
			t.Errorf("%d blocks: differs from SymNormalizeWithSelfLoops", blocks)
		}
	}
}
