package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// TestDptrainbenchSmoke runs the benchmark at a tiny size under mpirun: the
// report must carry a row per run and the gradient term, whose counted
// bytes equal the model's.
func TestDptrainbenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds bulksample and runs mpirun twice")
	}
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := mpitest.BuildCLI(ctx, t, "../..")
	out := filepath.Join(t.TempDir(), "dist.md")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--bulksample", bin, "--nodes", "3000", "--epochs", "1", "--hidden", "16", "--batch", "100",
		"--bulk", "2", "--replication", "2", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	for _, want := range []string{"| 1 process, 2 threads |", "| p = 4, c = 2, push |", "measured (c = 2):", "(+0.0%)", "| 131072 | 10 |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}
