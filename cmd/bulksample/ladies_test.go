package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// TestLadiesMatrix: `sample --method ladies` and `train --sampler ladies`
// sample from the LADIES paper's D^-1/2 (A+I) D^-1/2 by default (the same
// digest as a sampler built on it here), and from the raw adjacency with
// --ladies-matrix raw; the flag is refused for the other methods.
func TestLadiesMatrix(t *testing.T) {
	g := sampleTestGraph(t)
	args := []string{"--graph", g, "--method", "ladies", "--batch", "16", "--fanout", "20,10", "--seed", "5", "--digest", "--json"}
	digest := func(extra ...string) (string, string) {
		code, stdout, stderr := runCLI(t, "sample", append(args, extra...)...)
		if code != 0 {
			t.Fatalf("sample %q: exit %d\n%s", extra, code, stderr)
		}
		m := lastJSONMap(t, stdout)
		d, _ := m["digest"].(string)
		mat, _ := m["ladies_matrix"].(string)
		return d, mat
	}
	normalized, mat := digest()
	if mat != "normalized" {
		t.Errorf("default ladies_matrix %q; want normalized", mat)
	}
	if d, _ := digest("--ladies-matrix", "normalized"); d != normalized {
		t.Errorf("--ladies-matrix normalized: digest %s; want the default's %s", d, normalized)
	}
	raw, mat := digest("--ladies-matrix", "raw")
	if mat != "raw" || raw == normalized {
		t.Errorf("--ladies-matrix raw: matrix %q, digest %s (default %s); want raw and another digest", mat, raw, normalized)
	}

	// The same sample from the library, on the normalised matrix built here.
	d, err := dataset.Load(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a    *spgemm.CSR
		want string
	}{{spgemm.SymNormalizeWithSelfLoops(d.Adj, 1), normalized}, {d.Adj, raw}} {
		s, err := sampling.NewLayerWise(tc.a, sampling.LayerWiseOptions{Method: sampling.LADIES, Budgets: []int{20, 10}, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		vertices := make([]int32, d.NumNodes())
		for i := range vertices {
			vertices[i] = int32(i)
		}
		plan, err := sampling.NewPlan(vertices, sampling.PlanOptions{BatchSize: 16, BulkSize: 16, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		var sum sampleSummary
		if err := sampleEpoch(context.Background(), io.Discard, nil, hostStep(s), plan.Epoch(0), 1, true, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Digest != tc.want {
			t.Errorf("library sample digest %s; want the CLI's %s", sum.Digest, tc.want)
		}
	}

	for _, tc := range []struct{ cmd, args string }{
		{"sample", "--graph " + g + " --ladies-matrix unit"},
		{"sample", "--graph " + g + " --method fastgcn --ladies-matrix raw"},
		{"sample", "--graph " + g + " --ladies-matrix raw"},
		{"train", "--data cora --sampler fastgcn --ladies-matrix raw"},
		{"train", "--data cora --ladies-matrix normalized"},
	} {
		code, _, stderr := runCLI(t, tc.cmd, strings.Fields(tc.args)...)
		if code != 2 || !strings.Contains(stderr, "--ladies-matrix") {
			t.Errorf("%s %s: exit %d, %q; want 2 and a message naming --ladies-matrix", tc.cmd, tc.args, code, firstLine(stderr))
		}
	}
	// train passes the choice to its sampler and reports it.
	for _, m := range []string{"normalized", "raw"} {
		code, stdout, stderr := runCLI(t, "train", "--data", smallSynthetic, "--model", "gcn", "--sampler", "ladies", "--ladies-matrix", m,
			"--fanout", "64,64", "--batch", "128", "--epochs", "1", "--hidden", "8", "--json")
		if code != 0 {
			t.Fatalf("train --ladies-matrix %s: exit %d\n%s", m, code, stderr)
		}
		if s := lastJSON[trainSummary](t, stdout); s.LadiesMatrix != m || !strings.Contains(stderr, "ladies ("+m+" matrix)") {
			t.Errorf("train --ladies-matrix %s: summary says %q; want %s in the JSON and the header", m, s.LadiesMatrix, m)
		}
	}
}
