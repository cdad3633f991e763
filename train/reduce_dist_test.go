package train

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
)

// onRanks runs f on p in-process ranks and fails the test with the first
// rank's error; a failing rank aborts the others.
func onRanks(t *testing.T, p int, f func(c dist.Comm) error) {
	t.Helper()
	world, err := dist.NewInProcWorld(p, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	onRanksWorld(t, world, f)
}

// onRanksWorld is onRanks on the ranks of world.
func onRanksWorld(t *testing.T, world []dist.Comm, f func(c dist.Comm) error) {
	t.Helper()
	p := len(world)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			if errs[r] = f(c); errs[r] != nil {
				c.Abort(errs[r])
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d of %d: %v", r, p, err)
		}
	}
}

// minibatchGrads returns the gradient of the mean loss of the minibatch of
// seeds (global index 0 of epoch 0) and its metrics, for model m.
func minibatchGrads(ctx context.Context, m *gnn.Model, s sampling.Sampler, ds *dataset.Dataset, seeds []int32) ([]float32, StepMetrics, error) {
	b, err := s.SampleBulk(ctx, 0, 0, [][]int32{seeds})
	if err != nil {
		return nil, StepMetrics{}, err
	}
	if len(seeds) == 0 {
		return make([]float32, len(m.Params())), StepMetrics{}, nil
	}
	mb := b.Minibatch(0)
	in := mb.InputNodes()
	x := make([]float32, len(in)*ds.NumFeatures)
	for i, v := range in {
		copy(x[i*ds.NumFeatures:], ds.Features[int(v)*ds.NumFeatures:int(v+1)*ds.NumFeatures])
	}
	labels := make([]int32, len(mb.Seeds))
	featurex.Labels(labels, ds.Labels, mb.Seeds)
	logits := m.Forward(&mb, x, gnn.Pass{Train: true})
	d := make([]float32, len(logits))
	loss, correct, labelled := gnn.CrossEntropy(d, logits, ds.NumClasses, labels)
	m.Backward(d)
	return append([]float32(nil), m.Grads()...), StepMetrics{LossSum: loss * float64(labelled), Correct: int64(correct), Labelled: int64(labelled)}, nil
}

// maxRelDiff returns max |got-want| / max |want|.
func maxRelDiff(got, want []float32) float64 {
	var d, scale float64
	for i := range want {
		d = max(d, math.Abs(float64(got[i]-want[i])))
		scale = max(scale, math.Abs(float64(want[i])))
	}
	return d / scale
}

