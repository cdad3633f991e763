package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/train"
)

// TestDefaultPreset: a run without --preset gets planetoid-sage on
// Planetoid data and the general defaults elsewhere; --preset none and an
// explicit preset win.
func TestDefaultPreset(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "ind.cora.graph"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	npz := filepath.Join(t.TempDir(), "cora.npz")
	if err := os.WriteFile(npz, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		preset, data string
		want         string
		byDefault    bool
	}{
		{"", raw, presetPlanetoidSAGE, true},
		{"", filepath.Dir(raw), presetPlanetoidSAGE, true},
		{"", filepath.Join(raw, "ind.cora.graph"), presetPlanetoidSAGE, true},
		{"", npz, "", false}, // the gnn-benchmark file keeps the general defaults
		{"", "synthetic:nodes=100", "", false},
		{"", filepath.Join(raw, "absent"), "", false},
		{presetNone, raw, "", false},
		{"kipf-gcn", raw, "kipf-gcn", false},
	} {
		if got, byDefault := choosePreset(tc.preset, tc.data); got != tc.want || byDefault != tc.byDefault {
			t.Errorf("--preset %q --data %s: %q (default %v); want %q (%v)", tc.preset, tc.data, got, byDefault, tc.want, tc.byDefault)
		}
	}
	// The flags: planetoid-sage's values, explicit flags over them, and
	// the general defaults with --preset none.
	var errb bytes.Buffer
	e := &env{stdout: &errb, stderr: &errb}
	c, err := parseTrainFlags(e, []string{"--data", raw, "--epochs", "7"})
	if err != nil {
		t.Fatal(err)
	}
	want := train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: 64, Dropout: 0.6}, Optimizer: train.OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01, WeightDecay: 5e-4}}, Plan: train.PlanOptions{BatchSize: 64, BulkSize: 4, Epochs: 7}, Eval: train.EvalOptions{Every: 1}, Seed: 1}
	if !reflect.DeepEqual(c.opt.Trainer, want) || c.preset != presetPlanetoidSAGE || !c.presetAuto || !strings.Contains(presetNote(c), "default") {
		t.Errorf("--data %s: options %+v, preset %q (default %v); want %+v, planetoid-sage by default", raw, c.opt.Trainer, c.preset, c.presetAuto, want)
	}
	c, err = parseTrainFlags(e, []string{"--data", raw, "--preset", "none"})
	if err != nil {
		t.Fatal(err)
	}
	if c.opt.Trainer.Plan.BatchSize != 512 || c.opt.Trainer.Optimizer.Adam.WeightDecay != 0 || c.preset != "" || presetNote(c) != "" {
		t.Errorf("--preset none: batch %d, weight decay %g, preset %q; want the general defaults (512, 0) and no preset",
			c.opt.Trainer.Plan.BatchSize, c.opt.Trainer.Optimizer.Adam.WeightDecay, c.preset)
	}
}

// planetoidCora returns the shared Planetoid/Cora folder, or skips the
// test (fails it in CI) when it is absent.
func planetoidCora(t *testing.T) string {
	t.Helper()
	return sharedDataset(t, filepath.Join("Planetoid", "Cora"))
}

// TestPlanetoidInfoConvert: info reports the public split of the
// Planetoid files, and convert writes it to the native format and to
// .npz, which give the same dataset.
func TestPlanetoidInfoConvert(t *testing.T) {
	cora := planetoidCora(t)
	code, stdout, stderr := runCLI(t, "info", filepath.Join(cora, "raw"))
	if code != 0 || !strings.Contains(stdout, "(planetoid): cora") ||
		!strings.Contains(stdout, "train 140, valid 500, test 1000 (the public split of the Planetoid files)") {
		t.Fatalf("info: exit %d\n%s%s", code, stdout, stderr)
	}
	dir := t.TempDir()
	var infos []map[string]any
	for _, out := range []string{"", filepath.Join(dir, "cora.bsn"), filepath.Join(dir, "cora.npz")} {
		in := cora
		if out != "" {
			if code, _, stderr := runCLI(t, "convert", cora, out); code != 0 {
				t.Fatalf("convert %s: exit %d\n%s", out, code, stderr)
			}
			in = out
		}
		code, stdout, stderr := runCLI(t, "info", in, "--json")
		if code != 0 {
			t.Fatalf("info %s: exit %d\n%s", in, code, stderr)
		}
		m := lastJSON[map[string]any](t, stdout)
		for _, k := range []string{"path", "format", "load_seconds", "peak_rss_bytes", "phases", "name", "verify"} {
			delete(m, k)
		}
		infos = append(infos, m)
	}
	if infos[0]["nodes"] != float64(2708) || infos[0]["edges"] != float64(10556) || infos[0]["train"] != float64(140) ||
		infos[0]["valid"] != float64(500) || infos[0]["test"] != float64(1000) {
		t.Errorf("info of Planetoid/Cora: %v", infos[0])
	}
	for i, m := range infos[1:] {
		if !reflect.DeepEqual(m, infos[0]) {
			t.Errorf("converted file %d: %v; want %v", i+1, m, infos[0])
		}
	}
}

