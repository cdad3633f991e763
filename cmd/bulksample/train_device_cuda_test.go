//go:build cuda

package main

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gpu"
)

// TestDeviceTrain runs `train --device cuda` in a cuda build. Without a GPU
// it exits 1 with the driver's error. With one, GraphSAGE and GCN on a
// synthetic graph train on the GPU to the CPU's loss and accuracy, within
// float32 rounding of the products' sums over two epochs.
func TestDeviceTrain(t *testing.T) {
	d, err := gpu.Open(0)
	if err != nil {
		if os.Getenv("BULKSAMPLE_REQUIRE_GPU") == "1" {
			t.Fatalf("BULKSAMPLE_REQUIRE_GPU=1 but: %v", err)
		}
		code, _, stderr := runCLI(t, "train", "--data", "synthetic:nodes=500", "--epochs", "1", "--device", "cuda")
		if code != 1 || !strings.Contains(stderr, "--device cuda: gpu: opening CUDA device 0") {
			t.Errorf("train --device cuda without a GPU: exit %d, want 1 with the driver's error:\n%s", code, stderr)
		}
		t.Skipf("no GPU (checked the error): %v", err)
	}
	d.Close()
	for _, model := range []string{"sage", "gcn"} {
		var sums [2]trainSummary
		for i, device := range []string{"cpu", "cuda"} {
			code, stdout, stderr := runCLI(t, "train", "--data", "synthetic:nodes=3000,seed=2", "--model", model, "--epochs", "2",
				"--hidden", "32", "--fanout", "10,5", "--batch", "128", "--device", device, "--json")
			if code != 0 {
				t.Fatalf("train --model %s --device %s: exit %d:\n%s", model, device, code, stderr)
			}
			sums[i] = lastJSON[trainSummary](t, stdout)
		}
		cpu, gpu := sums[0], sums[1]
		t.Logf("%s: CPU loss %.5f test %.4f; GPU (%s) loss %.5f test %.4f", model, cpu.FinalLoss, cpu.TestAcc, gpu.BLAS, gpu.FinalLoss, gpu.TestAcc)
		if math.Abs(cpu.FinalLoss-gpu.FinalLoss) > 1e-3*math.Abs(cpu.FinalLoss) || math.Abs(cpu.TestAcc-gpu.TestAcc) > 0.01 {
			t.Errorf("%s: the GPU's loss %v and test accuracy %v differ from the CPU's %v and %v", model, gpu.FinalLoss, gpu.TestAcc, cpu.FinalLoss, cpu.TestAcc)
		}
	}
}
