package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// spgemmDistFiles writes the operands of the distributed product tests
// (square: the dataset formats hold graphs; package dist tests rectangular
// shapes): A and B (150 x 150, every third row empty) and G (101 x 101, so
// that no grid cuts it evenly), with float values, so that the order of
// the sums shows in the bits, and returns their paths.
func spgemmDistFiles(t *testing.T) (a, b, g string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 22))
	a = writeMatrix(t, dir, "a.npz", spgemmtest.Random(rng, 150, 150, 0.08, true, false))
	b = writeMatrix(t, dir, "b.npz", spgemmtest.Random(rng, 150, 150, 0.1, true, false))
	g = writeMatrix(t, dir, "g.npz", spgemmtest.Random(rng, 101, 101, 0.06, false, false))
	return a, b, g
}

// spgemmReference runs the single-process product and returns its digest
// and nnz.
func spgemmReference(t *testing.T, args ...string) (string, float64) {
	t.Helper()
	code, out, stderr := runCLI(t, "spgemm", append(args, "--reps", "1", "--digest", "--json")...)
	if code != 0 {
		t.Fatalf("one process %v: exit %d\n%s", args, code, stderr)
	}
	s := lastJSON[map[string]any](t, out)
	if d := digestOf(t, out); d != s["digest"] {
		t.Fatalf("one process: digest line %s, JSON %v", d, s["digest"])
	}
	return s["digest"].(string), s["nnz_out"].(float64)
}

// TestSpGEMMInProcGrids: --grid 2d on 1, 4 and 9 in-process ranks and
// --grid 1.5d on 3 and 4 give the single process's digest and nnz, and
// the blocks of a product travel under the sample phase.
func TestSpGEMMInProcGrids(t *testing.T) {
	a, b, g := spgemmDistFiles(t)
	for _, tc := range []struct {
		p        int
		operands []string
		extra    []string
	}{
		{4, []string{"--a", a, "--b", b}, []string{"--grid", "2d"}},
		{9, []string{"--a", a, "--b", b}, nil}, // 2d is the default
		{1, []string{"--a", g}, []string{"--grid", "2d"}},
		{4, []string{"--a", g, "--select-rows", "40", "--seed", "3"}, []string{"--grid", "2d"}},
		{4, []string{"--a", g, "--select-rows", "40", "--seed", "3"}, []string{"--grid", "1.5d", "--replication", "2"}},
		{3, []string{"--a", g}, []string{"--grid", "1.5d"}},
	} {
		want, nnz := spgemmReference(t, tc.operands...)
		args := append(append([]string{"--inproc-ranks", fmt.Sprint(tc.p), "--reps", "2", "--threads", "2", "--digest", "--json"}, tc.operands...), tc.extra...)
		code, out, stderr := runCLI(t, "spgemm", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("%v: digest %s; want %s (one process)", args, got, want)
		}
		s := lastJSON[spgemmDistSummary](t, out)
		grid := "2d"
		if len(tc.extra) > 1 {
			grid = tc.extra[1]
		}
		if s.Ranks != tc.p || s.Grid != grid || float64(s.NNZOut) != nnz || s.Digest != want || s.Products != 2 || s.Seconds <= 0 || s.BestSeconds > s.Seconds {
			t.Errorf("%v: summary %+v; want %d ranks, grid %s, nnz %v", args, s, tc.p, grid, nnz)
		}
		if tr := s.Traffic["sample"]; (tc.p > 1) != (tr.BytesSent > 0) || tr.BytesSentMax > tr.BytesSent {
			t.Errorf("%v: sample traffic %+v", args, tr)
		}
		// --reps 2: one cold product, the headline the median of the one warm product.
		if !strings.Contains(out, "warm median of 1 products:") {
			t.Errorf("%v: output does not name the warm median of 1 product:\n%s", args, out)
		}
	}
}