// TestTrainPlanetoidDefaults: plain `train --data cora` trains on the
// Planetoid files with their public split and planetoid-sage's settings;
// the median test accuracy of seeds 1..5 is at least 0.78 (measured 0.812,
// 0.806-0.817; the command's general defaults gave 0.716 on the
// gnn-benchmark file). Five runs of 40 epochs take about 3 s.
func TestTrainPlanetoidDefaults(t *testing.T) {
	planetoidCora(t)
	var accs []float64
	for _, seed := range []string{"1", "2", "3", "4", "5"} {
		code, stdout, stderr := runCLI(t, "train", "--data", "cora", "--seed", seed, "--json")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		s := lastJSON[trainSummary](t, stdout)
		if s.Preset != presetPlanetoidSAGE || s.Batch != 64 || len(s.Epochs) != 40 || !s.NormFeatures ||
			!strings.Contains(stderr, "140 train / 500 valid / 1000 test") || !strings.Contains(stderr, "the default for Planetoid data") {
			t.Fatalf("seed %s: preset %q, batch %d, %d epochs, normalised %v; want planetoid-sage by default (64, 40, true) on the public split\n%s",
				seed, s.Preset, s.Batch, len(s.Epochs), s.NormFeatures, stderr)
		}
		accs = append(accs, s.TestAcc)
	}
	slices.Sort(accs)
	if accs[2] < 0.78 {
		t.Errorf("train --data cora, seeds 1..5: test accuracies %v, median %.3f; want >= 0.78", accs, accs[2])
	}
}

// TestPlanetoidMalformedCLI: a truncated file, a file naming a foreign
// class and a file of the wrong shape in a copy of Cora's raw folder make
// info, convert and train exit 1 with an error naming the file.
func TestPlanetoidMalformedCLI(t *testing.T) {
	cora := planetoidCora(t)
	read := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join(cora, "raw", "ind.cora."+ext))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name, ext string
		file      []byte
		want      string
	}{
		{"truncated", "allx", read("allx")[:100000], "truncated"},
		{"foreign class", "graph", []byte("\x80\x02cos\nsystem\nU\x02lsR."), "class os.system"},
		{"wrong shape", "ty", read("y"), "shape (140, 7), want (1000, 7)"},
	}
	for _, tt := range tests {
		raw := filepath.Join(t.TempDir(), "raw")
		if err := os.MkdirAll(raw, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
			b := read(ext)
			if ext == tt.ext {
				b = tt.file
			}
			if err := os.WriteFile(filepath.Join(raw, "ind.cora."+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		file := filepath.Join(raw, "ind.cora."+tt.ext)
		for _, args := range [][]string{
			{"info", raw},
			{"convert", raw, filepath.Join(t.TempDir(), "out.bsn")},
			{"train", "--data", filepath.Dir(raw), "--epochs", "1"},
		} {
			code, _, stderr := runCLI(t, args[0], args[1:]...)
			if msg := lastLine(stderr); code != 1 || !strings.Contains(msg, file) || !strings.Contains(msg, tt.want) {
				t.Errorf("%s: %s: exit %d, %q; want 1 and an error naming %s and %q", tt.name, args[0], code, msg, file, tt.want)
			}
		}
	}
}

// TestPlanetoidDistributedAndNorm: the distributed paths read Planetoid
// data (sample on in-process ranks gives the single-process digest;
// train on two in-process ranks runs), and --norm-features auto normalises
// the Planetoid Cora, whatever the preset sets.
func TestPlanetoidDistributedAndNorm(t *testing.T) {
	cora := planetoidCora(t)
	args := []string{"--graph", cora, "--batch", "20", "--bulk", "4", "--seeds", "140", "--fanout", "10,5", "--seed", "7", "--digest"}
	code, out, stderr := runCLI(t, "sample", args...)
	if code != 0 {
		t.Fatalf("sample: exit %d\n%s", code, stderr)
	}
	want := digestOf(t, out)
	code, out, stderr = runCLI(t, "sample", append(args, "--inproc-ranks", "2", "--fetch", "push")...)
	if code != 0 {
		t.Fatalf("sample on 2 ranks: exit %d\n%s", code, stderr)
	}
	if got := digestOf(t, out); got != want {
		t.Errorf("sample on 2 ranks: digest %s; want %s (one process)", got, want)
	}
	code, out, stderr = runCLI(t, "train", "--data", cora, "--inproc-ranks", "2", "--epochs", "2", "--json")
	if code != 0 {
		t.Fatalf("train on 2 ranks: exit %d\n%s", code, stderr)
	}
	if s := lastJSON[distTrainSummary](t, out); s.Ranks != 2 || s.Nodes != 2708 || s.Preset != presetPlanetoidSAGE {
		t.Errorf("train on 2 ranks: %d ranks, %d nodes, preset %q; want 2, 2708, %s", s.Ranks, s.Nodes, s.Preset, presetPlanetoidSAGE)
	}
	code, out, stderr = runCLI(t, "train", "--data", cora, "--preset", "none", "--epochs", "1", "--json")
	if code != 0 {
		t.Fatalf("train --preset none: exit %d\n%s", code, stderr)
	}
	if s := lastJSON[trainSummary](t, out); !s.NormFeatures || s.Preset != "" {
		t.Errorf("--preset none on Planetoid Cora: norm_features %v, preset %q; want auto to normalise, no preset", s.NormFeatures, s.Preset)
	}
}
