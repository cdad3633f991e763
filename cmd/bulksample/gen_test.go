package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
)

func TestGenRMATIdenticalForAnyThreads(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for _, threads := range []string{"1", "2", "5"} {
		for _, ext := range []string{".bsn", ".npz"} {
			p := filepath.Join(dir, "r"+threads+ext)
			code, stdout, stderr := runCLI(t, "gen", "rmat", "--scale", "10", "--edge-factor", "8", "--seed", "3", "--threads", threads, "--out", p, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			m := lastJSON[map[string]any](t, stdout)
			if m["nodes"] != float64(1024) || m["generated_edges"] != float64(8192) {
				t.Errorf("summary %v", m)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
	}
	for i := 2; i < len(files); i++ {
		if !bytes.Equal(files[i], files[i%2]) {
			t.Errorf("output %d differs from the 1-thread output", i)
		}
	}
}

func TestGenSBM(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sbm.bsn")
	code, stdout, stderr := runCLI(t, "gen", "sbm", "--nodes", "3000", "--classes", "3", "--avg-degree", "8",
		"--homophily", "0.9", "--features", "4", "--seed", "2", "--out", p, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := lastJSON[map[string]any](t, stdout)
	if m["nodes"] != float64(3000) || m["classes"] != float64(3) || m["features"] != float64(4) {
		t.Errorf("summary %v", m)
	}
	if !strings.Contains(stderr, "generating") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	code, stdout, _ = runCLI(t, "info", p, "--json")
	if code != 0 {
		t.Fatal("info failed")
	}
	info := lastJSON[map[string]any](t, stdout)
	if info["train"] != float64(60) || info["valid"] != float64(500) || info["test"] != float64(1000) {
		t.Errorf("split %v/%v/%v, want the planetoid 60/500/1000", info["train"], info["valid"], info["test"])
	}
}

func TestGenUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.bsn")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"gen", "--out", out}, "want a generator"},
		{[]string{"gen", "kronecker", "--out", out}, `unknown generator "kronecker" (want rmat or sbm)`},
		{[]string{"gen", "rmat"}, "--out is required"},
		{[]string{"gen", "rmat", "--scale", "0", "--out", out}, "--scale 0"},
		{[]string{"gen", "rmat", "--edge-factor", "0", "--out", out}, "--edge-factor 0"},
		{[]string{"gen", "rmat", "--threads", "-1", "--out", out}, "--threads -1"},
		{[]string{"gen", "rmat", "--scale", "x", "--out", out}, "-scale"},
		{[]string{"gen", "rmat", "--bogus", "--out", out}, "bogus"},
		{[]string{"gen", "sbm", "--homophily", "1.5", "--out", out}, "--homophily 1.5"},
		{[]string{"gen", "sbm", "--classes", "1", "--out", out}, "--classes 1"},
		{[]string{"gen", "sbm", "--features", "0", "--out", out}, "--features 0"},
		{[]string{"gen", "sbm", "--nodes", "1", "--out", out}, "--nodes 1"},
		{[]string{"gen", "sbm", "--exponent", "2", "--out", out}, "--exponent 2"},
		{[]string{"gen", "sbm", "--avg-degree", "0", "--out", out}, "--avg-degree 0"},
		{[]string{"gen", "sbm", "--feature-noise", "0", "--out", out}, "--feature-noise 0"},
		{[]string{"gen", "rmat", "--out", out, "extra"}, `unexpected argument "extra"`},
		// The other generator's flags, which were silently ignored.
		{[]string{"gen", "rmat", "--nodes", "100", "--out", out}, "--nodes applies to gen sbm, not rmat"},
		{[]string{"gen", "sbm", "--scale", "8", "--out", out}, "--scale applies to gen rmat, not sbm"},
		{[]string{"gen", "planted", "--a", "0.5", "--out", out}, "--a applies to gen rmat, not planted"},
		// Infinite values, which passed the flag checks and failed later.
		{[]string{"gen", "sbm", "--avg-degree", "inf", "--out", out}, "--avg-degree +Inf"},
		{[]string{"gen", "sbm", "--exponent", "inf", "--out", out}, "--exponent +Inf"},
		{[]string{"gen", "sbm", "--feature-noise", "inf", "--out", out}, "--feature-noise +Inf"},
		// An output that cannot be written, found before generating.
		{[]string{"gen", "rmat", "--out", filepath.Dir(out)}, "is a folder"},
		{[]string{"gen", "rmat", "--out", filepath.Join(out, "none", "x.bsn")}, "does not exist"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args[0], tt.args[1:]...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, firstLine(stderr), tt.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a usage error wrote the output")
	}
	if code, _, _ := runCLI(t, "gen", "--help"); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
	// A bad value that only the generator catches is a run error naming it.
	code, _, stderr := runCLI(t, "gen", "rmat", "--a", "0.9", "--out", out)
	if code != 1 || !strings.Contains(stderr, "A+B+C") {
		t.Errorf("--a 0.9: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "gen", "sbm", "--split", "random:2,0,0", "--nodes", "100", "--out", out)
	if code != 1 || !strings.Contains(stderr, "random:2,0,0") {
		t.Errorf("--split random:2,0,0: exit %d, %q", code, stderr)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestGenMemoryCheck: sizes whose output alone exceeds the memory are
// refused before generating, naming the size flags; the rest pass.
func TestGenMemoryCheck(t *testing.T) {
	const gib = 1 << 30
	p := dataset.PlantedPartitionOptions{Nodes: 100_000, AvgDegree: 15, Features: 32}
	tests := []struct {
		name  string
		kind  string
		r     dataset.RMATOptions
		p     dataset.PlantedPartitionOptions
		total int64
		ranks int
		want  string // "" when it fits
	}{
		{"rmat 30 on 24 GiB", "rmat", dataset.RMATOptions{Scale: 30, EdgeFactor: 16}, p, 24 * gib, 0, "--scale 30 --edge-factor 16: the graph alone needs 256.0 GiB"},
		{"rmat 30 on 512 GiB", "rmat", dataset.RMATOptions{Scale: 30, EdgeFactor: 16}, p, 512 * gib, 0, ""},
		// Under mpirun each rank holds its block.
		{"rmat 30 on 16 ranks of 24 GiB", "rmat", dataset.RMATOptions{Scale: 30, EdgeFactor: 16}, p, 24 * gib, 16, ""},
		{"rmat 30 on 4 ranks of 24 GiB", "rmat", dataset.RMATOptions{Scale: 30, EdgeFactor: 16}, p, 24 * gib, 4, "--scale 30 --edge-factor 16 on 4 ranks: a rank's block: the graph alone needs 64.0 GiB"},
		{"rmat 22 on 24 GiB", "rmat", dataset.RMATOptions{Scale: 22, EdgeFactor: 16}, p, 24 * gib, 0, ""},
		{"memory unknown", "rmat", dataset.RMATOptions{Scale: 30, EdgeFactor: 16}, p, -1, 0, ""},
		{"sbm of 1e9 nodes", "sbm", dataset.RMATOptions{}, dataset.PlantedPartitionOptions{Nodes: 1e9, AvgDegree: 15, Features: 32}, 24 * gib, 0, "--nodes 1000000000 --avg-degree 15 --features 32"},
		{"default sbm", "sbm", dataset.RMATOptions{}, p, 24 * gib, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := genMemoryCheck(tt.kind, tt.r, tt.p, tt.total, max(tt.ranks, 1))
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("genMemoryCheck = %q; want %q", got, tt.want)
			}
		})
	}
}
