package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/testgraph"
	"github.com/bulksample/bulksample/sampling"
)

// smallGraph is testgraph.Small (see there).
func smallGraph(t testing.TB, n, classes, deg, f int, homophily, signal float64, seed uint64) *dataset.Dataset {
	t.Helper()
	return testgraph.Small(t, n, classes, deg, f, homophily, signal, seed)
}

func nodeWise(t testing.TB, ds *dataset.Dataset, fanouts []int, seed uint64) sampling.Sampler {
	t.Helper()
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: fanouts, Seed: seed, Degrees: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dataOf returns the Data of ds and s: a local feature store and
// full-neighbour evaluation.
func dataOf(t testing.TB, ds *dataset.Dataset, s sampling.Sampler) Data {
	t.Helper()
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Data{Name: ds.Name, Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test, Evaluator: &FullNeighbour{Adj: ds.Adj, Features: ds.Features}}
}

func train(t testing.TB, ds *dataset.Dataset, s sampling.Sampler, opt TrainerOptions) *Result {
	t.Helper()
	tr, err := NewTrainer(dataOf(t, ds, s), opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTrainGraphHelps trains SAGE, GCN and the features-only baseline on a
// homophilous graph with weak features: both GNNs must beat the baseline
// clearly, and every architecture must beat chance.
func TestTrainGraphHelps(t *testing.T) {
	ds := smallGraph(t, 1200, 4, 10, 16, 0.9, 0.5, 1)
	opt := TrainerOptions{Model: ModelOptions{Hidden: 32, Dropout: 0.2}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01}}, Plan: PlanOptions{BatchSize: 64, BulkSize: 4, Epochs: 8}, Seed: 3}
	acc := map[gnn.Arch]float64{}
	for _, arch := range []gnn.Arch{gnn.Linear, gnn.SAGE, gnn.GCN} {
		o := opt
		o.Model.Arch = arch
		var s sampling.Sampler = SeedsOnly{}
		if arch != gnn.Linear {
			s = nodeWise(t, ds, []int{10, 10}, 5)
		}
		res := train(t, ds, s, o)
		last := res.Epochs[len(res.Epochs)-1]
		t.Logf("%v: test %.3f (best valid %.3f at epoch %d), loss %.3f, train acc %.3f", arch, res.TestAcc, res.BestValAcc, res.BestEpoch, last.Loss, last.TrainAcc)
		if first := res.Epochs[0]; !(last.Loss < first.Loss) {
			t.Errorf("%v: loss did not fall: %.4f then %.4f", arch, first.Loss, last.Loss)
		}
		acc[arch] = res.TestAcc
	}
	if acc[gnn.Linear] < 0.3 {
		t.Errorf("linear test accuracy %.3f, want above chance (0.25)", acc[gnn.Linear])
	}
	for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN} {
		if acc[arch] < acc[gnn.Linear]+0.15 {
			t.Errorf("%v test accuracy %.3f does not beat the features-only %.3f by 0.15", arch, acc[arch], acc[gnn.Linear])
		}
	}
}

// TestTrainDeterministic: two runs with the same options give the same
// weights bit for bit, whatever the bulk size and thread count; another
// seed gives other weights.
func TestTrainDeterministic(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 2)
	run := func(seed uint64, bulk, threads int) []float32 {
		opt := TrainerOptions{Model: ModelOptions{Hidden: 8, Dropout: 0.5}, Plan: PlanOptions{BatchSize: 32, BulkSize: bulk, Epochs: 2}, Seed: seed, Runtime: RuntimeOptions{Threads: threads}}
		tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		return tr.Model().Params()
	}
	a := run(1, 3, 1)
	if b := run(1, 3, 1); !slices.Equal(a, b) {
		t.Error("two identical runs differ")
	}
	if b := run(1, 1, 2); !slices.Equal(a, b) {
		t.Error("bulk size 1 and 2 threads change the weights")
	}
	if b := run(2, 3, 1); slices.Equal(a, b) {
		t.Error("seeds 1 and 2 give the same weights")
	}
}

