package main

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
	"github.com/bulksample/bulksample/featurex"
)

// TestRowRepeatsCells: the repetition table compares the median of the
// measured transfer times with the median of the model's, gives both
// ranges and the spread of the repetitions' own errors, and says whether
// the medians are within 10%; a repetition without a model time (no
// network) leaves the model's cells empty rather than a median of the
// others.
func TestRowRepeatsCells(t *testing.T) {
	nan := math.NaN()
	const mib = 1 << 20
	for _, tc := range []struct {
		name string
		row  rowRepeats
		want []string
	}{
		{
			name: "within 10%: one slow repetition does not move the medians",
			row: rowRepeats{exchanges: 8, bytes: []float64{100 * mib, 100 * mib, 100 * mib}, bytesErr: []float64{0, 0, 0},
				measured: []float64{1, 2, 10}, model: []float64{2.1, 2.1, 2.1}, ran: []float64{1, 1, 1}, ranModel: []float64{1.02, 0.9, 1.5}},
			want: []string{"3", "8", "100.0 MiB", "+0.0%", "2.000 (1.000-10.000)", "2.100 (2.100-2.100)", "+5%", "yes",
				"+5% (-79% to +110%)", "1.000 / 1.020 (+2%)"},
		},
		{
			name: "off by 20%, bytes differing between repetitions",
			row: rowRepeats{exchanges: 2, bytes: []float64{100 * mib, 101 * mib}, bytesErr: []float64{0.001, -0.002},
				measured: []float64{1, 1}, model: []float64{0.8, 0.8}, ran: []float64{1, 1}, ranModel: []float64{nan, 1}},
			want: []string{"2", "2", "100.0-101.0 MiB", "-0.2% to +0.1%", "1.000 (1.000-1.000)", "0.800 (0.800-0.800)", "-20%", "no",
				"-20% (-20% to -20%)", "–"},
		},
		{
			name: "no network in one repetition",
			row: rowRepeats{exchanges: 1, bytes: []float64{0, 0}, bytesErr: []float64{nan, nan},
				measured: []float64{0.5, 0.7}, model: []float64{0.6, nan}, ran: []float64{0, 0}, ranModel: []float64{nan, nan}},
			want: []string{"2", "1", "0.0 MiB", "–", "0.600 (0.500-0.700)", "–", "–", "–", "–", "–"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.row.cells()
			if strings.Join(got, " | ") != strings.Join(tc.want, " | ") {
				t.Errorf("cells\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestRepeatRows: the runs of a row, whatever order they ran in, make one
// line of the repetition table, in the order of their first run; each
// repetition's model is its own bytes at its own probes' α and β.
func TestRepeatRows(t *testing.T) {
	const alpha, beta = 1e-3, 1e9
	probed := func(c int, mode string, rep int, transfer float64, sent int64) featureRun {
		r := featureRun{C: c, Mode: mode, Rep: rep, Reps: 2}
		// The uniform probes on the line t = α + b/β.
		for k, b := range map[probeKind]float64{probeIDs: 1e4, probeRows: 1e7} {
			r.Probes[k] = probeSums{Seconds: 2 * (alpha + b/beta), Bytes: 2 * b, Samples: 2}
		}
		r.Times.Transfer = [3]float64{9, transfer / 2, transfer / 2} // the status round is not measured
		for range 2 {
			r.Ranks = append(r.Ranks, rankFigures{Bytes: sent, Stats: featurex.DistStats{Exchanges: 4}})
		}
		return r
	}
	res := &featureResult{P: 2, F: 3, Inputs: []int64{1000, 1000}, Unions: []int64{400, 400}, HotInputs: []int64{0, 0}, Runs: []featureRun{
		probed(1, "minibatch", 0, 0.010, 1), probed(1, "bulk", 0, 0.010, 1), probed(1, "minibatch", 1, 0.030, 1), probed(1, "bulk", 1, 0.020, 1),
	}}
	rows := repeatRows(res)
	if len(rows) != 2 || rows[0].mode != "minibatch" || rows[1].mode != "bulk" {
		t.Fatalf("rows %+v; want minibatch then bulk", rows)
	}
	// Per rank: (1 - 1/2)·x·16 bytes of ids and rows, x the rank's
	// distinct inputs (per bulk: its unions), and 16·1·4 of status; 2·4
	// rounds of ids and rows.
	for i, x := range []float64{1000, 400} {
		r := rows[i]
		want := 8*alpha + (0.5*x*16+16*4)/beta
		if len(r.model) != 2 || math.Abs(r.model[0]-want) > 1e-12 || math.Abs(r.model[1]-want) > 1e-12 {
			t.Errorf("%s: model %v; want %g per repetition", r.mode, r.model, want)
		}
		if len(r.measured) != 2 {
			t.Errorf("%s: measured %v; want two repetitions", r.mode, r.measured)
		}
	}
	if got := rows[0].measured; got[0] != 0.010 || got[1] != 0.030 {
		t.Errorf("minibatch measured %v; want [0.010 0.030] (ids + rows)", got)
	}
	if l := res.Runs[2].label(); l != "minibatch (2/2)" {
		t.Errorf("label %q; want %q", l, "minibatch (2/2)")
	}
	if l := (&featureRun{Mode: "bulk", Reps: 1}).label(); l != "bulk" {
		t.Errorf("label of a single run %q; want bulk", l)
	}
}

// TestCPUMask: the CPU sets the ranks gather, and the error for a CPU the
// 64-bit set cannot hold (parsing the lists is benchutil.ParseCPUList's,
// tested there).
func TestCPUMask(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want uint64
		err  string
	}{
		{[]int{0}, 1, ""},
		{[]int{1}, 2, ""},
		{[]int{0, 1}, 3, ""},
		{[]int{0, 1, 2, 3, 8, 10, 11}, 0b1101_0000_1111, ""},
		{[]int{63}, 1 << 63, ""},
		{[]int{0, 64}, 0, "CPU 64 outside 0-63"},
	} {
		got, err := cpuMask(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("cpuMask(%v) = %b, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("cpuMask(%v) = %b, %v; want %b", tc.in, got, err, tc.want)
		}
		if back := maskCPUs(got); !slices.Equal(back, tc.in) {
			t.Errorf("maskCPUs(%b) = %v, want %v", got, back, tc.in)
		}
	}
}

// TestBindings: ranks have a CPU of their own when each may run on one
// CPU and no two on the same.
func TestBindings(t *testing.T) {
	for _, tc := range []struct {
		masks []uint64
		text  string
		own   bool
	}{
		{[]uint64{1, 2}, "rank 0: CPU 0; rank 1: CPU 1", true},
		{[]uint64{3, 3}, "rank 0: CPU 0-1; rank 1: CPU 0-1", false},
		{[]uint64{2, 2}, "rank 0: CPU 1; rank 1: CPU 1", false},
		{[]uint64{1, 0}, "rank 0: CPU 0; rank 1: CPU none", false},
		{[]uint64{0b1011_0000}, "rank 0: CPU 4-5,7", false},
		{nil, "", false},
	} {
		text, own := bindings(tc.masks)
		if text != tc.text || own != tc.own {
			t.Errorf("bindings(%b) = %q, %v; want %q, %v", tc.masks, text, own, tc.text, tc.own)
		}
	}
}

// TestFeatureFlags: bad values of the new flags are usage errors naming
// the flag.
func TestFeatureFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--parts", "features", "--feature-repeats", "0"}, "--feature-repeats"},
		{[]string{"--parts", "features", "--bind", "socket"}, `--bind "socket": want none, core or cpus:LIST`},
		{[]string{"--parts", "features", "--np", "4", "--bind", "cpus:0,0"}, "--bind cpus:0,0: 2 CPUs for --np 4 ranks"},
		{[]string{"--parts", "features", "--np", "2", "--bind", "cpus:0,x"}, `--bind cpus:0,x: "x" is not a CPU number`},
		{[]string{"--parts", "features", "--np", "2", "--bind", "cpus:0,4096"}, "--bind cpus:0,4096: CPU 4096 is not one this process may use"},
		{[]string{"--parts", "features", "--feature-interleave", "every"}, `--feature-interleave "every": want c or all`},
		{[]string{"--parts", "features", "--bind", "core", "--np", "1000"}, "--bind core: --np 1000 ranks on"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestFeatureBenchBindCore runs the feature part on two ranks bound to a
// core each (CI's machine has two): the report says each rank has a CPU of
// its own, c = 1's rows are repeated and c = 2's (a column of one rank)
// run once.
func TestFeatureBenchBindCore(t *testing.T) {
	mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--parts", "features", "--np", "2", "--replication", "1,2", "--bind", "core", "--feature-repeats", "2",
		"--feature-nodes", "2000", "--features", "4", "--batch", "32", "--feature-bulk", "4", "--feature-seeds", "256",
		"--calibrate-floats", "1024", "--out", filepath.Join(t.TempDir(), "dist.md")}
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	if runtime.NumCPU() < 2 {
		if code != 2 || !strings.Contains(stderr.String(), "--bind core: --np 2 ranks on") {
			t.Errorf("one CPU: exit %d, %s; want the usage error", code, stderr.String())
		}
		return
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	rep := stdout.String()
	if !strings.Contains(rep, "rank 0: CPU ") || !strings.Contains(rep, "(a CPU of its own each)") || !strings.Contains(rep, "under `mpirun --bind-to core`") {
		t.Errorf("bindings missing:\n%s", rep)
	}
	// The repetition table: c = 1 twice, c = 2 once; every run's rows
	// equal the file's.
	for _, row := range []string{"| 1 | minibatch | 2 |", "| 1 | bulk | 2 |", "| 1 | minibatch+cache | 2 |", "| 2 | minibatch | 1 |"} {
		if !strings.Contains(rep, row) {
			t.Errorf("repetition table lacks %q:\n%s", row, rep)
		}
	}
	if strings.Count(rep, "| = file |") != 3*2+3 || strings.Contains(rep, "DIFFER |") {
		t.Errorf("runs:\n%s", rep)
	}
}

// TestPlantedGraphDir: with --feature-graph-dir the first run generates
// the graph into the directory under a name that gives its options, and a
// run with the same options reads it; other options make another file.
func TestPlantedGraphDir(t *testing.T) {
	dir := t.TempDir()
	c := &config{fnodes: 500, fdegree: 8, ffeatures: 4, seed: 1, fgraphDir: dir}
	var log bytes.Buffer
	path, train, gen, err := plantedGraph(c, t.TempDir(), &log)
	if err != nil || gen == 0 || train == 0 || filepath.Base(path) != "planted-n500-d8-f4-s1.bsg" || filepath.Dir(path) != dir {
		t.Fatalf("first run: %s, %d, %v, %v; want a generated graph in %s", path, train, gen, err, dir)
	}
	again, train2, gen2, err := plantedGraph(c, t.TempDir(), &log)
	if err != nil || again != path || train2 != train || gen2 != 0 || !strings.Contains(log.String(), "read from") {
		t.Errorf("second run: %s, %d, %v, %v; want %s read, %d training vertices", again, train2, gen2, err, path, train)
	}
	c.ffeatures = 8
	if other, _, gen3, err := plantedGraph(c, t.TempDir(), &log); err != nil || other == path || gen3 == 0 {
		t.Errorf("other options: %s, %v, %v; want another file, generated", other, gen3, err)
	}
}
