package train_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/testenv"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

// TestSparseFeaturesCora trains on Cora (the gnn-benchmark file, whose
// bag-of-words features attr_* are stored as CSR) twice: with its features
// dense, as the reader gives them, and with the same features as
// SparseFeatures, never dense, as a reader of sparse features (MUSAE's
// JSON) gives them. The dense store keeps a CSR copy and the first layer
// multiplies the sparse rows in both runs, so every epoch's figures and
// the final weights are the same bit for bit, with the features
// normalised (NormalizeCSRRows on the sparse run) and for GCN too; the
// sparse run holds its features in nnz·8 bytes instead of n·f·4.
func TestSparseFeaturesCora(t *testing.T) {
	path, err := dataset.FindShared("cora.npz")
	if err != nil {
		testenv.MissingData(t, "cora.npz: %v", err)
	}
	for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN} {
		var runs [2]*train.Result
		var params [2][]float32
		for i, sparse := range []bool{false, true} {
			ds, err := dataset.Load(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sparse {
				ds.SparseFeatures = &spgemm.CSR{}
				nnz := featurex.CompressRows(ds.SparseFeatures, ds.Features, ds.NumNodes(), ds.NumFeatures)
				if dense := 4 * len(ds.Features); 8*nnz > dense/8 {
					t.Fatalf("Cora's %d nonzeros are not sparse against %d dense bytes", nnz, dense)
				}
				ds.Features = nil
				if err := ds.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			opt := train.Options{NormFeatures: true,
				Sampler: sampling.SamplerOptions{Fanouts: []int{10, 5}},
				Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: arch, Hidden: 16, Dropout: 0.5},
					Plan: train.PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 3}, Seed: 7}}
			job, err := train.New(ds, opt)
			if err != nil {
				t.Fatal(err)
			}
			if runs[i], err = job.Trainer.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			params[i] = slices.Clone(job.Trainer.Model().Params())
		}
		for e, st := range runs[1].Epochs {
			w := runs[0].Epochs[e]
			if st.Loss != w.Loss || st.Valid.Accuracy != w.Valid.Accuracy || st.Valid.MacroF1 != w.Valid.MacroF1 ||
				st.Test.Accuracy != w.Test.Accuracy || st.Test.MacroF1 != w.Test.MacroF1 {
				t.Errorf("%v epoch %d: sparse loss %v valid %+v test %v; dense %v %+v %v", arch, e+1, st.Loss, st.Valid, st.TestAcc, w.Loss, w.Valid, w.TestAcc)
			}
		}
		if !slices.Equal(params[0], params[1]) {
			t.Errorf("%v: the weights after 3 epochs differ between sparse and dense features", arch)
		}
		t.Logf("%v: test accuracy %.3f with sparse features, %.3f dense", arch, runs[1].TestAcc, runs[0].TestAcc)
	}
}
