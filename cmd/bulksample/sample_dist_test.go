package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/train"
)

// distGraph writes a small R-MAT graph and returns its path.
func distGraph(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rmat12.bsg")
	if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "12", "--seed", "3", "--out", path); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	return path
}

var digestRE = regexp.MustCompile(`(?m)^digest ([0-9a-f]{64})$`)

func digestOf(t *testing.T, stdout string) string {
	t.Helper()
	m := digestRE.FindAllStringSubmatch(stdout, -1)
	if len(m) != 1 {
		t.Fatalf("want exactly one digest line (only rank 0 prints), got %d:\n%s", len(m), stdout)
	}
	return m[0][1]
}

// singleProcess runs sample on graph g in one process with sampleArgs and
// extra flags, and returns its standard output: the reference of every
// distributed run.
func singleProcess(t *testing.T, g string, extra ...string) string {
	t.Helper()
	code, out, stderr := runCLI(t, "sample", append(append([]string{"--graph", g}, extra...), sampleArgs...)...)
	if code != 0 {
		t.Fatalf("single process: exit %d\n%s", code, stderr)
	}
	return out
}

// sampleArgs are the flags of every distributed test run: a short last bulk
// (50 minibatches in bulks of 8) and FrontierNew on some runs.
var sampleArgs = []string{"--batch", "40", "--bulk", "8", "--seeds", "2000", "--fanout", "15,10,5", "--seed", "7", "--digest"}

// TestSampleInProcRanksDigest: the distributed path on in-process ranks
// gives the single-process digest for pull, push and a replicated graph.
func TestSampleInProcRanksDigest(t *testing.T) {
	g := distGraph(t)
	want := digestOf(t, singleProcess(t, g))
	for _, tc := range []struct {
		p, c  int
		extra []string
	}{
		{4, 1, []string{"--fetch", "pull"}},
		{4, 2, []string{"--fetch", "push"}},
		{3, 1, []string{"--fetch", "push"}},
		{8, 4, []string{"--fetch", "pull"}},
		{2, 1, []string{"--replicate-graph"}},
	} {
		args := append([]string{"--graph", g, "--inproc-ranks", fmt.Sprint(tc.p), "--replication", fmt.Sprint(tc.c), "--json"}, sampleArgs...)
		args = append(args, tc.extra...)
		code, out, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("p=%d c=%d %v: exit %d\n%s", tc.p, tc.c, tc.extra, code, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("p=%d c=%d %v: digest %s; want %s (one process)", tc.p, tc.c, tc.extra, got, want)
		}
		s := lastJSON[distSummary](t, out)
		if s.Ranks != tc.p || s.Replication != tc.c || s.PeakRSSMax <= 0 || s.SampledEdges <= 0 {
			t.Errorf("p=%d c=%d: JSON ranks %d replication %d peak_rss_max %d sampled_edges %d", tc.p, tc.c, s.Ranks, s.Replication, s.PeakRSSMax, s.SampledEdges)
		}
		if replicated := tc.extra[0] == "--replicate-graph"; s.BlockOnly == replicated {
			t.Errorf("p=%d c=%d %v: block_only %v (a native file is read by row block unless replicated)", tc.p, tc.c, tc.extra, s.BlockOnly)
		}
		sample := s.Traffic["sample"]
		if replicated := tc.extra[0] == "--replicate-graph"; replicated != (sample.BytesSent == 0) || sample.BytesSentMax > sample.BytesSent {
			t.Errorf("p=%d c=%d %v: sample phase %+v", tc.p, tc.c, tc.extra, sample)
		}
	}
}

// overlapArgs follow sampleArgs (and replace their --bulk and --fanout):
// every neighbour at the last layer, in bulks of 32 minibatches cut in
// groups of few, so that a pushed layer's picks (their bound: the rows'
// degrees) take several push batches of the default 2 MiB and the overlap
// (--overlap on) has batches to overlap.
var overlapArgs = []string{"--bulk", "32", "--max-bulk-edges", "1000", "--fanout", "15,10,-1"}

