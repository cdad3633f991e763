package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/testenv"
)

// coraPath returns ../shared/data/cora.npz beside the repository, or skips
// the test when it is absent (fails it in CI).
func coraPath(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", "cora.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		testenv.MissingData(t, "cora.npz not available (%v): this test needs %s", err, p)
	}
	return p
}

// TestCoraWithoutPeer times bulksample alone on Cora and checks the table
// and the export the peer would read.
func TestCoraWithoutPeer(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "training.md")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--config", "cora", "--cora", coraPath(t), "--rounds", "2", "--steps", "2",
		"--warmup", "1", "--peer", "", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	table := string(b)
	for _, want := range []string{"## cora", "2708 vertices", "| bulksample (", "not run (--peer empty)", "digest "} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if table != stdout.String() {
		t.Error("the file and standard output differ")
	}
}

// TestExport checks the exported minibatches against the workload: the
// manifest names every array, and the arrays have the blocks' sizes.
func TestExport(t *testing.T) {
	c := &config{cora: coraPath(t), seed: 1, threads: 1}
	w, err := sample(context.Background(), c, specs["cora"], 2)
	if err != nil {
		t.Fatal(err)
	}
	us, err := newOurs(w, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	params, logits := us.reference()
	dir := t.TempDir()
	if err := export(dir, w, params, logits); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if len(m.Minibatches) != len(w.mbs) || m.Config.Features != 1433 || m.Config.Classes != 7 {
		t.Fatalf("manifest: %d minibatches, %d features, %d classes", len(m.Minibatches), m.Config.Features, m.Config.Classes)
	}
	if size(m.Params) != int64(4*len(params)) || size(m.RefLogits) != int64(4*len(logits)) {
		t.Errorf("params or logits file of the wrong size")
	}
	for i, em := range m.Minibatches {
		mb := &w.mbs[i]
		for l, e := range em.Blocks {
			a := &mb.Blocks[len(mb.Blocks)-1-l].Adj
			if e.Rows != a.Rows || e.Cols != a.Cols || size(e.Indptr) != int64(8*(a.Rows+1)) ||
				size(e.Indices) != 4*a.NNZ() || size(e.Data) != 4*a.NNZ() {
				t.Errorf("minibatch %d layer %d: exported %+v for a %dx%d block of %d entries", i, l, e, a.Rows, a.Cols, a.NNZ())
			}
		}
		if em.XSparse == nil || em.XSparse.Rows != len(mb.InputNodes()) || size(em.Labels) != int64(4*len(mb.Seeds)) {
			t.Errorf("minibatch %d: features %+v, labels of %d bytes", i, em.XSparse, size(em.Labels))
		}
	}
}

// TestPeer runs the PyTorch peer on Cora where python3 has torch, and
// checks that it computes bulksample's model (the same logits from the
// same weights) and times every step.
func TestPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("the peer starts a Python process")
	}
	if err := exec.Command(defaultPython(), "-c", "import torch, numpy").Run(); err != nil {
		t.Skipf("no PyTorch (python3-torch; scripts/deps.sh bench installs it): %v", err)
	}
	cora := coraPath(t)
	c := &config{cora: cora, seed: 1, threads: 1, steps: 3, warmup: 1, python: defaultPython(), peer: "peer.py"}
	w, err := sample(context.Background(), c, specs["cora"], 2)
	if err != nil {
		t.Fatal(err)
	}
	us, err := newOurs(w, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	params, logits := us.reference()
	dir := t.TempDir()
	if err := export(dir, w, params, logits); err != nil {
		t.Fatal(err)
	}
	pr, err := runPeer(context.Background(), c, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !(pr.MaxLogitDiff < 1e-4) {
		t.Errorf("the peer's logits differ from bulksample's by %g", pr.MaxLogitDiff)
	}
	for _, x := range pr.Times.total() {
		if !(x > 0) {
			t.Errorf("step times %v", pr.Times)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{{"--nodes", "10"}, {"--config", "reddit"}, {"--steps", "0"}, {"--threads", "0"}, {"extra"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d; want 2", args, code)
		}
	}
}
