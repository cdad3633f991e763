package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInfoCora(t *testing.T) {
	p := sharedDataset(t, "cora.npz")
	code, stdout, stderr := runCLI(t, "info", p, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := lastJSON[map[string]any](t, stdout)
	want := map[string]float64{"nodes": 2708, "edges": 10556, "features": 1433, "classes": 7, "train": 140, "valid": 500, "test": 1000,
		"degree_min": 1, "degree_max": 168}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if rss, _ := m["peak_rss_bytes"].(float64); rss <= 0 {
		t.Errorf("peak_rss_bytes = %v", m["peak_rss_bytes"])
	}
	// The flags reach the loader: stored (directed) edges and a stratified
	// split, half of each class: 175+108+209+409+213+149+90 = 1353.
	code, stdout, _ = runCLI(t, "info", "--symmetry", "stored", "--split", "random:0.5,0.25,0.25", "--split-seed", "4", p, "--json")
	if code != 0 {
		t.Fatal("info failed")
	}
	m = lastJSON[map[string]any](t, stdout)
	if m["edges"] != float64(5429) || m["train"] != float64(1353) {
		t.Errorf("stored/random split: edges %v, train %v", m["edges"], m["train"])
	}
}

func TestInfoDegreeStats(t *testing.T) {
	// Rows of lengths 0, 3, 1, 1: min 0, mean 1.25, median 1, max 3.
	lo, mean, med, hi, err := degreeStats([]int64{0, 0, 3, 4, 5}, 5)
	if lo != 0 || mean != 1.25 || med != 1 || hi != 3 || err != nil {
		t.Errorf("got %d %g %d %d %v", lo, mean, med, hi, err)
	}
	// Offsets a file read with --verify none may hold: they panicked
	// (makeslice) or exhausted memory sizing the histogram.
	for _, tc := range []struct {
		indptr []int64
		nnz    int64
		want   string
	}{
		{[]int64{0, 3, 2, 5}, 5, "decrease at row 1 (3 then 2)"},
		{[]int64{0, 1 << 60, 5}, 5, "decrease at row 1"},
		{[]int64{0, 2, 1 << 60}, 5, "run from 0 to 1152921504606846976"},
		{[]int64{-4, 2, 5}, 5, "run from -4"},
	} {
		if _, _, _, _, err := degreeStats(tc.indptr, tc.nnz); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("degreeStats(%v, %d): %v; want an error containing %q", tc.indptr, tc.nnz, err, tc.want)
		}
	}
}

func TestInfoErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0 1\n1 zwei\n"), 0o644)
	code, _, stderr := runCLI(t, "info", bad)
	if code != 1 || !strings.Contains(stderr, bad+": line 2") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "info", filepath.Join(dir, "missing.npz"))
	if code != 1 || !strings.Contains(stderr, "missing.npz") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"info"}, "want exactly one PATH"},
		{[]string{"info", "a", "b"}, "want exactly one PATH"},
		{[]string{"info", bad, "--symmetry", "sideways"}, "--symmetry"},
		{[]string{"info", bad, "--threads", "-2"}, "--threads -2"},
		// --no-verify silently overrode the checks asked for.
		{[]string{"info", bad, "--no-verify", "--verify", "checksums"}, "--no-verify and --verify checksums"},
	} {
		if code, _, stderr := runCLI(t, tc.args[0], tc.args[1:]...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, firstLine(stderr), tc.want)
		}
	}
	// --no-verify with --verify none agrees and is fine.
	if code, _, stderr := runCLI(t, "info", bad, "--no-verify", "--verify", "none"); code != 1 || strings.Contains(stderr, "give one") {
		t.Errorf("--no-verify --verify none: exit %d, %q; want the file's error", code, firstLine(stderr))
	}
}

// TestInfoVerifyLevels checks that --verify reaches the native loader: a
// corrupted edge value passes the default structure check and fails
// --verify checksums, naming the array.
func TestInfoVerifyLevels(t *testing.T) {
	dir := t.TempDir()
	el := filepath.Join(dir, "g.txt")
	os.WriteFile(el, []byte("0 1\n1 2\n2 0\n"), 0o644)
	p := filepath.Join(dir, "g.bsn")
	if code, _, stderr := runCLI(t, "convert", el, p); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1 // the high byte of the last edge value (data is the last array)
	os.WriteFile(p, b, 0o644)
	for _, tt := range []struct {
		args   []string
		code   int
		verify string
		stderr string
	}{
		{nil, 0, "structure", ""},
		{[]string{"--verify", "none"}, 0, "none", ""},
		{[]string{"--no-verify"}, 0, "none", ""},
		{[]string{"--verify", "checksums"}, 1, "", `g.bsn: array "data": dataset: bad input: checksum mismatch`},
		{[]string{"--verify", "everything"}, 2, "", `--verify "everything"`},
	} {
		code, stdout, stderr := runCLI(t, "info", append([]string{p, "--json"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
			continue
		}
		if code == 0 {
			if m := lastJSON[map[string]any](t, stdout); m["verify"] != tt.verify || m["edges"] != float64(3) {
				t.Errorf("%v: verify %v, edges %v", tt.args, m["verify"], m["edges"])
			}
		}
	}
}