// TestCheckpointResume interrupts a 3-epoch run after its first epoch (by
// cancelling its context), resumes it and compares the final weights and
// optimiser state with those of an uninterrupted run, bit for bit.
func TestCheckpointResume(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	base := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8, Dropout: 0.5}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{WeightDecay: 5e-4}}, Plan: PlanOptions{BatchSize: 32, BulkSize: 2, Epochs: 3}, Seed: 11}
	sampler := nodeWise(t, ds, []int{4, 3}, 7)

	whole, err := NewTrainer(dataOf(t, ds, sampler), base)
	if err != nil {
		t.Fatal(err)
	}
	wantRes, err := whole.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	opt := base
	opt.Checkpoint.Dir = dir
	ctx, cancel := context.WithCancel(context.Background())
	first, err := NewTrainer(dataOf(t, ds, sampler), opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = first.Run(ctx, func(st EpochStats) {
		if st.Epoch == 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v; want context.Canceled", err)
	}

	opt.Checkpoint.Resume = true
	second, err := NewTrainer(dataOf(t, ds, sampler), opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := second.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ResumedFrom != 1 || len(res.Epochs) != 3 {
		t.Errorf("resumed from %d with %d epochs; want 1 and 3", res.ResumedFrom, len(res.Epochs))
	}
	if !slices.Equal(second.Model().Params(), whole.Model().Params()) {
		t.Error("resumed weights differ from the uninterrupted run's")
	}
	if !slices.Equal(second.adam.M, whole.adam.M) || !slices.Equal(second.adam.V, whole.adam.V) || second.adam.T != whole.adam.T {
		t.Error("resumed optimiser state differs from the uninterrupted run's")
	}
	for e := range res.Epochs {
		g, w := res.Epochs[e], wantRes.Epochs[e]
		if g.Loss != w.Loss || g.ValAcc != w.ValAcc || g.TestAcc != w.TestAcc {
			t.Errorf("epoch %d: loss %v, val %v, test %v; uninterrupted %v, %v, %v", e, g.Loss, g.ValAcc, g.TestAcc, w.Loss, w.ValAcc, w.TestAcc)
		}
	}
	if res.TestAcc != wantRes.TestAcc || res.BestEpoch != wantRes.BestEpoch {
		t.Errorf("best epoch %d test %v; uninterrupted %d %v", res.BestEpoch, res.TestAcc, wantRes.BestEpoch, wantRes.TestAcc)
	}

	// A run with another configuration refuses the checkpoint, naming the
	// option.
	other := opt
	other.Model.Hidden = 16
	tr, err := NewTrainer(dataOf(t, ds, sampler), other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "hidden") {
		t.Errorf("resume with another hidden size: err = %v; want one naming hidden", err)
	}

	// A damaged checkpoint is an error naming the file.
	path := filepath.Join(dir, CheckpointFile)
	if err := os.WriteFile(path, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err = NewTrainer(dataOf(t, ds, sampler), opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged checkpoint: err = %v; want one naming %s", err, path)
	}
}

// TestTrainCancel: cancelling during an epoch stops after the current
// minibatch.
func TestTrainCancel(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := 0
	opt := TrainerOptions{Model: ModelOptions{Hidden: 8}, Plan: PlanOptions{BatchSize: 16, BulkSize: 4, Epochs: 2}, Hooks: Hooks{OnMinibatch: func(epoch, d, total int) {
		done = d
		if d == 2 {
			cancel()
		}
	}}}
	tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{3, 3}, 1)), opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if done != 2 || len(res.Epochs) != 0 {
		t.Errorf("stopped after %d minibatches and %d epochs; want 2 and 0", done, len(res.Epochs))
	}
}

// TestNewTrainerErrors: each invalid field of Data or option gives an error
// naming it; a sampler, features, labels or evaluator of another graph
// (issue 13: the README's snippet sampled one graph and trained on Cora)
// give an error naming both vertex counts.
func TestNewTrainerErrors(t *testing.T) {
	ds := smallGraph(t, 40, 2, 4, 3, 0.8, 1, 1)
	other := smallGraph(t, 50, 2, 4, 3, 0.8, 1, 1)
	otherStore, err := featurex.NewLocal(other.Features, other.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		edit   func(*Data, *TrainerOptions)
		inside []string
	}{
		{"no sampler", func(d *Data, _ *TrainerOptions) { d.Sampler = nil }, []string{"Sampler"}},
		{"no features", func(d *Data, _ *TrainerOptions) { d.Features = nil }, []string{"features"}},
		{"no labels", func(d *Data, _ *TrainerOptions) { d.Labels = nil }, []string{"labels"}},
		{"one class", func(d *Data, _ *TrainerOptions) { d.NumClasses = 1 }, []string{"NumClasses"}},
		{"bad label", func(d *Data, _ *TrainerOptions) { d.Labels = slices.Clone(d.Labels); d.Labels[5] = 9 }, []string{"Labels[5]"}},
		{"empty train", func(d *Data, _ *TrainerOptions) { d.Train = nil }, []string{"Train"}},
		{"bad valid id", func(d *Data, _ *TrainerOptions) { d.Valid = []int32{40} }, []string{"Valid[0]"}},
		{"sampler of another graph", func(d *Data, _ *TrainerOptions) { d.Sampler = nodeWise(t, other, []int{2}, 1) }, []string{"50", "40", "sampler"}},
		{"features of another graph", func(d *Data, _ *TrainerOptions) { d.Features = otherStore }, []string{"50", "40"}},
		{"labels of another graph", func(d *Data, _ *TrainerOptions) { d.Labels = other.Labels }, []string{"50", "40", "Labels"}},
		{"evaluator of another graph", func(d *Data, _ *TrainerOptions) { d.Evaluator = &FullNeighbour{Adj: other.Adj} }, []string{"50", "40", "evaluator"}},
		{"negative epochs", func(_ *Data, o *TrainerOptions) { o.Plan.Epochs = -1 }, []string{"Epochs"}},
		{"dropout 1", func(_ *Data, o *TrainerOptions) { o.Model.Dropout = 1 }, []string{"Dropout"}},
		{"negative lr", func(_ *Data, o *TrainerOptions) { o.Optimizer.Adam.LR = -1 }, []string{"LR"}},
		{"negative batch", func(_ *Data, o *TrainerOptions) { o.Plan.BatchSize = -1 }, []string{"BatchSize"}},
		{"resume without dir", func(_ *Data, o *TrainerOptions) { o.Checkpoint.Resume = true }, []string{"Checkpoint.Dir"}},
		{"bad GCN norm", func(_ *Data, o *TrainerOptions) { o.Model.Arch, o.Model.GCNNorm = gnn.GCN, 7 }, []string{"GCNNorm"}},
	}
	for _, tc := range tests {
		d, opt := dataOf(t, ds, nodeWise(t, ds, []int{2}, 1)), TrainerOptions{}
		tc.edit(&d, &opt)
		_, err := NewTrainer(d, opt)
		for _, want := range tc.inside {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v; want one naming %s", tc.name, err, want)
				break
			}
		}
	}
	// GCN's graph normalisation needs the node-wise sampler's degrees.
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTrainer(dataOf(t, ds, s), TrainerOptions{Model: ModelOptions{Arch: gnn.GCN}}); err == nil || !strings.Contains(err.Error(), "NodeWiseOptions.Degrees") {
		t.Errorf("GCN with a sampler without degrees: err = %v; want one naming NodeWiseOptions.Degrees", err)
	}
	if _, err := NewTrainer(dataOf(t, ds, s), TrainerOptions{Model: ModelOptions{Arch: gnn.GCN, GCNNorm: gnn.GCNBlockNorm}}); err != nil {
		t.Errorf("GCN with block normalisation: %v", err)
	}
}

