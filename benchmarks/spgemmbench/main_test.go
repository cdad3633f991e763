package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/benchmarks/graphblas"
	"github.com/bulksample/bulksample/spgemm"
)

func TestParseCases(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []benchCase
		wantErr string
	}{
		{in: "aa14", want: []benchCase{{"aa14", squareA, 14}}},
		{in: "aa14, qa20", want: []benchCase{{"aa14", squareA, 14}, {"qa20", selectQA, 20}}},
		{in: "ab14", wantErr: `case "ab14"`},
		{in: "aa", wantErr: `scale ""`},
		{in: "qa0", wantErr: `scale "0"`},
		{in: "qa27", wantErr: `scale "27"`},
		{in: "aa1x", wantErr: `scale "1x"`},
		{in: "aa8,aa8", wantErr: "given twice"},
		{in: "", wantErr: `case ""`},
	} {
		got, err := parseCases(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseCases(%q) error = %v; want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseCases(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestBadFlagsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"--threads", "0"}, "--threads"},
		{[]string{"--reps", "0"}, "--reps"},
		{[]string{"--warmup", "-1"}, "--warmup"},
		{[]string{"--mintime", "-1s"}, "--mintime"},
		{[]string{"--qrows", "0"}, "--qrows"},
		{[]string{"--cases", "qa8", "--qrows", "257"}, "--qrows 257 exceeds the 256 vertices of case qa8"},
		{[]string{"--cases", "zz"}, "--cases"},
		{[]string{"--nosuchflag"}, "nosuchflag"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d; want 2", tc.args, code)
		}
		if !strings.Contains(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("run(%q) stderr %q does not name %q with the usage", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 {
		t.Errorf("--help exit code %d; want 0", code)
	}
	if !strings.Contains(stderr.String(), "-cases") {
		t.Errorf("--help does not list the flags: %q", stderr.String())
	}
}

// TestRunSmall runs two small cases end to end: with the graphblas tag the
// libraries are compared and must agree; without it bulksample runs alone.
func TestRunSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "spgemm.md")
	args := []string{"--cases", "aa7,qa9", "--qrows", "64", "--reps", "3", "--mintime", "0", "--out", out, "--json", "--unsorted-peer"}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if table := strings.Join(lines[:len(lines)-1], "\n"); strings.TrimSpace(string(file)) != table {
		t.Errorf("--out file differs from the table on stdout:\nfile:\n%s\nstdout:\n%s", file, table)
	}
	var sum struct {
		Command   string
		GraphBLAS string
		Cases     []struct {
			Case, Product string
			N             int
			NNZA          int64 `json:"nnz_a"`
			LeftRows      int   `json:"left_rows"`
			Flops         int64
			NNZC          int64     `json:"nnz_c"`
			OursSeconds   []float64 `json:"ours_seconds"`
			PeerSeconds   []float64 `json:"graphblas_seconds"`
			Ratio         *float64
			Verified      bool
		}
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last stdout line is not JSON: %v\n%s", err, lines[len(lines)-1])
	}
	if len(sum.Cases) != 2 || sum.Cases[0].Case != "aa7" || sum.Cases[1].Case != "qa9" {
		t.Fatalf("JSON cases = %+v; want aa7 and qa9", sum.Cases)
	}
	for _, c := range sum.Cases {
		if len(c.OursSeconds) != 3 || c.NNZC <= 0 || c.Flops < c.NNZC {
			t.Errorf("case %s: %d timings, nnz(C) %d, flops %d", c.Case, len(c.OursSeconds), c.NNZC, c.Flops)
		}
		if graphblas.Built != (c.Ratio != nil) || graphblas.Built != c.Verified || graphblas.Built != (len(c.PeerSeconds) == 3) {
			t.Errorf("case %s: built with GraphBLAS %v, but ratio %v, verified %v, %d peer timings",
				c.Case, graphblas.Built, c.Ratio, c.Verified, len(c.PeerSeconds))
		}
	}
	if q := sum.Cases[1]; q.N != 512 || q.LeftRows != 64 || q.Flops != q.NNZC {
		t.Errorf("qa9: n %d, rows %d, flops %d, nnz(C) %d; want 512, 64 and flops = nnz(C) for a row selection", q.N, q.LeftRows, q.Flops, q.NNZC)
	}
	if !strings.Contains(sum.Command, "--cases aa7,qa9 --threads 2 --reps 3") {
		t.Errorf("command %q does not reproduce the run", sum.Command)
	}
	if got := strings.Contains(string(file), "GraphBLAS unsorted s"); got != graphblas.Built {
		t.Errorf("--unsorted-peer column shown: %v; want %v (GraphBLAS built)", got, graphblas.Built)
	}
	if !strings.Contains(string(file), "| aa7 | A·A | 128 |") {
		t.Errorf("table lacks the aa7 row:\n%s", file)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"--cases", "aa6", "--out", ""}, &stdout, &stderr); code != 1 {
		t.Errorf("cancelled run = %d; want 1", code)
	}
	if !strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("cancelled run stderr %q does not say why", stderr.String())
	}
}