// overlapReference returns the single-process digest of sampleArgs and
// overlapArgs on graph g.
func overlapReference(t *testing.T, g string) string {
	t.Helper()
	code, out, stderr := runCLI(t, "sample", append(append([]string{"--graph", g}, sampleArgs...), overlapArgs...)...)
	if code != 0 {
		t.Fatalf("single process: exit %d\n%s", code, stderr)
	}
	return digestOf(t, out)
}

// TestSampleOverlap: --overlap on gives the single-process digest on
// in-process ranks (push, auto; c = 1 and 2), the JSON counts the batches
// it overlapped and what it hid, and --overlap off overlaps none; --overlap
// on with --fetch pull is a usage error.
func TestSampleOverlap(t *testing.T) {
	g := distGraph(t)
	want := overlapReference(t, g)
	for _, tc := range []struct {
		p, c    int
		fetch   string
		overlap string
	}{{4, 1, "push", "on"}, {4, 2, "push", "on"}, {4, 2, "auto", "on"}, {2, 1, "push", "off"}, {3, 1, "push", "default"}} {
		name := fmt.Sprintf("p=%d c=%d --fetch %s --overlap %s", tc.p, tc.c, tc.fetch, tc.overlap)
		args := append([]string{"--graph", g, "--inproc-ranks", fmt.Sprint(tc.p), "--replication", fmt.Sprint(tc.c), "--fetch", tc.fetch, "--overlap", tc.overlap, "--json"}, sampleArgs...)
		code, out, stderr := runCLI(t, "sample", append(args, overlapArgs...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("%s: digest %s; want %s (one process)", name, got, want)
		}
		s := lastJSON[distSummary](t, out)
		on := tc.overlap == "on" || tc.overlap == "default" && distsample.DefaultOverlap == distsample.OverlapOn
		// Auto pulls this run's last layer (every neighbour): its push
		// layers are one batch each, with nothing to overlap.
		batches := on && tc.fetch == "push"
		if s.Overlap != on || batches != (s.RankSpread.OverlapBatches > 0) || batches != (s.RankSpread.OverlapHiddenSeconds != nil) {
			t.Errorf("%s: JSON overlap %v, overlap_batches %d, overlap_hidden_seconds %v", name, s.Overlap, s.RankSpread.OverlapBatches, s.RankSpread.OverlapHiddenSeconds)
		}
	}
	code, _, stderr := runCLI(t, "sample", append([]string{"--graph", g, "--inproc-ranks", "2", "--fetch", "pull", "--overlap", "on"}, sampleArgs...)...)
	if code != 2 || !strings.Contains(stderr, "--overlap on") || !strings.Contains(stderr, "--fetch pull") {
		t.Errorf("--fetch pull --overlap on: exit %d; want 2 and a usage error naming both flags:\n%s", code, stderr)
	}
}

// TestSampleLayerWiseMemory: a distributed LADIES run's graph bytes count
// the normalised copy a rank holds besides its block (about the block's
// size again: the same ids and values, and self loops), and a run that
// samples the block as loaded (--ladies-matrix raw, FastGCN) counts the
// block alone, with its values, which the layer-wise methods read.
func TestSampleLayerWiseMemory(t *testing.T) {
	g := distGraph(t)
	graph := map[string]float64{}
	for _, run := range [][]string{{"--method", "ladies"}, {"--method", "ladies", "--ladies-matrix", "raw"}, {"--method", "fastgcn"}} {
		args := append([]string{"--graph", g, "--inproc-ranks", "2", "--json", "--seeds", "512", "--batch", "64", "--fanout", "64,64"}, run...)
		code, out, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", run, code, stderr)
		}
		s := lastJSON[distSummary](t, out)
		if s.Memory == nil {
			t.Fatalf("%v: no memory figures", run)
		}
		graph[strings.Join(run, " ")] = s.Memory.GraphBytes.Max
	}
	raw := graph["--method fastgcn"]
	if r := graph["--method ladies"] / raw; r < 1.8 || r > 2.2 {
		t.Errorf("LADIES' graph bytes %.0f are %.2f times FastGCN's %.0f (the block); want 1.8-2.2 with the normalised copy", graph["--method ladies"], r, raw)
	}
	if got := graph["--method ladies --ladies-matrix raw"]; got != raw {
		t.Errorf("LADIES on the raw matrix: graph bytes %.0f; want the block's %.0f", got, raw)
	}
}

