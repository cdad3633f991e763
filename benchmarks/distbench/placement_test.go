package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// TestMpirunCommand: each placement's mpirun arguments; cpus starts one
// app context per rank, its program under taskset on the rank's CPU.
func TestMpirunCommand(t *testing.T) {
	for _, tc := range []struct {
		pl   placement
		want string
	}{
		{placement{mode: "none"}, "mpirun --oversubscribe --bind-to none -np 2 prog -x"},
		{placement{mode: "core"}, "mpirun --bind-to core --map-by core --report-bindings -np 2 prog -x"},
		{placement{mode: "cpus", cpus: []int{1, 0}}, "mpirun --oversubscribe --bind-to none -np 1 taskset -c 1 prog -x : -np 1 taskset -c 0 prog -x"},
	} {
		cmd := mpirunCommand(context.Background(), "mpirun", 2, tc.pl, "prog", "-x")
		got := strings.Join(append([]string{filepath.Base(cmd.Path)}, cmd.Args[1:]...), " ")
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.pl.mode, got, tc.want)
		}
	}
}

// TestFeatureBenchBindCPUs runs the feature part with both ranks pinned to
// CPU 0 (--bind cpus:0,0, which every machine has): each rank's affinity,
// reported from inside the rank, is CPU 0, and the report names the
// placement.
func TestFeatureBenchBindCPUs(t *testing.T) {
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--parts", "features", "--np", "2", "--replication", "1", "--bind", "cpus:0,0", "--feature-repeats", "1",
		"--feature-nodes", "2000", "--features", "4", "--batch", "32", "--feature-bulk", "4", "--feature-seeds", "128",
		"--calibrate-floats", "1024", "--out", filepath.Join(t.TempDir(), "dist.md")}
	var stdout, stderr bytes.Buffer
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	for _, want := range []string{"rank 0: CPU 0; rank 1: CPU 0 (not one CPU of its own each)", "rank r pinned by taskset to CPU r of 0,0"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if !slices.ContainsFunc(strings.Split(rep, "\n"), func(l string) bool { return strings.HasPrefix(l, "| 1 | minibatch | 1 |") }) {
		t.Errorf("no c = 1 row:\n%s", rep)
	}
}
