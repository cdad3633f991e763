package sampling_test

import (
	"context"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestWeightedEqualWeightsIsUniform: weighted sampling of a graph whose
// weights are all equal has the uniform law, and the sampler finds that
// once per graph and takes the uniform path: the same picks as unweighted
// sampling, whose digest it has once the unweighted blocks carry the
// weighted ones' values (each row normalised to sum 1). It cost 16 times
// the CPU of uniform sampling (exponential keys on every entry). The
// per-minibatch baseline, the explicit matrix formulation (SelectPerRow on
// Q·A, row by row) and a RowSource without the graph-level check agree.
// One unequal weight turns the fast path off.
func TestWeightedEqualWeightsIsUniform(t *testing.T) {
	ctx := context.Background()
	a := samplingtest.RandomGraph(400, 14, true, 3)
	for i := range a.Data {
		a.Data[i] = 0.25
	}
	seeds := samplingtest.RandomSeeds(400, 6, 24, 4)
	digest := func(b *sampling.Bulk, normalise bool) string {
		d := sampling.NewDigest()
		for m := range b.Len() {
			mb := b.Minibatch(m)
			if normalise {
				for l := range mb.Blocks {
					blk := mb.Blocks[l].Adj
					blk.Data = append([]float32(nil), blk.Data...)
					spgemm.NormalizeRows(&blk, 1)
					mb.Blocks[l].Adj = blk
				}
			}
			d.AddMinibatch(&mb)
		}
		return d.Sum()
	}
	for _, replace := range []bool{false, true} {
		uopt := sampling.NodeWiseOptions{Fanouts: []int{5, 3}, Seed: 7, Replace: replace}
		wopt := uopt
		wopt.Weighted = true
		uni, err := sampling.NewNodeWise(a, uopt)
		if err != nil {
			t.Fatal(err)
		}
		wtd, err := sampling.NewNodeWise(a, wopt)
		if err != nil {
			t.Fatal(err)
		}
		if !wtd.EqualWeights() || uni.EqualWeights() {
			t.Errorf("replace %v: EqualWeights %v (weighted), %v (unweighted); want true, false", replace, wtd.EqualWeights(), uni.EqualWeights())
		}
		ub, err := uni.SampleBulk(ctx, 2, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		wb, err := wtd.SampleBulk(ctx, 2, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := digest(wb, false), digest(ub, true); got != want {
			t.Errorf("replace %v: weighted digest %s; want the uniform sample's, normalised, %s", replace, got, want)
		}
		bl, err := sampling.NewBaseline(a, wopt)
		if err != nil {
			t.Fatal(err)
		}
		bb, err := bl.SampleBulk(ctx, 2, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		samplingtest.CompareBulks(t, "weighted, equal weights: bulk vs baseline", wb, bb, 0)
		samplingtest.CompareBulks(t, "weighted, equal weights: bulk vs explicit", wb, samplingtest.ExplicitNodeWise(a, wopt, 2, 0, seeds), 0)
		src, err := sampling.NewNodeWiseFrom(&nwFetchSource{a: a}, wopt) // no graph-level check: per row
		if err != nil {
			t.Fatal(err)
		}
		if src.EqualWeights() {
			t.Error("a fetching source reported equal weights it cannot have checked")
		}
		fb, err := src.SampleBulk(ctx, 2, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		samplingtest.CompareBulks(t, "weighted, equal weights: bulk vs fetching source", wb, fb, 0)
	}
	a.Data[len(a.Data)/2] = 0.5
	nw, err := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{5}, Weighted: true})
	if err != nil {
		t.Fatal(err)
	}
	if nw.EqualWeights() {
		t.Error("EqualWeights with one weight of 0.5 among 0.25s")
	}
}