// TestSampleInProcBreakdown: a distributed sample's JSON says where each
// rank's time went: the spread of the ranks' work and edges (edges summing
// to the run's), the exchange's rounds by kind (push rounds under --fetch
// push, pull rounds under pull, both counted as the bytes of the sample
// phase), --fetch auto's choice per layer, the memory per rank, and the
// digest's time apart; a replicated graph has work and no exchange.
func TestSampleInProcBreakdown(t *testing.T) {
	g := distGraph(t)
	for _, fetch := range []string{"auto", "push", "pull", "replicated"} {
		args := append([]string{"--graph", g, "--inproc-ranks", "3", "--json"}, sampleArgs...)
		if fetch == "replicated" {
			args = append(args, "--replicate-graph")
		} else {
			args = append(args, "--fetch", fetch)
		}
		code, out, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("--fetch %s: exit %d\n%s", fetch, code, stderr)
		}
		s := lastJSON[distSummary](t, out)
		rs := s.RankSpread
		if rs == nil || !(rs.WorkSeconds.Min > 0 && rs.WorkSeconds.Min <= rs.WorkSeconds.Median && rs.WorkSeconds.Median <= rs.WorkSeconds.Max) ||
			rs.WorkMaxOverMean < 1 || rs.SampledEdges.Min <= 0 || rs.SampledEdges.Max*3 < float64(s.SampledEdges) || rs.SampledEdges.Min*3 > float64(s.SampledEdges) {
			t.Errorf("--fetch %s: rank_spread %+v for %d sampled edges", fetch, rs, s.SampledEdges)
		}
		if s.Memory == nil || s.Memory.GraphBytes.Min <= 0 || s.Memory.SampleBytes.Min <= 0 || s.Memory.RSSOverGraphAndSample.Min <= 0 || s.DigestSeconds <= 0 {
			t.Errorf("--fetch %s: memory %+v, digest_seconds %v", fetch, s.Memory, s.DigestSeconds)
		}
		pull, push, sent := s.Exchange["pull"], s.Exchange["push"], int64(0)
		for _, e := range s.Exchange {
			sent += e.BytesSent
		}
		if sent != s.Traffic["sample"].BytesSent {
			t.Errorf("--fetch %s: the exchange's kinds sent %d bytes, the sample phase %d", fetch, sent, s.Traffic["sample"].BytesSent)
		}
		switch fetch {
		case "push":
			if push.Rounds == 0 || pull.Rounds != 0 || push.Items == 0 {
				t.Errorf("--fetch %s: exchange %+v", fetch, s.Exchange)
			}
		case "auto": // mostly push at fanout 15 on this graph
			if push.Rounds == 0 || push.Items == 0 {
				t.Errorf("--fetch %s: exchange %+v", fetch, s.Exchange)
			}
		case "pull":
			if pull.Rounds == 0 || push.Rounds != 0 {
				t.Errorf("--fetch %s: exchange %+v", fetch, s.Exchange)
			}
		case "replicated":
			if len(s.Exchange) != 0 && sent != 0 || s.FetchLayers != nil || rs.IdleSeconds.Max != 0 {
				t.Errorf("replicated: exchange %+v, fetch_layers %v, idle %+v", s.Exchange, s.FetchLayers, rs.IdleSeconds)
			}
			continue
		}
		if len(s.FetchLayers) != 3 {
			t.Fatalf("--fetch %s: fetch_layers %+v; want one per fanout", fetch, s.FetchLayers)
		}
		for l, fl := range s.FetchLayers {
			// Every rank chooses every layer of every bulk (50 minibatches
			// in bulks of 8: 7 bulks); auto pushes the layers past the
			// seeds', whose vertices are reached by edges (long rows).
			bad := fl.Pull+fl.Push != 7*3
			switch fetch {
			case "pull":
				bad = bad || fl.Push != 0
			case "push":
				bad = bad || fl.Pull != 0
			case "auto":
				bad = bad || !(fl.ModelPullBytes > 0 && fl.ModelPushBytes > 0) || l > 0 && fl.Pull != 0
			}
			if bad || (fetch == "auto") != (fl.ModelPushBytes > 0) {
				t.Errorf("--fetch %s layer %d: %+v", fetch, l, fl)
			}
		}
	}
}

