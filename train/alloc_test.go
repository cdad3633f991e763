package train

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// stepFixture is a trainer with the first minibatch of its first bulk,
// ready for repeated training steps.
type stepFixture struct {
	tr *Trainer
	mb sampling.Minibatch
	ph PhaseTimes
}

func newStepFixture(t testing.TB, ds *dataset.Dataset, arch gnn.Arch, batch int, pureGo bool) *stepFixture {
	t.Helper()
	var s sampling.Sampler = SeedsOnly{}
	if arch != gnn.Linear {
		s = nodeWise(t, ds, []int{10, 10}, 5)
	}
	tr, err := NewTrainer(dataOf(t, ds, s), TrainerOptions{Model: ModelOptions{Arch: arch, Hidden: 64, Dropout: 0.5}, Plan: PlanOptions{BatchSize: batch, BulkSize: 2, Epochs: 1}, Runtime: RuntimeOptions{Threads: 1, PureGoBLAS: pureGo}})
	if err != nil {
		t.Fatal(err)
	}
	first, seeds := tr.plan.Epoch(0).Bulk(0)
	bulk, err := tr.sampler.SampleBulk(context.Background(), 0, first, seeds)
	if err != nil {
		t.Fatal(err)
	}
	f := &stepFixture{tr: tr, mb: bulk.Minibatch(0)}
	f.step() // warm-up: the buffers grow to this minibatch's sizes
	return f
}

func (f *stepFixture) step() {
	if _, err := f.tr.step(context.Background(), &f.mb, 0, &f.ph); err != nil {
		panic(err)
	}
}

// buffers returns the addresses of the backing arrays of every buffer the
// trainer reuses from one minibatch to the next (those of the model are
// package gnn's TestModelStepReusesBuffers).
func (f *stepFixture) buffers() []uintptr {
	addr := func(s any) uintptr {
		if b, ok := s.(gnn.Buf); ok {
			s = b.Host()
		}
		return reflect.ValueOf(s).Pointer()
	}
	tr := f.tr
	return []uintptr{addr(tr.x), addr(tr.xs.Indptr), addr(tr.xs.Indices), addr(tr.xs.Data), addr(tr.labels), addr(tr.dLogits)}
}

// allocsPerStep returns the heap allocations and bytes of one training step
// after warm-up.
func (f *stepFixture) allocsPerStep() (allocs float64, bytes uint64) {
	const runs = 10
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	allocs = testing.AllocsPerRun(runs, f.step)
	runtime.ReadMemStats(&m1)
	return allocs, (m1.TotalAlloc - m0.TotalAlloc) / (runs + 1)
}

// TestStepReusesBuffers: after warm-up, a training step (feature gathering,
// forward, loss, backward, Adam) reuses every buffer: their backing arrays
// stay the same, and the step's heap allocations do not grow with the
// minibatch. What remains is the work split of spgemm's kernels (a few small
// slices and closures per call) and, with gonum's pure-Go BLAS, its
// per-tile jobs; both are far below the size of the step's buffers. With
// OpenBLAS the features-only model, which calls no sparse kernel, allocates
// nothing at all.
func TestStepReusesBuffers(t *testing.T) {
	dense := smallGraph(t, 20000, 4, 10, 64, 0.9, 0.5, 1)
	sparse := *dense
	sparse.Features = slices.Clone(dense.Features)
	for i := range sparse.Features {
		if i%23 != 0 { // 4% nonzero: the sparse-input path
			sparse.Features[i] = 0
		}
	}
	for _, pureGo := range []bool{false, true} {
		gonumBLAS := pureGo || gnn.BLAS == gnn.PureGoBLAS
		for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN, gnn.Linear} {
			for _, ds := range []*dataset.Dataset{dense, &sparse} {
				name := fmt.Sprintf("%v/pureGo=%v/sparse=%v", arch, pureGo, ds == &sparse)
				var allocs [2]float64
				for i, batch := range []int{32, 512} {
					f := newStepFixture(t, ds, arch, batch, pureGo)
					if (f.tr.sparse != nil) != (ds == &sparse) {
						t.Fatalf("%s: sparse store %v", name, f.tr.sparse != nil)
					}
					before := f.buffers()
					n, bytes := f.allocsPerStep()
					if after := f.buffers(); !slices.Equal(before, after) {
						t.Errorf("%s batch %d: a buffer was reallocated in a step after warm-up", name, batch)
					}
					// A constant for the kernels' work split; gonum's
					// per-tile jobs may add 1/64 of the feature buffer.
					limit := uint64(4096)
					if gonumBLAS {
						limit += uint64(4*len(f.mb.InputNodes())*ds.NumFeatures) / 64
					}
					if bytes > limit {
						t.Errorf("%s batch %d: %d bytes allocated per step; want at most %d", name, batch, bytes, limit)
					}
					allocs[i] = n
					t.Logf("%s batch %d: %d input rows, %.0f allocations (%d bytes) per step", name, batch, len(f.mb.InputNodes()), n, bytes)
				}
				if !gonumBLAS && allocs[1] > allocs[0] {
					t.Errorf("%s: %v allocations per step at batch 32 but %v at batch 512; want no growth", name, allocs[0], allocs[1])
				}
				if !gonumBLAS && arch == gnn.Linear && ds == dense && allocs[1] != 0 {
					t.Errorf("%s: %v allocations per step; want 0", name, allocs[1])
				}
			}
		}
	}
}

// BenchmarkTrainStep times one training step of a 2-layer GraphSAGE (hidden
// 64, fanouts 10,10, batch 512, 64 dense features) after warm-up; run it
// with -benchmem to see the allocations per step.
func BenchmarkTrainStep(b *testing.B) {
	ds := smallGraph(b, 20000, 4, 10, 64, 0.9, 0.5, 1)
	for _, pureGo := range []bool{false, true} {
		b.Run(fmt.Sprintf("blas=%s", map[bool]string{false: gnn.BLAS, true: gnn.PureGoBLAS}[pureGo]), func(b *testing.B) {
			f := newStepFixture(b, ds, gnn.SAGE, 512, pureGo)
			b.ReportAllocs()
			for b.Loop() {
				f.step()
			}
		})
	}
}
