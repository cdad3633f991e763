package train

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bulksample/bulksample/gnn"
)

// stopOptions are the options of the stop and resume tests: 150 training
// vertices in minibatches of 16 (10 per epoch, the last short) sampled 3 at
// a time, so that stops fall inside bulks, at their ends and at the epoch's
// end.
func stopOptions() TrainerOptions {
	return TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8, Dropout: 0.5}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{WeightDecay: 5e-4}}, Plan: PlanOptions{BatchSize: 16, BulkSize: 3, Epochs: 3}, Seed: 5}
}

// TestStopResumeBitIdentical cancels a run after the k-th minibatch of an
// epoch, for stops inside a bulk, at a bulk's end and after the last
// minibatch (the evaluation is then what is cancelled), and checks that the
// stopped run saved its progress and that resuming it ends exactly as an
// uninterrupted run: weights, optimiser state, losses and accuracies.
func TestStopResumeBitIdentical(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	sampler := nodeWise(t, ds, []int{4, 3}, 7)
	whole, err := NewTrainer(dataOf(t, ds, sampler), stopOptions())
	if err != nil {
		t.Fatal(err)
	}
	want, err := whole.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		epoch, mb int
	}{
		{"inside the first bulk", 0, 1},
		{"inside a bulk", 1, 4},
		{"at a bulk's end", 1, 6},
		{"during the evaluation", 2, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := stopOptions()
			opt.Checkpoint.Dir = t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opt.Hooks.OnMinibatch = func(epoch, done, total int) {
				if epoch == tc.epoch && done == tc.mb {
					cancel()
				}
			}
			first, err := NewTrainer(dataOf(t, ds, sampler), opt)
			if err != nil {
				t.Fatal(err)
			}
			res, err := first.Run(ctx, nil)
			var se *StoppedError
			if !errors.As(err, &se) || !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v; want a StoppedError wrapping context.Canceled", err)
			}
			wantCk := filepath.Join(opt.Checkpoint.Dir, CheckpointFile)
			if se.Epoch != tc.epoch || se.Minibatches != tc.mb || se.Total != 10 || se.Checkpoint != wantCk || len(res.Epochs) != tc.epoch {
				t.Errorf("stopped at %+v with %d epochs done; want epoch %d after %d of 10 minibatches, checkpoint %s",
					se, len(res.Epochs), tc.epoch, tc.mb, wantCk)
			}
			for _, s := range []string{"epoch", "minibatches", wantCk} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			opt.Hooks.OnMinibatch = nil
			opt.Checkpoint.Resume = true
			second, err := NewTrainer(dataOf(t, ds, sampler), opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := second.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSameRun(t, second, got, whole, want)
		})
	}
}

// checkSameRun compares a resumed run with an uninterrupted one bit for bit.
func checkSameRun(t *testing.T, tr *Trainer, got *Result, wantTr *Trainer, want *Result) {
	t.Helper()
	if !slices.Equal(tr.Model().Params(), wantTr.Model().Params()) {
		t.Error("resumed weights differ from the uninterrupted run's")
	}
	if !slices.Equal(tr.adam.M, wantTr.adam.M) || !slices.Equal(tr.adam.V, wantTr.adam.V) || tr.adam.T != wantTr.adam.T {
		t.Error("resumed optimiser state differs from the uninterrupted run's")
	}
	if len(got.Epochs) != len(want.Epochs) {
		t.Fatalf("%d epochs; want %d", len(got.Epochs), len(want.Epochs))
	}
	for e := range got.Epochs {
		g, w := got.Epochs[e], want.Epochs[e]
		if g.Loss != w.Loss || g.TrainAcc != w.TrainAcc || g.ValAcc != w.ValAcc || g.TestAcc != w.TestAcc ||
			g.Minibatches != w.Minibatches || g.SampledEdges != w.SampledEdges {
			t.Errorf("epoch %d: %+v\nuninterrupted %+v", e, g, w)
		}
	}
}

