package train

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
)

// agree is a collective on c: every rank contributes tag, and agree
// returns an error unless all ranks gave the same one, which is what a
// rank that issues its collectives in another order than the others would
// see.
func agree(ctx context.Context, c dist.Comm, tag ...int64) error {
	all := make([]int64, len(tag)*c.Size())
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = len(tag)
	}
	if err := c.Allgatherv(ctx, dist.PhaseControl, tag, all, counts); err != nil {
		return err
	}
	for r := range c.Size() {
		if got := all[r*len(tag) : (r+1)*len(tag)]; !slices.Equal(got, tag) {
			return fmt.Errorf("rank %d issued collective %v while rank %d issued %v", c.Rank(), tag, r, got)
		}
	}
	return nil
}

// commSampler and commStore make a collective on a shared communicator
// before each bulk and each gather, as distsample.DistNodeWise and
// featurex.Dist do on the grid's process column; commReducer averages the
// gradients over its own communicator, as data-parallel training does.
type commSampler struct {
	sampling.Sampler
	comm dist.Comm
}

func (s *commSampler) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	if err := agree(ctx, s.comm, 1, int64(epoch), int64(first)); err != nil {
		return nil, err
	}
	return s.Sampler.SampleBulk(ctx, epoch, first, seeds)
}

type commStore struct {
	*featurex.Local
	comm dist.Comm
}

func (s *commStore) Gather(ctx context.Context, dst []float32, ids []int32) error {
	if err := agree(ctx, s.comm, 2, int64(len(ids)), int64(ids[0])); err != nil {
		return err
	}
	return s.Local.Gather(ctx, dst, ids)
}

type commReducer struct{ comm dist.Comm }

// The test components say which communicator they call (CommUser), as the
// library's distributed ones do.
func (s *commSampler) Comm() dist.Comm { return s.comm }
func (s *commStore) Comm() dist.Comm   { return s.comm }
func (r *commReducer) Comm() dist.Comm { return r.comm }

var (
	_ CommUser = (*distsample.DistNodeWise)(nil)
	_ CommUser = (*distsample.DistLayerWise)(nil)
	_ CommUser = (*featurex.Dist)(nil)
	_ CommUser = (*commSampler)(nil)
	_ CommUser = (*commStore)(nil)
	_ CommUser = (*commReducer)(nil)
)

// serialComm is a communicator that may not be called beside another
// (dist.ConcurrentComms reports false for a Comm of another
// implementation), as under an MPI without MPI_THREAD_MULTIPLE.
type serialComm struct{ dist.Comm }

// TestEffectiveDepth: the pipeline stays at the depth asked unless two
// components communicate and one of them may not be called beside another.
func TestEffectiveDepth(t *testing.T) {
	world, err := dist.NewInProcWorld(1, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conc, serial := world[0], serialComm{world[0]}
	sampler := func(c dist.Comm) sampling.Sampler { return &commSampler{comm: c} }
	store := func(c dist.Comm) featurex.Store { return &commStore{comm: c} }
	reducer := func(c dist.Comm) GradReducer { return &commReducer{comm: c} }
	for _, tt := range []struct {
		name      string
		d         Data
		asked     int
		want      int
		wantWhich string // the components the reason names
	}{
		{"no communication", Data{}, 2, 2, ""},
		{"concurrent", Data{Sampler: sampler(conc), Features: store(conc), Reducer: reducer(conc)}, 2, 2, ""},
		{"serial reducer alone", Data{Reducer: reducer(serial)}, 2, 2, ""},
		{"serial reducer", Data{Sampler: sampler(conc), Reducer: reducer(serial)}, 2, 1, "of the Reducer "},
		{"serial sampler and store", Data{Sampler: sampler(serial), Features: store(serial), Reducer: reducer(conc)}, 2, 1, "of the Sampler and the Features "},
		{"serial, depth 1 asked", Data{Sampler: sampler(serial), Reducer: reducer(serial)}, 1, 1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, why := effectiveDepth(&tt.d, tt.asked)
			if got != tt.want {
				t.Errorf("depth %d; want %d (reason %q)", got, tt.want, why)
			}
			if (why == "") != (tt.wantWhich == "") || !strings.Contains(why, tt.wantWhich) {
				t.Errorf("reason %q; want one naming %q", why, tt.wantWhich)
			}
		})
	}
}

