package sampling

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/bulksample/bulksample/internal/par"
)

// overlapPicker is a single-process RemoteRows that pushes every layer
// with overlap: it picks every pushed row of a whole graph itself
// (RowPicker, as an owner would), a push batch per group of minibatches,
// the batches after the first on a goroutine of its own. At its failAt-th
// StartPicks it cancels the sampler's context first, so that the sampler
// meets the error while that batch is in flight.
type overlapPicker struct {
	CSRRows
	p       *RowPicker
	cancel  context.CancelFunc
	failAt  int
	started int
	running atomic.Int32 // goroutines of startPicks not yet returned
	fetches int
}

func (o *overlapPicker) FetchPicks(_ context.Context, req *PickRequest) error {
	o.fetches++
	req.Count = par.Resize(req.Count, len(req.Vertex))
	req.Picks, req.Values = o.p.PickRows(req.Epoch, req.Layer, req.Fanout, o.A, 0, req.Vertex, req.Minibatch, req.Count, req.Picks[:0], req.Values[:0])
	return nil
}

func (o *overlapPicker) PlanLayer(d LayerDemand, dst []int) LayerPlan {
	dst = dst[:0]
	for j := range len(d.Groups) {
		dst = append(dst, j)
	}
	return LayerPlan{Push: true, Overlap: true, Batches: dst}
}

func (o *overlapPicker) FetchRows(context.Context, []int32) error {
	return errors.New("overlapPicker pushes every layer: no rows to fetch")
}

func (o *overlapPicker) PullParts(_ context.Context, vs, _ []int32, parts []int) ([]int, error) {
	return append(parts[:0], len(vs)), nil
}

func (o *overlapPicker) StartPicks(ctx context.Context, req *PickRequest) func() error {
	o.started++
	fail := o.started == o.failAt
	if fail {
		o.cancel()
	}
	done := make(chan error, 1)
	o.running.Add(1)
	go func() {
		var err error
		if fail {
			<-ctx.Done()
			err = ctx.Err()
		} else {
			err = o.FetchPicks(ctx, req)
		}
		o.running.Add(-1) // before the answer, which SampleBulk waits for
		done <- err
	}()
	return func() error { return <-done }
}

// TestOverlapKernel: a pushed layer whose plan overlaps its batches
// (RemoteRows.StartPicks) gives the sample of the ordinary sampler, bit for bit,
// batch after batch in flight while the previous one is extracted; and a
// context cancelled while a batch is in flight ends SampleBulk with the
// cancellation, after the batch's goroutine has returned.
func TestOverlapKernel(t *testing.T) {
	// A random graph of 400 vertices, about 12 weighted edges each.
	a := lcgGraph(t, 400, 12, 7, 7)
	mbs := make([][]int32, 14)
	for i := range mbs {
		for j := range 9 {
			mbs[i] = append(mbs[i], int32((i*37+j*101)%a.Rows))
		}
	}
	for _, opt := range []NodeWiseOptions{
		{Fanouts: []int{3, 2}, Seed: 41, MaxBulkEdges: 30},
		{Fanouts: []int{4, -1, 2}, Frontier: FrontierNew, Seed: 42, MaxBulkEdges: 40, Threads: 3},
		{Fanouts: []int{5, 3}, Weighted: true, Replace: true, Seed: 43, MaxBulkEdges: 50, Threads: 1},
	} {
		name := fmt.Sprintf("fanouts %v seed %d", opt.Fanouts, opt.Seed)
		one, err := NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		want, err := one.SampleBulk(context.Background(), 0, 0, mbs)
		if err != nil {
			t.Fatal(err)
		}
		for _, failAt := range []int{0, 1, 2, 5} {
			ctx, cancel := context.WithCancel(context.Background())
			o := &overlapPicker{CSRRows: CSRRows{A: a}, p: NewRowPicker(opt), cancel: cancel, failAt: failAt}
			nw, err := newNodeWise(o, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := nw.SampleBulk(ctx, 0, 0, mbs)
			cancel()
			if n := o.running.Load(); n != 0 {
				t.Errorf("%s, cancelled at batch %d: %d goroutines of batches still running after SampleBulk", name, failAt, n)
			}
			if failAt > 0 {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s, cancelled at batch %d: err = %v; want context.Canceled", name, failAt, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if o.started == 0 {
				t.Errorf("%s: no batch overlapped", name)
			}
			if g, w := bulkDigestOf(got), bulkDigestOf(want); g != w {
				t.Errorf("%s: digest %s; want %s (%d batches, %d overlapped)", name, g, w, o.fetches, o.started)
			}
		}
	}
}

func bulkDigestOf(b *Bulk) string {
	d := NewDigest()
	d.AddBulk(b)
	return d.Sum()
}
