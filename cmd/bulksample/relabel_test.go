package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
)

// TestGenRelabelSameAsConvert: gen rmat --relabel writes the file that
// convert --relabel writes of the unrelabelled graph (the permutation is a
// function of the graph and the seed), native and .npz; info reports the
// relabelling and the row blocks' balance.
func TestGenRelabelSameAsConvert(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.bsn")
	if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "11", "--seed", "2", "--out", plain); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	for _, rl := range [][]string{{"--relabel", "degree"}, {"--relabel", "random", "--relabel-seed", "5"}} {
		for _, ext := range []string{".bsn", ".npz"} {
			gen := filepath.Join(dir, rl[1]+"-gen"+ext)
			conv := filepath.Join(dir, rl[1]+"-conv"+ext)
			code, out, stderr := runCLI(t, "gen", append([]string{"rmat", "--scale", "11", "--seed", "2", "--threads", "3", "--out", gen, "--json"}, rl...)...)
			if code != 0 {
				t.Fatalf("gen %v: exit %d\n%s", rl, code, stderr)
			}
			if s := lastJSON[genSummary](t, out); s.Relabel != rl[1] {
				t.Errorf("gen %v: JSON relabel %q", rl, s.Relabel)
			}
			if code, _, stderr := runCLI(t, "convert", append([]string{plain, conv}, rl...)...); code != 0 {
				t.Fatalf("convert %v: exit %d\n%s", rl, code, stderr)
			}
			g, _ := os.ReadFile(gen)
			c, _ := os.ReadFile(conv)
			if len(g) == 0 || !bytes.Equal(g, c) {
				t.Errorf("%v %s: gen's file (%d bytes) differs from convert's (%d bytes)", rl, ext, len(g), len(c))
			}
		}
		code, out, _ := runCLI(t, "info", filepath.Join(dir, rl[1]+"-gen.bsn"), "--blocks", "2,4", "--json")
		s := lastJSON[infoSummary](t, out)
		if code != 0 || !strings.Contains(out, "  relabel   "+rl[1]) || s.Relabel != rl[1] || len(s.Blocks) != 2 || s.Blocks[1].Blocks != 4 || !(s.Blocks[1].MaxOverMean >= 1) {
			t.Errorf("info of a %s-relabelled file: exit %d, JSON %+v\n%s", rl[1], code, s, out)
		}
	}
	code, out, _ := runCLI(t, "info", plain)
	if code != 0 || !strings.Contains(out, "  relabel   none") {
		t.Errorf("info of a plain file: exit %d\n%s", code, out)
	}
	// ids map back: orig_ids names each vertex's row in the plain file.
	p, err := dataset.Load(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := dataset.Load(filepath.Join(dir, "degree-gen.bsn"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for x := range r.NumNodes() {
		if r.Adj.RowNNZ(x) != p.Adj.RowNNZ(int(r.Relabel.OrigIDs[x])) {
			t.Fatalf("vertex %d: %d neighbours, its original %d has %d", x, r.Adj.RowNNZ(x), r.Relabel.OrigIDs[x], p.Adj.RowNNZ(int(r.Relabel.OrigIDs[x])))
		}
	}
}

// TestRelabelFlagErrors: bad relabel flags are usage errors naming the flag.
func TestRelabelFlagErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.bsn")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "rmat", "--relabel", "metis", "--out", out}, `--relabel "metis": want random or degree`},
		{[]string{"gen", "rmat", "--relabel", "degree", "--relabel-seed", "3", "--out", out}, "--relabel-seed: only with --relabel random"},
		{[]string{"gen", "rmat", "--relabel-seed", "3", "--out", out}, "--relabel-seed: only with --relabel random"},
		{[]string{"gen", "sbm", "--relabel", "degree", "--out", out}, "--relabel applies to gen rmat"},
		{[]string{"convert", "a.bsn", out, "--relabel", "bfs"}, `--relabel "bfs"`},
		{[]string{"info", "a.bsn", "--blocks", "2,x"}, `--blocks "2,x"`},
	} {
		code, _, stderr := runCLI(t, tc.args[0], tc.args[1:]...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, firstLine(stderr), tc.want)
		}
	}
}

