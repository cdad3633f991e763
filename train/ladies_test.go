package train

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/testenv"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// loadCora loads the real Cora dataset from the shared data folder next to
// the repository (with its default Planetoid split), or skips the test.
func loadCora(t *testing.T) *dataset.Dataset {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "cora.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		testenv.MissingData(t, "Cora not available (%v): the LADIES accuracy test needs %s", err, path)
	}
	ds, err := dataset.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestLADIESGCNCora trains a 2-layer GCN on LADIES samples of Cora with 512
// columns per layer: the median test accuracy of 5 seeds must reach 0.72.
func TestLADIESGCNCora(t *testing.T) {
	if testing.Short() {
		t.Skip("training 5 models on Cora takes too long for -short")
	}
	ds := loadCora(t)
	accs := make([]float64, 0, 5)
	for seed := range uint64(5) {
		s, err := sampling.NewLayerWise(ds.Adj, sampling.LayerWiseOptions{
			Method: sampling.LADIES, Budgets: []int{512, 512}, Seed: 100 + seed,
		})
		if err != nil {
			t.Fatal(err)
		}
		opt := TrainerOptions{Model: ModelOptions{Arch: gnn.GCN, Hidden: 64, Dropout: 0.5}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01}}, Plan: PlanOptions{BatchSize: 512, Epochs: 30}, Seed: seed}
		res := train(t, ds, s, opt)
		t.Logf("seed %d: test %.3f (best valid %.3f at epoch %d)", seed, res.TestAcc, res.BestValAcc, res.BestEpoch)
		accs = append(accs, res.TestAcc)
	}
	slices.Sort(accs)
	if med := accs[2]; med < 0.72 {
		t.Errorf("median test accuracy %.3f of %v, want >= 0.72", med, accs)
	}
}

// allNeighbours is a user's own Sampler, written outside package sampling
// with only its public building blocks: at every layer each frontier
// vertex takes all its neighbours (P = Q·A, SelectPerRow with s = -1), and
// Extract relabels the picks into the minibatch's sources. It counts the
// minibatches it is asked for.
type allNeighbours struct {
	a           *spgemm.CSR
	layers      int
	bulks       int
	minibatches int
	seen        map[int]int // global minibatch index -> times sampled, per epoch
}

func (s *allNeighbours) NumLayers() int { return s.layers }

func (s *allNeighbours) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.bulks++
	s.minibatches += len(seeds)
	for m := range seeds {
		s.seen[epoch<<20|(first+m)]++
	}
	bulk := &sampling.Bulk{First: first, SeedStart: []int{0}}
	for _, sd := range seeds {
		bulk.Seeds = append(bulk.Seeds, sd...)
		bulk.SeedStart = append(bulk.SeedStart, len(bulk.Seeds))
	}
	frontiers := seeds
	for range s.layers {
		p := spgemm.Mul(sampling.QPerEntry(frontiers, s.a.Rows), s.a, nil)
		sel := sampling.SelectPerRow(p, make([]sampling.RowKey, p.Rows), -1, sampling.SelectOptions{})
		rows := make([][]int32, len(frontiers))
		srcs := make([][]int32, len(frontiers))
		r := 0
		for m, f := range frontiers {
			for range f {
				rows[m] = append(rows[m], int32(r))
				r++
			}
			srcs[m] = sampling.NextFrontier(f, sel, r-len(f), r)
		}
		bulk.Layers = append(bulk.Layers, *sampling.Extract(sel, rows, srcs, 0, 1))
		frontiers = srcs
	}
	return bulk, nil
}

// TestTrainerAcceptsCustomSampler: the trainer takes a user's own Sampler
// type, asks it for every minibatch of every epoch exactly once, trains on
// its blocks, and the graph helps as much as with the library's samplers:
// full-neighbour GraphSAGE beats the features-only model by 0.15.
func TestTrainerAcceptsCustomSampler(t *testing.T) {
	ds := smallGraph(t, 1200, 4, 10, 16, 0.9, 0.5, 1)
	opt := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 32, Dropout: 0.2}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01}}, Plan: PlanOptions{BatchSize: 64, BulkSize: 4, Epochs: 6}, Seed: 3}
	s := &allNeighbours{a: ds.Adj, layers: 2, seen: map[int]int{}}
	res := train(t, ds, s, opt)
	perEpoch := (len(ds.Train) + opt.Plan.BatchSize - 1) / opt.Plan.BatchSize
	if s.minibatches != opt.Plan.Epochs*perEpoch || len(s.seen) != opt.Plan.Epochs*perEpoch || s.bulks != opt.Plan.Epochs*((perEpoch+3)/4) {
		t.Errorf("sampler asked for %d minibatches (%d distinct) in %d bulks; want %d epochs x %d minibatches in bulks of 4",
			s.minibatches, len(s.seen), s.bulks, opt.Plan.Epochs, perEpoch)
	}
	var edges int64
	for _, ep := range res.Epochs {
		edges += ep.SampledEdges
	}
	// Every minibatch's blocks hold all edges of its frontiers: layer 0
	// alone has the degrees of all training vertices once per epoch.
	var trainDeg int64
	for _, v := range ds.Train {
		trainDeg += int64(ds.Adj.RowNNZ(int(v)))
	}
	if edges <= int64(opt.Plan.Epochs)*trainDeg {
		t.Errorf("%d sampled edges over %d epochs; layer 0 alone has %d per epoch", edges, opt.Plan.Epochs, trainDeg)
	}
	lin := opt
	lin.Model.Arch = gnn.Linear
	base := train(t, ds, SeedsOnly{}, lin)
	t.Logf("custom sampler SAGE: test %.3f; features only: %.3f", res.TestAcc, base.TestAcc)
	if res.TestAcc < base.TestAcc+0.15 {
		t.Errorf("custom sampler SAGE test accuracy %.3f does not beat the features-only %.3f by 0.15", res.TestAcc, base.TestAcc)
	}
}
