package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
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
		{[]string{"--pin"}, "--pin"},
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
// permutation of the configurations with each thread count's together),
// the table (one row per thread count and k, medians, the ratios with
// their intervals, the verdict, the command printed beside it), and that a
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
		// The rows of a thread count run one after the other, and the
		// thread count that goes first turns with the round.
		th := func(i int) string { return strings.Fields(lines[4*r+i])[0] }
		if th(0) != th(1) || th(2) != th(3) || th(0) != []string{"1", "2"}[r%2] {
			t.Errorf("round %d ran %q, want the rows of thread count %d first, each thread count's together", r+1, lines[4*r:4*r+4], r%2+1)
		}
	}
	md := stdout.String()
	for _, want := range []string{
		"| 1 | 1 | 1000 | 1.00 | 1.00-1.00 | 0.250 [0.250, 0.250] | 1.000 [1.000, 1.000] | 0.250 [0.250, 0.250] | 0.50 | 0.50 | 1 |",
		"| 1 | 4* | 1000 | 4.00 | 4.00-4.00 | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | 0.50 | 0.50 | 4 |",
		"| 2 | 4* | 1000 | 8.00 | 8.00-8.00 | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | 0.50 | 0.50 | 4 |",
		"| threads | k | sampled edges | SEPS (M) | min-max (M) | vs best k [95% CI] |",
		"Verdict on issue 14's goal, SEPS at the largest k within 5% of the best k, read as: ",
		": T = 1: k = 4 at 4.000 [4.000, 4.000] (coverage 0.750) of k = 1, its lowest ratio; met; T = 2: k = 4 at 4.000 [4.000, 4.000] (coverage 0.750) of k = 1, its lowest ratio; met.",
		" The same by sampled edges per CPU second, at 1 thread: T = 1: k = 4 at 1.000 [1.000, 1.000] (coverage 0.750) of k = 1, its lowest ratio; met.",
		"bulksample sample --graph g.bsn --batch 1024 --fanout 15,10,5 --seeds 0 --bulk K --threads T",
		"--edge-factor 16 --seed 1 --batch 1024 --fanout 15,10,5 --seeds 0 --threads 1,2 --bulk 1,4 --reps 3 --cli-passes 3`",
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

// TestSweepPinned runs the sweep with --pin against a stand-in for the CLI
// that logs the CPUs it may use, read from its own /proc status: a run of T
// threads must have exactly T. A sweep of more threads than the machine has
// CPUs fails before it runs anything, naming --pin.
func TestSweepPinned(t *testing.T) {
	threads := []int{1, 2}
	if runtime.NumCPU() < 2 {
		threads = []int{1}
	}
	dir := t.TempDir()
	cli := filepath.Join(dir, "fakecli")
	log := filepath.Join(dir, "runs.log")
	script := `#!/bin/sh
t=1
while [ $# -gt 0 ]; do
  case $1 in --threads) t=$2;; esac
  shift
done
echo "$t $(grep Cpus_allowed_list /proc/$$/status | cut -f2)" >>` + log + `
echo "{\"sampled_edges\": 1000, \"seps\": 1000000, \"cold_seps\": 500000, \"warm\": true, \"peak_rss_bytes\": 1048576}"
`
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--cli", cli, "--graph", filepath.Join(dir, "g.bsn"), "--threads", benchutil.JoinInts(threads),
		"--bulk", "4", "--reps", "1", "--seeds", "0", "--out", "", "--pin", "--json"}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	runs, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(runs)), "\n") {
		var th int
		var list string
		if _, err := fmt.Sscan(line, &th, &list); err != nil {
			t.Fatalf("run log line %q: %v", line, err)
		}
		if cpus, err := benchutil.ParseCPUList(list); err != nil || len(cpus) != th {
			t.Errorf("a run of %d threads could use CPUs %q (%v)", th, list, err)
		}
	}
	if md := stdout.String(); !strings.Contains(md, "Pinned (`--pin`)") || !strings.Contains(md, "--cli-passes 3 --pin`") {
		t.Errorf("the table does not say the runs were pinned:\n%s", md)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var sum benchutil.SweepSummary
	var rows []benchutil.SweepJSONRow
	sum.Rows = &rows
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("the last line is not the JSON summary: %v", err)
	}
	if len(rows) != len(threads) || len(sum.PinnedCPUs) != len(threads) {
		t.Fatalf("JSON summary: %d rows and CPU lists %v, want %d", len(rows), sum.PinnedCPUs, len(threads))
	}
	for _, r := range rows {
		if cpus, err := benchutil.ParseCPUList(sum.PinnedCPUs[strconv.Itoa(r.Threads)]); err != nil || len(cpus) != r.Threads ||
			!slices.Equal(r.WarmSEPS, []float64{1e6}) || !r.BestK {
			t.Errorf("JSON row %+v (CPUs %q): want SEPS [1e6], the best k, on %d CPUs", r, sum.PinnedCPUs[strconv.Itoa(r.Threads)], r.Threads)
		}
	}
	args[5] = strconv.Itoa(runtime.NumCPU() + 1) // --threads
	stderr.Reset()
	if code := run(context.Background(), args, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "--pin: pin to") {
		t.Errorf("--pin with more threads than CPUs: exit %d, stderr %q", code, stderr.String())
	}
}

// TestRunGraphFile writes the R-MAT graph as SNAP text and samples it as
// read back from the file (--graph): the section names the file and the
// command, and every row samples alike.
func TestRunGraphFile(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "r8.txt")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--scale", "8", "--edge-factor", "4", "--write-snap", snap}, &stdout, &stderr); code != 0 {
		t.Fatalf("--write-snap: exit %d\n%s", code, stderr.String())
	}
	args := append(append([]string(nil), tinyArgs...), "--graph", snap, "--out", filepath.Join(dir, "s.md"))
	stdout.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("--graph: exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{"## r8.txt", "go run ./benchmarks/samplebench --scale 8", "(edgelist, read by dataset.Load in",
		"reverse edges added (the file says \"Undirected graph: R-MAT scale 8, edge factor 4, seed 1, written by bulksample\")", "ids renumbered: 193 distinct ids",
		"| bulk | 2 | 4 |", "All rows produced the same samples"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, stdout.String())
		}
	}
}
