package gnn

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
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
		t.Skipf("Cora not available (%v): the LADIES accuracy test needs %s", err, path)
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
		opt := TrainOptions{Arch: GCN, Hidden: 64, Dropout: 0.5, BatchSize: 512, Epochs: 30, Seed: seed, Adam: AdamOptions{LR: 0.01}}
		res := train(t, ds, s, opt)
		t.Logf("seed %d: test %.3f (best valid %.3f at epoch %d)", seed, res.TestAcc, res.BestValAcc, res.BestEpoch)
		accs = append(accs, res.TestAcc)
	}
	slices.Sort(accs)
	if med := accs[2]; med < 0.72 {
		t.Errorf("median test accuracy %.3f of %v, want >= 0.72", med, accs)
	}
}