// TestDataParallelGradient: on p in {1, 2, 4} in-process ranks, each
// computing the mean-loss gradient of its part of one global minibatch of
// 37 seeds (parts of 9 and 10), DataParallel.Reduce gives every rank the
// single-process gradient of the whole minibatch, and the summed metrics.
// Tolerance: 1e-5 of the largest gradient (float32 sums in another order;
// the mean of the parts' means, unweighted, is off by 1e-2).
func TestDataParallelGradient(t *testing.T) {
	ds := smallGraph(t, 200, 4, 8, 12, 0.8, 0.5, 2)
	seeds := ds.Train[:37]
	mopt := gnn.ModelOptions{Arch: gnn.SAGE, Layers: 2, Hidden: 16, InFeatures: ds.NumFeatures, Classes: ds.NumClasses, Seed: 3}
	ctx := context.Background()
	m, err := gnn.NewModel(mopt)
	if err != nil {
		t.Fatal(err)
	}
	want, wantM, err := minibatchGrads(ctx, m, nodeWise(t, ds, []int{4, 3}, 5), ds, seeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{1, 2, 4} {
		onRanks(t, p, func(c dist.Comm) error {
			m, err := gnn.NewModel(mopt)
			if err != nil {
				return err
			}
			dp := NewDataParallel(c)
			g, sm, err := minibatchGrads(ctx, m, nodeWise(t, ds, []int{4, 3}, 5), ds, dp.Shard(seeds))
			if err != nil {
				return err
			}
			if err := dp.Reduce(ctx, g, &sm); err != nil {
				return err
			}
			if d := maxRelDiff(g, want); !(d <= 1e-5) {
				return fmt.Errorf("p=%d: all-reduced gradient differs from the single-process one by %.3g of its largest element; want <= 1e-5", p, d)
			}
			if sm.Labelled != wantM.Labelled || sm.Correct != wantM.Correct || math.Abs(sm.LossSum-wantM.LossSum) > 1e-4*wantM.LossSum {
				return fmt.Errorf("p=%d: metrics %+v; want %+v", p, sm, wantM)
			}
			if st := c.Stats(); p > 1 && st.Messages[dist.PhaseGradients] != int64(p-1) {
				return fmt.Errorf("p=%d: %d gradient messages; want one all-reduce (%d messages)", p, st.Messages[dist.PhaseGradients], p-1)
			}
			return nil
		})
	}
}

// TestDataParallelEpoch trains two epochs on p in-process ranks and on one
// process with the same global batch: 50 training vertices in minibatches
// of 16, so that the last minibatch (2 seeds) leaves ranks 0 and 2 of 4
// with zero-weight steps. Every rank's parameter hash must be equal after
// every step, and without dropout the final parameters must equal the
// single-process run's to 1e-5 of the largest parameter (float32 sums in
// another order, through 8 Adam steps; measured: 1e-7). Samplers: node-wise on each rank's
// copy of the graph, and the distributed one (pull and push) on row blocks,
// with GCN's graph degrees from the owners.
func TestDataParallelEpoch(t *testing.T) {
	ds := smallGraph(t, 240, 4, 8, 12, 0.8, 0.5, 3)
	ds.Train = ds.Train[:50]
	base := TrainerOptions{Model: ModelOptions{Hidden: 16}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01, WeightDecay: 5e-4}}, Plan: PlanOptions{BatchSize: 16, BulkSize: 3, Epochs: 2}, Seed: 4, Runtime: RuntimeOptions{NoEval: true}}
	nwOpt := sampling.NodeWiseOptions{Fanouts: []int{4, 3}, Seed: 5, Degrees: true}
	for _, tc := range []struct {
		arch    gnn.Arch
		p, c    int
		sampler string // local, pull or push
		dropout float32
	}{
		{gnn.SAGE, 1, 1, "local", 0},
		{gnn.SAGE, 2, 1, "local", 0},
		{gnn.GCN, 4, 2, "pull", 0},
		{gnn.SAGE, 4, 1, "push", 0},
		{gnn.SAGE, 4, 1, "pull", 0.5}, // masks differ from one process's: hashes only
	} {
		name := fmt.Sprintf("%v/p=%d/c=%d/%s/dropout=%g", tc.arch, tc.p, tc.c, tc.sampler, tc.dropout)
		opt := base
		opt.Model.Arch, opt.Model.Dropout = tc.arch, tc.dropout
		one, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, nwOpt.Fanouts, nwOpt.Seed)), opt)
		if err != nil {
			t.Fatal(err)
		}
		want, err := one.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		hashes := make([][]uint64, tc.p)
		params := make([][]float32, tc.p)
		results := make([]*Result, tc.p)
		onRanks(t, tc.p, func(c dist.Comm) error {
			ctx := context.Background()
			s := nodeWise(t, ds, nwOpt.Fanouts, nwOpt.Seed)
			if tc.sampler != "local" {
				g, err := dist.NewGrid(ctx, c, tc.c, ds.NumNodes())
				if err != nil {
					return err
				}
				defer g.Close()
				m, err := dist.Distribute(g, ds.Adj)
				if err != nil {
					return err
				}
				mode, _ := distsample.ParseFetchMode(tc.sampler)
				if s, err = distsample.NewDistNodeWise(m, mode, nwOpt); err != nil {
					return err
				}
			}
			d := dataOf(t, ds, s)
			d.Reducer = NewDataParallel(c)
			o := opt
			var tr *Trainer
			o.Hooks.OnMinibatch = func(epoch, done, total int) {
				hashes[c.Rank()] = append(hashes[c.Rank()], tr.Model().ParamHash())
			}
			tr, err := NewTrainer(d, o)
			if err != nil {
				return err
			}
			res, err := tr.Run(ctx, nil)
			if err != nil {
				return err
			}
			results[c.Rank()], params[c.Rank()] = res, tr.Model().Params()
			return CheckReplicas(ctx, tr.Model(), c)
		})
		steps := 2 * 4
		for r := range tc.p {
			if len(hashes[r]) != steps {
				t.Fatalf("%s: rank %d took %d steps; want %d (every rank the same number)", name, r, len(hashes[r]), steps)
			}
			for i, h := range hashes[r] {
				if h != hashes[0][i] {
					t.Fatalf("%s: after step %d rank %d's parameter hash %016x differs from rank 0's %016x", name, i+1, r, h, hashes[0][i])
				}
			}
		}
		for i, st := range results[0].Epochs {
			if w := want.Epochs[i]; st.Minibatches != w.Minibatches || (tc.dropout == 0 && math.Abs(st.Loss-w.Loss) > 1e-4*w.Loss) {
				t.Errorf("%s: epoch %d: %d minibatches, loss %.6f; want %d, %.6f (one process)", name, i, st.Minibatches, st.Loss, w.Minibatches, w.Loss)
			}
		}
		d := maxRelDiff(params[0], one.Model().Params())
		t.Logf("%s: parameters differ from one process's by %.3g of the largest", name, d)
		if tc.dropout == 0 && !(d <= 1e-5) {
			t.Errorf("%s: parameters differ from the single-process run's by %.3g of the largest; want <= 1e-5", name, d)
		}
	}
}

