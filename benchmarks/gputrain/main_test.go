package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEmulatorRuns runs both modes on the host emulator on a tiny graph,
// with the CPU comparison and the peers' exports, and checks the JSON lines
// (epoch mode's: trained through package train on its device path, every
// field the bundle's runner and report read) and the exported files; then
// it feeds those lines, with peer lines of the peers' format, to the
// bundle's report (benchmarks/gpupeer/train_report.py) when python3 is at
// hand, and checks its tables.
func TestEmulatorRuns(t *testing.T) {
	dir := t.TempDir()
	small := []string{"--emulator", "--nodes", "2000", "--hidden", "8", "--batch", "32", "--fanout", "4,3"}
	var step, epoch bytes.Buffer
	var stderr bytes.Buffer
	if code := run(context.Background(), append(small, "--mode", "step", "--minibatches", "3", "--steps", "3", "--warmup", "1",
		"--cpu-threads", "2", "--export", filepath.Join(dir, "step")), &step, &stderr); code != 0 {
		t.Fatalf("step: exit %d\n%s", code, stderr.String())
	}
	// 4 classes: the trainer wants a valid set, which 2% of each of 47
	// classes of 2000 vertices (stratified) leaves empty.
	if code := run(context.Background(), append(small, "--mode", "epoch", "--classes", "4", "--bulk", "2", "--epochs", "2",
		"--export", filepath.Join(dir, "epoch")), &epoch, &stderr); code != 0 {
		t.Fatalf("epoch: exit %d\n%s", code, stderr.String())
	}
	var s stepResult
	if err := json.Unmarshal(step.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Minibatches != 3 || s.StepMs <= 0 || s.CPUStepMs <= 0 || s.EdgesPerMB <= 0 || s.MaxLogitDiff > 1e-4 {
		t.Errorf("step result %+v", s)
	}
	var e epochResult
	if err := json.Unmarshal(epoch.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Seconds) != 2 || e.Minibatches != (e.Train+31)/32 || e.Bulk != 2 || e.SampledEdges == 0 || len(e.Loss) != 2 || !(e.Loss[1] < e.Loss[0]) {
		t.Errorf("epoch result %+v; want 2 epochs of ceil(train/32) minibatches, the loss falling", e)
	}
	if !e.DevicePath || e.PipelineDepth != 2 || e.Backend != "gpu kernels on host emulator" {
		t.Errorf("epoch: device path %v, pipeline depth %d, backend %q; want the trainer's device path with its pipeline on the emulator's backend",
			e.DevicePath, e.PipelineDepth, e.Backend)
	}
	for _, c := range []struct {
		name string
		v    []float64
		min  float64 // gathering and waiting may take no measurable time
	}{
		{"epoch_seconds", e.Seconds, math.SmallestNonzeroFloat64}, {"sample_seconds", e.SampleSec, math.SmallestNonzeroFloat64},
		{"compute_seconds", e.ComputeSec, math.SmallestNonzeroFloat64}, {"gather_seconds", e.GatherSec, 0}, {"wait_seconds", e.WaitSec, 0},
	} {
		if len(c.v) != 2 || slices.ContainsFunc(c.v, func(x float64) bool { return !(x >= c.min) }) {
			t.Errorf("epoch: %s %v; want 2 times, each >= %g", c.name, c.v, c.min)
		}
	}
	// The fields scripts/device-run.sh (epoch_seconds) and the report read,
	// by their names in the line.
	var raw map[string]any
	if err := json.Unmarshal(epoch.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"epoch_seconds", "sample_seconds", "nodes", "stored_edges", "train", "minibatches", "bulk"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("epoch's JSON line has no %q: %s", k, epoch.String())
		}
	}
	for _, f := range []string{"step/manifest.json", "step/x.f32", "step/indices.i32", "step/mb2_layer1_indices.i32", "step/params.f32",
		"step/ref_logits.f32", "epoch/manifest.json", "epoch/x.f32", "epoch/train.i32"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("export %s: %v", f, err)
		}
	}

	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3 for the report: %v", err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	peerStep := write("pyg-step.jsonl", `{"variant": "sampler", "sample_ms": 2.5}
{"variant": "eager", "pyg": "2.8", "gather_ms": 0.5, "forward_ms": 1, "backward_ms": 2, "update_ms": 0.25, "step_ms": 3.25, "max_logit_diff": 1e-6}
{"variant": "compile", "pyg": "2.8", "error": "Timeout: torch.compile took more than 90 s"}
{"variant": "eager", "step_ms": 3.25, "best": "eager", "max_logit_diff": 1e-6}
`)
	peerEpoch := write("pyg-epoch.jsonl", `{"variant": "eager", "bulk": 64, "epoch_seconds": [9, 8], "sample_seconds": [3, 2.5]}`+"\n")
	acc := write("acc.jsonl", `{"data": "cora", "preset": "kipf-gcn", "device": "cpu", "seed": 1, "test_acc": 0.81}
{"data": "cora", "preset": "kipf-gcn", "device": "cuda", "seed": 1, "test_acc": 0.8}
{"data": "cora", "preset": "kipf-gcn", "device": "cuda", "seed": 2, "test_acc": 0.82}
`)
	out := filepath.Join(dir, "train.md")
	cmd := exec.Command(py, "../gpupeer/train_report.py", "--out", out, "--step", write("step.jsonl", step.String()),
		"--peer-step", peerStep, "--epoch", write("epoch.jsonl", epoch.String()), "--peer-epoch", peerEpoch, "--accuracy", acc)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("train_report.py: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"| bulksample, GPU |", "PyG 2.8 SAGEConv, eager (best) | 2.500 | 0.500 | 1.000 | 2.000 | 0.250 | 3.250 | 1.00x |",
		"(Timeout: torch.compile took more than 90 s)", "| bulksample, CPU 2 threads", "GPU/CPU per step:",
		"| PyG + PyTorch sampler | 9.00, 8.00 | 2.50 | 8.00 | 1.00x |", "| cora | kipf-gcn | 0.8100 | 0.8100 | 1 (seeds 1) | 2 (seeds 1,2) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{{"--mode", "train"}, {"--nodes", "10"}, {"--fanout", "3,x"}, {"--steps", "0"}, {"--train", "0.95"}, {"extra"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d; want 2", args, code)
		}
	}
}
