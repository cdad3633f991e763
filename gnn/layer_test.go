package gnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestGCNBlockNormIsSymNormalize: without graph degrees, gcnNormalize of a
// square weighted matrix is spgemm.SymNormalizeWithSelfLoops with the self
// loops kept apart: the same bits off the diagonal (the same sums, the
// same scaling), and on the diagonal the stored entry plus the self loop to
// float32 rounding.
func TestGCNBlockNormIsSymNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 60
	var src, dst []int32
	var val []float32
	for range 400 {
		src, dst, val = append(src, int32(rng.IntN(n))), append(dst, int32(rng.IntN(n))), append(val, 0.25+rng.Float32())
	}
	a, err := spgemm.FromCOO(n, n, src, dst, val, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := spgemm.SymNormalizeWithSelfLoops(a, 1)
	norm, self := make([]float32, a.NNZ()), make([]float32, n)
	gcnNormalize(norm, self, a, nil, nil)
	for i := range n {
		diag := float64(self[i])
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			if j := int(a.Indices[p]); j != i {
				if w := float32(want.At(i, j)); norm[p] != w {
					t.Fatalf("(%d, %d) = %v; SymNormalizeWithSelfLoops %v", i, j, norm[p], w)
				}
			} else {
				diag += float64(norm[p])
			}
		}
		if w := want.At(i, i); math.Abs(diag-w) > 1e-6*w {
			t.Errorf("(%d, %d) = %v with the self loop; SymNormalizeWithSelfLoops %v", i, i, diag, w)
		}
	}
}
