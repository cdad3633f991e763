package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/spgemm"
)

// writeMatrix saves m as a scipy CSR .npz in dir and returns its path.
func writeMatrix(t *testing.T, dir, name string, m *spgemm.CSR) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := dataset.Save(p, &dataset.Dataset{Adj: m}); err != nil {
		t.Fatal(err)
	}
	return p
}

// spgemmTestMatrix is a 5 x 5 matrix with an empty row and a full row.
func spgemmTestMatrix() *spgemm.CSR {
	return &spgemm.CSR{Rows: 5, Cols: 5,
		Indptr:  []int64{0, 2, 3, 3, 8, 9},
		Indices: []int32{1, 3, 0, 0, 1, 2, 3, 4, 2},
		Data:    []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}}
}

func TestSpGEMMCommand(t *testing.T) {
	dir := t.TempDir()
	m := spgemmTestMatrix()
	pa := writeMatrix(t, dir, "a.npz", m)
	want := spgemm.Mul(m, m, nil)

	code, stdout, stderr := runCLI(t, "spgemm", "--a", pa, "--reps", "2", "--threads", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "A·B: (5 x 5, nnz 9) · (5 x 5, nnz 9) = nnz ") {
		t.Errorf("human line missing: %q", stdout)
	}
	if !strings.Contains(stderr, "product 2/2") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	s := lastJSON[map[string]any](t, stdout)
	flops := spgemm.RowFlops(m, m, 1)[m.Rows]
	for k, v := range map[string]float64{"a_rows": 5, "a_nnz": 9, "b_nnz": 9, "nnz_out": float64(want.NNZ()),
		"flops": float64(flops), "products": 2, "threads": 2, "select_rows": 0} {
		if s[k] != v {
			t.Errorf("%s = %v; want %v", k, s[k], v)
		}
	}
	if s["method"] != "auto" || s["a"] != pa || s["b"] != pa {
		t.Errorf("method %v, a %v, b %v", s["method"], s["a"], s["b"])
	}
	// Two products: the first is cold, the headline is the second (the
	// median of one warm product), and the best is the faster of the two.
	if costs, _ := s["product_costs"].([]any); len(costs) != 2 || s["warm"] != true {
		t.Errorf("product_costs %v, warm %v: want 2 of them and true", s["product_costs"], s["warm"])
	}
	warm, cold, best := s["seconds"].(float64), s["cold_seconds"].(float64), s["seconds_best"].(float64)
	if warm <= 0 || cold <= 0 || best != min(warm, cold) {
		t.Errorf("seconds %v, cold_seconds %v, seconds_best %v", warm, cold, best)
	}
	if !strings.Contains(stdout, "warm: median of 1 products") || !strings.Contains(stdout, "cold (first product)") {
		t.Errorf("human output lacks the warm and cold figures: %q", stdout)
	}

	// A·B with another B and a forced accumulator.
	b := &spgemm.CSR{Rows: 5, Cols: 5, Indptr: []int64{0, 1, 1, 2, 2, 3}, Indices: []int32{4, 1, 0}, Data: []float32{1, 1, 1}}
	pb := writeMatrix(t, dir, "b.npz", b)
	code, stdout, stderr = runCLI(t, "spgemm", "--a", pa, "--b", pb, "--accumulator", "hash", "--reps", "1", "--json")
	if code != 0 {
		t.Fatalf("A·B: exit %d: %s", code, stderr)
	}
	s = lastJSON[map[string]any](t, stdout)
	if s["nnz_out"] != float64(spgemm.Mul(m, b, nil).NNZ()) || s["b_nnz"] != float64(3) || s["method"] != "hash" {
		t.Errorf("A·B summary %v", s)
	}
	// One product is cold, and the headline says so.
	if s["warm"] != false || s["seconds"] != s["cold_seconds"] || !strings.Contains(stdout, "cold (one product)") {
		t.Errorf("--reps 1: warm %v, seconds %v, cold_seconds %v; output %q", s["warm"], s["seconds"], s["cold_seconds"], stdout)
	}

	// Q·A: Q selects 3 distinct rows; a gather computes exactly one
	// multiply-add per output entry, and the seed decides the rows.
	nnzBySeed := map[string]float64{}
	for _, seed := range []string{"1", "2", "3", "1"} {
		code, stdout, stderr = runCLI(t, "spgemm", "--a", pa, "--select-rows", "3", "--seed", seed, "--json")
		if code != 0 {
			t.Fatalf("Q·A: exit %d: %s", code, stderr)
		}
		s = lastJSON[map[string]any](t, stdout)
		if s["a_rows"] != float64(3) || s["a_cols"] != float64(5) || s["method"] != "gather" || s["nnz_out"] != s["flops"] {
			t.Errorf("Q·A summary %v", s)
		}
		if prev, ok := nnzBySeed[seed]; ok && prev != s["nnz_out"] {
			t.Errorf("seed %s: nnz_out %v then %v", seed, prev, s["nnz_out"])
		}
		nnzBySeed[seed] = s["nnz_out"].(float64)
	}
	// All 5 rows: nnz_out is nnz(A) whatever the order.
	code, stdout, _ = runCLI(t, "spgemm", "--a", pa, "--select-rows", "5", "--json")
	if s = lastJSON[map[string]any](t, stdout); code != 0 || s["nnz_out"] != float64(9) {
		t.Errorf("select all rows: exit %d, nnz_out %v; want 9", code, s["nnz_out"])
	}
}