// TestSampleRelabelledDigest: distributed sampling of a relabelled graph
// (in-process ranks, pull, push, replicated) gives the digest of one
// process on the relabelled graph.
func TestSampleRelabelledDigest(t *testing.T) {
	g := filepath.Join(t.TempDir(), "deg.bsn")
	if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "12", "--seed", "3", "--relabel", "degree", "--out", g); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	want := digestOf(t, singleProcess(t, g))
	if plain := digestOf(t, singleProcess(t, distGraph(t))); plain == want {
		t.Fatal("the relabelled graph samples as the plain one: the test would not see a relabelling lost")
	}
	for _, tc := range []struct {
		p, c  int
		extra string
	}{{4, 1, "--fetch=pull"}, {4, 2, "--fetch=push"}, {3, 1, "--fetch=push"}, {2, 1, "--replicate-graph"}} {
		args := append([]string{"--graph", g, "--inproc-ranks", fmt.Sprint(tc.p), "--replication", fmt.Sprint(tc.c), tc.extra}, sampleArgs...)
		code, out, stderr := runCLI(t, "sample", args...)
		if code != 0 {
			t.Fatalf("p=%d c=%d %s: exit %d\n%s", tc.p, tc.c, tc.extra, code, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("p=%d c=%d %s on the relabelled graph: digest %s; want %s (one process on it)", tc.p, tc.c, tc.extra, got, want)
		}
	}
}

// TestMPIGenRMAT: gen rmat under mpirun, every rank writing its block into
// one file, writes the single process's file byte for byte, relabelled or
// not; then the distributed sample of the relabelled graph under mpirun
// gives one process's digest on it.
func TestMPIGenRMAT(t *testing.T) {
	mpirun, _ := mpirunTest(t)
	dir := t.TempDir()
	for _, rl := range [][]string{nil, {"--relabel", "degree"}, {"--relabel", "random", "--relabel-seed", "4"}} {
		one := filepath.Join(dir, "one.bsn")
		base := append([]string{"rmat", "--scale", "12", "--seed", "3"}, rl...)
		if code, _, stderr := runCLI(t, "gen", append(base, "--out", one)...); code != 0 {
			t.Fatalf("gen %v: exit %d\n%s", rl, code, stderr)
		}
		want, err := os.ReadFile(one)
		if err != nil {
			t.Fatal(err)
		}
		for _, np := range []int{2, 3} {
			path := filepath.Join(dir, fmt.Sprintf("mpi%d.bsn", np))
			stdout, stderr, err := mpiRun(t, mpirun, np, 2*time.Minute, "gen", append(base, "--out", path, "--threads", "1", "--json")...)
			if err != nil {
				t.Fatalf("mpirun -np %d gen %v: %v\n%s", np, rl, err, stderr)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("mpirun -np %d gen %v: the file (%d bytes, %v) differs from one process's (%d bytes)", np, rl, len(got), err, len(want))
			}
			s := lastJSON[genSummary](t, stdout)
			if s.Ranks != np || len(s.BlockEdges) != np || s.PeakRSSMax <= 0 || strings.Count(stdout, "ranks wrote their blocks") != 1 {
				t.Errorf("mpirun -np %d gen %v: JSON ranks %d block_edges %v peak_rss_max %d; want one report by rank 0\n%s", np, rl, s.Ranks, s.BlockEdges, s.PeakRSSMax, stdout)
			}
			var sum int64
			for _, e := range s.BlockEdges {
				sum += e
			}
			if sum != s.Edges {
				t.Errorf("mpirun -np %d gen %v: blocks hold %d edges, the graph %d", np, rl, sum, s.Edges)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
			t.Errorf("temporary files left behind: %v", left)
		}
	}
	// The last graph is relabelled at random: sample it under mpirun.
	g := filepath.Join(dir, "mpi3.bsn")
	want := digestOf(t, singleProcess(t, g))
	for _, fetch := range []string{"pull", "push"} {
		stdout, stderr, err := mpiSample(t, mpirun, 4, append([]string{"--graph", g, "--fetch", fetch}, sampleArgs...)...)
		if err != nil {
			t.Fatalf("mpirun -np 4 sample --fetch %s: %v\n%s", fetch, err, stderr)
		}
		if got := digestOf(t, stdout); got != want {
			t.Errorf("mpirun -np 4 --fetch %s on the relabelled graph: digest %s; want %s", fetch, got, want)
		}
	}
	// .npz under mpirun is refused, naming the flag.
	_, stderr, err := mpiRun(t, mpirun, 2, time.Minute, "gen", "rmat", "--scale", "8", "--out", filepath.Join(dir, "g.npz"))
	if err == nil || !strings.Contains(stderr, "the ranks write the native format") {
		t.Errorf("mpirun gen --out .npz: %v\n%s", err, stderr)
	}
}
