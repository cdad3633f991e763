package gnn

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// modelStep is a model, its optimiser and the first minibatch of a plan,
// with the minibatch's input gathered once, ready for repeated training
// steps as package train's Trainer runs them (see seam.go).
type modelStep struct {
	m       *Model
	adam    *Adam
	mb      sampling.Minibatch
	x       Input
	labels  []int32
	dLogits Buf
}

func newModelStep(t testing.TB, ds *dataset.Dataset, arch Arch, batch int, pureGo bool) *modelStep {
	t.Helper()
	ctx := context.Background()
	m, err := NewModel(ModelOptions{Arch: arch, Layers: 2, Hidden: 64, InFeatures: ds.NumFeatures, Classes: ds.NumClasses, Dropout: 0.5, Threads: 1, PureGoBLAS: pureGo})
	if err != nil {
		t.Fatal(err)
	}
	adam, err := NewAdam(len(m.Params()), AdamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sampling.NewPlan(ds.Train, sampling.PlanOptions{BatchSize: batch, BulkSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	first, seeds := plan.Epoch(0).Bulk(0)
	f := &modelStep{m: m, adam: adam}
	in := seeds[0]
	if arch != Linear {
		bulk, err := nodeWise(t, ds, []int{10, 10}, 5).SampleBulk(ctx, 0, first, seeds)
		if err != nil {
			t.Fatal(err)
		}
		f.mb = bulk.Minibatch(0)
		in = f.mb.InputNodes()
	} else {
		f.mb = sampling.Minibatch{Index: first, Seeds: seeds[0]}
	}
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if store.Sparse() {
		f.x.Sparse = new(spgemm.CSR)
		if err := store.GatherCSR(ctx, f.x.Sparse, in); err != nil {
			t.Fatal(err)
		}
	} else {
		f.x.Dense = make([]float32, len(in)*ds.NumFeatures)
		if err := store.Gather(ctx, f.x.Dense, in); err != nil {
			t.Fatal(err)
		}
	}
	f.labels = make([]int32, len(f.mb.Seeds))
	featurex.Labels(f.labels, ds.Labels, f.mb.Seeds)
	f.step() // warm-up: the buffers grow to this minibatch's sizes
	return f
}

func (f *modelStep) step() {
	be := f.m.Backend()
	logits := f.m.ForwardBuf(&f.mb, f.x, Pass{Train: true, Minibatch: f.mb.Index})
	f.dLogits = GrowBuf(be, f.dLogits, logits.Len())
	be.SoftmaxCrossEntropy(f.dLogits, logits, f.m.opt.Classes, f.labels)
	f.m.BackwardBuf(f.dLogits)
	f.adam.StepOn(be, f.m.ParamsBuf(), f.m.GradsBuf())
}

// buffers returns the addresses of the backing arrays of every buffer the
// model reuses from one minibatch to the next.
func (f *modelStep) buffers() []uintptr {
	addr := func(s any) uintptr {
		if b, ok := s.(Buf); ok {
			s = b.Host()
		}
		return reflect.ValueOf(s).Pointer()
	}
	m := f.m
	a := []uintptr{addr(m.degs)}
	for i := range m.layers {
		l := &m.layers[i]
		a = append(a, addr(l.inBuf), addr(l.norm), addr(l.self), addr(l.agg), addr(l.out), addr(l.dAgg), addr(l.dIn),
			addr(l.xs.Indptr), addr(l.xs.Indices), addr(l.xs.Data), addr(l.t), addr(l.dT))
	}
	return a
}

// TestModelStepReusesBuffers: after warm-up, a training step of the model
// (forward, loss, backward, Adam) reuses every buffer of the model: their
// backing arrays stay the same, and the first layer takes the sparse-input
// path exactly for sparse features. Package train's TestStepReusesBuffers
// checks the trainer's own buffers and the step's allocations.
func TestModelStepReusesBuffers(t *testing.T) {
	dense := smallGraph(t, 20000, 4, 10, 64, 0.9, 0.5, 1)
	sparse := *dense
	sparse.Features = slices.Clone(dense.Features)
	for i := range sparse.Features {
		if i%23 != 0 { // 4% nonzero: the sparse-input path
			sparse.Features[i] = 0
		}
	}
	for _, pureGo := range []bool{false, true} {
		for _, arch := range []Arch{SAGE, GCN, Linear} {
			for _, ds := range []*dataset.Dataset{dense, &sparse} {
				for _, batch := range []int{32, 512} {
					f := newModelStep(t, ds, arch, batch, pureGo)
					if f.m.layers[0].sparse != (ds == &sparse) {
						t.Fatalf("%v/pureGo=%v/sparse=%v: first layer sparse %v", arch, pureGo, ds == &sparse, f.m.layers[0].sparse)
					}
					before := f.buffers()
					for range 3 {
						f.step()
					}
					if after := f.buffers(); !slices.Equal(before, after) {
						t.Errorf("%v/pureGo=%v/sparse=%v batch %d: a buffer was reallocated in a step after warm-up", arch, pureGo, ds == &sparse, batch)
					}
				}
			}
		}
	}
}

// TestPredictMemoryBounded: full-neighbour inference allocates two n x
// Hidden layer outputs, a normalised copy of the adjacency's values, the
// predictions and chunk-sized scratch, and nothing of the size of the
// features (n x 256 here, 8 times a layer output): no copy of them, no
// per-layer input kept.
func TestPredictMemoryBounded(t *testing.T) {
	const n, f, hidden, chunk = 20000, 256, 32, 1000
	ds := smallGraph(t, n, 4, 10, f, 0.9, 0.5, 1)
	for _, arch := range []Arch{SAGE, GCN} {
		m, err := NewModel(ModelOptions{Arch: arch, Layers: 3, Hidden: hidden, InFeatures: f, Classes: 4, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if _, err := m.Predict(context.Background(), ds.Adj, ds.Features, chunk); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		got := m1.TotalAlloc - m0.TotalAlloc
		// Two layer outputs, the normalised values, the predictions and
		// GCN's self-loop weights (float32), GCN's degrees (float64), two
		// chunk buffers and slack.
		want := uint64(4*(2*n*hidden+int(ds.Adj.NNZ())+n+n) + 8*2*n + 4*2*chunk*f + 64<<10)
		t.Logf("%v: Predict allocated %d bytes; bound %d; the features are %d bytes", arch, got, want, 4*len(ds.Features))
		if got > want {
			t.Errorf("%v: Predict allocated %d bytes; want at most %d", arch, got, want)
		}
	}
}
