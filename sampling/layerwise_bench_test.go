package sampling_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// BenchmarkLayerWiseRMAT20 samples LADIES on the normalised R-MAT scale 20
// graph that `bulksample sample --method ladies` samples: 64 minibatches
// of 512 seeds, 512 columns per layer, 2 threads, bulks of k. To compare
// two versions on a shared machine, alternate their test binaries run by
// run rather than relying on -count:
//
//	go test -c -o lw.test ./sampling
//	for r in 1 2 3 4 5 6; do ./lw.test -test.run - -test.bench LayerWiseRMAT20 -test.benchtime 10x; done
func BenchmarkLayerWiseRMAT20(b *testing.B) {
	raw, err := dataset.RMAT(dataset.RMATOptions{Scale: 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	a := spgemm.SymNormalizeWithSelfLoops(raw, 2)
	all := make([]int32, a.Rows)
	for i := range all {
		all[i] = int32(i)
	}
	plan, err := sampling.NewPlan(all, sampling.PlanOptions{BatchSize: 512, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	mbs := plan.Epoch(0).Minibatches[:64]
	for _, k := range []int{1, 16} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			s, err := sampling.NewLayerWise(a, sampling.LayerWiseOptions{Budgets: []int{512, 512}, Seed: 1, Threads: 2})
			if err != nil {
				b.Fatal(err)
			}
			sample := func() int64 {
				var edges int64
				for lo := 0; lo < len(mbs); lo += k {
					bulk, err := s.SampleBulk(context.Background(), 0, lo, mbs[lo:min(lo+k, len(mbs))])
					if err != nil {
						b.Fatal(err)
					}
					edges += bulk.SampledEdges()
					bulk.Release()
				}
				return edges
			}
			sample() // warm: the column counts, the workers' arrays
			var edges int64
			b.ResetTimer()
			for b.Loop() {
				edges += sample()
			}
			b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "SEPS")
		})
	}
}
