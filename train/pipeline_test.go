package train

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// paramsHash is a hash of the bits of every parameter: equal hashes mean
// weights equal bit for bit (signed zeros and NaNs included).
func paramsHash(params []float32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, v := range params {
		u := math.Float32bits(v)
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}

// ladies returns a LADIES sampler of ds with budgets per layer.
func ladies(t testing.TB, ds *dataset.Dataset, budgets []int, seed uint64) sampling.Sampler {
	t.Helper()
	s, err := sampling.NewLayerWise(ds.Adj, sampling.LayerWiseOptions{Method: sampling.LADIES, Budgets: budgets, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runWith trains a fresh trainer of data with opt and returns it and its
// result; it fails the test on an error.
func runWith(t *testing.T, data Data, opt TrainerOptions) (*Trainer, *Result) {
	t.Helper()
	tr, err := NewTrainer(data, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr, res
}

// opaqueStore hides a Local store's type (not its methods), so that the
// pipeline takes it for one that may communicate and samples on the
// loading goroutine.
type opaqueStore struct{ *featurex.Local }

// TestPipelineBitIdentical: the pipelined run (PipelineDepth 2, with the
// sampler and the gatherer on their own goroutines or, for a store other
// than featurex.Local, on one) ends with the weights, optimiser state and epoch figures of the
// unpipelined run (PipelineDepth 1), bit for bit, for SAGE and GCN on
// node-wise and LADIES samples, dense and sparse features; and so does a
// pipelined run stopped inside a bulk and resumed from its checkpoint.
func TestPipelineBitIdentical(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	sparse := *ds
	sparse.Features = append([]float32(nil), ds.Features...)
	for i := range sparse.Features {
		if i%10 != 0 { // 10% nonzero: the store gathers CSR rows
			sparse.Features[i] = 0
		}
	}
	for _, tc := range []struct {
		name    string
		arch    gnn.Arch
		ds      *dataset.Dataset
		sampler func() sampling.Sampler
	}{
		{"sage/node", gnn.SAGE, ds, func() sampling.Sampler { return nodeWise(t, ds, []int{4, 3}, 7) }},
		{"gcn/node", gnn.GCN, ds, func() sampling.Sampler { return nodeWise(t, ds, []int{4, 3}, 7) }},
		{"sage/ladies", gnn.SAGE, ds, func() sampling.Sampler { return ladies(t, ds, []int{24, 24}, 7) }},
		{"gcn/ladies", gnn.GCN, ds, func() sampling.Sampler { return ladies(t, ds, []int{24, 24}, 7) }},
		{"sage/node/sparse features", gnn.SAGE, &sparse, func() sampling.Sampler { return nodeWise(t, &sparse, []int{4, 3}, 7) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := stopOptions()
			opt.Model.Arch = tc.arch
			opt.Runtime.PipelineDepth = 1
			if tc.ds == &sparse {
				if store, _ := featurex.NewLocal(sparse.Features, sparse.NumFeatures, featurex.LocalOptions{}); !store.Sparse() {
					t.Fatal("the sparse case's store does not gather CSR rows")
				}
			}
			wantTr, want := runWith(t, dataOf(t, tc.ds, tc.sampler()), opt)
			for _, serial := range []bool{false, true} {
				data := dataOf(t, tc.ds, tc.sampler())
				if serial {
					data.Features = opaqueStore{data.Features.(*featurex.Local)}
				}
				o := opt
				o.Runtime.PipelineDepth = 2
				tr, got := runWith(t, data, o)
				if g, w := paramsHash(tr.Model().Params()), paramsHash(wantTr.Model().Params()); g != w {
					t.Errorf("serial loader %v: weights hash %x; unpipelined %x", serial, g, w)
				}
				checkSameRun(t, tr, got, wantTr, want)
			}
			// Stopped inside the second epoch's second bulk, resumed.
			o := opt
			o.Runtime.PipelineDepth = 2
			o.Checkpoint.Dir = t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o.Hooks.OnMinibatch = func(epoch, done, total int) {
				if epoch == 1 && done == 4 {
					cancel()
				}
			}
			first, err := NewTrainer(dataOf(t, tc.ds, tc.sampler()), o)
			if err != nil {
				t.Fatal(err)
			}
			var se *StoppedError
			if _, err := first.Run(ctx, nil); !errors.As(err, &se) || se.Epoch != 1 || se.Minibatches != 4 {
				t.Fatalf("err = %v; want a StoppedError after minibatch 4 of epoch 2", err)
			}
			o.Hooks.OnMinibatch, o.Checkpoint.Resume = nil, true
			second, got := runWith(t, dataOf(t, tc.ds, tc.sampler()), o)
			if g, w := paramsHash(second.Model().Params()), paramsHash(wantTr.Model().Params()); g != w {
				t.Errorf("stopped and resumed: weights hash %x; unpipelined %x", g, w)
			}
			checkSameRun(t, second, got, wantTr, want)
		})
	}
}

// failingSampler fails the bulk that starts at minibatch failAt of epoch
// 1, or, when blocked is not nil, closes blocked and waits there until its
// context is done.
type failingSampler struct {
	sampling.Sampler
	failAt  int
	blocked chan struct{}
	err     error
}

func (s *failingSampler) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	if epoch == 1 && first == s.failAt {
		if s.blocked != nil {
			close(s.blocked)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, s.err
	}
	return s.Sampler.SampleBulk(ctx, epoch, first, seeds)
}

// failingStore fails the gather of the minibatch whose seeds start with
// vertex failSeed in epoch 1 (counted by the trainer's calls).
type failingStore struct {
	featurex.Store
	calls, failAt int
	err           error
}

func (s *failingStore) Gather(ctx context.Context, dst []float32, ids []int32) error {
	s.calls++
	if s.calls == s.failAt {
		return s.err
	}
	return s.Store.Gather(ctx, dst, ids)
}

// failingReducer fails the n-th reduction.
type failingReducer struct {
	calls, failAt int
	err           error
}

func (r *failingReducer) Reduce(context.Context, []float32, *StepMetrics) error {
	r.calls++
	if r.calls == r.failAt {
		return r.err
	}
	return nil
}

// waitGoroutines waits up to 5 s for the number of goroutines to fall to
// want and returns the last count.
func waitGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}

// TestPipelineStops: an error on either side of the pipeline, or a
// cancellation while the trainer waits for it, ends Run with the same
// error and the same progress as the unpipelined run's, and leaves no
// goroutine behind: a sampling error and a gathering error (the loaders'
// side) reach the trainer after the minibatches before them; a reducer
// error (the trainer's side) stops the loaders; a context cancelled while
// the trainer waits for a sampler stops both.
func TestPipelineStops(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	injected := errors.New("injected failure")
	// stopOptions: 10 minibatches per epoch in bulks of 3, 3 epochs.
	for _, tc := range []struct {
		name string
		data func() (Data, *failingSampler)
		want []string // in the error
	}{
		{"sampler error", func() (Data, *failingSampler) {
			s := &failingSampler{Sampler: nodeWise(t, ds, []int{4, 3}, 7), failAt: 6, err: injected}
			return dataOf(t, ds, s), s
		}, []string{"epoch 1:", "sample minibatches 6..8", injected.Error()}},
		{"store error", func() (Data, *failingSampler) {
			d := dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7))
			d.Features = &failingStore{Store: d.Features, failAt: 14, err: injected}
			return d, nil
		}, []string{"epoch 1:", "minibatch 3:", injected.Error()}},
		{"reducer error", func() (Data, *failingSampler) {
			d := dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7))
			d.Reducer = &failingReducer{failAt: 12, err: injected}
			return d, nil
		}, []string{"epoch 1:", "minibatch 1:", "reduce gradients", injected.Error()}},
		{"cancelled while waiting", func() (Data, *failingSampler) {
			s := &failingSampler{Sampler: nodeWise(t, ds, []int{4, 3}, 7), failAt: 3, blocked: make(chan struct{})}
			return dataOf(t, ds, s), s
		}, []string{"stopped in epoch 2 after 3 of 10 minibatches", context.Canceled.Error()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var msgs [2]string
			var done [2]atomic.Int64
			for i, depth := range []int{1, 2} {
				before := runtime.NumGoroutine()
				data, s := tc.data()
				opt := stopOptions()
				opt.Runtime.PipelineDepth = depth
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				trained := make(chan struct{}) // minibatch 3 of epoch 1 is trained
				opt.Hooks.OnMinibatch = func(epoch, d, total int) {
					done[i].Store(int64(epoch*100 + d))
					if epoch == 1 && d == 3 {
						close(trained)
					}
				}
				if s != nil && s.blocked != nil {
					// Cancel once the sampler blocks and the trainer has
					// trained every minibatch before its bulk.
					go func() {
						<-s.blocked
						<-trained
						cancel()
					}()
				}
				tr, err := NewTrainer(data, opt)
				if err != nil {
					t.Fatal(err)
				}
				_, err = tr.Run(ctx, nil)
				if err == nil {
					t.Fatalf("depth %d: no error", depth)
				}
				msgs[i] = err.Error()
				for _, w := range tc.want {
					if !strings.Contains(msgs[i], w) {
						t.Errorf("depth %d: error %q does not say %q", depth, msgs[i], w)
					}
				}
				cancel()
				if n := waitGoroutines(before); n > before {
					buf := make([]byte, 1<<16)
					t.Errorf("depth %d: %d goroutines after Run, %d before:\n%s", depth, n, before, buf[:runtime.Stack(buf, true)])
				}
			}
			// A cancelled pipelined run was waiting, not sampling: its
			// error does not name the bulk.
			sameMsg := msgs[0] == msgs[1] || tc.name == "cancelled while waiting"
			if !sameMsg || done[0].Load() != done[1].Load() {
				t.Errorf("pipelined run: %q after minibatch %d; unpipelined: %q after minibatch %d", msgs[1], done[1].Load(), msgs[0], done[0].Load())
			}
		})
	}
}
