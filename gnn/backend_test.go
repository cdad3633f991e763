package gnn_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/featurex/featurextest"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gnn/backendtest"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

// TestCPUConformance runs the backend conformance kit on the CPU backend
// with the build's BLAS and with gonum's pure-Go BLAS, checks gradients
// against finite differences, and compares the two.
func TestCPUConformance(t *testing.T) {
	native := gnn.NewCPU(gnn.CPUOptions{Threads: 2})
	pureGo := gnn.NewCPU(gnn.CPUOptions{Threads: 2, PureGoBLAS: true})
	t.Logf("native BLAS: %s", native.Name())
	t.Run("native", func(t *testing.T) { backendtest.Run(t, native) })
	t.Run("purego", func(t *testing.T) { backendtest.Run(t, pureGo) })
	t.Run("gradients", func(t *testing.T) { backendtest.CheckGradients(t, native) })
	t.Run("purego-vs-native", func(t *testing.T) { backendtest.CheckAgainst(t, pureGo, native) })
}

// countingBackend is a test-only Backend: the CPU backend with a count of
// the calls of its products, the loss and the optimiser. It shows that a
// second backend plugs into the trainer through TrainerOptions.Backend alone.
type countingBackend struct {
	gnn.Backend
	calls map[string]int
}

func newCounting() *countingBackend {
	return &countingBackend{Backend: gnn.NewCPU(gnn.CPUOptions{}), calls: map[string]int{}}
}

func (c *countingBackend) Gemm(tA, tB bool, m, n, k int, alpha float32, a, b gnn.Buf, beta float32, cc gnn.Buf) {
	c.calls["Gemm"]++
	c.Backend.Gemm(tA, tB, m, n, k, alpha, a, b, beta, cc)
}

func (c *countingBackend) SpMM(dst gnn.Buf, a *spgemm.CSR, b gnn.Buf, cols int) {
	c.calls["SpMM"]++
	c.Backend.SpMM(dst, a, b, cols)
}

func (c *countingBackend) SpMMT(dst gnn.Buf, a *spgemm.CSR, b gnn.Buf, cols int) {
	c.calls["SpMMT"]++
	c.Backend.SpMMT(dst, a, b, cols)
}

func (c *countingBackend) SoftmaxCrossEntropy(d, logits gnn.Buf, classes int, labels []int32) (float64, int, int) {
	c.calls["SoftmaxCrossEntropy"]++
	return c.Backend.SoftmaxCrossEntropy(d, logits, classes, labels)
}

func (c *countingBackend) Adam(params, grads, m, v gnn.Buf, s gnn.AdamStep) {
	c.calls["Adam"]++
	c.Backend.Adam(params, grads, m, v, s)
}

// shardedStore is a test-only featurex.Store: the feature rows dealt
// round-robin over three shards, each gathered separately, as a
// distributed store fetches rows from their owners. It has no sparse
// capability.
type shardedStore struct {
	shards [3][]float32
	n, f   int
}

func newSharded(x []float32, f int) *shardedStore {
	s := &shardedStore{n: len(x) / f, f: f}
	for v := range s.n {
		s.shards[v%3] = append(s.shards[v%3], x[v*f:(v+1)*f]...)
	}
	return s
}

func (s *shardedStore) NumVertices() int { return s.n }
func (s *shardedStore) NumFeatures() int { return s.f }

func (s *shardedStore) Gather(ctx context.Context, dst []float32, ids []int32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(dst) != len(ids)*s.f {
		return errors.New("sharded: wrong destination length")
	}
	for shard := range 3 {
		for r, v := range ids {
			if v < 0 || int(v) >= s.n {
				return fmt.Errorf("sharded: vertex %d out of range", v)
			}
			if int(v)%3 == shard {
				row := int(v) / 3
				copy(dst[r*s.f:(r+1)*s.f], s.shards[shard][row*s.f:(row+1)*s.f])
			}
		}
	}
	return nil
}

// countingReducer is a test-only GradReducer that stands for two identical
// ranks: it leaves the average of the gradients as it is and sums the
// metrics of both, counting its calls.
type countingReducer struct {
	calls int
	fail  bool
}

func (r *countingReducer) Reduce(ctx context.Context, grads []float32, m *train.StepMetrics) error {
	r.calls++
	if r.fail {
		return errors.New("rank 1 is gone")
	}
	f := m.Floats()
	m.SetFloats([3]float64{2 * f[0], 2 * f[1], 2 * f[2]})
	return nil
}

// trainSeams trains 2 epochs of GraphSAGE on a small planted-partition
// graph with the given store, backend and reducer, and returns the final
// weights and figures.
func trainSeams(t *testing.T, ds *dataset.Dataset, store featurex.Store, be gnn.Backend, red train.GradReducer) ([]float32, *train.Result, error) {
	t.Helper()
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{5, 5}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	data := train.Data{Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test, Evaluator: &train.FullNeighbour{Adj: ds.Adj, Features: ds.Features}, Reducer: red}
	opt := train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: 16, Dropout: 0.5}, Plan: train.PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 2}, Seed: 4, Runtime: train.RuntimeOptions{Backend: be}}
	tr, err := train.NewTrainer(data, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), nil)
	return slices.Clone(tr.Model().Params()), res, err
}

// TestSeamsPlugIn: a second feature store, a wrapping backend and a gradient
// reducer plug into the trainer without any change to it, and training
// through them gives the weights of the plain local store and CPU backend
// bit for bit.
func TestSeamsPlugIn(t *testing.T) {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 1500, Classes: 3, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	local, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, wantRes, err := trainSeams(t, ds, local, nil, nil)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("store", func(t *testing.T) {
		featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store { return newSharded(x, f) })
		got, _, err := trainSeams(t, ds, newSharded(ds.Features, ds.NumFeatures), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Error("training through the sharded store changes the weights")
		}
	})

	t.Run("backend", func(t *testing.T) {
		be := newCounting()
		backendtest.Run(t, be)
		be.calls = map[string]int{}
		got, _, err := trainSeams(t, ds, local, be, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Error("training through the counting backend changes the weights")
		}
		steps := 0
		for _, e := range wantRes.Epochs {
			steps += e.Minibatches
		}
		t.Logf("%d steps: calls %v", steps, be.calls)
		// Per step: 2 layers x (3 forward + 4 backward GEMMs, minus the
		// first layer's 2 input-gradient GEMMs); inference adds its own.
		if be.calls["Adam"] != steps || be.calls["SoftmaxCrossEntropy"] != steps || be.calls["Gemm"] < 10*steps || be.calls["SpMM"] < 2*steps {
			t.Errorf("calls %v for %d steps", be.calls, steps)
		}
	})

	t.Run("reducer", func(t *testing.T) {
		red := &countingReducer{}
		got, res, err := trainSeams(t, ds, local, nil, red)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Error("an averaging reducer over identical ranks changes the weights")
		}
		steps := 0
		for e, st := range res.Epochs {
			steps += st.Minibatches
			if w := wantRes.Epochs[e]; st.Loss != w.Loss || st.TrainAcc != w.TrainAcc {
				t.Errorf("epoch %d: loss %v, train accuracy %v; want %v, %v (the metrics of two identical ranks)", e, st.Loss, st.TrainAcc, w.Loss, w.TrainAcc)
			}
		}
		if red.calls != steps {
			t.Errorf("%d reductions for %d steps", red.calls, steps)
		}
		_, _, err = trainSeams(t, ds, local, nil, &countingReducer{fail: true})
		if err == nil || !strings.Contains(err.Error(), "rank 1 is gone") {
			t.Errorf("failing reducer: err = %v; want its error", err)
		}
	})
}
