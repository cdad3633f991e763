package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/procstat"
)

// checkPhases checks that a summary's phases are the named ones, in order,
// with figures a real measurement gives.
func checkPhases(t *testing.T, command string, got procstat.Phases, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: phases %+v; want %v", command, got, want)
	}
	for i, p := range got {
		if p.Name != want[i] {
			t.Errorf("%s: phase %d is %q; want %q", command, i, p.Name, want[i])
		}
		if p.Seconds <= 0 || p.CPUSeconds < 0 || p.SysSeconds < 0 || p.MinorFaults < 0 || p.AllocBytes < 0 || p.PeakRSSBytes <= 0 {
			t.Errorf("%s: phase %s: %+v", command, p.Name, p.Cost)
		}
	}
}

// TestSummaryPhases checks the per-phase costs in the JSON of every command
// but train (train_test.go checks its epochs).
func TestSummaryPhases(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.npz")
	code, stdout, stderr := runCLI(t, "gen", "rmat", "--scale", "10", "--edge-factor", "8", "--out", graph, "--json")
	if code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	g := lastJSON[genSummary](t, stdout)
	checkPhases(t, "gen", g.Phases, "generate", "save")
	// R-MAT scale 10 generates 8192 edges into arrays over 32 KiB, which
	// the heap counts exactly.
	if gen := g.Phases.Get("generate"); gen.AllocBytes < 8192*8 {
		t.Errorf("gen: generate allocated %d bytes; want at least 8 per generated edge", gen.AllocBytes)
	}

	code, stdout, stderr = runCLI(t, "info", graph, "--json")
	if code != 0 {
		t.Fatalf("info: exit %d\n%s", code, stderr)
	}
	checkPhases(t, "info", lastJSON[infoSummary](t, stdout).Phases, "load", "stats")

	code, stdout, stderr = runCLI(t, "convert", graph, filepath.Join(dir, "g.bsg"), "--json")
	if code != 0 {
		t.Fatalf("convert: exit %d\n%s", code, stderr)
	}
	checkPhases(t, "convert", lastJSON[convertSummary](t, stdout).Phases, "load", "save")

	code, stdout, stderr = runCLI(t, "spgemm", "--a", graph, "--reps", "2", "--json")
	if code != 0 {
		t.Fatalf("spgemm: exit %d\n%s", code, stderr)
	}
	sp := lastJSON[spgemmSummary](t, stdout)
	checkPhases(t, "spgemm", sp.Phases, "load", "setup", "multiply")
	if len(sp.ProductCosts) != 2 {
		t.Errorf("spgemm --reps 2: %d product costs", len(sp.ProductCosts))
	}
	var sum procstat.Cost
	for _, c := range sp.ProductCosts {
		sum.Add(c)
	}
	if m := sp.Phases.Get("multiply"); sum != m {
		t.Errorf("spgemm: product costs add up to %+v; multiply phase %+v", sum, m)
	}

	// With --reuse the products after the first write into the first one's
	// arrays: the result's 8 bytes per entry, most of the first product's
	// allocation, are not allocated again.
	code, stdout, stderr = runCLI(t, "spgemm", "--a", graph, "--reps", "3", "--reuse", "--json")
	if code != 0 {
		t.Fatalf("spgemm --reuse: exit %d\n%s", code, stderr)
	}
	re := lastJSON[spgemmSummary](t, stdout)
	if !re.Reuse || re.NNZOut != sp.NNZOut || len(re.ProductCosts) != 3 {
		t.Fatalf("spgemm --reuse: %+v; want the product of the run without it (nnz %d)", re, sp.NNZOut)
	}
	first := re.ProductCosts[0].AllocBytes
	if first < 8*re.NNZOut {
		t.Errorf("spgemm --reuse: the first product allocated %d bytes; want >= 8 per entry of C (%d)", first, re.NNZOut)
	}
	for i, c := range re.ProductCosts[1:] {
		if c.AllocBytes > first/4 {
			t.Errorf("spgemm --reuse: product %d allocated %d bytes, the first %d", i+2, c.AllocBytes, first)
		}
	}

	code, stdout, stderr = runCLI(t, "sample", "--graph", graph, "--batch", "32", "--bulk", "4", "--fanout", "4,2", "--digest", "--json")
	if code != 0 {
		t.Fatalf("sample: exit %d\n%s", code, stderr)
	}
	checkPhases(t, "sample", lastJSON[sampleSummary](t, stdout).Phases, "load", "setup", "sample", "digest")
}

func TestNotePhase(t *testing.T) {
	var b bytes.Buffer
	notePhase(&b, "spgemm", "multiply", procstat.Cost{Seconds: 1, CPUSeconds: 1, SysSeconds: 0.01, MinorFaults: 10})
	if b.Len() != 0 {
		t.Errorf("a phase with 1%% kernel time printed %q", b.String())
	}
	notePhase(&b, "spgemm", "multiply", procstat.Cost{Seconds: 1, CPUSeconds: 1, SysSeconds: 0.3, MinorFaults: 30000})
	if got := b.String(); !strings.HasPrefix(got, "spgemm: multiply 1.000 s: page faults 30000 minor") {
		t.Errorf("a phase with 30%% kernel time printed %q", got)
	}
}

// TestTrainPhases checks the costs in train's JSON: per epoch, each
// training phase (with the pipeline's wait, the default, or without it);
// for the run, the load and the sum of the epochs.
func TestTrainPhases(t *testing.T) {
	for _, tc := range []struct {
		pipeline string
		train    []string
	}{
		{"2", []string{"sample", "extract", "wait", "forward", "backward", "update", "eval"}},
		{"1", []string{"sample", "extract", "forward", "backward", "update", "eval"}},
	} {
		checkTrainPhases(t, tc.pipeline, tc.train)
	}
}

func checkTrainPhases(t *testing.T, pipeline string, train []string) {
	code, stdout, stderr := runCLI(t, "train", "--data", "synthetic:nodes=600,classes=3,features=8,split=random:0.5,0.2,0.3",
		"--fanout", "4,3", "--batch", "64", "--epochs", "2", "--hidden", "8", "--pipeline", pipeline, "--json")
	if code != 0 {
		t.Fatalf("train --pipeline %s: exit %d\n%s", pipeline, code, stderr)
	}
	s := lastJSON[trainSummary](t, stdout)
	checkPhases(t, "train", s.Costs, append([]string{"load"}, train...)...)
	if len(s.Epochs) != 2 {
		t.Fatalf("train --epochs 2: %d epoch records", len(s.Epochs))
	}
	var sample float64
	for _, ep := range s.Epochs {
		checkPhases(t, "train epoch", ep.Costs, train...)
		sample += ep.Costs.Get("sample").Seconds
		if got, want := ep.Costs.Get("forward").Seconds, ep.Phases.Forward; math.Abs(got-want) > 1e-6 {
			t.Errorf("epoch %d: forward costs %g s; phase_seconds %g", ep.Epoch, got, want)
		}
		if got, want := ep.Costs.Get("wait").Seconds, ep.Phases.Wait; math.Abs(got-want) > 1e-6 {
			t.Errorf("epoch %d: wait costs %g s; phase_seconds %g", ep.Epoch, got, want)
		}
	}
	if got := s.Costs.Get("sample").Seconds; math.Abs(got-sample) > 1e-9 {
		t.Errorf("run's sample phase %g s; the epochs' add up to %g", got, sample)
	}
}
