package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmallRun measures on a tiny graph (one minibatch) and checks that
// the report appended to the file has a row per rank kind, shape and c,
// and the paper comparison.
func TestSmallRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist.md")
	if err := os.WriteFile(out, []byte("# before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--nodes", "3000", "--rounds", "1", "--replication", "1,8", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := string(b)
	if !strings.HasPrefix(rep, "# before\n\n## Prediction: an epoch of GraphSAGE on ogbn-papers100M at p = 128") {
		t.Errorf("the section is not appended after the file's text:\n%s", rep)
	}
	for _, want := range []string{
		"| CPU, 2 threads (measured) | largest (1081344 inputs) | 1 |", "| CPU, 2 threads (measured) | largest (1081344 inputs) | 8 |",
		"| A100 (assumed) | scaled (352308 inputs) | 1 |", "| A100 (assumed) | scaled (352308 inputs) | 8 |",
		"| H100 (assumed) | largest (1081344 inputs) | 8 |", "285356 parameters", "**Against the paper.**", "2.5x faster than Quiver",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if strings.Contains(rep, "NaN") || strings.Contains(rep, "Inf") {
		t.Errorf("report has a NaN or Inf:\n%s", rep)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--replication", "3"}, "--replication 3 does not divide --p 128"},
		{[]string{"--nodes", "10"}, "--nodes"},
		{[]string{"--injection", "0"}, "--injection"},
		{[]string{"--flops-efficiency", "1.5"}, "--flops-efficiency"},
		{[]string{"--inputs-per-minibatch", "2e6"}, "exceeds the largest possible"},
		{[]string{"--fanout", "15,x"}, "--fanout"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), append(tc.args, "--out", ""), &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
