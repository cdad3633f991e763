package main

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

// sampleTestGraph writes a small symmetric graph (a ring with chords) to
// a temporary scipy .npz file and returns its path.
func sampleTestGraph(t *testing.T) string {
	t.Helper()
	const n = 400
	var src, dst []int32
	for v := range int32(n) {
		for _, d := range []int32{1, 7, 31} {
			src, dst = append(src, v), append(dst, (v+d)%n)
		}
	}
	a, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ring.npz")
	if err := dataset.Save(path, &dataset.Dataset{Adj: a}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSampleDigestInvariant(t *testing.T) {
	g := sampleTestGraph(t)
	var want string
	for _, args := range [][]string{
		{"--bulk", "1", "--threads", "1"},
		{"--bulk", "3", "--threads", "2"},
		{"--bulk", "64", "--threads", "8", "--max-bulk-edges", "100"},
		{"--bulk", "2", "--baseline"},
	} {
		args = append([]string{"--graph", g, "--batch", "16", "--fanout", "4,3", "--seed", "5", "--digest", "--json"}, args...)
		code, stdout, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		m := lastJSON[map[string]any](t, stdout)
		for _, key := range []string{"sampled_edges", "minibatches", "seconds", "seps", "digest"} {
			if _, ok := m[key]; !ok {
				t.Errorf("%v: JSON lacks %q: %v", args, key, m)
			}
		}
		if m["minibatches"].(float64) != 25 || m["seeds"].(float64) != 400 || m["sampled_edges"].(float64) <= 0 {
			t.Errorf("%v: summary %v", args, m)
		}
		d := m["digest"].(string)
		if want == "" {
			want = d
		} else if d != want {
			t.Errorf("%v: digest %s, want %s", args, d, want)
		}
	}
	// Another frontier mode, seed or law samples differently.
	for _, extra := range [][]string{{"--frontier", "new"}, {"--seed", "6"}, {"--replace"}} {
		args := append([]string{"--graph", g, "--batch", "16", "--fanout", "4,3", "--seed", "5", "--digest", "--json"}, extra...)
		code, stdout, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		if lastJSON[map[string]any](t, stdout)["digest"] == want {
			t.Errorf("%v: same digest as the default", extra)
		}
	}
	code, stdout, _ := runCLI(t, "sample", "--graph", g, "--batch", "16", "--seeds", "40", "--json")
	if m := lastJSON[map[string]any](t, stdout); code != 0 || m["seeds"].(float64) != 40 || m["minibatches"].(float64) != 3 {
		t.Errorf("--seeds 40: exit %d, %v", code, m)
	}
}

func TestSampleFlagErrors(t *testing.T) {
	g := sampleTestGraph(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "-fanout string"},
		{[]string{}, 2, "--graph is required"},
		{[]string{"--graph", g, "--fanout", "5,0"}, 2, "--fanout"},
		{[]string{"--graph", g, "--fanout", "5,x"}, 2, "--fanout"},
		{[]string{"--graph", g, "--batch", "0"}, 2, "--batch"},
		{[]string{"--graph", g, "--bulk", "-1"}, 2, "--bulk"},
		{[]string{"--graph", g, "--frontier", "some"}, 2, "--frontier"},
		{[]string{"--graph", g, "--seeds", "-3"}, 2, "--seeds"},
		{[]string{"--graph", g, "--threads", "-1"}, 2, "--threads"},
		{[]string{"--graph", g, "--nosuchflag"}, 2, "nosuchflag"},
		{[]string{"--graph", g, "--reps", "0"}, 2, "--reps 0"},
		{[]string{"--graph", g, "--reps", "2", "--inproc-ranks", "2"}, 2, "--reps 2"},
		{[]string{"--graph", g, "--seeds", "401"}, 1, "--seeds 401"},
		{[]string{"--graph", filepath.Join(t.TempDir(), "missing.npz")}, 1, "missing.npz"},
	} {
		code, stdout, stderr := runCLI(t, "sample", tc.args...)
		if tc.code == 0 {
			stderr = stdout // help asked for goes to stdout
		}
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d (want %d), stderr lacks %q:\n%s", tc.args, code, tc.code, tc.want, stderr)
		}
	}
}

