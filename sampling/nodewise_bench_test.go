package sampling_test

import (
	"context"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
)

// benchNodeWise samples 64 minibatches of 1024 random seeds on the R-MAT
// graph of the given scale, in bulks of k, and reports SEPS. Run it as
//
//	go test ./sampling -run - -bench NodeWise -benchtime 5x -count 5
func benchNodeWise(b *testing.B, scale, k, threads int, baseline bool) {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: scale, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	all := make([]int32, a.Rows)
	for i := range all {
		all[i] = int32(i)
	}
	plan, _ := sampling.NewPlan(all, sampling.PlanOptions{BatchSize: 1024, Seed: 1})
	mbs := plan.Epoch(0).Minibatches
	mbs = mbs[:min(64, len(mbs))]
	opt := sampling.NodeWiseOptions{Fanouts: []int{15, 10, 5}, Seed: 1, Threads: threads}
	var s sampling.Sampler
	if baseline {
		s, err = sampling.NewBaseline(a, opt)
	} else {
		s, err = sampling.NewNodeWise(a, opt)
	}
	if err != nil {
		b.Fatal(err)
	}
	var edges int64
	b.ResetTimer()
	for b.Loop() {
		for lo := 0; lo < len(mbs); lo += k {
			bulk, err := s.SampleBulk(context.Background(), 0, lo, mbs[lo:min(lo+k, len(mbs))])
			if err != nil {
				b.Fatal(err)
			}
			edges += bulk.SampledEdges()
		}
	}
	b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "SEPS")
}

func BenchmarkNodeWiseRMAT16K1T1(b *testing.B)       { benchNodeWise(b, 16, 1, 1, false) }
func BenchmarkNodeWiseRMAT16K16T1(b *testing.B)      { benchNodeWise(b, 16, 16, 1, false) }
func BenchmarkNodeWiseRMAT16K1T2(b *testing.B)       { benchNodeWise(b, 16, 1, 2, false) }
func BenchmarkNodeWiseRMAT16K16T2(b *testing.B)      { benchNodeWise(b, 16, 16, 2, false) }
func BenchmarkNodeWiseBaselineRMAT16T1(b *testing.B) { benchNodeWise(b, 16, 1, 1, true) }
func BenchmarkNodeWiseBaselineRMAT16T2(b *testing.B) { benchNodeWise(b, 16, 2, 2, true) }
