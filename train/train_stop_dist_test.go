package train

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
)

// opaqueDist hides a featurex.Dist's type, so that the pipeline takes it
// for a store that may share the sampler's communicator and samples on the
// loading goroutine (serial).
type opaqueDist struct{ *featurex.Dist }

// stopRun trains on two in-process ranks with the library's distributed
// sampler and store and the DataParallel reducer, at depth (serial: the
// loading goroutine samples too), up to epochs epochs from the checkpoint
// in dir when resume; when stopRank >= 0, that rank alone closes its
// TrainerOptions.Stop after minibatch stopAfter of epoch stopEpoch. It
// returns every rank's error of Run and parameter hash.
func stopRun(t *testing.T, ds *dataset.Dataset, depth int, serial bool, dir string, epochs int, resume bool, stopRank, stopEpoch, stopAfter int) ([]error, []uint64) {
	t.Helper()
	world, err := dist.NewInProcWorld(2, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(world))
	hashes := make([]uint64, len(world))
	var wg sync.WaitGroup
	for r, w := range world {
		wg.Go(func() {
			ctx := context.Background()
			var setupErr error
			defer func() {
				if setupErr != nil {
					errs[r] = setupErr
					w.Abort(setupErr)
				}
			}()
			grid, err := dist.NewGrid(ctx, w, 1, ds.NumNodes())
			if err != nil {
				setupErr = err
				return
			}
			m, err := dist.Distribute(grid, ds.Adj)
			if err != nil {
				setupErr = err
				return
			}
			s, err := distsample.NewDistNodeWise(m, distsample.FetchPull, sampling.NodeWiseOptions{Fanouts: []int{4, 3}, Seed: 7})
			if err != nil {
				setupErr = err
				return
			}
			fgrid, err := dist.NewGrid(ctx, w, 1, ds.NumNodes())
			if err != nil {
				setupErr = err
				return
			}
			lo, hi := fgrid.MyRows()
			f := ds.NumFeatures
			store, err := featurex.NewDist(ctx, fgrid, ds.Features[int(lo)*f:int(hi)*f], f, featurex.DistOptions{})
			if err != nil {
				setupErr = err
				return
			}
			defer store.Close()
			reduce, err := w.Split(ctx, 0, w.Rank())
			if err != nil {
				setupErr = err
				return
			}
			d := dataOf(t, ds, s)
			d.Features, d.Reducer = store, NewDataParallel(reduce)
			if serial {
				d.Features = opaqueDist{store}
			}
			opt := stopOptions()
			opt.Runtime.PipelineDepth, opt.Plan.Epochs, opt.Checkpoint.Dir, opt.Checkpoint.Resume = depth, epochs, dir, resume
			if r == 0 && stopRank >= 0 {
				// Rank 0 is slow to reach its checkpoint after the
				// stopping step: the other rank must wait for it.
				opt.Hooks.OnMinibatch = func(epoch, done, total int) {
					if epoch == stopEpoch && done == stopAfter+1 {
						time.Sleep(50 * time.Millisecond)
					}
				}
			}
			if r == stopRank {
				stop := make(chan struct{})
				opt.Hooks.Stop = stop
				opt.Hooks.OnMinibatch = func(epoch, done, total int) {
					if epoch == stopEpoch && done == stopAfter {
						close(stop)
					}
				}
			}
			tr, err := NewTrainer(d, opt)
			if err != nil {
				setupErr = err
				return
			}
			if got, _ := tr.PipelineDepth(); got != depth {
				setupErr = fmt.Errorf("depth %d; want %d", got, depth)
				return
			}
			// A rank that returns an error aborts the job, as the CLI's
			// ranks did before the agreed stop: a stop that one rank took
			// alone ends with dist.ErrAborted on the other rank rather
			// than a hang. An agreed stop has made its last collective.
			_, errs[r] = tr.Run(ctx, nil)
			if errs[r] != nil {
				w.Abort(errs[r])
			}
			// Rank 0 has written the checkpoint before any rank returns.
			var st *StoppedError
			if r != 0 && errors.As(errs[r], &st) && st.Checkpoint != "" {
				if ck, err := loadCheckpoint(dir); err != nil || ck == nil || ck.Partial == nil || ck.Partial.Stats.Minibatches != st.Minibatches {
					errs[r] = fmt.Errorf("returned before rank 0 wrote its checkpoint (reading it: %v): %v", err, errs[r])
				}
			}
			hashes[r] = tr.Model().ParamHash()
			if errs[r] == nil && resume {
				// The replicas agree (a collective both ranks reach).
				errs[r] = CheckReplicas(ctx, tr.Model(), w)
			}
		})
	}
	wg.Wait()
	return errs, hashes
}

