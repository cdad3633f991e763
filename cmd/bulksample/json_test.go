package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// lastJSONMap decodes the --json summary (the last line of stdout) into a
// map, to check which keys are present.
func lastJSONMap(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatalf("last line of stdout is not a JSON object: %v\n%s", err, stdout)
	}
	return m
}

// TestJSONCommonFields: every command's --json summary carries the version,
// the threads used (not 0 for --threads 0) and the peak resident set.
func TestJSONCommonFields(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.bsn")
	npz := filepath.Join(dir, "g.npz")
	for _, tc := range []struct {
		threads int
		args    []string
	}{
		{runtime.GOMAXPROCS(0), []string{"gen", "rmat", "--scale", "7", "--out", g}},
		{1, []string{"convert", g, npz, "--threads", "1"}},
		{runtime.GOMAXPROCS(0), []string{"info", npz}},
		{runtime.GOMAXPROCS(0), []string{"spgemm", "--a", npz, "--reps", "1"}},
		{1, []string{"sample", "--graph", g, "--batch", "32", "--fanout", "3,2", "--threads", "1"}},
		{runtime.GOMAXPROCS(0), []string{"train", "--data", "synthetic:nodes=400,classes=2,split=random:0.3,0.2,0.5", "--model", "linear", "--epochs", "1"}},
	} {
		code, stdout, stderr := runCLI(t, tc.args[0], append(tc.args[1:], "--json")...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", tc.args, code, stderr)
		}
		m := lastJSONMap(t, stdout)
		if v, _ := m["version"].(string); v == "" || v != version() {
			t.Errorf("%s: version %v; want %q", tc.args[0], m["version"], version())
		}
		if th, _ := m["threads"].(float64); int(th) != tc.threads {
			t.Errorf("%s: threads %v; want %d", tc.args[0], m["threads"], tc.threads)
		}
		if rss, _ := m["peak_rss_bytes"].(float64); !(rss > 0) {
			t.Errorf("%s: peak_rss_bytes %v; want > 0", tc.args[0], m["peak_rss_bytes"])
		}
	}
}

// TestTrainJSONEpochs: train's summary lists every epoch with its loss,
// accuracies and per-phase seconds; the linear model's summary leaves out
// what it does not have (layers, fanouts, hidden width, sampled edges).
func TestTrainJSONEpochs(t *testing.T) {
	const data = "synthetic:nodes=600,classes=3,split=random:0.3,0.2,0.5"
	code, stdout, stderr := runCLI(t, "train", "--data", data, "--fanout", "3,3", "--hidden", "8", "--batch", "64", "--epochs", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	s := lastJSON[trainSummary](t, stdout)
	if len(s.Epochs) != 2 {
		t.Fatalf("epochs %+v; want 2 records", s.Epochs)
	}
	for i, r := range s.Epochs {
		if r.Epoch != i+1 || !(r.Loss > 0) || !(r.TrainAcc > 0) || !(r.ValAcc > 0) || !(r.TestAcc > 0) || r.Minibatches < 1 ||
			!(r.SampledEdges > 0) || !(r.SEPS > 0) || !(r.Seconds > 0) || !(r.Phases.Sample > 0) || !(r.Phases.Forward > 0) ||
			!(r.Phases.Backward > 0) || !(r.Phases.Update > 0) || !(r.Phases.Eval > 0) || r.Resumed {
			t.Errorf("epoch record %d: %+v; want every figure filled", i, r)
		}
	}
	if last := s.Epochs[1]; s.FinalLoss != last.Loss {
		t.Errorf("final_loss %g, last epoch's loss %g", s.FinalLoss, last.Loss)
	}

	code, stdout, stderr = runCLI(t, "train", "--data", data, "--model", "linear", "--epochs", "2", "--json")
	if code != 0 {
		t.Fatalf("linear: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "SEPS") {
		t.Errorf("linear model's progress lines give SEPS, which it does not have:\n%s", stdout)
	}
	m := lastJSONMap(t, stdout)
	for _, k := range []string{"layers", "fanouts", "hidden", "seps"} {
		if v, ok := m[k]; ok {
			t.Errorf("linear model's summary has %s = %v; want it left out", k, v)
		}
	}
	epochs, _ := m["epochs"].([]any)
	if len(epochs) != 2 {
		t.Fatalf("linear: epochs %v; want 2 records", m["epochs"])
	}
	for _, e := range epochs {
		r := e.(map[string]any)
		for _, k := range []string{"sampled_edges", "seps"} {
			if _, ok := r[k]; ok {
				t.Errorf("linear model's epoch record has %s; want it left out: %v", k, r)
			}
		}
		if _, ok := r["loss"]; !ok {
			t.Errorf("linear epoch record %v has no loss", r)
		}
	}
}