// TestSampleReps: --reps N samples the seeds N times; the first pass is
// reported as the cold one, the headline is the median of the others, and
// every pass samples the same edges (the digest is the first pass's).
func TestSampleReps(t *testing.T) {
	g := sampleTestGraph(t)
	args := []string{"--graph", g, "--batch", "16", "--fanout", "4,3", "--bulk", "4", "--digest", "--json"}
	code, stdout, stderr := runCLI(t, "sample", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	one := lastJSON[sampleSummary](t, stdout)
	if one.Reps != 1 || one.Warm || one.Seconds != one.ColdSeconds || one.SEPS != one.ColdSEPS || len(one.PassSeconds) != 1 ||
		!strings.Contains(stdout, "cold (one pass)") {
		t.Errorf("--reps 1: reps %d, warm %v, seconds %v (cold %v), SEPS %v (cold %v), passes %v; output %q",
			one.Reps, one.Warm, one.Seconds, one.ColdSeconds, one.SEPS, one.ColdSEPS, one.PassSeconds, stdout)
	}
	code, stdout, stderr = runCLI(t, "sample", append(args, "--reps", "4")...)
	if code != 0 {
		t.Fatalf("--reps 4: exit %d: %s", code, stderr)
	}
	s := lastJSON[sampleSummary](t, stdout)
	if s.Reps != 4 || !s.Warm || len(s.PassSeconds) != 4 || len(s.PassCosts) != 4 {
		t.Fatalf("--reps 4: reps %d, warm %v, %d pass times, %d pass costs", s.Reps, s.Warm, len(s.PassSeconds), len(s.PassCosts))
	}
	if s.SampledEdges != one.SampledEdges || s.Digest != one.Digest {
		t.Errorf("--reps 4: %d edges, digest %s; one pass: %d, %s", s.SampledEdges, s.Digest, one.SampledEdges, one.Digest)
	}
	if want := stats.Median(s.PassSeconds[1:]); s.Seconds != want || s.ColdSeconds != s.PassSeconds[0] ||
		s.SEPS != float64(s.SampledEdges)/want || s.ColdSEPS != float64(s.SampledEdges)/s.PassSeconds[0] {
		t.Errorf("--reps 4: seconds %v (want the warm median %v), cold %v, SEPS %v, cold SEPS %v; passes %v",
			s.Seconds, want, s.ColdSeconds, s.SEPS, s.ColdSEPS, s.PassSeconds)
	}
	if !strings.Contains(stdout, "warm: median of 3 passes") || !strings.Contains(stdout, "cold (first pass)") {
		t.Errorf("--reps 4: the human output lacks the warm and cold figures: %q", stdout)
	}
}

// TestSampleCoraTrainSplit: with a dataset that has a split, the seeds are
// its training vertices.
func TestSampleCoraTrainSplit(t *testing.T) {
	path := sharedDataset(t, "cora.npz")
	d, err := dataset.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "sample", "--graph", path, "--batch", "32", "--fanout", "10,5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := lastJSON[map[string]any](t, stdout)
	if int(m["seeds"].(float64)) != len(d.Train) || len(d.Train) == 0 || int(m["vertices"].(float64)) != d.NumNodes() {
		t.Errorf("summary %v; Cora has %d training vertices of %d", m, len(d.Train), d.NumNodes())
	}
}

// TestSampleFlagsMapToOptions: every flag sets its one option field.
func TestSampleFlagsMapToOptions(t *testing.T) {
	var errb bytes.Buffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &errb}
	c, err := parseSampleFlags(e, []string{"--graph", "g.npz", "--batch", "7", "--fanout", "4,-1", "--bulk", "3",
		"--seeds", "9", "--threads", "2", "--seed", "12", "--epoch", "4", "--frontier", "new", "--weighted",
		"--replace", "--baseline", "--digest", "--max-bulk-edges", "99", "--method", "node", "--reps", "5", "--json"})
	if err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	want := sampleConfig{
		graph: "g.npz",
		plan:  sampling.PlanOptions{BatchSize: 7, BulkSize: 3, Seed: 12},
		sampler: sampling.SamplerOptions{Method: "node", Fanouts: []int{4, -1}, Replace: true, Weighted: true, Frontier: sampling.FrontierNew,
			Seed: 12, Threads: 2, MaxBulkEdges: 99},
		seeds: 9, epoch: 4, reps: 5, baseline: true, digest: true, json: true,
		dist:   train.DistOptions{Replication: 1}, // defaults (TestSampleDistFlagsMapToOptions)
		device: deviceFlag{name: "cpu"},           // the default (TestDeviceFlag)
	}
	if c.ranks.stall != defaultStallTimeout {
		t.Errorf("--stall-timeout default %v; want %v", c.ranks.stall, defaultStallTimeout)
	}
	c.ranks = distFlags{} // the flags as given, which check read
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("config %+v\nwant %+v", *c, want)
	}
	d, err := parseSampleFlags(e, []string{"--graph", "g.npz"})
	if err != nil {
		t.Fatal(err)
	}
	if d.plan.BatchSize != 1024 || d.plan.BulkSize != 16 || !reflect.DeepEqual(d.sampler.Fanouts, []int{15, 10, 5}) ||
		d.sampler.Frontier != sampling.FrontierAll || d.sampler.Weighted || d.sampler.Replace || d.baseline || d.digest || d.json ||
		d.sampler.Method != "node" || d.reps != 1 {
		t.Errorf("defaults %+v", *d)
	}
}