func TestSpGEMMDistErrors(t *testing.T) {
	a, _, g := spgemmDistFiles(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--a", g, "--inproc-ranks", "2"}, "2 ranks is not a perfect square"},
		{[]string{"--a", g, "--inproc-ranks", "6", "--grid", "2d"}, "6 ranks is not a perfect square"},
		{[]string{"--a", g, "--grid", "2d"}, "only in a distributed run"},
		{[]string{"--a", g, "--replication", "2"}, "--replication 2: only in a distributed run"},
		{[]string{"--a", g, "--inproc-ranks", "4", "--grid", "3d"}, `--grid "3d"`},
		{[]string{"--a", g, "--inproc-ranks", "4", "--replication", "2"}, "applies to --grid 1.5d"},
		{[]string{"--a", g, "--inproc-ranks", "4", "--grid", "1.5d", "--replication", "3"}, "replication 3 does not divide"},
		{[]string{"--a", g, "--inproc-ranks", "4", "--structure-only"}, "--structure-only: not in a distributed run"},
		{[]string{"--a", a, "--b", g, "--inproc-ranks", "4"}, "inner dimensions differ"},
	} {
		code, _, stderr := runCLI(t, "spgemm", tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSpGEMMDistSelectRowsAboveRows: --select-rows above A's rows is a
// usage error (exit 2) on in-process ranks too, printed once (by rank 0),
// with no rank aborting the others; it exited 1 as a run's failure.
func TestSpGEMMDistSelectRowsAboveRows(t *testing.T) {
	_, _, g := spgemmDistFiles(t)
	for _, grid := range []string{"2d", "1.5d"} {
		code, _, stderr := runCLI(t, "spgemm", "--a", g, "--select-rows", "1000000", "--inproc-ranks", "4", "--grid", grid)
		want := "--select-rows 1000000: want at most the "
		if code != 2 || strings.Count(stderr, want) != 1 || strings.Count(stderr, helpHint("spgemm")) != 1 || strings.Contains(stderr, "rank ") {
			t.Errorf("--grid %s on 4 in-process ranks: exit %d; want 2 and %q with the usage once, no rank's error:\n%s", grid, code, want, stderr)
		}
	}
}

// TestSpGEMMMPI: `mpirun -np 4 bulksample spgemm --grid 2d` (A·B with
// float values) and `--grid 1.5d --replication 2` (Q·G) give
// the single process's digest and nnz.
func TestSpGEMMMPI(t *testing.T) {
	mpirun, _ := mpirunTest(t)
	a, b, g := spgemmDistFiles(t)
	for _, tc := range []struct {
		operands, extra []string
	}{
		{[]string{"--a", a, "--b", b}, []string{"--grid", "2d"}},
		{[]string{"--a", g, "--select-rows", "50"}, []string{"--grid", "1.5d", "--replication", "2"}},
		{[]string{"--a", a, "--b", b}, []string{"--grid", "1.5d"}},
	} {
		want, nnz := spgemmReference(t, tc.operands...)
		args := append(append([]string{"--digest", "--json", "--reps", "2"}, tc.operands...), tc.extra...)
		out, stderr, err := mpiRun(t, mpirun, 4, 2*time.Minute, "spgemm", args...)
		if err != nil {
			t.Fatalf("mpirun -np 4 %v: %v\n%s\n%s", args, err, out, stderr)
		}
		if got := digestOf(t, out); got != want {
			t.Errorf("mpirun -np 4 %v: digest %s; want %s (one process)", args, got, want)
		}
		if s := lastJSON[spgemmDistSummary](t, out); s.Ranks != 4 || float64(s.NNZOut) != nnz || s.Traffic["sample"].BytesSent == 0 {
			t.Errorf("mpirun -np 4 %v: ranks %d, nnz %d (want %v), sample traffic %+v", args, s.Ranks, s.NNZOut, nnz, s.Traffic["sample"])
		}
	}
	// A --select-rows above A's rows: every rank ends normally, the job
	// exits 2 (no MPI_Abort), and rank 0 alone prints the error.
	out, stderr, err := mpiRun(t, mpirun, 3, 2*time.Minute, "spgemm", "--a", g, "--select-rows", "1000000")
	var exit *exec.ExitError
	want := "--select-rows 1000000: want at most the "
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || strings.Count(stderr, want) != 1 || strings.Contains(stderr, "MPI_ABORT") {
		t.Errorf("mpirun -np 3 --select-rows 1000000: %v; want exit status 2 and %q once, no MPI_ABORT\n%s\n%s", err, want, out, stderr)
	}
}