// TestTrainStopAgreed: a stop requested on rank 1 alone (TrainerOptions.Stop,
// as a signal on one rank of an MPI job) after minibatch 3 of epoch 2 stops
// both ranks after minibatch 4 (the next step's all-reduce carries the
// request), with the pipeline at depth 1 and 2 (the sampler on a goroutine
// of its own, or on the loader's): no rank aborts, every rank's
// *StoppedError names the same step, the checkpoint (rank 0's) holds that
// step's progress and is written before any rank returns (rank 0 dawdles), no goroutine is left, and resuming from it ends with the
// uninterrupted run's parameters, bit for bit.
func TestTrainStopAgreed(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	epochs := stopOptions().Plan.Epochs
	errs, want := stopRun(t, ds, 1, false, "", epochs, false, -1, 0, 0)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("uninterrupted run, rank %d: %v", r, err)
		}
	}
	const stopEpoch, stopAfter = 1, 3 // the request; the stop comes a step later
	for _, tc := range []struct {
		depth  int
		serial bool
	}{{1, false}, {2, false}, {2, true}} {
		t.Run(fmt.Sprintf("depth=%d,serial=%v", tc.depth, tc.serial), func(t *testing.T) {
			before := runtime.NumGoroutine()
			dir := t.TempDir()
			errs, _ := stopRun(t, ds, tc.depth, tc.serial, dir, epochs, false, 1, stopEpoch, stopAfter)
			for r, err := range errs {
				var st *StoppedError
				if !errors.As(err, &st) || !errors.Is(err, ErrStopRequested) {
					t.Fatalf("rank %d: %v; want a *StoppedError wrapping ErrStopRequested", r, err)
				}
				if st.Epoch != stopEpoch || st.Minibatches != stopAfter+1 {
					t.Errorf("rank %d stopped in epoch %d after %d minibatches; want epoch %d after %d", r, st.Epoch+1, st.Minibatches, stopEpoch+1, stopAfter+1)
				}
				if want := filepath.Join(dir, CheckpointFile); st.Checkpoint != want {
					t.Errorf("rank %d: checkpoint %q; want %q", r, st.Checkpoint, want)
				}
			}
			if n := waitGoroutines(before); n > before {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines after the stopped runs, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
			}
			ck, err := loadCheckpoint(dir)
			if err != nil || ck == nil {
				t.Fatalf("checkpoint: %v (%v)", ck, err)
			}
			if ck.EpochsDone != stopEpoch || ck.Partial == nil || ck.Partial.Stats.Minibatches != stopAfter+1 {
				t.Fatalf("the checkpoint holds %d epochs and %+v; want epoch %d's progress after %d minibatches", ck.EpochsDone, ck.Partial, stopEpoch+1, stopAfter+1)
			}
			errs, got := stopRun(t, ds, tc.depth, tc.serial, dir, epochs, true, -1, 0, 0)
			for r, err := range errs {
				if err != nil {
					t.Fatalf("resumed run, rank %d: %v", r, err)
				}
				if got[r] != want[r] {
					t.Errorf("resumed run, rank %d: parameters %016x; the uninterrupted run's %016x", r, got[r], want[r])
				}
			}
		})
	}
}

// TestTrainStopOneProcess: without a reducer, TrainerOptions.Stop stops the
// run after the step during which it was closed, at depth 1 and 2, with the
// checkpoint of that step.
func TestTrainStopOneProcess(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	for _, depth := range []int{1, 2} {
		dir := t.TempDir()
		opt := stopOptions()
		stop := make(chan struct{})
		opt.Runtime.PipelineDepth, opt.Checkpoint.Dir, opt.Hooks.Stop = depth, dir, stop
		opt.Hooks.OnMinibatch = func(epoch, done, total int) {
			if epoch == 1 && done == 3 {
				close(stop)
			}
		}
		tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tr.Run(context.Background(), nil)
		var st *StoppedError
		if !errors.As(err, &st) || !errors.Is(err, ErrStopRequested) || st.Epoch != 1 || st.Minibatches != 4 {
			t.Fatalf("depth %d: %v; want a stop in epoch 2 after 4 minibatches", depth, err)
		}
		if ck, err := loadCheckpoint(dir); err != nil || ck == nil || ck.EpochsDone != 1 || ck.Partial == nil || ck.Partial.Stats.Minibatches != 4 {
			t.Errorf("depth %d: the checkpoint does not hold epoch 2's progress after 4 minibatches (%v)", depth, err)
		}
	}
}
