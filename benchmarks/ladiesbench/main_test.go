package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// TestRunSmall runs the benchmark on a tiny graph and checks the markdown
// file and the JSON summary.
func TestRunSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "layerwise.md")
	var stdout, stderr bytes.Buffer
	args := []string{"--scale", "9", "--batch", "16", "--budgets", "8,8", "--fanouts", "4,3",
		"--bulks", "1,4", "--minibatches", "4", "--reps", "1", "--methods", "ladies,fastgcn", "--out", out, "--json"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| ladies | 4 |", "| fastgcn | 1 |", "| node | 1 |", "R-MAT scale 9", "| minor faults |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var sum struct {
		Vertices int `json:"vertices"`
		Rows     []struct {
			Method       string  `json:"method"`
			K            int     `json:"k"`
			SampledEdges int64   `json:"sampled_edges"`
			SEPS         float64 `json:"seps"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last line is not the JSON summary: %v", err)
	}
	if sum.Vertices != 512 || len(sum.Rows) != 6 {
		t.Fatalf("summary: %d vertices, %d rows; want 512 and 6", sum.Vertices, len(sum.Rows))
	}
	for _, r := range sum.Rows {
		if r.SampledEdges <= 0 || r.SEPS <= 0 {
			t.Errorf("%s k=%d: %d edges, SEPS %v", r.Method, r.K, r.SampledEdges, r.SEPS)
		}
	}
}

// TestSweepCLI runs the sweep through the real CLI on a tiny graph, two
// rounds: every (threads, k) row is in the table once, one k per thread
// count is marked best, and the runs' digests agreed (the sweep fails
// otherwise).
func TestSweepCLI(t *testing.T) {
	ctx := context.Background()
	bin := mpitest.BuildCLI(ctx, t, "../..")
	out := filepath.Join(t.TempDir(), "sweep.md")
	var stdout, stderr bytes.Buffer
	args := []string{"--cli", bin, "--scale", "9", "--batch", "16", "--budgets", "8,8", "--seeds", "128",
		"--bulks", "1,4", "--sweep-threads", "1,2", "--reps", "2", "--cli-passes", "2", "--out", out, "--json"}
	wants := []string{"--ladies-matrix normalized", "--sweep-threads 1,2", "--reps 2", "digest of every run: ",
		"Verdict on issue 14's goal", "T = 1: k = 4 at ", "T = 2: k = 4 at "}
	if runtime.NumCPU() >= 2 { // each run on as many CPUs as threads (samplebench's test checks the CPUs)
		args = append(args, "--pin")
		wants = append(wants, "--pin`", "Pinned (`--pin`)")
	}
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var sum struct {
		Rows []struct {
			Threads  int       `json:"threads"`
			WarmSEPS []float64 `json:"warm_seps"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || len(sum.Rows) != 4 || len(sum.Rows[0].WarmSEPS) != 2 {
		t.Errorf("JSON summary (%v): %+v, want 4 rows of 2 rounds", err, sum)
	}
	for _, threads := range []string{"1", "2"} {
		best := 0
		for _, k := range []string{"1", "4"} {
			plain, marked := []byte("| "+threads+" | "+k+" |"), []byte("| "+threads+" | "+k+"* |")
			switch n := bytes.Count(md, plain) + bytes.Count(md, marked); {
			case n != 1:
				t.Errorf("%d rows for threads %s, k %s:\n%s", n, threads, k, md)
			case bytes.Contains(md, marked):
				best++
			}
		}
		if best != 1 {
			t.Errorf("%d rows marked best for threads %s:\n%s", best, threads, md)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--budgets", "512,x"}, "--budgets"},
		{[]string{"--bulks", "0"}, "--bulks"},
		{[]string{"--methods", "node2vec"}, "--methods"},
		{[]string{"--scale", "40"}, "--scale"},
		{[]string{"--reps", "0"}, "--reps"},
		{[]string{"--sweep-threads", "0"}, "--sweep-threads"},
		{[]string{"--cli-passes", "1"}, "--cli-passes"},
		{[]string{"--ladies-matrix", "half"}, "--ladies-matrix"},
		{[]string{"--pin"}, "--pin"},
		{[]string{"extra"}, "extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(stderr.String(), c.flag) {
			t.Errorf("%v: stderr does not name %s:\n%s", c.args, c.flag, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 {
		t.Errorf("--help: exit %d, want 0", code)
	}
}
