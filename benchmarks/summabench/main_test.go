package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// TestSummabenchSmoke runs the benchmark at a tiny size under mpirun: every
// run must agree with the single-process digest, and the report, appended
// to an existing file, must keep what was there.
func TestSummabenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds bulksample and runs mpirun four times")
	}
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := mpitest.BuildCLI(ctx, t, "../..")
	out := filepath.Join(t.TempDir(), "dist.md")
	if err := os.WriteFile(out, []byte("# distbench's report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--bulksample", bin, "--scale", "10", "--select-rows", "200", "--reps", "1", "--replication", "2", "--square-scale", "8", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	if strings.Contains(rep, "DIFFERS") || strings.Count(rep, "= 1 process") != 4 || !strings.Contains(rep, "| 2d | 1 |") || !strings.Contains(rep, "general product A·A") {
		t.Errorf("report:\n%s", rep)
	}
	if file, err := os.ReadFile(out); err != nil || string(file) != "# distbench's report\n"+rep {
		t.Errorf("--out holds %q (%v); want distbench's line followed by the report", file, err)
	}
}
