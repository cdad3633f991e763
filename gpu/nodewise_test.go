package gpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// emulators are the devices the host checks run on: threads in order, and
// in a permuted order per launch (a kernel whose result depends on the
// order of its threads fails the comparison on the second).
func emulators() map[string]*Device {
	return map[string]*Device{"forward": NewEmulator(EmulatorOptions{Exact: true}), "permuted": NewEmulator(EmulatorOptions{Order: 12345, Exact: true})}
}

// TestNodeWiseConformance runs the node-wise conformance kit against the
// device sampler on the emulator: every option set against the explicit
// matrix formulation, and the epoch digests across bulk sizes.
func TestNodeWiseConformance(t *testing.T) {
	for name, dev := range emulators() {
		t.Run(name, func(t *testing.T) {
			samplingtest.RunNodeWise(t, func(a *spgemm.CSR, opt sampling.NodeWiseOptions) (sampling.Sampler, error) {
				s, err := NewNodeWise(dev, a, opt)
				if err == nil {
					t.Cleanup(func() { s.Close() })
				}
				return s, err
			})
		})
	}
}

// TestNodeWiseEqualsCPU compares the device sampler with sampling.NodeWise
// bit for bit (the digest and every array) on a skewed graph with hubs,
// for every law, both frontier modes, degrees, fanouts that reach every
// branch of the selection, and bulks with repeated and empty minibatches.
func TestNodeWiseEqualsCPU(t *testing.T) {
	a := samplingtest.RandomGraph(3000, 24, true, 9)
	seeds := samplingtest.RandomSeeds(3000, 7, 64, 4)
	seeds = append(seeds, nil, seeds[2]) // an empty minibatch and a repeat
	fanouts := [][]int{{15, 10, 5}, {-1, 3}, {40, 1}, {300}}
	if testing.Short() {
		fanouts = fanouts[:2]
	}
	dev := NewEmulator(EmulatorOptions{Order: 99, Exact: true})
	for _, fan := range fanouts {
		for _, w := range []bool{false, true} {
			for _, r := range []bool{false, true} {
				for _, fr := range []sampling.FrontierMode{sampling.FrontierAll, sampling.FrontierNew} {
					opt := sampling.NodeWiseOptions{Fanouts: fan, Weighted: w, Replace: r, Frontier: fr, Seed: 5, Degrees: true}
					t.Run(fmt.Sprintf("fan%v/w=%v/r=%v/%v", fan, w, r, fr), func(t *testing.T) {
						cpu, err := sampling.NewNodeWise(a, opt)
						if err != nil {
							t.Fatal(err)
						}
						want, err := cpu.SampleBulk(context.Background(), 2, 40, seeds)
						if err != nil {
							t.Fatal(err)
						}
						s, err := NewNodeWise(dev, a, opt)
						if err != nil {
							t.Fatal(err)
						}
						defer s.Close()
						got, err := s.SampleBulk(context.Background(), 2, 40, seeds)
						if err != nil {
							t.Fatal(err)
						}
						compareBulks(t, got, want)
					})
				}
			}
		}
	}
}

// compareBulks fails at the first difference between got and want, naming
// the layer, the array and the position.
func compareBulks(t *testing.T, got, want *sampling.Bulk) {
	t.Helper()
	if err := BulkDiff(got, want); err != nil {
		t.Fatal(err)
	}
	dg, dw := sampling.NewDigest(), sampling.NewDigest()
	dg.AddBulk(got)
	dw.AddBulk(want)
	if dg.Sum() != dw.Sum() {
		t.Fatalf("digest %s, want %s (the arrays are equal: a difference BulkDiff misses)", dg.Sum(), dw.Sum())
	}
}
