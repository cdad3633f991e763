package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTrainMetricCLI runs train on a two-class graph: the metric is ROC AUC
// by default, named in the header, given on every evaluated epoch's line
// and in the JSON (best_valid, best_test, each epoch's measures); with
// --eval-every 2 the odd epochs are not evaluated (their line says "-");
// --predict-out writes a probability per class and vertex; --metric
// accuracy ranks by accuracy; -v alone adds the phases and costs.
func TestTrainMetricCLI(t *testing.T) {
	data := "synthetic:nodes=2000,classes=2,split=random:0.3,0.2,0.5"
	out := filepath.Join(t.TempDir(), "p.csv")
	code, stdout, stderr := runCLI(t, "train", "--data", data, "--fanout", "4,4", "--hidden", "16", "--batch", "128", "--epochs", "4",
		"--eval-every", "2", "--predict-out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "metric auc") || strings.Contains(stderr, "page faults") {
		t.Errorf("header without the metric, or costs without -v:\n%s", stderr)
	}
	even := regexp.MustCompile(`(?m)^epoch [24]/4: loss [0-9.]+, auc train 0\.\d{4}, valid 0\.\d{4}, test 0\.\d{4}, [0-9.]+ s, [0-9.]+[kMG]? SEPS$`)
	odd := regexp.MustCompile(`(?m)^epoch [13]/4: loss [0-9.]+, auc train -, valid -, test -, [0-9.]+ s, [0-9.]+[kMG]? SEPS$`)
	if len(even.FindAllString(stdout, -1)) != 2 || len(odd.FindAllString(stdout, -1)) != 2 ||
		!regexp.MustCompile(`(?m)^best epoch [24]: valid ROC AUC 0\.\d{4}, test ROC AUC 0\.\d{4} \(test accuracy 0\.\d{4}\); median epoch `).MatchString(stdout) {
		t.Errorf("epoch and result lines:\n%s", stdout)
	}
	s := lastJSON[trainSummary](t, stdout)
	if s.Metric != "auc" || s.BestTest == nil || s.BestTest.AUC == nil || !(*s.BestTest.AUC > 0.5) || s.BestValid == nil || s.EvalEvery != 2 {
		t.Fatalf("summary metric %q, best test %+v, eval every %d; want auc above 0.5 and 2", s.Metric, s.BestTest, s.EvalEvery)
	}
	for _, e := range s.Epochs {
		if e.Evaluated != (e.Epoch%2 == 0) || e.Evaluated && (e.Test == nil || e.Test.AUC == nil || e.Train == nil) {
			t.Errorf("epoch %d: evaluated %v, test %+v", e.Epoch, e.Evaluated, e.Test)
		}
	}
	csv, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 2001 || lines[0] != "node,p_0,p_1" || !strings.HasPrefix(lines[1], "0,") {
		t.Errorf("--predict-out: %d lines, the first %q", len(lines), lines[0])
	}
	if !strings.Contains(stderr, "wrote the class probabilities of 2000 vertices under the best epoch's weights to "+out) {
		t.Errorf("--predict-out not reported:\n%s", stderr)
	}
	code, stdout, stderr = runCLI(t, "train", "--data", data, "--fanout", "4,4", "--hidden", "16", "--batch", "128", "--epochs", "2",
		"--metric", "accuracy", "-v", "--json")
	if code != 0 {
		t.Fatalf("--metric accuracy: exit %d\n%s", code, stderr)
	}
	if s := lastJSON[trainSummary](t, stdout); s.Metric != "accuracy" || !strings.Contains(stdout, "accuracy train ") ||
		!strings.Contains(stdout, " | sample ") || !strings.Contains(stdout, "median phases: ") && !strings.Contains(stderr, "median phases: ") {
		t.Errorf("--metric accuracy -v: metric %q\n%s\n%s", s.Metric, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metric", "f2"}, "--metric \"f2\": want auto, accuracy, auc or macro-f1"},
		{[]string{"--eval-every", "0"}, "--eval-every 0: want >= 1"},
		{[]string{"--patience", "-1"}, "--patience -1"},
		{[]string{"--norm", "batch"}, "--norm \"batch\": want none or layer"},
		{[]string{"--predict-out", "p.txt"}, "--predict-out \"p.txt\": want a .npy or .csv file"},
		{[]string{"--residual", "--model", "linear"}, "--residual"},
		{[]string{"--residual", "--device", "cuda"}, "--device cuda: --residual and --norm layer run on the CPU only"},
	} {
		code, _, stderr := runCLI(t, "train", append([]string{"--data", data}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d; want 2 and %q\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestTrainResidualCLI trains the residual architecture (--residual --norm
// layer) from the command line and checks that it learns and says so in
// the header and the JSON.
func TestTrainResidualCLI(t *testing.T) {
	code, stdout, stderr := runCLI(t, "train", "--data", smallSynthetic, "--residual", "--norm", "layer", "--fanout", "4,4",
		"--hidden", "16", "--batch", "64", "--epochs", "5", "--lr", "0.01", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	s := lastJSON[trainSummary](t, stdout)
	if !strings.Contains(stderr, "training sage (residual, layer norm)") || !s.Residual || s.Norm != "layer" || s.TestAcc < 0.5 {
		t.Errorf("header %q; JSON residual %v, norm %q, test accuracy %.3f; want the residual model above 0.5 (4 classes)", stderr, s.Residual, s.Norm, s.TestAcc)
	}
}