// TestDataParallelCheckpoint: on 2 in-process ranks, rank 0 alone writes
// the checkpoint; a run stopped after one epoch and resumed (every rank
// reading rank 0's checkpoint) ends bit for bit as the uninterrupted run;
// resuming on 4 ranks, or on one process, is an error naming both counts.
func TestDataParallelCheckpoint(t *testing.T) {
	ds := smallGraph(t, 200, 3, 6, 8, 0.8, 0.5, 6)
	ds.Train = ds.Train[:45]
	opt := stopOptions()
	run := func(p int, dir string, epochs int, resume bool) ([][]float32, []error) {
		params := make([][]float32, p)
		errs := make([]error, p)
		world, err := dist.NewInProcWorld(p, dist.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for r, c := range world {
			wg.Go(func() {
				d := dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7))
				d.Reducer = NewDataParallel(c)
				o := opt
				o.Plan.Epochs, o.Checkpoint.Resume = epochs, resume
				if dir != "" {
					o.Checkpoint.Dir = dir
				}
				tr, err := NewTrainer(d, o)
				if err == nil {
					_, err = tr.Run(context.Background(), nil)
				}
				if errs[r] = err; err != nil {
					c.Abort(err)
					return
				}
				params[r] = tr.Model().Params()
			})
		}
		wg.Wait()
		return params, errs
	}
	want, errs := run(2, "", 3, false)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if _, errs := run(2, dir, 1, false); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	got, errs := run(2, dir, 3, true)
	for r := range 2 {
		if errs[r] != nil {
			t.Fatalf("resume, rank %d: %v", r, errs[r])
		}
		if maxRelDiff(got[r], want[r]) != 0 {
			t.Errorf("rank %d: resumed run's parameters differ from the uninterrupted run's", r)
		}
	}
	_, errs = run(4, dir, 3, true)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "2 rank(s); this run has 4") {
		t.Errorf("resume on 4 ranks of a 2-rank checkpoint: %v; want an error naming 2 and 4", errs[0])
	}
	d := dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7))
	o := opt
	o.Checkpoint.Dir, o.Checkpoint.Resume = dir, true
	tr, err := NewTrainer(d, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "2 rank(s); this run has 1") {
		t.Errorf("resume on one process of a 2-rank checkpoint: %v; want an error naming 2 and 1", err)
	}
	// Rank 1 writes nothing: give it a directory of its own.
	dirs := []string{t.TempDir(), t.TempDir()}
	world, err := dist.NewInProcWorld(2, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	onRanksWorld(t, world, func(c dist.Comm) error {
		d := dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7))
		d.Reducer = NewDataParallel(c)
		o := opt
		o.Plan.Epochs, o.Checkpoint.Dir = 1, dirs[c.Rank()]
		tr, err := NewTrainer(d, o)
		if err != nil {
			return err
		}
		_, err = tr.Run(context.Background(), nil)
		return err
	})
	for r, want := range []bool{true, false} {
		_, err := os.Stat(filepath.Join(dirs[r], CheckpointFile))
		if got := err == nil; got != want {
			t.Errorf("rank %d wrote a checkpoint: %v; want %v", r, got, want)
		}
	}
}

// sameMeasures reports whether a and b hold the same figures, NaN equal
// to NaN.
func sameMeasures(a, b []gnn.Measures) bool {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return slices.EqualFunc(a, b, func(x, y gnn.Measures) bool {
		return same(x.Accuracy, y.Accuracy) && same(x.MacroF1, y.MacroF1) && same(x.AUC, y.AUC) && x.Counted == y.Counted
	})
}

