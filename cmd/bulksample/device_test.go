package main

import (
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gpu"
)

// TestDeviceFlag checks --device's values and exclusions (exit 2), and, in
// a binary built without the cuda tag, that --device cuda exits 1 saying
// how to build one with CUDA.
func TestDeviceFlag(t *testing.T) {
	g := sampleTestGraph(t)
	for _, c := range []struct {
		command string
		args    []string
		want    string
	}{
		{"sample", []string{"--graph", g, "--device", "tpu"}, `--device "tpu": want cpu or cuda`},
		{"sample", []string{"--graph", g, "--device", "cuda", "--baseline"}, "--baseline applies to the CPU only"},
		{"sample", []string{"--graph", g, "--device", "cuda", "--max-bulk-edges", "9"}, "--max-bulk-edges applies to the CPU only"},
		{"sample", []string{"--graph", g, "--device", "cuda", "--method", "ladies", "--semibulk", "2"}, "--semibulk applies to the CPU only"},
		{"sample", []string{"--graph", g, "--device", "cuda", "--inproc-ranks", "2"}, "--device cuda: one process only"},
		{"spgemm", []string{"--a", g, "--device", "gpu"}, `--device "gpu": want cpu or cuda`},
		{"spgemm", []string{"--a", g, "--device", "cuda", "--accumulator", "hash"}, "--accumulator applies to the CPU only"},
	} {
		code, _, stderr := runCLI(t, c.command, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %v: exit %d, want 2 with %q:\n%s", c.command, c.args, code, c.want, stderr)
		}
	}
	if gpu.Built() {
		return // device_cuda_test.go
	}
	for _, command := range [][]string{{"sample", "--graph", g}, {"spgemm", "--a", g}} {
		code, _, stderr := runCLI(t, command[0], append(command[1:], "--device", "cuda")...)
		if code != 1 || !strings.Contains(stderr, "built without CUDA support") || !strings.Contains(stderr, "make build CUDA=1") {
			t.Errorf("%v --device cuda without the cuda tag: exit %d, want 1 saying how to build:\n%s", command, code, stderr)
		}
	}
}
