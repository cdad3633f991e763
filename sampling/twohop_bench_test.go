package sampling_test

import (
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// benchTwoHop forms the two-hop probability matrix of the README's custom
// sampler for 16 minibatches of 64 seeds on R-MAT 16: P = Q·(A·A), which
// squares the whole graph, or P = (Q·A)·A, which multiplies only the seeds'
// rows. It reports P's entries and the bytes each product allocates. Run it
// as
//
//	go test ./sampling -run - -bench TwoHop -benchtime 3x -count 5
func benchTwoHop(b *testing.B, square bool) {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	seeds := make([][]int32, 16)
	for m := range seeds {
		for i := range 64 {
			seeds[m] = append(seeds[m], int32((m*64+i)*37%a.Rows))
		}
	}
	q := sampling.QPerEntry(seeds, a.Rows)
	var nnz int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var p *spgemm.CSR
		if square {
			p = spgemm.Mul(q, spgemm.Mul(a, a, nil), nil)
		} else {
			p = spgemm.Mul(spgemm.Mul(q, a, nil), a, nil)
		}
		nnz = p.NNZ()
	}
	b.ReportMetric(float64(nnz), "entries")
}

func BenchmarkTwoHopSquareFirst(b *testing.B) { benchTwoHop(b, true) }
func BenchmarkTwoHopRowsFirst(b *testing.B)   { benchTwoHop(b, false) }

// TestTwoHopOrders: both orders of the two-hop product give the same P.
func TestTwoHopOrders(t *testing.T) {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	q := sampling.QPerEntry([][]int32{{1, 7, 300}, {1023, 4}}, a.Rows)
	p1 := spgemm.Mul(q, spgemm.Mul(a, a, nil), nil)
	p2 := spgemm.Mul(spgemm.Mul(q, a, nil), a, nil)
	if p1.NNZ() != p2.NNZ() || !slices.Equal(p1.Indptr, p2.Indptr) || !slices.Equal(p1.Indices, p2.Indices) || !slices.Equal(p1.Data, p2.Data) {
		t.Error("Q·(A·A) and (Q·A)·A differ")
	}
}