func TestSpGEMMCora(t *testing.T) {
	p := sharedDataset(t, "cora.npz")
	code, stdout, stderr := runCLI(t, "spgemm", "--a", p, "--reps", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := lastJSON[map[string]any](t, stdout)
	// Cora as stored: 2,708 papers, 5,429 directed citations.
	if s["a_rows"] != float64(2708) || s["a_nnz"] != float64(5429) {
		t.Errorf("a_rows %v, a_nnz %v; want 2708, 5429", s["a_rows"], s["a_nnz"])
	}
	if n, _ := s["nnz_out"].(float64); n <= 0 || n > s["flops"].(float64) {
		t.Errorf("nnz_out %v, flops %v", s["nnz_out"], s["flops"])
	}
}

func TestSpGEMMErrors(t *testing.T) {
	dir := t.TempDir()
	pa := writeMatrix(t, dir, "a.npz", spgemmTestMatrix())
	small := writeMatrix(t, dir, "s.npz", &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 1}, Indices: []int32{1}, Data: []float32{1}})
	garbage := filepath.Join(dir, "garbage.npz")
	if err := os.WriteFile(garbage, []byte("PK\x03\x04 not really a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string // in stderr (stdout for the help asked for)
	}{
		{[]string{"--help"}, 0, "--select-rows"},
		{[]string{}, 2, "--a is required"},
		{[]string{"--a", pa, "--reps", "0"}, 2, "--reps 0"},
		{[]string{"--a", pa, "--threads", "-1"}, 2, "--threads -1"},
		{[]string{"--a", pa, "--select-rows", "-2"}, 2, "--select-rows -2"},
		{[]string{"--a", pa, "--select-rows", "2", "--b", pa}, 2, "--select-rows and --b"},
		{[]string{"--a", pa, "--accumulator", "sparse"}, 2, `--accumulator "sparse"`},
		{[]string{"--a", pa, "--reps", "x"}, 2, "-reps"},
		{[]string{"--a", pa, "--frobnicate"}, 2, "frobnicate"},
		{[]string{"--a", pa, "extra"}, 2, `unexpected argument "extra"`},
		// A bad value known once A is read is a usage error too.
		{[]string{"--a", pa, "--select-rows", "6"}, 2, "--select-rows 6: want at most the 5 rows of --a " + pa + "\nRun 'bulksample spgemm --help' for usage."},
		{[]string{"--a", pa, "--b", small}, 1, "cannot multiply " + pa + " (5 x 5) by " + small + " (2 x 2): inner dimensions differ"},
		{[]string{"--a", filepath.Join(dir, "missing.npz")}, 1, "missing.npz"},
		{[]string{"--a", garbage}, 1, "garbage.npz"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCLI(t, "spgemm", tc.args...)
		if tc.code == 0 {
			stderr = stdout
		}
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("spgemm %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if strings.Contains(stderr, "internal error") {
			t.Errorf("spgemm %v panicked: %s", tc.args, stderr)
		}
	}
}
