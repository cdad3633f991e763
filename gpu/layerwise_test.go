package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestLayerWiseEqualsCPU compares the device LADIES and FastGCN samplers
// with sampling.LayerWise bit for bit on the raw and the normalised
// adjacency, with and without replacement, for every normalisation, with
// empty and repeated minibatches, in both thread orders, and for several
// thread counts of the CPU sampler (whose parallel paths must agree too:
// 16 threads for 7 minibatches splits each row of P and its selection).
func TestLayerWiseEqualsCPU(t *testing.T) {
	raw := samplingtest.RandomGraph(2500, 20, false, 13)
	norm := spgemm.SymNormalizeWithSelfLoops(raw, 1)
	seeds := samplingtest.RandomSeeds(2500, 5, 48, 6)
	seeds = append(seeds, nil, seeds[1])
	type tc struct {
		name string
		a    *spgemm.CSR
		opt  sampling.LayerWiseOptions
	}
	var cases []tc
	for _, m := range []sampling.LayerWiseMethod{sampling.LADIES, sampling.FastGCN} {
		for _, replace := range []bool{false, true} {
			for _, norm2 := range []string{"", "rowmean", "unbiased"} {
				for gi, a := range []*spgemm.CSR{raw, norm} {
					opt := sampling.LayerWiseOptions{Method: m, Budgets: []int{64, 40, 7}, Replace: replace, Seed: 3,
						RowMean: norm2 == "rowmean", Unbiased: norm2 == "unbiased"}
					cases = append(cases, tc{fmt.Sprintf("%v/replace=%v/%s/graph%d", m, replace, norm2, gi), a, opt})
				}
			}
		}
	}
	for oi, dev := range []*Device{NewEmulator(EmulatorOptions{Exact: true}), NewEmulator(EmulatorOptions{Order: 7, Exact: true})} {
		for ci, c := range cases {
			if testing.Short() && (ci+oi)%3 != 0 {
				continue
			}
			t.Run(fmt.Sprintf("order%d/%s", oi, c.name), func(t *testing.T) {
				for _, threads := range []int{1, 4, 16} {
					o := c.opt
					o.Threads = threads
					cpu, err := sampling.NewLayerWise(c.a, o)
					if err != nil {
						t.Fatal(err)
					}
					want, err := cpu.SampleBulk(context.Background(), 1, 30, seeds)
					if err != nil {
						t.Fatal(err)
					}
					s, err := NewLayerWise(dev, c.a, o)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.SampleBulk(context.Background(), 1, 30, seeds)
					s.Close()
					if err != nil {
						t.Fatal(err)
					}
					compareBulks(t, got, want)
				}
			})
		}
	}
}

// TestNewSamplerEqualsCPU checks NewSampler against sampling.NewSampler
// for every method, LADIES with Normalize among them (normalised on the
// host by the CPU's operator), and that it refuses what
// SamplerOptions.Validate refuses.
func TestNewSamplerEqualsCPU(t *testing.T) {
	a := samplingtest.RandomGraph(600, 12, false, 5)
	seeds := samplingtest.RandomSeeds(600, 4, 30, 2)
	dev := NewEmulator(EmulatorOptions{Exact: true})
	for _, opt := range []sampling.SamplerOptions{
		{Method: sampling.MethodNode, Fanouts: []int{5, 3}, Seed: 4, Threads: 2},
		{Method: sampling.MethodLADIES, Fanouts: []int{40, 20}, Seed: 4, Threads: 2},
		{Method: sampling.MethodLADIES, Fanouts: []int{40, 20}, Seed: 4, Threads: 2, Normalize: true},
		{Method: sampling.MethodFastGCN, Fanouts: []int{40, 20}, Seed: 4, Threads: 2, Replace: true},
	} {
		t.Run(fmt.Sprintf("%s/normalize=%v", opt.Method, opt.Normalize), func(t *testing.T) {
			cpu, err := sampling.NewSampler(a, opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := cpu.SampleBulk(context.Background(), 0, 0, seeds)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSampler(dev, a, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := s.SampleBulk(context.Background(), 0, 0, seeds)
			if err != nil {
				t.Fatal(err)
			}
			compareBulks(t, got, want)
		})
	}
	bad := sampling.SamplerOptions{Method: sampling.MethodFastGCN, Fanouts: []int{4}, Normalize: true}
	if s, err := NewSampler(dev, a, bad); err == nil || s != nil {
		t.Errorf("NewSampler(%+v) = %v, %v; want the error naming Normalize", bad, s, err)
	} else if !strings.Contains(err.Error(), "Normalize") {
		t.Errorf("NewSampler(%+v): %v; want it to name Normalize", bad, err)
	}
}

// TestLayerWiseSelectionPaths compares LADIES on the device with the CPU
// bit for bit where lw_select leaves its parallel paths: values spread
// over 2^-90..2^20, so that a row's float64 total rounds and is summed
// in order by one thread; a budget larger than the block's candidates
// (one thread's heap); a budget close to them (the key threshold's
// retries); and rows with no more positive entries than the budget.
func TestLayerWiseSelectionPaths(t *testing.T) {
	wide := samplingtest.RandomGraph(4000, 24, false, 21)
	rng := rand.New(rand.NewPCG(3, 9))
	for i := range wide.Data {
		wide.Data[i] = float32(math.Ldexp(1+rng.Float64(), rng.IntN(111)-90))
	}
	seeds := samplingtest.RandomSeeds(4000, 3, 160, 8)
	dev := NewEmulator(EmulatorOptions{Order: 3, Exact: true})
	for _, budgets := range [][]int{{30, 9}, {1100}, {1000, 300}, {5000}} {
		t.Run(fmt.Sprint(budgets), func(t *testing.T) {
			opt := sampling.LayerWiseOptions{Method: sampling.LADIES, Budgets: budgets, Seed: 6}
			cpu, err := sampling.NewLayerWise(wide, opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := cpu.SampleBulk(context.Background(), 2, 5, seeds)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewLayerWise(dev, wide, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := s.SampleBulk(context.Background(), 2, 5, seeds)
			if err != nil {
				t.Fatal(err)
			}
			compareBulks(t, got, want)
		})
	}
}