// TestEpochMemoryReported: every epoch records the resident set and the Go
// heap.
func TestEpochMemoryReported(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm on this system")
	}
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	opt := stopOptions()
	opt.Plan.Epochs = 2
	res := train(t, ds, nodeWise(t, ds, []int{4, 3}, 7), opt)
	for _, st := range res.Epochs {
		// The heap may exceed the resident set: HeapAlloc counts allocated
		// pages that were never touched (large zeroed buffers of earlier
		// tests in this process), so the two are checked separately.
		if st.RSSBytes < 1<<20 || st.HeapBytes <= 0 {
			t.Errorf("epoch %d: RSS %d bytes, heap %d bytes; want a resident set of at least 1 MiB and a positive heap", st.Epoch, st.RSSBytes, st.HeapBytes)
		}
	}
}

// TestCheckpointUnwritable: a checkpoint directory that cannot be made (a
// path under a regular file fails for root too) is an error naming the
// checkpoint's path.
func TestCheckpointUnwritable(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opt := stopOptions()
	opt.Plan.Epochs = 1
	opt.Checkpoint.Dir = filepath.Join(file, "ck")
	tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Run(context.Background(), nil)
	if want := filepath.Join(opt.Checkpoint.Dir, CheckpointFile); err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("err = %v; want ENOTDIR naming %s", err, want)
	}
}

// fsizeHelperEnv makes the test binary, re-executed by
// TestCheckpointFileSizeLimit, run one more epoch under a file-size limit.
const fsizeHelperEnv = "BULKSAMPLE_GNN_FSIZE_HELPER"

// TestCheckpointFileSizeLimit writes a checkpoint, then resumes the run in a
// subprocess whose RLIMIT_FSIZE is below the checkpoint's size (a full disk
// as far as the process can tell; it applies to root too). The save must
// fail with an error naming the checkpoint, remove its temporary file and
// leave the previous checkpoint byte for byte, loadable.
func TestCheckpointFileSizeLimit(t *testing.T) {
	if dir := os.Getenv(fsizeHelperEnv); dir != "" {
		fsizeHelper(t, dir)
		return
	}
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	opt := stopOptions()
	opt.Plan.Epochs = 1
	opt.Checkpoint.Dir = t.TempDir()
	train(t, ds, nodeWise(t, ds, []int{4, 3}, 7), opt)
	path := filepath.Join(opt.Checkpoint.Dir, CheckpointFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckpointFileSizeLimit$", "-test.v")
	cmd.Env = append(os.Environ(), fsizeHelperEnv+"="+opt.Checkpoint.Dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("HELPER-SAVE-FAILED")) {
		t.Fatalf("the helper's save did not fail:\n%s", out)
	}
	if !bytes.Contains(out, []byte(path)) || !bytes.Contains(out, []byte("file too large")) {
		t.Errorf("the error does not name %s and the cause:\n%s", path, out)
	}
	entries, _ := os.ReadDir(opt.Checkpoint.Dir)
	if len(entries) != 1 {
		t.Errorf("checkpoint directory holds %v; want only %s", entries, CheckpointFile)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("previous checkpoint changed (%v)", err)
	}
	opt.Checkpoint.Resume = true
	tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := tr.Run(context.Background(), nil); err != nil || res.ResumedFrom != 1 {
		t.Errorf("previous checkpoint does not load: resumed from %d, %v", res.ResumedFrom, err)
	}
}

// fsizeHelper runs in the subprocess: it limits the size of the files it
// may write to half the checkpoint's, then runs a second epoch.
func fsizeHelper(t *testing.T, dir string) {
	st, err := os.Stat(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	lim := uint64(st.Size() / 2)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		t.Fatal(err)
	}
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	opt := stopOptions()
	opt.Plan.Epochs, opt.Checkpoint.Dir, opt.Checkpoint.Resume = 2, dir, true
	tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), nil); err != nil {
		t.Logf("HELPER-SAVE-FAILED: %v", err)
	}
}
