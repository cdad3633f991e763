package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyArgs is a run small enough for a unit test: 256 vertices, 64 seeds in
// minibatches of 8.
var tinyArgs = []string{"--scale", "8", "--edge-factor", "4", "--batch", "8", "--seeds", "64",
	"--fanout", "4,3", "--reps", "1", "--threads", "1,2", "--bulk", "1,4"}

// TestRunSmall runs the program on a tiny graph and checks the table file:
// one row per sampler, thread count and k, and one digest for all of them.
func TestRunSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sampling.md")
	var stdout, stderr bytes.Buffer
	args := append(append([]string(nil), tinyArgs...), "--out", out)
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(md, stdout.Bytes()) {
		t.Errorf("stdout differs from --out file")
	}
	for _, want := range []string{"## R-MAT scale 8", "| baseline | 1 | 1 |", "| bulk | 1 | 1 |", "| bulk | 1 | 4 |",
		"| baseline | 2 | 1 |", "| bulk | 2 | 1 |", "| bulk | 2 | 4 |", "All rows produced the same samples (digest ",
		"| minor faults | kernel s |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	var rows int
	for line := range strings.SplitSeq(string(md), "\n") {
		if strings.HasPrefix(line, "| baseline |") || strings.HasPrefix(line, "| bulk |") {
			rows++
			// Column 4 is the sampled edges.
			if f := strings.Split(line, "|"); len(f) < 5 || strings.TrimSpace(f[4]) == "0" {
				t.Errorf("row without sampled edges: %s", line)
			}
		}
	}
	if rows != 6 {
		t.Errorf("%d table rows, want 6:\n%s", rows, md)
	}
}

