package gnn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/testgraph"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// sparseFeatures returns n x f features of which about one in 20 is
// nonzero (bag-of-words-like), dense and as CSR.
func sparseFeatures(n, f int, seed uint64) ([]float32, *spgemm.CSR) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*f)
	for i := range x {
		if rng.IntN(20) == 0 {
			x[i] = float32(rng.IntN(3) + 1)
		}
	}
	a := &spgemm.CSR{}
	featurex.CompressRows(a, x, n, f)
	return x, a
}

// TestPredictSparseInput: full-neighbour inference on features given as a
// CSR matrix (PredictInput with Input.Sparse, features that were never
// dense) equals inference on the same features dense: bit for bit for the
// plain stack, whose first layer compresses sparse dense features into
// that very CSR matrix, and within float32 rounding (relative 1e-5) for
// the residual architecture, whose input map multiplies dense features by
// a dense product (all fin terms in the BLAS's order) and sparse ones by
// SpMM (the nonzero terms in column order). PredictScores' arg-max is
// Predict.
func TestPredictSparseInput(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 40, 0.8, 0.5, 3)
	x, xs := sparseFeatures(300, 40, 4)
	ctx := context.Background()
	for _, res := range []bool{false, true} {
		for _, arch := range []Arch{SAGE, GCN, Linear} {
			if res && arch == Linear {
				continue
			}
			o := ModelOptions{Arch: arch, Layers: 2, Hidden: 8, InFeatures: 40, Classes: 3, Seed: 5, Residual: res}
			if res {
				o.Norm = NormLayer
			}
			m, err := NewModel(o)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := m.PredictScores(ctx, ds.Adj, Input{Dense: x}, 64)
			if err != nil {
				t.Fatal(err)
			}
			sparse, err := m.PredictScores(ctx, ds.Adj, Input{Sparse: xs}, 64)
			if err != nil {
				t.Fatal(err)
			}
			for i := range dense {
				d := math.Abs(float64(dense[i]) - float64(sparse[i]))
				if !res && d != 0 || d > 1e-5*(1+math.Abs(float64(dense[i]))) {
					t.Fatalf("%v residual %v: logit %d: sparse %v, dense %v", arch, res, i, sparse[i], dense[i])
				}
			}
			pred, err := m.Predict(ctx, ds.Adj, x, 0)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int32, len(pred))
			for v := range want {
				want[v] = int32(argmax(dense[3*v : 3*v+3]))
			}
			if !slices.Equal(pred, want) {
				t.Errorf("%v residual %v: Predict differs from the arg-max of PredictScores", arch, res)
			}
		}
	}
}

// TestResidualSparseTraining: a training pass (forward with dropout, then
// backward) of the residual architecture on a minibatch's input rows given
// as CSR (Input.Sparse, the rows a sparse store gathers: the input map
// multiplies them by SpMM and its gradient is SpMMT) gives the logits and
// gradients of the same rows given dense, within float32 rounding
// (relative 1e-4: the two products sum in other orders).
func TestResidualSparseTraining(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 40, 0.8, 0.5, 3)
	x, _ := sparseFeatures(300, 40, 4)
	s := nodeWise(t, ds, []int{5, 5}, 9)
	plan, err := sampling.NewPlan(ds.Train, sampling.PlanOptions{BatchSize: 32, BulkSize: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	first, seeds := plan.Epoch(0).Bulk(0)
	bulk, err := s.SampleBulk(context.Background(), 0, first, seeds)
	if err != nil {
		t.Fatal(err)
	}
	mb := bulk.Minibatch(0)
	in := mb.InputNodes()
	xd := make([]float32, len(in)*40)
	for r, v := range in {
		copy(xd[r*40:(r+1)*40], x[int(v)*40:int(v+1)*40])
	}
	var xs spgemm.CSR
	featurex.CompressRows(&xs, xd, len(in), 40)
	var logits, grads [2][]float32
	for i, input := range []Input{{Dense: xd}, {Sparse: &xs}} {
		m, err := NewModel(ModelOptions{Arch: SAGE, Layers: 2, Hidden: 8, InFeatures: 40, Classes: 3, Seed: 5, Dropout: 0.3, Residual: true, Norm: NormLayer})
		if err != nil {
			t.Fatal(err)
		}
		logits[i] = slices.Clone(m.ForwardInput(&mb, input, Pass{Train: true, Epoch: 1, Minibatch: 0}))
		d := make([]float32, len(logits[i]))
		labels := make([]int32, len(mb.Seeds))
		featurex.Labels(labels, ds.Labels, mb.Seeds)
		CrossEntropy(d, logits[i], 3, labels)
		m.Backward(d)
		grads[i] = slices.Clone(m.Grads())
	}
	for _, pair := range [][2][]float32{logits, grads} {
		for e := range pair[0] {
			if d := math.Abs(float64(pair[0][e]) - float64(pair[1][e])); d > 1e-6+1e-4*math.Abs(float64(pair[0][e])) {
				t.Fatalf("value %d: sparse %v, dense %v", e, pair[1][e], pair[0][e])
			}
		}
	}
}

// smallGraph is testgraph.Small (see there), the graphs package train's
// tests train on.
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

// loadShared is testgraph.Shared (see there).
func loadShared(t *testing.T, name string) *dataset.Dataset {
	t.Helper()
	return testgraph.Shared(t, name)
}
