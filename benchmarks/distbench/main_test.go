package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/internal/mpitest"
)

// TestDistbenchSmoke runs the benchmark at a tiny size under mpirun: every
// configuration must finish, agree with the single-process digest, and
// the report must carry the model and the push/pull ratio.
func TestDistbenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds bulksample and runs mpirun six times")
	}
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tags, err := exec.CommandContext(ctx, "../../scripts/build-tags.sh").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bulksample")
	if out, err := exec.CommandContext(ctx, "go", "build", "-tags", strings.TrimSpace(string(tags)), "-o", bin, "../../cmd/bulksample").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "dist.md")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--bulksample", bin, "--scale", "12", "--batch", "64", "--bulk", "8", "--replication", "1,4", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	if strings.Contains(rep, "DIFFERS") || strings.Count(rep, "= 1 process") != 6 || !strings.Contains(rep, "Push / pull sampling bytes: c = 1:") {
		t.Errorf("report:\n%s", rep)
	}
}
