package train

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/gnn"
)

// evalOptions are a short run on smallGraph.
func evalOptions() TrainerOptions {
	return TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 16, Dropout: 0.2}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01}},
		Plan: PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 6}, Seed: 3}
}

// TestBestEpochWeights: the trainer keeps the weights of the epoch of the
// best valid metric; evaluating a model with them after the run gives
// exactly the best epoch's measures (the reported test figure is a test of
// those weights), for accuracy on 4 classes and ROC AUC on 2.
func TestBestEpochWeights(t *testing.T) {
	for _, classes := range []int{4, 2} {
		ds := smallGraph(t, 600, classes, 8, 12, 0.8, 0.4, 5)
		s := nodeWise(t, ds, []int{5, 5}, 2)
		tr, err := NewTrainer(dataOf(t, ds, s), evalOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := gnn.MetricAccuracy
		if classes == 2 {
			want = gnn.MetricAUC
		}
		if res.Metric != want || tr.Metric() != want {
			t.Fatalf("%d classes: metric %v; want %v", classes, res.Metric, want)
		}
		best := res.Epochs[res.BestEpoch]
		for _, st := range res.Epochs {
			if v := st.Valid.Value(want); v > best.Valid.Value(want) || v == best.Valid.Value(want) && st.Epoch < res.BestEpoch {
				t.Errorf("%d classes: epoch %d has valid %v %v, better than the best epoch %d's %v", classes, st.Epoch, want, v, res.BestEpoch, best.Valid.Value(want))
			}
		}
		if !sameMeasures([]gnn.Measures{res.BestTest}, []gnn.Measures{best.Test}) || res.TestAcc != best.TestAcc {
			t.Errorf("%d classes: result test %+v; best epoch's %+v", classes, res.BestTest, best.Test)
		}
		m, err := gnn.NewModel(tr.Model().Options())
		if err != nil {
			t.Fatal(err)
		}
		m.SetParams(tr.BestParams())
		ms, err := (&FullNeighbour{Adj: ds.Adj, Features: ds.Features}).Evaluate(context.Background(), m, ds.Labels, ds.Valid, ds.Test)
		if err != nil {
			t.Fatal(err)
		}
		if !sameMeasures(ms, []gnn.Measures{res.BestValid, res.BestTest}) {
			t.Errorf("%d classes: the best weights evaluate to %+v, %+v; the run reported %+v, %+v", classes, ms[0], ms[1], res.BestValid, res.BestTest)
		}
		if classes == 2 && !(res.BestTest.AUC > 0.5 && res.BestTest.AUC <= 1) {
			t.Errorf("test AUC %v: the model did not learn", res.BestTest.AUC)
		}
	}
}

// TestEvalEvery: with Eval.Every 4 of 10 epochs, epochs 4, 8 and 10 (the
// last) are evaluated and the others not, and the best epoch is one of
// them.
func TestEvalEvery(t *testing.T) {
	ds := smallGraph(t, 400, 3, 8, 8, 0.8, 0.5, 6)
	opt := evalOptions()
	opt.Plan.Epochs, opt.Eval.Every = 10, 4
	res := train(t, ds, nodeWise(t, ds, []int{4, 4}, 1), opt)
	for _, st := range res.Epochs {
		want := st.Epoch == 3 || st.Epoch == 7 || st.Epoch == 9
		if st.Evaluated != want || want != (st.Phases.Eval > 0) || !want && (st.ValAcc != 0 || st.Valid.Counted != 0) {
			t.Errorf("epoch %d: evaluated %v (eval %v, valid %+v); want %v", st.Epoch+1, st.Evaluated, st.Phases.Eval, st.Valid, want)
		}
	}
	if !res.Epochs[res.BestEpoch].Evaluated {
		t.Errorf("best epoch %d was not evaluated", res.BestEpoch+1)
	}
}

// TestPatience: a run whose learning rate is 0 learns nothing, so no
// evaluation after the first improves on it; with Patience 2 it stops
// after epoch 3, says so, and its best epoch is the first. A resumed run
// of the same checkpoint trains nothing more.
func TestPatience(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 7)
	s := nodeWise(t, ds, []int{4, 4}, 1)
	opt := evalOptions()
	opt.Optimizer.Adam.LR = 1e-30 // the weights stay where they start (to float32 rounding)
	opt.Plan.Epochs, opt.Eval.Patience = 10, 2
	opt.Checkpoint.Dir = t.TempDir()
	res := train(t, ds, s, opt)
	if !res.EarlyStopped || len(res.Epochs) != 3 || res.BestEpoch != 0 {
		t.Fatalf("stopped early %v after %d epochs, best epoch %d; want true, 3, 0", res.EarlyStopped, len(res.Epochs), res.BestEpoch)
	}
	opt.Checkpoint.Resume = true
	again := train(t, ds, s, opt)
	if !again.EarlyStopped || len(again.Epochs) != 3 || again.ResumedFrom != 3 {
		t.Errorf("resumed: stopped early %v after %d epochs (resumed from %d); want true, 3, 3", again.EarlyStopped, len(again.Epochs), again.ResumedFrom)
	}
}

// TestResidualLearns trains the residual architecture (skip connections
// and layer normalisation) of SAGE and GCN on a homophilous graph with
// weak features: each beats the features-only model by 10 points, as the
// plain stack does (TestTrainGraphHelps), so that the layers' gradients
// (checked by finite differences in the conformance kit) add up to
// learning.
func TestResidualLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models; skipped in -short")
	}
	ds := smallGraph(t, 1200, 4, 10, 16, 0.9, 0.5, 1)
	opt := TrainerOptions{Model: ModelOptions{Hidden: 32, Dropout: 0.2}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.003}},
		Plan: PlanOptions{BatchSize: 64, BulkSize: 4, Epochs: 8}, Seed: 3}
	lin := opt
	lin.Model.Arch = gnn.Linear
	base := train(t, ds, SeedsOnly{}, lin).TestAcc
	for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN} {
		o := opt
		o.Model.Arch, o.Model.Residual, o.Model.Norm = arch, true, gnn.NormLayer
		res := train(t, ds, nodeWise(t, ds, []int{10, 10}, 5), o)
		t.Logf("residual %v: test %.3f at epoch %d; features only %.3f", arch, res.TestAcc, res.BestEpoch+1, base)
		if res.TestAcc < base+0.10 {
			t.Errorf("residual %v: test accuracy %.3f does not beat the features-only %.3f by 10 points", arch, res.TestAcc, base)
		}
	}
}

// TestResidualDeterministic: the residual architecture's weights after two
// epochs are the same bit for bit with 1 and 4 threads and with the
// pipeline on and off, as the plain stack's are.
func TestResidualDeterministic(t *testing.T) {
	ds := smallGraph(t, 500, 3, 8, 8, 0.8, 0.5, 2)
	var first []float32
	for _, rt := range []RuntimeOptions{{Threads: 1, PipelineDepth: 1}, {Threads: 4, PipelineDepth: 2}} {
		opt := evalOptions()
		opt.Model.Residual, opt.Model.Norm, opt.Plan.Epochs, opt.Runtime = true, gnn.NormLayer, 2, rt
		tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{5, 5}, 4)), opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		p := slices.Clone(tr.Model().Params())
		if first == nil {
			first = p
			continue
		}
		if !slices.Equal(p, first) {
			t.Errorf("runtime %+v: weights differ from 1 thread's", rt)
		}
	}
	for _, v := range first {
		if math.IsNaN(float64(v)) {
			t.Fatal("NaN weight")
		}
	}
}
