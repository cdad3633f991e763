package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// TestMain makes the test binary a rank of the feature benchmark when
// featureBench starts it (os.Executable) under mpirun.
func TestMain(m *testing.M) {
	if os.Getenv(featureEnv) != "" {
		os.Exit(featureChild(context.Background(), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestDistbenchSmoke runs the benchmark at a tiny size under mpirun: every
// configuration must finish, agree with the single-process digest, and
// the report must carry the model and the push/pull ratio, then the
// feature section, with every gather equal to the file's rows.
func TestDistbenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds bulksample and runs mpirun six times")
	}
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := mpitest.BuildCLI(ctx, t, "../..")
	out := filepath.Join(t.TempDir(), "dist.md")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--bulksample", bin, "--scale", "12", "--batch", "64", "--bulk", "8", "--replication", "1,4", "--out", out,
		"--feature-nodes", "3000", "--features", "8", "--feature-bulk", "4", "--calibrate-floats", "1024", "--feature-repeats", "2",
		"--feature-interleave", "all"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	if strings.Contains(rep, "DIFFERS") || strings.Count(rep, "= 1 process") != 6 || !strings.Contains(rep, "Push / pull sampling bytes: c = 1:") {
		t.Errorf("report:\n%s", rep)
	}
	// c = 1 twice, c = 4 (no exchange) once.
	checkFeatureReport(t, rep, 2*len(featureModes)+len(featureModes))
	if !strings.Contains(rep, "the rows of every c, open together") {
		t.Errorf("--feature-interleave all not in the report:\n%s", rep)
	}
}

// checkFeatureReport checks the feature section of a report of runs
// (c, mode, repetition) runs: every one present and equal to the file.
func checkFeatureReport(t *testing.T, rep string, runs int) {
	t.Helper()
	if !strings.Contains(rep, "## Feature exchange") || strings.Contains(rep, "DIFFER |") ||
		strings.Count(rep, "| = file |") != runs || !strings.Contains(rep, "### Prediction: ogbn-papers100M") {
		t.Errorf("feature report:\n%s", rep)
	}
}

// TestFeatureBenchSmoke runs the feature part alone at a tiny size for
// c = 1, 2, 4, with the diagnostics: the probe table with its legacy
// column and the position table.
func TestFeatureBenchSmoke(t *testing.T) {
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "dist.md")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--parts", "features", "--feature-nodes", "2000", "--features", "4", "--batch", "32", "--feature-bulk", "4",
		"--feature-seeds", "256", "--calibrate-floats", "1024", "--feature-diagnose", "--feature-repeats", "2", "--feature-lockstep", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	// c = 1 and 2 twice each, c = 4 once.
	checkFeatureReport(t, rep, 2*2*len(featureModes)+len(featureModes))
	// c = 1 and 2 have columns of several ranks: each of their
	// repetitions is in the main table, the transfer, wait, probe and
	// position tables; c = 4 only in the main table; every c in the
	// repetition table.
	if strings.Count(rep, " / legacy / replay written |") != 1 || !strings.Contains(rep, "replay before / run / repeat after") ||
		!strings.Contains(rep, "| waited for the slowest s (status / ids / rows) |") ||
		strings.Count(rep, "| minibatch+cache (2/2) |") != 2+2+2+2+2 || strings.Count(rep, "| minibatch+cache |") != 3+1 ||
		!strings.Contains(rep, "| 2 | bulk | 2 |") || !strings.Contains(rep, "| 4 | bulk | 1 |") ||
		!strings.Contains(rep, "Lockstep (--feature-lockstep)") {
		t.Errorf("diagnostics missing:\n%s", rep)
	}
}

// TestGradientPrediction: the gradient term of the papers100M prediction
// is the ring all-reduce of the model's gradients, once per step.
func TestGradientPrediction(t *testing.T) {
	params, err := sageParams(papers100M, 256, 172)
	if err != nil {
		t.Fatal(err)
	}
	// 128·256 + 128·256 + 256, 2·(256·256) + 256, 2·(256·172) + 172.
	if want := 2*128*256 + 256 + 2*256*256 + 256 + 2*256*172 + 172; params != want {
		t.Errorf("papers100M GraphSAGE: %d parameters; want %d", params, want)
	}
	tr := gradientTraffic(128, params, 10)
	if want := 10 * 2 * 127.0 / 128 * 4 * float64(params+3); math.Abs(tr.bytes-want) > 1e-6*want || tr.rounds != 10*254 {
		t.Errorf("gradient traffic %+v; want %g bytes in %d messages", tr, want, 10*254)
	}
	s := gradientPrediction(perlmutterLike, 2e-6)
	t.Log(s)
	if !strings.Contains(s, "285356 parameters") {
		t.Errorf("prediction: %s", s)
	}
}