// ogbGraph writes a small OGB folder of the CSV flavour (undirected: each
// edge stored once, reverse edges added by the loader), skewed, with
// duplicate edges and self loops, and returns its path.
func ogbGraph(t *testing.T) string {
	t.Helper()
	const n, m = 3000, 24000
	dir := filepath.Join(t.TempDir(), "ogbn_small")
	r := rand.New(rand.NewPCG(11, 12))
	var edges strings.Builder
	for range m {
		// Squaring a uniform draw favours low ids: some rows are long.
		u, v := r.Float64(), r.Float64()
		fmt.Fprintf(&edges, "%d,%d\n", int(u*u*n), int(v*n))
	}
	for name, text := range map[string]string{"edge.csv.gz": edges.String(), "num-node-list.csv.gz": fmt.Sprintf("%d\n", n), "num-edge-list.csv.gz": fmt.Sprintf("%d\n", m)} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(text))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "raw"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "raw", name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSampleInProcOGBBlocks: on an OGB folder each rank streams the edges
// keeping only its block of rows (block_only), and the digest and the edge
// count are the single process's.
func TestSampleInProcOGBBlocks(t *testing.T) {
	g := ogbGraph(t)
	out := singleProcess(t, g, "--json")
	want, one := digestOf(t, out), lastJSON[sampleSummary](t, out)
	for _, tc := range []struct {
		p, c  int
		fetch string
	}{{3, 1, "pull"}, {4, 2, "push"}} {
		args := append([]string{"--graph", g, "--inproc-ranks", fmt.Sprint(tc.p), "--replication", fmt.Sprint(tc.c), "--fetch", tc.fetch, "--json"}, sampleArgs...)
		code, out, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("p=%d c=%d: exit %d\n%s", tc.p, tc.c, code, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("p=%d c=%d %s: digest %s; want %s (one process)", tc.p, tc.c, tc.fetch, got, want)
		}
		s := lastJSON[distSummary](t, out)
		if !s.BlockOnly || s.Vertices != one.Vertices || s.Edges != one.Edges || s.Edges <= 0 {
			t.Errorf("p=%d c=%d: block_only %v, %d vertices and %d edges; want true, %d and %d (one process)",
				tc.p, tc.c, s.BlockOnly, s.Vertices, s.Edges, one.Vertices, one.Edges)
		}
	}
}

// TestSampleInProcLayerWise: LADIES and FastGCN on in-process ranks give
// the single-process digest.
func TestSampleInProcLayerWise(t *testing.T) {
	g := distGraph(t)
	for _, method := range [][]string{{"ladies"}, {"ladies", "--ladies-matrix", "raw"}, {"fastgcn"}} {
		args := append([]string{"--graph", g, "--method"}, method...)
		args = append(args, "--batch", "64", "--bulk", "4", "--seeds", "640", "--fanout", "128,64", "--digest")
		code, out, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("%s, one process: exit %d\n%s", method, code, stderr)
		}
		want := digestOf(t, out)
		code, out, stderr = runCLI(t, "sample", append(args, "--inproc-ranks", "4", "--replication", "2")...)
		if code != 0 {
			t.Fatalf("%s, 4 ranks: exit %d\n%s", method, code, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("%s on 4 in-process ranks: digest %s; want %s", method, got, want)
		}
	}
}

