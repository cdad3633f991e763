package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for databench when the full run
// re-executes itself for a phase.
func TestMain(m *testing.M) {
	if os.Getenv("DATABENCH_TEST_CHILD") == "1" {
		if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRunSmall(t *testing.T) {
	t.Setenv("DATABENCH_TEST_CHILD", "1")
	out := filepath.Join(t.TempDir(), "results", "dataset.md")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-scale", "8", "-reps", "1", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	for _, want := range []string{"R-MAT scale 8", "256 vertices, 4096 generated edges", "| load scipy .npz |",
		"| load native, verified", "| load native, verified: structure + CRC-32C", "| load native, -no-verify",
		"Load time ratio npz / native", "| minor faults |"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{{"-scale", "0"}, {"-scale", "31"}, {"-edge-factor", "0"}, {"-reps", "0"}, {"-threads", "-1"}, {"extra"}, {"-bogus"}} {
		if _, err := parse(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	if _, err := runPhase(&config{phase: "nonsense", dir: t.TempDir(), scale: 4, edgeFactor: 1}); err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Errorf("unknown phase: %v", err)
	}
}
