package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/internal/atomicfile"
)

// waitFor polls cond every millisecond for at most 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}

// killedWrite starts a write of R-MAT scale 12 into dir/g.bsn by 2 fake
// ranks, rank 1 dying (blocking until the job is aborted, as a killed
// process never comes back) before it writes its piece of data, after
// those of indptr and indices: the values of its rows are never written,
// as when the rank was killed. It returns the world, rank 0's
// context's cancel, and a wait for both ranks' errors, once rank 0 waits
// for rank 1 in the collective after its own pieces.
func killedWrite(t *testing.T, dir string) (w *fakeWorld, cancel0 context.CancelFunc, wait func() []error) {
	t.Helper()
	ranks := newFakeWorld(2)
	w = ranks[0].(fakeRank).w
	died := make(chan struct{})
	ctx0, cancel0 := context.WithCancel(context.Background())
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		ctx := context.Background()
		if r == 0 {
			ctx = ctx0
		}
		wg.Go(func() {
			f, err := GenerateRMATFile(ctx, RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 3, Threads: 1}, RelabelOptions{}, ranks[r])
			if err != nil {
				errs[r] = err
				return
			}
			if r == 1 {
				f.beforePiece = func(array string) error {
					if array != "data" {
						return nil
					}
					close(died)
					return w.dead()
				}
			}
			errs[r] = f.Write(ctx, filepath.Join(dir, "g.bsn"), "g")
		})
	}
	select {
	case <-died:
	case <-time.After(20 * time.Second):
		t.Fatal("rank 1 did not reach its data piece within 20 s")
	}
	// Rank 0 has written its pieces and waits for rank 1's word.
	waitFor(t, "rank 0 waiting", func() bool { return w.waiting() == 1 })
	return w, cancel0, func() []error { wg.Wait(); return errs }
}

// temporaries returns the temporary files of g.bsn in dir.
func temporaries(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, ".g.bsn.tmp*"))
	return m
}

// TestRMATFileKilledRank: a rank killed while the ranks write one file
// leaves a temporary file that is not marked complete (a rank's values
// were never written): Detect and every native reader refuse it, naming
// the file, where it passed `info` (the whole graph printed) and `sample`
// ran on it. The job's abort then makes rank 0 remove it and write
// nothing under the output's name; a temporary that a dead writer left is
// removed by the next write, and one that a live writer holds is not.
func TestRMATFileKilledRank(t *testing.T) {
	dir := t.TempDir()
	w, _, wait := killedWrite(t, dir)
	tmps := temporaries(dir)
	if len(tmps) != 1 {
		w.abort(errors.New("test ends"))
		wait()
		t.Fatalf("temporaries %v; want one", tmps)
	}
	// What a kill -9 of the whole job leaves: a copy of it as it is now.
	b, err := os.ReadFile(tmps[0])
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, ".g.bsn.tmp42")
	if err := os.WriteFile(partial, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w.abort(errors.New("rank 1 killed"))
	for r, err := range wait() {
		if err == nil {
			t.Errorf("rank %d: no error after the abort", r)
		}
	}
	if got := temporaries(dir); len(got) != 1 || got[0] != partial {
		t.Errorf("after the abort the folder holds the temporaries %v; want only the copy %s", got, partial)
	}
	if _, err := os.Stat(filepath.Join(dir, "g.bsn")); err == nil {
		t.Error("the output was written")
	}
	for _, read := range []struct {
		name string
		err  func() error
	}{
		{"Detect", func() error { _, err := Detect(partial); return err }},
		{"Load", func() error { _, err := Load(partial, &LoadOptions{Verify: VerifyNone}); return err }},
		{"decodeNative", func() error { _, err := decodeNative(partial, b, VerifyNone, 1, nil); return err }},
		{"LoadRowBlock", func() error {
			_, _, err := LoadRowBlock(context.Background(), partial, func(n int) (int, int) { return 0, n }, nil)
			return err
		}},
	} {
		if err := read.err(); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), partial+": dataset: bad input: an unfinished native file") {
			t.Errorf("%s of the partial file: %v; want it refused as unfinished, naming it", read.name, err)
		}
	}
	// A live writer's temporary (locked) is spared; the dead one's goes.
	live, _, err := atomicfile.CreateTemp(dir, "g.bsn")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	writeRMATRanks(t, RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 3, Threads: 1}, RelabelOptions{}, 2, filepath.Join(dir, "g.bsn"), "g")
	if got := temporaries(dir); len(got) != 1 || got[0] != live.Name() {
		t.Errorf("after the next write the temporaries are %v; want only the live writer's %s", got, live.Name())
	}
	d, err := Load(filepath.Join(dir, "g.bsn"), &LoadOptions{Verify: VerifyChecksums})
	if err != nil {
		t.Fatalf("the next write's file: %v", err)
	}
	d.Close()
}

// TestRMATFileSignalRemovesTemporary: a signal (ctx cancelled) to a rank
// that waits in a collective for a dead rank removes the temporary file at
// once, though the collective goes on waiting: a SIGTERM from mpirun or
// scancel left the full-size temporary behind (525 MB at scale 21).
func TestRMATFileSignalRemovesTemporary(t *testing.T) {
	dir := t.TempDir()
	w, cancel0, wait := killedWrite(t, dir)
	if len(temporaries(dir)) != 1 {
		w.abort(errors.New("test ends"))
		wait()
		t.Fatal("no temporary file while the ranks write")
	}
	cancel0()
	waitFor(t, "the temporary removed after the signal", func() bool { return len(temporaries(dir)) == 0 })
	if w.waiting() != 1 {
		t.Error("rank 0 is no longer in the collective: the removal did not happen while it waited")
	}
	w.abort(errors.New("job ends"))
	wait()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}