func (r *commReducer) Reduce(ctx context.Context, grads []float32, m *StepMetrics) error {
	if err := r.comm.Allreduce(ctx, dist.PhaseGradients, dist.OpSum, grads); err != nil {
		return err
	}
	// Every rank has the same gradients: the sum of two is exact, and so
	// is halving it.
	for i := range grads {
		grads[i] /= float32(r.comm.Size())
	}
	return nil
}

// failingCommReducer fails its failAt-th reduction (0: never).
type failingCommReducer struct {
	commReducer
	calls, failAt int
}

func (r *failingCommReducer) Reduce(ctx context.Context, grads []float32, m *StepMetrics) error {
	if r.calls++; r.calls == r.failAt {
		return fmt.Errorf("injected failure on rank %d", r.comm.Rank())
	}
	return r.commReducer.Reduce(ctx, grads, m)
}

// runRanks trains on p in-process ranks whose sampler and feature store
// make collectives on one shared communicator and whose reducer
// all-reduces on another, at the same time as the loading goroutine; rank
// 0's reducer fails its failAt-th reduction (0: never). A rank whose run
// fails aborts the job, as the CLI does. It returns each rank's weights
// hash and error.
func runRanks(t *testing.T, p, failAt int, opt TrainerOptions) ([]uint64, []error) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	world, err := dist.NewInProcWorld(p, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, p)
	hashes := make([]uint64, p)
	for r, w := range world {
		wg.Go(func() {
			defer func() {
				if errs[r] != nil {
					w.Abort(errs[r])
				}
			}()
			ctx := context.Background()
			load, err := w.Split(ctx, 0, r)
			if err != nil {
				errs[r] = err
				return
			}
			reduce, err := w.Split(ctx, 0, r)
			if err != nil {
				errs[r] = err
				return
			}
			d := dataOf(t, ds, &commSampler{Sampler: nodeWise(t, ds, []int{4, 3}, 7), comm: load})
			d.Features = &commStore{Local: d.Features.(*featurex.Local), comm: load}
			red := &failingCommReducer{commReducer: commReducer{comm: reduce}}
			if r == 0 {
				red.failAt = failAt
			}
			d.Reducer = red
			tr, err := NewTrainer(d, opt)
			if err != nil {
				errs[r] = err
				return
			}
			if _, errs[r] = tr.Run(ctx, nil); errs[r] == nil {
				hashes[r] = paramsHash(tr.Model().Params())
			}
		})
	}
	wg.Wait()
	return hashes, errs
}

// TestPipelineCollectives: on two in-process ranks, every collective of
// the loading goroutine (on the shared communicator) meets its peer while
// the training goroutine all-reduces on its own (agree checks the order),
// and since both ranks train the same minibatches their weights are those
// of one process without the pipeline, bit for bit. A failure of rank 0's
// reducer ends both ranks' runs with an error (rank 0 aborts the job) and
// no goroutine left.
func TestPipelineCollectives(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	opt := stopOptions()
	opt.Runtime.PipelineDepth = 1
	wantTr, _ := runWith(t, dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
	want := paramsHash(wantTr.Model().Params())
	opt.Runtime.PipelineDepth = 2
	hashes, errs := runRanks(t, 2, 0, opt)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		if hashes[r] != want {
			t.Errorf("rank %d: weights hash %x; one process without the pipeline %x", r, hashes[r], want)
		}
	}

	before := runtime.NumGoroutine()
	_, errs = runRanks(t, 2, 14, opt)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "injected failure on rank 0") {
		t.Errorf("rank 0: %v; want the injected failure", errs[0])
	}
	if !errors.Is(errs[1], dist.ErrAborted) {
		t.Errorf("rank 1: %v; want dist.ErrAborted", errs[1])
	}
	if n := waitGoroutines(before); n > before {
		t.Errorf("%d goroutines after the failed runs, %d before", n, before)
	}
}