// TestSampleInProcFailure: an error on one rank ends the whole job, with
// "rank R: <error>" on stderr, promptly: with the default fetch, and while
// the other ranks pull groups in parts (lengths and part rounds).
func TestSampleInProcFailure(t *testing.T) {
	g := distGraph(t)
	for _, extra := range [][]string{nil, append([]string{"--fetch", "pull", "--pull-batch", "4KiB"}, overlapArgs...)} {
		start := time.Now()
		args := append(append([]string{"--graph", g, "--inproc-ranks", "3", "--fail-rank", "1"}, sampleArgs...), extra...)
		code, _, stderr := runCLI(t, "sample", args...)
		if code != 1 || !strings.Contains(stderr, "rank 1: injected failure") {
			t.Errorf("%v: exit %d; want 1 and \"rank 1: injected failure\" on stderr:\n%s", extra, code, stderr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v: the failed job took %v to end; want under 10 s", extra, d)
		}
	}
}

// TestSampleDistFlagsMapToOptions: every distributed flag sets its field.
func TestSampleDistFlagsMapToOptions(t *testing.T) {
	e := &env{stdout: &strings.Builder{}, stderr: &strings.Builder{}}
	c, err := parseSampleFlags(e, []string{"--graph", "g.npz", "--replication", "3", "--fetch", "push",
		"--overlap", "on", "--replicate-graph", "--inproc-ranks", "6", "--fail-rank", "2", "--stall-timeout", "90s"})
	if err != nil {
		t.Fatal(err)
	}
	want := train.DistOptions{Replication: 3, Layout: distsample.Replicated, Fetch: distsample.FetchPush, Overlap: distsample.OverlapOn}
	if c.dist != want || c.ranks.inproc != 6 || c.ranks.failRank != 2 || c.ranks.stall != 90*time.Second {
		t.Errorf("distribution options %+v, in-process ranks %d, fail rank %d, stall timeout %v; want %+v, 6, 2, 1m30s", c.dist, c.ranks.inproc, c.ranks.failRank, c.ranks.stall, want)
	}
	// The batch bounds apply to a split graph's node-wise sampler.
	c, err = parseSampleFlags(e, []string{"--graph", "g.npz", "--inproc-ranks", "2", "--pull-batch", "3MiB", "--push-batch", "4096"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (train.DistOptions{Replication: 1, PullBatchBytes: 3 << 20, PushBatchBytes: 4096}); c.dist != want {
		t.Errorf("distribution options %+v; want %+v", c.dist, want)
	}
}

func TestSampleDistFlagErrors(t *testing.T) {
	g := distGraph(t)
	for _, tc := range []struct {
		args []string
		want string
		only string // "sample" or "train" for one command's flags (--method, --eval); "" for both
	}{
		{[]string{"--inproc-ranks", "4", "--replication", "3"}, "--replication 3: does not divide --inproc-ranks 4", ""},
		{[]string{"--inproc-ranks", "2", "--fetch", "pool"}, "--fetch", ""},
		{[]string{"--inproc-ranks", "2", "--replication", "0"}, "--replication 0", ""},
		{[]string{"--inproc-ranks", "2", "--method", "ladies", "--fetch", "push"}, "--fetch push", "sample"},
		// Before: a runtime crash (memory exhausted) with every
		// goroutine's stack, millions of lines.
		{[]string{"--inproc-ranks", "100000"}, "--inproc-ranks 100000: want at most", ""},
		// Before: silently ignored by a single process.
		{[]string{"--replication", "2"}, "--replication: only in a distributed run", ""},
		{[]string{"--fetch", "push"}, "--fetch: only in a distributed run", ""},
		{[]string{"--overlap", "on"}, "--overlap: only in a distributed run", ""},
		{[]string{"--inproc-ranks", "2", "--overlap", "yes"}, "--overlap \"yes\": want default, on or off", ""},
		{[]string{"--replicate-graph"}, "--replicate-graph: only in a distributed run", ""},
		{[]string{"--eval", "gathered"}, "--eval: only in a distributed run", "train"},
	} {
		for _, command := range []string{"sample", "train"} {
			if tc.only != "" && tc.only != command {
				continue
			}
			data := "--graph"
			if command == "train" {
				data = "--data"
			}
			code, _, stderr := runCLI(t, command, append([]string{data, g}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s %v: exit %d, stderr %q; want 2 and %q", command, tc.args, code, firstLine(stderr), tc.want)
			}
		}
	}
}

// mpiRun runs the test binary as `bulksample <command> args...` under
// mpirun with np ranks, within limit, and returns its stdout and stderr.
func mpiRun(t *testing.T, mpirun string, np int, limit time.Duration, command string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := mpitest.Command(ctx, mpirun, np, testBinary(t), append([]string{command}, args...)...)
	cmd.Env = append(cmd.Env, "BULKSAMPLE_TEST_MAIN=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// mpiSample runs `bulksample sample` under mpirun.
func mpiSample(t *testing.T, mpirun string, np int, args ...string) (string, string, error) {
	t.Helper()
	return mpiRun(t, mpirun, np, 2*time.Minute, "sample", args...)
}

// TestSampleMPI runs `bulksample sample --digest` on real MPI ranks: -np 4
// with c = 1 and 2, pull and push, and -np 3, each equal to the
// single-process digest; push overlapped, pull in parts, and LADIES.
func TestSampleMPI(t *testing.T) {
	mpirun, _ := mpirunTest(t)
	g := distGraph(t)
	want := digestOf(t, singleProcess(t, g))
	for _, tc := range []struct {
		np, c int
		fetch string
	}{{4, 1, "pull"}, {4, 2, "push"}, {4, 2, "pull"}, {4, 1, "push"}, {3, 1, "pull"}} {
		out, stderr, err := mpiSample(t, mpirun, tc.np, append([]string{"--graph", g, "--replication", fmt.Sprint(tc.c), "--fetch", tc.fetch, "--json"}, sampleArgs...)...)
		if err != nil {
			t.Fatalf("mpirun -np %d --replication %d --fetch %s: %v\n%s\n%s", tc.np, tc.c, tc.fetch, err, out, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("mpirun -np %d --replication %d --fetch %s: digest %s; want %s", tc.np, tc.c, tc.fetch, got, want)
		}
		if s := lastJSON[distSummary](t, out); s.Ranks != tc.np || s.Traffic["sample"].BytesSent == 0 {
			t.Errorf("mpirun -np %d: JSON ranks %d, sample bytes %d", tc.np, s.Ranks, s.Traffic["sample"].BytesSent)
		}
	}
	// Push batches overlapped on MPI ranks: the rounds of a rank's next
	// batch run on a goroutine of its own while it extracts the current
	// one (MPI_THREAD_MULTIPLE).
	want = overlapReference(t, g)
	for _, tc := range []struct {
		np, c int
		fetch string
	}{{4, 1, "push"}, {4, 2, "auto"}} {
		args := append([]string{"--graph", g, "--replication", fmt.Sprint(tc.c), "--fetch", tc.fetch, "--overlap", "on", "--json"}, sampleArgs...)
		out, stderr, err := mpiSample(t, mpirun, tc.np, append(args, overlapArgs...)...)
		if err != nil {
			t.Fatalf("mpirun -np %d --replication %d --fetch %s --overlap on: %v\n%s\n%s", tc.np, tc.c, tc.fetch, err, out, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("mpirun -np %d --replication %d --fetch %s --overlap on: digest %s; want %s", tc.np, tc.c, tc.fetch, got, want)
		}
		if s := lastJSON[distSummary](t, out); !s.Overlap || tc.fetch == "push" && s.RankSpread.OverlapBatches == 0 {
			t.Errorf("mpirun -np %d --fetch %s --overlap on: JSON overlap %v, overlap_batches %d", tc.np, tc.fetch, s.Overlap, s.RankSpread.OverlapBatches)
		}
	}
	// Groups pulled in parts on MPI ranks: a pull budget below a group's
	// rows asks for their lengths, then pulls a part a round.
	args := append([]string{"--graph", g, "--fetch", "pull", "--pull-batch", "8KiB", "--json"}, sampleArgs...)
	out, stderr, err := mpiSample(t, mpirun, 4, append(args, overlapArgs...)...)
	if err != nil {
		t.Fatalf("mpirun -np 4 --fetch pull --pull-batch 8KiB: %v\n%s\n%s", err, out, stderr)
	}
	if got := digestOf(t, out); got != want {
		t.Errorf("mpirun -np 4 --fetch pull --pull-batch 8KiB: digest %s; want %s", got, want)
	}
	if s := lastJSON[distSummary](t, out); s.Exchange["degrees"].Rounds == 0 || s.Exchange["pull"].Rounds <= s.Exchange["degrees"].Rounds {
		t.Errorf("mpirun -np 4 --fetch pull --pull-batch 8KiB: %d lengths rounds, %d pull rounds; want parts", s.Exchange["degrees"].Rounds, s.Exchange["pull"].Rounds)
	}
	// LADIES on 4 MPI ranks, c = 2.
	lw := []string{"--graph", g, "--method", "ladies", "--batch", "64", "--bulk", "4", "--seeds", "640", "--fanout", "128,64", "--digest"}
	code, out, stderr := runCLI(t, "sample", lw...)
	if code != 0 {
		t.Fatalf("ladies, one process: exit %d\n%s", code, stderr)
	}
	want = digestOf(t, out)
	out, stderr, err = mpiSample(t, mpirun, 4, append(lw, "--replication", "2")...)
	if err != nil {
		t.Fatalf("mpirun -np 4 --method ladies: %v\n%s\n%s", err, out, stderr)
	}
	if got := digestOf(t, out); got != want {
		t.Errorf("mpirun -np 4 --method ladies: digest %s; want %s", got, want)
	}
}

// TestSampleMPIFailure injects an error on rank 2 of an mpirun job: the
// job must end (MPI_Abort) within 10 seconds with "rank 2: ..." on stderr,
// and not followed by Open MPI's 7-line notice that MPI_ABORT was invoked
// (dist's quietAbort; mpirun printed it in most runs before).
func TestSampleMPIFailure(t *testing.T) {
	mpirun := mpitest.Require(t)
	g := distGraph(t)
	start := time.Now()
	out, stderr, err := mpiSample(t, mpirun, 4, append([]string{"--graph", g, "--fail-rank", "2"}, sampleArgs...)...)
	// The other ranks wait in the next collective: only MPI_Abort ends the
	// job within the bound.
	if err == nil || !strings.Contains(stderr, "rank 2: injected failure") || strings.Contains(stderr, "MPI_ABORT was invoked") {
		t.Errorf("mpirun with --fail-rank 2: err %v; want a failed job and \"rank 2: injected failure\" on stderr, without Open MPI's notice\n%s\n%s", err, out, stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the failed MPI job took %v to end; want under 10 s", d)
	}
}

// TestSampleMPIReplicationNotDividing: a --replication that does not
// divide the ranks mpirun started is an error naming the flag and both
// numbers (it was dist.NewGrid's "replication 3 does not divide the 2
// ranks", naming no flag).
func TestSampleMPIReplicationNotDividing(t *testing.T) {
	mpirun, _ := mpirunTest(t)
	g := distGraph(t)
	out, stderr, err := mpiSample(t, mpirun, 2, "--graph", g, "--replication", "3", "--seeds", "100")
	if want := "--replication 3 does not divide the 2 ranks of this job"; err == nil || !strings.Contains(stderr, want) {
		t.Errorf("mpirun -np 2 --replication 3: err %v; want a failed job and %q on stderr\n%s\n%s", err, want, out, stderr)
	}
}

// TestMPIOtherGraphOnOneRank runs the same command line on 4 ranks, rank
// 1 in a working directory that holds another file under the graph's name
// (a stale copy on one node): rank 1 must end the job naming what differs,
// where sample's sampler panicked with an index out of range (and, given
// a graph of rank 0's vertex count, sampled other edges and exited 0), spgemm
// --grid 2d failed with MPI's "message truncated", and train, given a
// graph of rank 0's vertex count, trained on it and exited 0.
func TestMPIOtherGraphOnOneRank(t *testing.T) {
	mpirun, exe := mpirunTest(t)
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, scale := range []string{"10", "9"} {
		if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", scale, "--seed", "3", "--out", filepath.Join(dirs[i], "g.bsg")); code != 0 {
			t.Fatalf("gen: exit %d\n%s", code, stderr)
		}
		// Of one vertex count, other edges.
		if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "10", "--seed", fmt.Sprint(i+1), "--out", filepath.Join(dirs[i], "same-n.bsg")); code != 0 {
			t.Fatalf("gen: exit %d\n%s", code, stderr)
		}
		// Two labelled graphs of one shape but other edges and splits.
		if code, _, stderr := runCLI(t, "gen", "sbm", "--nodes", "1000", "--classes", "3", "--features", "8", "--seed", fmt.Sprint(i+1), "--out", filepath.Join(dirs[i], "d.bsn")); code != 0 {
			t.Fatalf("gen sbm: exit %d\n%s", code, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// Of rank 0's vertex count, each rank reading only its block:
		// sampled other edges and exited 0. (Another vertex count fails
		// dist.NewGrid's check, as the file's header is read.)
		{[]string{"sample", "--graph", "same-n.bsg", "--seeds", "200", "--digest"},
			"rank 1: same-n.bsg differs from rank 0's: "},
		{[]string{"spgemm", "--a", "g.bsg", "--grid", "2d", "--reps", "1", "--digest"},
			"rank 1: the operands read here are A 512 x 512"},
		// Same vertex count: trained on other edges and exited 0.
		{[]string{"train", "--data", "d.bsn", "--epochs", "1", "--hidden", "8", "--fanout", "3,3"},
			"rank 1: d.bsn differs from rank 0's: entries "},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Rank 0 in dirs[0], rank 1 in dirs[1], ranks 2 and 3 in dirs[0].
		args := append(append([]string{}, tc.args...), ":", "-np", "1", "-wdir", dirs[1], exe)
		args = append(append(args, tc.args...), ":", "-np", "2", "-wdir", dirs[0], exe)
		cmd := mpitest.Command(ctx, mpirun, 1, exe, append(args, tc.args...)...)
		cmd.Env = append(cmd.Env, "BULKSAMPLE_TEST_MAIN=1")
		cmd.Dir = dirs[0]
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) || tc.args[0] == "sample" && !strings.Contains(string(out), "native header CRC-32C ") {
			t.Errorf("%s with another graph on rank 1: err %v; want a failed job and %q\n%s", tc.args[0], err, tc.want, out)
		}
		if strings.Contains(string(out), "internal error") {
			t.Errorf("%s: a rank panicked:\n%s", tc.args[0], out)
		}
	}
}

// TestNoMPIBuildRefusesLauncher builds bulksample without the mpi tag and
// starts it under `mpirun -np 2`: the ranks must refuse (ErrNoMPI) rather
// than run as two independent single-process jobs; run alone it samples.
func TestNoMPIBuildRefusesLauncher(t *testing.T) {
	mpirun, _ := mpirunTest(t) // and builds a second binary
	bin := filepath.Join(t.TempDir(), "bulksample-nompi")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build without tags: %v\n%s", err, out)
	}
	g := distGraph(t)
	cmd := mpitest.Command(ctx, mpirun, 2, bin, append([]string{"sample", "--graph", g}, sampleArgs...)...)
	out, err := cmd.CombinedOutput()
	// The first rank to refuse ends the job (mpirun stops the other, which
	// may not have printed yet): at least one refusal, and no sample.
	if err == nil || !strings.Contains(string(out), "built without MPI support") || strings.Contains(string(out), "digest ") {
		t.Errorf("MPI-less build under mpirun -np 2: err %v; want the ranks to refuse with ErrNoMPI and none to sample\n%s", err, out)
	}
	alone := exec.CommandContext(ctx, bin, append([]string{"sample", "--graph", g}, sampleArgs...)...)
	if out, err := alone.CombinedOutput(); err != nil || !strings.Contains(string(out), "digest ") {
		t.Errorf("MPI-less build alone: %v\n%s", err, out)
	}
}

// TestUsageErrorOnRankZeroOnly: under a launcher every rank parses the same
// command line, and rank 0 alone prints a usage error; before, every rank
// printed it with the whole usage (128 copies at -np 128). All exit 2.
func TestUsageErrorOnRankZeroOnly(t *testing.T) {
	for _, tc := range []struct {
		rank  string
		quiet bool
	}{{"0", false}, {"1", true}, {"7", true}} {
		t.Setenv("OMPI_COMM_WORLD_SIZE", "8")
		t.Setenv("OMPI_COMM_WORLD_RANK", tc.rank)
		code, _, stderr := runCLI(t, "train", "--data", "cora", "--lr", "-1")
		if code != 2 || (stderr == "") != tc.quiet || !tc.quiet && !strings.Contains(stderr, "--lr -1") {
			t.Errorf("rank %s: exit %d, stderr %q; want 2 and %s", tc.rank, code, firstLine(stderr), map[bool]string{true: "nothing", false: "the error"}[tc.quiet])
		}
	}
}