// TestRunInterleaved: with --interleave every row is timed --reps times, in
// rounds, and the table says so and gives no per-row peak RSS.
func TestRunInterleaved(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := append(append([]string(nil), tinyArgs...), "--out", "", "--interleave", "--reps", "2", "--baseline=false")
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	md := stdout.String()
	for _, want := range []string{"Interleaved (`--interleave`)", "| bulk | 1 | 1 |", "| bulk | 2 | 4 |", "All rows produced the same samples"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	// Rounds: rep 1 of every row of a thread count before any rep 2.
	log := stderr.String()
	if i, j := strings.Index(log, "threads=1 k=4   rep 1"), strings.Index(log, "threads=1 k=1   rep 2"); i < 0 || j < 0 || i > j {
		t.Errorf("repetitions not in rounds:\n%s", log)
	}
	for line := range strings.SplitSeq(md, "\n") {
		if f := strings.Split(line, "|"); strings.HasPrefix(line, "| bulk |") && (len(f) < 10 || strings.TrimSpace(f[9]) != "-") {
			t.Errorf("an interleaved row gives a peak RSS: %s", line)
		}
	}
}

// TestDigestsAgree checks directly that every configuration (baseline and
// bulk, every k and thread count) samples the same minibatches.
func TestDigestsAgree(t *testing.T) {
	c, err := parseArgs(tinyArgs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, _, err := bench(context.Background(), c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	for _, r := range rows {
		if r.digest != rows[0].digest || r.edges != rows[0].edges || r.edges <= 0 {
			t.Errorf("%s threads=%d k=%d: %d edges, digest %.16s; first row %d edges, digest %.16s",
				r.sampler, r.threads, r.k, r.edges, r.digest, rows[0].edges, rows[0].digest)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string // must appear in stderr
	}{
		{[]string{"--threads", "1,x"}, "--threads"},
		{[]string{"--threads", "0"}, "--threads"},
		{[]string{"--bulk", "0"}, "--bulk"},
		{[]string{"--fanout", "4,0"}, "--fanout"},
		{[]string{"--fanout", "4,-2"}, "--fanout"},
		{[]string{"--scale", "0"}, "--scale"},
		{[]string{"--scale", "31"}, "--scale"},
		{[]string{"--scale", "x"}, "-scale"}, // the flag package's own message
		{[]string{"--edge-factor", "0"}, "--edge-factor"},
		{[]string{"--batch", "0"}, "--batch"},
		{[]string{"--seeds", "0"}, "--seeds"},
		{[]string{"--reps", "0"}, "--reps"},
		{[]string{"--interleave", "--cli", "bin/bulksample"}, "--interleave"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"extra"}, "extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(stderr.String(), c.flag) || !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%v: stderr does not name %s with the usage:\n%s", c.args, c.flag, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 {
		t.Errorf("--help: exit %d, want 0", code)
	}
	if !strings.Contains(stderr.String(), "-bulk") {
		t.Errorf("--help does not list the flags:\n%s", stderr.String())
	}
}

// TestSweepThroughCLI runs the sweep against a stand-in for the CLI, a
// script that logs each run's threads and k and prints a JSON summary
// whose SEPS grow with k, and checks the order of the runs (rounds, each a
// permutation of the configurations), the table (one row per thread count
// and k, medians, the ratios, the command printed beside it), and that a
// run whose last line is not JSON fails naming the command.
func TestSweepThroughCLI(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "fakecli")
	log := filepath.Join(dir, "runs.log")
	script := `#!/bin/sh
k=1; t=1
while [ $# -gt 0 ]; do
  case $1 in --bulk) k=$2;; --threads) t=$2;; esac
  shift
done
echo "$t $k" >>` + log + `
echo "sampling..."
echo "{\"sampled_edges\": 1000, \"seps\": $((k * 1000000 * t)), \"cold_seps\": 500000, \"warm\": true, \"peak_rss_bytes\": $((k * 1048576)), \"pass_costs\": [{\"cpu_seconds\": 9}, {\"cpu_seconds\": 0.001}, {\"cpu_seconds\": 0.002}, {\"cpu_seconds\": 0.004}]}"
`
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	graph := filepath.Join(dir, "g.bsn")
	out := filepath.Join(dir, "sweep.md")
	args := []string{"--cli", cli, "--graph", graph, "--threads", "1,2", "--bulk", "1,4", "--reps", "3", "--seeds", "0", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	runs, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
	if len(lines) != 3*4 {
		t.Fatalf("%d runs, want 3 rounds of 4:\n%s", len(lines), runs)
	}
	for r := range 3 {
		round := slices.Sorted(slices.Values(lines[4*r : 4*r+4]))
		if want := []string{"1 1", "1 4", "2 1", "2 4"}; !slices.Equal(round, want) {
			t.Errorf("round %d ran %q, want each configuration once", r+1, lines[4*r:4*r+4])
		}
	}
	md := stdout.String()
	for _, want := range []string{
		"| 1 | 1 | 1000 | 1.00 | 1.00-1.00 | 0.25 (0.25-0.25) | 1.00 (1.00-1.00) | 0.25 (0.25-0.25) | 0.50 | 0.50 | 1 |",
		"| 1 | 4* | 1000 | 4.00 | 4.00-4.00 | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 0.50 | 0.50 | 4 |",
		"| 2 | 4* | 1000 | 8.00 | 8.00-8.00 | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 0.50 | 0.50 | 4 |",
		"bulksample sample --graph g.bsn --batch 1024 --fanout 15,10,5 --seeds 0 --bulk K --threads T",
		"--threads 1,2 --bulk 1,4 --reps 3 --cli-passes 3`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("sweep table lacks %q:\n%s", want, md)
		}
	}
	if err := os.WriteFile(cli, []byte("#!/bin/sh\necho no json\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run(context.Background(), args, io.Discard, &stderr); code == 0 ||
		!strings.Contains(stderr.String(), cli+" sample --graph") || !strings.Contains(stderr.String(), "not the JSON summary") {
		t.Errorf("a CLI without JSON: exit %d, stderr %q", code, stderr.String())
	}
}

// TestSweepOrder checks the rounds' orders: each a permutation, the same
// for the same seed, and not the same order in every round.
func TestSweepOrder(t *testing.T) {
	const n, rounds = 12, 3
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	var orders [][]int
	for r := range rounds {
		o := sweepOrder(n, r, 1)
		if got := slices.Sorted(slices.Values(o)); !slices.Equal(got, identity) {
			t.Fatalf("round %d order %v is not a permutation of 0..%d", r, o, n-1)
		}
		if again := sweepOrder(n, r, 1); !slices.Equal(again, o) {
			t.Errorf("round %d: orders %v and %v for the same seed", r, o, again)
		}
		orders = append(orders, o)
	}
	if slices.Equal(orders[0], orders[1]) && slices.Equal(orders[1], orders[2]) {
		t.Errorf("every round runs in the order %v", orders[0])
	}
	if slices.Equal(sweepOrder(n, 0, 1), sweepOrder(n, 0, 2)) {
		t.Errorf("seeds 1 and 2 give the same order %v", sweepOrder(n, 0, 1))
	}
}

// TestRoundRatios checks that the ratios are taken within rounds (a round
// in which the whole machine runs at half speed leaves them unchanged) and
// against one best row per thread count, not each round's fastest: k = 1024
// wins round 3 at 1 thread, yet k = 16 is the reference of all three.
func TestRoundRatios(t *testing.T) {
	rows := []*sweepRow{
		{threads: 1, k: 16, warm: []float64{10, 5, 10}},
		{threads: 1, k: 1024, warm: []float64{9, 4.5, 11}},
		{threads: 2, k: 16, warm: []float64{18, 9, 16}},
		{threads: 2, k: 1024, warm: []float64{16, 8, 17}},
		{threads: 2, k: 64, warm: []float64{15, 7.5, 15}}, // no 1-thread row at k = 64
	}
	q := roundRatios(rows)
	if q.best[1] != 0 || q.best[2] != 2 || len(q.best) != 2 {
		t.Errorf("best rows %v, want 1 thread: 0 (k = 16), 2 threads: 2 (k = 16)", q.best)
	}
	for _, tc := range []struct {
		name string
		got  []float64
		want []float64
	}{
		{"vs best, 1 thread k=16", q.vsBest[0], []float64{1, 1, 1}},
		{"vs best, 1 thread k=1024", q.vsBest[1], []float64{0.9, 0.9, 1.1}},
		{"vs best, 2 threads k=16", q.vsBest[2], []float64{1, 1, 1}},
		{"vs best, 2 threads k=1024", q.vsBest[3], []float64{16.0 / 18, 8.0 / 9, 17.0 / 16}},
		{"efficiency, 2 threads k=16", q.eff[2], []float64{0.9, 0.9, 0.8}},
		{"efficiency, 2 threads k=1024", q.eff[3], []float64{16.0 / 18, 8.0 / 9, 17.0 / 22}},
		{"vs 1-thread best, 2 threads k=1024", q.effBest[3], []float64{0.8, 0.8, 0.85}},
		{"efficiency without a 1-thread row", q.eff[4], nil},
		{"vs 1-thread best, 2 threads k=64", q.effBest[4], []float64{0.75, 0.75, 0.75}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
			continue
		}
		for i := range tc.got {
			if math.Abs(tc.got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
				break
			}
		}
	}
	if got, want := ratioCell([]float64{0.9, 0.95, 0.8}), "0.90 (0.80-0.95)"; got != want {
		t.Errorf("ratioCell = %q, want %q", got, want)
	}
	if got := ratioCell(nil); got != "-" {
		t.Errorf("ratioCell(nil) = %q, want -", got)
	}
}