func TestSelection(t *testing.T) {
	for _, tc := range []struct{ n, rows int }{{10, 1}, {10, 10}, {10, 6}, {1000, 37}} {
		q := selection(tc.n, tc.rows, 3)
		if err := q.Validate(); err != nil || q.Rows != tc.rows || q.Cols != tc.n || q.NNZ() != int64(tc.rows) {
			t.Fatalf("selection(%d, %d): %dx%d, nnz %d, %v", tc.n, tc.rows, q.Rows, q.Cols, q.NNZ(), err)
		}
		seen := map[int32]bool{}
		for i := 0; i < q.Rows; i++ {
			cols, vals := q.Row(i)
			if len(cols) != 1 || vals[0] != 1 || seen[cols[0]] {
				t.Fatalf("selection(%d, %d) row %d = %v %v: want one 1 at a new column", tc.n, tc.rows, i, cols, vals)
			}
			seen[cols[0]] = true
		}
		if again := selection(tc.n, tc.rows, 3); !reflect.DeepEqual(again, q) {
			t.Errorf("selection(%d, %d) is not a function of the seed", tc.n, tc.rows)
		}
	}
	if a, b := selection(1000, 50, 1), selection(1000, 50, 2); reflect.DeepEqual(a.Indices, b.Indices) {
		t.Errorf("seeds 1 and 2 select the same rows")
	}
}

func TestCompareCSR(t *testing.T) {
	ours := &spgemm.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 2, 3}, Indices: []int32{0, 2, 1}, Data: []float32{1, 2, 3}}
	for _, tc := range []struct {
		name    string
		indptr  []uint64
		indices []uint64
		data    []float32
		wantErr string
	}{
		{"equal", []uint64{0, 2, 3}, []uint64{0, 2, 1}, []float32{1, 2, 3}, ""},
		{"rounding", []uint64{0, 2, 3}, []uint64{0, 2, 1}, []float32{1, 2, 3.000001}, ""},
		{"rows", []uint64{0, 3}, []uint64{0, 2, 1}, []float32{1, 2, 3}, "1 rows"},
		{"row length", []uint64{0, 1, 3}, []uint64{0, 1, 2}, []float32{1, 2, 3}, "row 0"},
		{"column", []uint64{0, 2, 3}, []uint64{0, 1, 1}, []float32{1, 2, 3}, "column 1, bulksample 2"},
		{"value", []uint64{0, 2, 3}, []uint64{0, 2, 1}, []float32{1, 2, 4}, "GraphBLAS has 4, bulksample 3"},
	} {
		err := compareCSR(ours, tc.indptr, tc.indices, tc.data)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: compareCSR = %v; want %q", tc.name, err, tc.wantErr)
		}
	}
}