// TestPipelineDistComponents trains on two in-process ranks with the
// library's distributed components: distsample.DistNodeWise on the grid's
// process column and featurex.Dist on its own copy of it, each on a
// goroutine of its own, beside the reducer's all-reduce on a third
// communicator. Every rank samples the same global minibatches, which the
// distributed sampler draws exactly as the local one, so the weights must
// be those of one process without the pipeline, bit for bit.
//
// With the reducer's communicator one that may not be called beside
// another (serialComm), NewTrainer runs at depth 1, says why, and gives the
// same weights.
func TestPipelineDistComponents(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	// SAGE reads no degrees, which the local sampler adds and the
	// distributed one does not: the samples are the same.
	nw := sampling.NodeWiseOptions{Fanouts: []int{4, 3}, Seed: 7}
	opt := stopOptions()
	opt.Runtime.PipelineDepth = 1
	wantTr, _ := runWith(t, dataOf(t, ds, nodeWise(t, ds, nw.Fanouts, nw.Seed)), opt)
	want := paramsHash(wantTr.Model().Params())

	for _, serial := range []bool{false, true} {
		t.Run(fmt.Sprintf("serial=%v", serial), func(t *testing.T) {
			distComponents(t, ds, nw, opt, serial, want)
		})
	}
}

// distComponents trains on two in-process ranks with the distributed
// sampler and store, the reducer's communicator wrapped in serialComm when
// serial, and checks the depth run at and the weights against want.
func distComponents(t *testing.T, ds *dataset.Dataset, nw sampling.NodeWiseOptions, opt TrainerOptions, serial bool, want uint64) {
	wantDepth, wantWhy := 2, ""
	if serial {
		wantDepth, wantWhy = 1, "the communicator of the Reducer may not be called beside another component's"
	}
	onRanks(t, 2, func(w dist.Comm) error {
		ctx := context.Background()
		grid, err := dist.NewGrid(ctx, w, 1, ds.NumNodes())
		if err != nil {
			return err
		}
		m, err := dist.Distribute(grid, ds.Adj)
		if err != nil {
			return err
		}
		s, err := distsample.NewDistNodeWise(m, distsample.FetchPull, nw)
		if err != nil {
			return err
		}
		lo, hi := grid.MyRows()
		f := ds.NumFeatures
		store, err := featurex.NewDist(ctx, grid, ds.Features[int(lo)*f:int(hi)*f], f, featurex.DistOptions{})
		if err != nil {
			return err
		}
		defer store.Close()
		reduce, err := w.Split(ctx, 0, w.Rank())
		if err != nil {
			return err
		}
		if serial {
			reduce = serialComm{reduce}
		}
		d := dataOf(t, ds, s)
		d.Features, d.Reducer = store, &commReducer{comm: reduce}
		o := opt
		o.Runtime.PipelineDepth = 2
		tr, err := NewTrainer(d, o)
		if err != nil {
			return err
		}
		if !ownComm(d.Features) {
			return errors.New("featurex.Dist does not get a loading goroutine of its own")
		}
		res, err := tr.Run(ctx, nil)
		if err != nil {
			return err
		}
		if h := paramsHash(tr.Model().Params()); h != want {
			return fmt.Errorf("weights hash %x; one process without the pipeline %x", h, want)
		}
		if res.PipelineDepth != wantDepth || (res.PipelineReason == "") != (wantWhy == "") || !strings.Contains(res.PipelineReason, wantWhy) {
			return fmt.Errorf("depth %d (reason %q); want %d (reason containing %q)", res.PipelineDepth, res.PipelineReason, wantDepth, wantWhy)
		}
		return nil
	})
}