// TestRootEvaluator: every rank gets the root's full-neighbour measures
// (of 2 classes, the AUC included); when the root's evaluation fails,
// every rank returns an error.
func TestRootEvaluator(t *testing.T) {
	ds := smallGraph(t, 150, 2, 6, 8, 0.8, 0.5, 8)
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: 2, Hidden: 8, InFeatures: ds.NumFeatures, Classes: ds.NumClasses, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	full := &FullNeighbour{Adj: ds.Adj, Features: ds.Features}
	want, err := full.Evaluate(context.Background(), m, ds.Labels, ds.Valid, ds.Test)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []bool{false, true} {
		errs := make([]error, 3)
		onRanks(t, 3, func(c dist.Comm) error {
			e := &RootEvaluator{Comm: c, Root: 1, Vertices: ds.NumNodes()}
			if c.Rank() == 1 {
				e.Eval = full
				if bad {
					e.Eval = &FullNeighbour{Adj: ds.Adj, Features: ds.Features[:8]}
				}
			}
			acc, err := e.Evaluate(context.Background(), m, ds.Labels, ds.Valid, ds.Test)
			if errs[c.Rank()] = err; err == nil && !sameMeasures(acc, want) {
				return fmt.Errorf("rank %d: measures %v; want the root's %v", c.Rank(), acc, want)
			}
			return nil
		})
		for r, err := range errs {
			if (err != nil) != bad {
				t.Errorf("root evaluation failing %v: rank %d: error %v", bad, r, err)
			}
		}
	}
}

// TestBlockEvaluator: on p in {1, 2, 4} in-process ranks with c in {1, 2},
// every rank inferring its row block (features from a featurex.Dist, hidden
// rows from the ranks that computed them) gives the measures of
// full-neighbour inference on the whole graph, for 3-layer SAGE and GCN
// with the graph's degrees, on 4 classes and on 2 (whose AUC gathers the
// ranks' scores). Bound: one vertex of a set may flip (float32 products on
// blocks of other shapes; measured: none), which moves the accuracy by
// 1/|set| and the AUC by at most 1/|set| too; macro-F1 moves more and is
// held to 3/|set|.
func TestBlockEvaluator(t *testing.T) {
	for _, classes := range []int{4, 2} {
		testBlockEvaluator(t, classes)
	}
}

func testBlockEvaluator(t *testing.T, classes int) {
	ds := smallGraph(t, 300, classes, 8, 12, 0.8, 0.5, 9)
	for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN} {
		m, err := gnn.NewModel(gnn.ModelOptions{Arch: arch, Layers: 3, Hidden: 16, InFeatures: ds.NumFeatures, Classes: ds.NumClasses, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		full := &FullNeighbour{Adj: ds.Adj, Features: ds.Features}
		want, err := full.Evaluate(context.Background(), m, ds.Labels, ds.Valid, ds.Test)
		if err != nil {
			t.Fatal(err)
		}
		for _, gc := range [][2]int{{1, 1}, {2, 1}, {2, 2}, {4, 1}, {4, 2}} {
			onRanks(t, gc[0], func(c dist.Comm) error {
				ctx := context.Background()
				g, err := dist.NewGrid(ctx, c, gc[1], ds.NumNodes())
				if err != nil {
					return err
				}
				defer g.Close()
				a, err := dist.Distribute(g, ds.Adj)
				if err != nil {
					return err
				}
				lo, hi := g.MyRows()
				f := ds.NumFeatures
				store, err := featurex.NewDist(ctx, g, ds.Features[int(lo)*f:int(hi)*f], f, featurex.DistOptions{})
				if err != nil {
					return err
				}
				defer store.Close()
				e := &BlockEvaluator{Matrix: a, Features: store}
				defer e.Close()
				for range 2 { // the second call reuses the prepared block
					acc, err := e.Evaluate(ctx, m, ds.Labels, ds.Valid, ds.Test)
					if err != nil {
						return err
					}
					for i, set := range [][]int32{ds.Valid, ds.Test} {
						tol := 1.0/float64(len(set)) + 1e-12
						g, w := acc[i], want[i]
						if math.Abs(g.Accuracy-w.Accuracy) > tol || math.Abs(g.MacroF1-w.MacroF1) > 3*tol || g.Counted != w.Counted ||
							classes == 2 && !(math.Abs(g.AUC-w.AUC) <= tol) || classes > 2 && !math.IsNaN(g.AUC) {
							return fmt.Errorf("%v p=%d c=%d classes %d: measures %v; want %v (whole graph)", arch, gc[0], gc[1], classes, acc, want)
						}
					}
				}
				var st dist.Stats
				for _, cm := range append(e.Comms(), store.Comm()) {
					st.Add(cm.Stats())
				}
				if g.Size()/g.Replication() > 1 && c.Rank() == 0 && st.Bytes[dist.PhaseFeatures] == 0 {
					return fmt.Errorf("%v p=%d c=%d: no feature or hidden rows exchanged", arch, gc[0], gc[1])
				}
				return nil
			})
		}
	}
}