// The layer-wise methods give the same digest for any --bulk, --semibulk and
// --threads, and a different one from each other.
func TestSampleLayerWiseDigestInvariant(t *testing.T) {
	g := sampleTestGraph(t)
	digests := map[string]string{}
	for _, method := range []string{"ladies", "fastgcn"} {
		for _, args := range [][]string{
			{"--bulk", "1", "--threads", "1", "--semibulk", "1"},
			{"--bulk", "3", "--threads", "2", "--semibulk", "2"},
			{"--bulk", "25", "--threads", "8"},
		} {
			args = append([]string{"--graph", g, "--method", method, "--batch", "16", "--fanout", "20,10", "--seed", "5", "--digest", "--json"}, args...)
			code, stdout, stderr := runCLI(t, "sample", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			m := lastJSON[map[string]any](t, stdout)
			for _, key := range []string{"sampled_edges", "minibatches", "seconds", "seps", "digest"} {
				if _, ok := m[key]; !ok {
					t.Errorf("%v: JSON lacks %q: %v", args, key, m)
				}
			}
			if m["sampler"] != method || m["minibatches"].(float64) != 25 || m["sampled_edges"].(float64) <= 0 {
				t.Errorf("%v: summary %v", args, m)
			}
			d := m["digest"].(string)
			if want, ok := digests[method]; ok && d != want {
				t.Errorf("%v: digest %s, want %s", args, d, want)
			}
			digests[method] = d
		}
	}
	if digests["ladies"] == digests["fastgcn"] {
		t.Errorf("LADIES and FastGCN gave the same digest %s", digests["ladies"])
	}
}

func TestSampleLayerWiseFlagErrors(t *testing.T) {
	g := sampleTestGraph(t)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--method", "walk"}, "--method"},
		{[]string{"--method", "ladies", "--fanout", "-1,5"}, "--fanout"},
		{[]string{"--method", "ladies", "--baseline"}, "--baseline"},
		{[]string{"--method", "fastgcn", "--semibulk", "-2"}, "--semibulk"},
		{[]string{"--method", "node", "--semibulk", "4"}, "--semibulk"},
		{[]string{"--method", "ladies", "--frontier", "new"}, "--frontier"},
		{[]string{"--method", "fastgcn", "--max-bulk-edges", "100"}, "--max-bulk-edges"},
		{[]string{"--method", "ladies", "--weighted"}, "--weighted"},
	} {
		code, _, stderr := runCLI(t, "sample", append([]string{"--graph", g}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.flag) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", tc.args, code, firstLine(stderr), tc.flag)
		}
	}
}

// TestLayerWiseDefaultBudgets: sample --method ladies|fastgcn and train
// --sampler ladies|fastgcn without --fanout draw the layer-wise default,
// sampling.DefaultBudgets (512 columns on 2 layers), not the node-wise
// fanouts as column budgets (15,10,5 drew 482 edges on R-MAT 20, "0.00M
// SEPS", without a word); a --fanout given is kept, and train's --layers
// repeats the default budget.
func TestLayerWiseDefaultBudgets(t *testing.T) {
	g := sampleTestGraph(t)
	for _, tc := range []struct {
		args []string
		want []int
	}{
		{[]string{"--method", "ladies"}, sampling.DefaultBudgets()},
		{[]string{"--method", "fastgcn"}, sampling.DefaultBudgets()},
		{[]string{"--method", "ladies", "--fanout", "20,10"}, []int{20, 10}},
		{[]string{"--method", "node"}, []int{15, 10, 5}},
	} {
		code, stdout, stderr := runCLI(t, "sample", append([]string{"--graph", g, "--batch", "16", "--seeds", "32", "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		if s := lastJSON[sampleSummary](t, stdout); !reflect.DeepEqual(s.Fanouts, tc.want) {
			t.Errorf("sample %v: fanouts %v; want %v", tc.args, s.Fanouts, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want []int
	}{
		{[]string{"--sampler", "ladies"}, sampling.DefaultBudgets()},
		{[]string{"--sampler", "fastgcn", "--layers", "3"}, []int{512, 512, 512}},
		{[]string{"--sampler", "ladies", "--fanout", "64"}, []int{64}},
		{nil, []int{25, 10}},
	} {
		var buf bytes.Buffer
		c, err := parseTrainFlags(&env{stdout: &buf, stderr: &buf}, append([]string{"--data", "x.npz"}, tc.args...))
		if err != nil || !reflect.DeepEqual(c.opt.Sampler.Fanouts, tc.want) {
			t.Errorf("train %v: fanouts %v, err %v; want %v\n%s", tc.args, c.opt.Sampler.Fanouts, err, tc.want, buf.String())
		}
	}
}
