//go:build cuda

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gpu"
)

// TestDeviceCUDA runs `--device cuda` in a cuda build. Without a GPU it
// checks that sample and spgemm exit 1 with the driver's error. With one
// it checks the CPU-against-GPU digests: sample (node-wise in both frontier
// modes, weighted, with replacement; LADIES; FastGCN) and spgemm (Q·A and
// A·A) give the CPU's digest.
func TestDeviceCUDA(t *testing.T) {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(t.TempDir(), "rmat12.npz")
	if err := dataset.Save(g, &dataset.Dataset{Adj: a}); err != nil {
		t.Fatal(err)
	}
	d, err := gpu.Open(0)
	if err != nil {
		if os.Getenv("BULKSAMPLE_REQUIRE_GPU") == "1" {
			t.Fatalf("BULKSAMPLE_REQUIRE_GPU=1 but: %v", err)
		}
		for _, command := range [][]string{{"sample", "--graph", g}, {"spgemm", "--a", g}} {
			code, _, stderr := runCLI(t, command[0], append(command[1:], "--device", "cuda")...)
			if code != 1 || !strings.Contains(stderr, "--device cuda: gpu: opening CUDA device 0") {
				t.Errorf("%v --device cuda without a GPU: exit %d, want 1 with the driver's error:\n%s", command, code, stderr)
			}
		}
		if code, _, stderr := runCLI(t, "device"); code != 1 || !strings.Contains(stderr, "device: gpu: opening CUDA device 0") {
			t.Errorf("device without a GPU: exit %d, want 1 with the driver's error:\n%s", code, stderr)
		}
		t.Skipf("no GPU (checked the error): %v", err)
	}
	d.Close()
	code, stdout, stderr := runCLI(t, "device", "--json")
	if code != 0 {
		t.Fatalf("device: exit %d: %s", code, stderr)
	}
	facts := lastJSON[map[string]any](t, stdout)
	if k, _ := facts["kernels"].([]any); len(k) == 0 || facts["open_seconds"] == nil {
		t.Errorf("device --json without kernels or the time of Open:\n%s", stdout)
	}
	t.Logf("bulksample device:\n%s", stdout)
	digest := func(command string, args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, command, append(args, "--digest", "--json")...)
		if code != 0 {
			t.Fatalf("%s %v: exit %d: %s", command, args, code, stderr)
		}
		return lastJSON[map[string]any](t, stdout)["digest"].(string)
	}
	for _, extra := range [][]string{
		{"--fanout", "15,10,5"},
		{"--fanout", "15,10,5", "--frontier", "new"},
		{"--fanout", "10,5", "--weighted"},
		{"--fanout", "10,5", "--replace"},
		{"--fanout", "10,5", "--weighted", "--replace"},
		{"--method", "ladies", "--fanout", "256,256"},
		{"--method", "fastgcn", "--fanout", "256,256"},
	} {
		args := append([]string{"--graph", g, "--batch", "128", "--bulk", "8", "--seeds", "2048", "--seed", "7"}, extra...)
		cpu, dev := digest("sample", args...), digest("sample", append(args, "--device", "cuda")...)
		if cpu != dev {
			t.Errorf("sample %v: GPU digest %s, CPU %s", extra, dev, cpu)
		}
	}
	for _, extra := range [][]string{{"--select-rows", "1000"}, {}} {
		args := append([]string{"--a", g, "--reps", "2"}, extra...)
		cpu, dev := digest("spgemm", args...), digest("spgemm", append(args, "--device", "cuda")...)
		if cpu != dev {
			t.Errorf("spgemm %v: GPU digest %s, CPU %s", extra, dev, cpu)
		}
	}
}
