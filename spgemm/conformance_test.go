package spgemm_test

import (
	"testing"

	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// TestMulConformance runs the product conformance kit on Mul, with masks
// and structure-only products, for each accumulator.
func TestMulConformance(t *testing.T) {
	for _, acc := range []spgemm.Accumulator{spgemm.AutoAccumulator, spgemm.DenseAccumulator, spgemm.HashAccumulator} {
		t.Run(acc.String(), func(t *testing.T) {
			spgemmtest.RunMul(t, func(a, b *spgemm.CSR, opt *spgemm.MulOptions) *spgemm.CSR {
				o := *opt
				o.Accumulator = acc
				return spgemm.Mul(a, b, &o)
			}, spgemmtest.Features{Mask: true, StructureOnly: true})
		})
	}
}

// TestDenseProduct checks the reference on a product computed by hand:
// [1 2; 0 3]·[4 0; 5 6] = [14 12; 15 18], the entry (0, 1) present though
// only one term contributes.
func TestDenseProduct(t *testing.T) {
	a := &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 2, 3}, Indices: []int32{0, 1, 1}, Data: []float32{1, 2, 3}}
	b := &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 3}, Indices: []int32{0, 0, 1}, Data: []float32{4, 5, 6}}
	c := spgemmtest.DenseProduct(a, b, nil, false, false)
	if want := []float64{14, 12, 15, 18}; c.Val[0] != want[0] || c.Val[1] != want[1] || c.Val[2] != want[2] || c.Val[3] != want[3] {
		t.Errorf("DenseProduct = %v; want %v", c.Val, want)
	}
	mask := &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 1}, Indices: []int32{1}, Data: []float32{1}}
	if m := spgemmtest.DenseProduct(a, b, mask, false, true); !m.Present[1] || m.Val[1] != 1 || m.Present[0] || m.Present[2] || m.Present[3] {
		t.Errorf("masked structure-only product: %v %v", m.Present, m.Val)
	}
	if err := spgemmtest.Equal(spgemm.Mul(a, b, nil), c, 0); err != nil {
		t.Error(err)
	}
}
