package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
)

// TestSmallRun runs the benchmark on a tiny graph and checks the table: one
// row per backend, with the native BLAS first.
func TestSmallRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "train.md")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--nodes", "3000", "--epochs", "1", "--hidden", "8", "--fanout", "3,3",
		"--batch", "64", "--bulk", "2", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	table := string(b)
	for _, want := range []string{"| " + gnn.BLAS + " | ", "| " + gnn.PureGoBLAS + " | ", "3000 vertices", "| 1.00x |", "| minor faults |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if table != stdout.String() {
		t.Error("the file and standard output differ")
	}
}

// TestPipelineRows: --pipeline 1,2 gives a row per depth, the unpipelined
// one first, with the paired ratio.
func TestPipelineRows(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--nodes", "3000", "--epochs", "2", "--hidden", "8", "--fanout", "3,3",
		"--batch", "64", "--bulk", "2", "--blas", "native", "--pipeline", "1,2", "--out", ""}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	table := stdout.String()
	for _, want := range []string{"| " + gnn.BLAS + " | 1 | ", "| " + gnn.BLAS + " | 2 | ", "| 1.00x | 1.000x |", "| wait |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{{"--nodes", "10"}, {"--epochs", "0"}, {"--fanout", "3,x"}, {"--blas", "mkl"}, {"--pipeline", "3"}, {"--pipeline", "0"}, {"extra"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d; want 2", args, code)
		}
	}
}