// TestPureGoBLASNote: a program built without the openblas tag (plain go
// run, as the README's program is run) is told once per trainer that it
// trains with pure-Go BLAS, unless it chose it; it ran 4x slower without a
// word.
func TestPureGoBLASNote(t *testing.T) {
	if gnn.PureGoBLASNote("openblas", false) != "" || gnn.PureGoBLASNote(gnn.PureGoBLAS, true) != "" {
		t.Error("a note for a build with OpenBLAS, or for pure Go asked for")
	}
	if n := gnn.PureGoBLASNote(gnn.PureGoBLAS, false); !strings.Contains(n, "-tags openblas") || !strings.Contains(n, "pure-Go BLAS") || !strings.Contains(n, "make build") {
		t.Errorf("note %q; want it to name pure-Go BLAS and -tags openblas", n)
	}
	ds := smallGraph(t, 200, 3, 5, 8, 0.8, 1, 1)
	for _, asked := range []bool{false, true} {
		var notes strings.Builder
		if _, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{3}, 1)), TrainerOptions{Model: ModelOptions{Hidden: 8}, Plan: PlanOptions{Epochs: 1}, Runtime: RuntimeOptions{PureGoBLAS: asked}, Hooks: Hooks{Notes: &notes}}); err != nil {
			t.Fatal(err)
		}
		want := gnn.PureGoBLASNote(gnn.BLAS, asked)
		if want != "" {
			want += "\n"
		}
		if notes.String() != want {
			t.Errorf("build BLAS %s, PureGoBLAS %v: notes %q; want %q", gnn.BLAS, asked, notes.String(), want)
		}
	}
}

// TestWeightDecayFirstLayer: the option decays exactly the first layer's
// weights and bias, for each architecture's parameter layout.
func TestWeightDecayFirstLayer(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 3)
	for _, tc := range []struct {
		arch gnn.Arch
		want int // parameters of layer 1: 8 features -> 5 hidden
	}{{gnn.GCN, 8*5 + 5}, {gnn.SAGE, 2*8*5 + 5}} {
		s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{3, 3}, Degrees: true, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTrainer(dataOf(t, ds, s), TrainerOptions{Model: ModelOptions{Arch: tc.arch, Hidden: 5}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{WeightDecay: 5e-4}, WeightDecayFirstLayer: true}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.adam.Options().DecayedParams; got != tc.want || len(tr.model.Params()) <= got {
			t.Errorf("%v: %d parameters decayed of %d; want the first layer's %d", tc.arch, got, len(tr.model.Params()), tc.want)
		}
	}
}
