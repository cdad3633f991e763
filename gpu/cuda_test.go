//go:build cuda

package gpu

// The checks that need a GPU. Without one they skip, saying why, unless
// BULKSAMPLE_REQUIRE_GPU=1 (the GPU bundle's run.sh sets it), when they
// fail. TestOpenWithoutGPU runs where there is none.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// openGPU opens device 0 for a test, or skips (fails with
// BULKSAMPLE_REQUIRE_GPU=1) when it cannot.
func openGPU(t *testing.T) *Device {
	t.Helper()
	d, err := Open(0)
	if err != nil {
		if os.Getenv("BULKSAMPLE_REQUIRE_GPU") == "1" {
			t.Fatalf("BULKSAMPLE_REQUIRE_GPU=1 but: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("closing the device: %v", err)
		}
	})
	t.Logf("device: %s", d.Name())
	return d
}

// TestOpenWithoutGPU checks what a cuda build says on a machine without a
// GPU: the driver's error, naming the device and the failing call.
func TestOpenWithoutGPU(t *testing.T) {
	d, err := Open(0)
	if err == nil {
		d.Close()
		t.Skip("this machine has a GPU")
	}
	msg := err.Error()
	if !strings.Contains(msg, "opening CUDA device 0") || !(strings.Contains(msg, "CUDA_ERROR_") || strings.Contains(msg, "cannot load")) {
		t.Fatalf("error without the device and the driver's status or the missing library: %v", err)
	}
	t.Logf("without a GPU: %v", err)
}

func TestCUDANodeWiseConformance(t *testing.T) {
	dev := openGPU(t)
	samplingtest.RunNodeWise(t, func(a *spgemm.CSR, opt sampling.NodeWiseOptions) (sampling.Sampler, error) {
		s, err := NewNodeWise(dev, a, opt)
		if err == nil {
			t.Cleanup(func() { s.Close() })
		}
		return s, err
	})
}

// TestCUDASamplersEqualCPU compares the device samplers with the CPU's bit
// for bit on an R-MAT graph (hubs of degree in the thousands), for every
// node-wise law and frontier mode, LADIES and FastGCN.
func TestCUDASamplersEqualCPU(t *testing.T) {
	dev := openGPU(t)
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 14, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sampling.NewPlan(samplingtest.Vertices(a.Rows), sampling.PlanOptions{BatchSize: 256, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ep := plan.Epoch(1)
	seeds := ep.Minibatches[:min(12, len(ep.Minibatches))]
	for _, w := range []bool{false, true} {
		for _, r := range []bool{false, true} {
			for _, fr := range []sampling.FrontierMode{sampling.FrontierAll, sampling.FrontierNew} {
				opt := sampling.NodeWiseOptions{Fanouts: []int{15, 10, 5}, Weighted: w, Replace: r, Frontier: fr, Seed: 9, Degrees: true}
				t.Run(fmt.Sprintf("node/w=%v/r=%v/%v", w, r, fr), func(t *testing.T) {
					cpu, _ := sampling.NewNodeWise(a, opt)
					s, err := NewNodeWise(dev, a, opt)
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
					compareSamplers(t, cpu, s, ep.Epoch, seeds)
				})
			}
		}
	}
	norm := spgemm.SymNormalizeWithSelfLoops(a, 0)
	for _, m := range []sampling.LayerWiseMethod{sampling.LADIES, sampling.FastGCN} {
		for _, r := range []bool{false, true} {
			opt := sampling.LayerWiseOptions{Method: m, Budgets: []int{256, 256}, Replace: r, Seed: 4}
			t.Run(fmt.Sprintf("%v/r=%v", m, r), func(t *testing.T) {
				cpu, _ := sampling.NewLayerWise(norm, opt)
				s, err := NewLayerWise(dev, norm, opt)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				compareSamplers(t, cpu, s, ep.Epoch, seeds)
			})
		}
	}
}

func compareSamplers(t *testing.T, cpu, dev sampling.Sampler, epoch int, seeds [][]int32) {
	t.Helper()
	want, err := cpu.SampleBulk(context.Background(), epoch, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dev.SampleBulk(context.Background(), epoch, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	compareBulks(t, got, want)
	t.Logf("%d sampled edges equal", got.SampledEdges())
}

// TestCUDAMul runs the SpGEMM conformance kit on the device (cuSPARSE, and
// the gather for its one-entry-per-row cases).
func TestCUDAMul(t *testing.T) {
	dev := openGPU(t)
	spgemmtest.RunMul(t, func(a, b *spgemm.CSR, opt *spgemm.MulOptions) *spgemm.CSR {
		c, err := dev.Mul(a, b, opt)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}, spgemmtest.Features{StructureOnly: true})
}

// TestCUDAProducts compares Q·A (the gather) with the CPU bit for bit, A·A
// by cuSPARSE with the CPU (exact: R-MAT's values are 1, so every sum is an
// integer below 2^24), and the reuse path's repeated runs with the first.
func TestCUDAProducts(t *testing.T) {
	dev := openGPU(t)
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 12, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := sampling.RandomRows(a.Rows, 1000, 2)
	q := sampling.QPerEntry([][]int32{rows}, a.Rows)
	for name, c := range map[string][2]*spgemm.CSR{"Q·A": {q, a}, "A·A": {a, a}} {
		want := spgemm.Mul(c[0], c[1], nil)
		for _, reuse := range []bool{false, true} {
			pr, err := dev.NewProduct(c[0], c[1], ProductOptions{Reuse: reuse})
			if err != nil {
				t.Fatal(err)
			}
			for run := range 3 {
				if err := pr.Run(); err != nil {
					t.Fatalf("%s reuse=%v run %d: %v", name, reuse, run, err)
				}
				got, err := pr.Result()
				if err != nil {
					t.Fatal(err)
				}
				if err := sameCSR(got, want); err != nil {
					t.Fatalf("%s (%s) reuse=%v run %d: %v", name, pr.Method(), reuse, run, err)
				}
			}
			t.Logf("%s: %s, %d entries", name, pr.Method(), pr.NNZ())
			pr.Close()
		}
	}
}

// sameCSR returns an error describing the first difference of got from
// want: an invalid got, or any bit.
func sameCSR(got, want *spgemm.CSR) error {
	if err := got.Validate(); err != nil {
		return err
	}
	return spgemmtest.SameBits(got, want)
}

// TestCUDAGraphTooLarge checks the size check's error on the device's own
// figures (the emulator's TestTooLargeNamesBothSizes runs it through
// NewNodeWise; a graph larger than an H100's memory is too slow to build
// in a test).
func TestCUDAGraphTooLarge(t *testing.T) {
	dev := openGPU(t)
	free, total, err := dev.MemoryInfo()
	if err != nil {
		t.Fatal(err)
	}
	err = dev.checkFits("the graph (test)", free+1)
	if err == nil || !strings.Contains(err.Error(), "free of") {
		t.Fatalf("checkFits(free+1) = %v", err)
	}
	t.Logf("%v (total %d)", err, total)
}
