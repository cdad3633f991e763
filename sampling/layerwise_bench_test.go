package sampling_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// BenchmarkLayerWiseRMAT20 samples LADIES on the normalised R-MAT scale 20
// graph that `bulksample sample --method ladies` samples: 64 minibatches
// of 512 seeds, 512 columns per layer, 2 threads, bulks of k; "hashed"
// with the hash-table accumulators and column maps of a graph above
// denseVertexMapMax vertices (the same sample). To compare
// two versions on a shared machine, alternate their test binaries run by
// run rather than relying on -count:
//
//	go test -c -o lw.test ./sampling
//	for r in 1 2 3 4 5 6; do ./lw.test -test.run - -test.bench LayerWiseRMAT20 -test.benchtime 10x; done
func BenchmarkLayerWiseRMAT20(b *testing.B) {
	a, mbs := ladiesRMAT20(b, 64)
	for _, run := range []struct {
		k      int
		hashed bool
	}{{1, false}, {16, false}, {1, true}, {16, true}} {
		name := fmt.Sprintf("k=%d", run.k)
		if run.hashed {
			name += ",hashed"
		}
		k := run.k
		b.Run(name, func(b *testing.B) {
			s, err := sampling.NewLayerWise(a, sampling.LayerWiseOptions{Budgets: []int{512, 512}, Seed: 1, Threads: 2})
			if err != nil {
				b.Fatal(err)
			}
			if run.hashed {
				sampling.SetDenseMapMax(s, 0)
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

// BenchmarkLayerWiseBulkSizes asks whether a bulk size costs anything per
// sampled edge, with the noise of a shared VM (10-30% from one second to
// the next) taken out by interleaving: the first 256 minibatches of 512
// seeds of the normalised R-MAT scale 20 graph (`bulksample sample --method
// ladies --seeds 131072`'s), 512 columns per layer, sampled in bulks of k
// for k in {1, 16, 64, 256}, one sampler each; an iteration is a round that
// samples them once with every k, in an order that turns with the round, so
// that the passes a ratio compares are a second apart. It reports, per k,
// the median over the rounds of the round's time with k = 16 over its time
// with k (the speed relative to k = 16), and logs the quartiles:
//
//	go test -run - -bench LayerWiseBulkSizes -benchtime 25x -v ./sampling
func BenchmarkLayerWiseBulkSizes(b *testing.B) {
	a, mbs := ladiesRMAT20(b, 256)
	bulks := []int{16, 1, 64, 256} // the reference first
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			samplers := make([]*sampling.LayerWise, len(bulks))
			for i := range samplers {
				var err error
				if samplers[i], err = sampling.NewLayerWise(a, sampling.LayerWiseOptions{Budgets: []int{512, 512}, Seed: 1, Threads: threads}); err != nil {
					b.Fatal(err)
				}
			}
			pass := func(i int) float64 {
				start := time.Now()
				for lo := 0; lo < len(mbs); lo += bulks[i] {
					bulk, err := samplers[i].SampleBulk(context.Background(), 0, lo, mbs[lo:lo+bulks[i]])
					if err != nil {
						b.Fatal(err)
					}
					bulk.Release()
				}
				return time.Since(start).Seconds()
			}
			for i := range bulks {
				pass(i) // warm: the column counts, the workers' and the bulks' arrays
			}
			sec := make([][]float64, len(bulks))
			round := 0
			for b.Loop() {
				for j := range bulks {
					i := (j + round) % len(bulks)
					sec[i] = append(sec[i], pass(i))
				}
				round++
			}
			for i, k := range bulks[1:] {
				speed := make([]float64, round)
				for r := range speed {
					speed[r] = sec[0][r] / sec[i+1][r]
				}
				slices.Sort(speed)
				med := speed[round/2] // the upper median
				b.ReportMetric(med, fmt.Sprintf("speed-k%d/k16", k))
				b.Logf("threads=%d k=%d: speed relative to k=16 over %d rounds: median %.3f, quartiles %.3f-%.3f, range %.3f-%.3f",
					threads, k, round, med, speed[round/4], speed[(3*round)/4], speed[0], speed[round-1])
			}
		})
	}
}

// ladiesRMAT20 returns what `bulksample sample --method ladies` samples on
// R-MAT scale 20 (seed 1): the normalised adjacency with self loops, and
// the first n minibatches of 512 seeds of its plan (seed 1) over every
// vertex.
func ladiesRMAT20(b *testing.B, n int) (*spgemm.CSR, [][]int32) {
	b.Helper()
	raw, err := dataset.RMAT(dataset.RMATOptions{Scale: 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	a := spgemm.SymNormalizeWithSelfLoops(raw, 0)
	all := make([]int32, a.Rows)
	for i := range all {
		all[i] = int32(i)
	}
	plan, err := sampling.NewPlan(all, sampling.PlanOptions{BatchSize: 512, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return a, plan.Epoch(0).Minibatches[:n]
}
