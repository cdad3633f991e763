package distsample_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// TestDistOverlapEqualsOneProcess: overlapping push batches
// (DistSamplerOptions.Overlap) changes no bit of the sample. Every fetch
// mode on p = 1..4 in-process ranks with c = 1 and 2, overlap on and off,
// with the default batch budgets and with budgets of one byte (a push
// round per group of minibatches, so that most batches are asked for
// while the previous one is extracted), gives the single-process digest;
// with overlap on and many batches some are overlapped.
func TestDistOverlapEqualsOneProcess(t *testing.T) {
	a := samplingtest.RandomGraph(300, 8, true, 21)
	mbs := samplingtest.RandomSeeds(a.Rows, 20, 9, 22)
	opts := []sampling.SamplerOptions{
		{Fanouts: []int{3, 2}, Seed: 21, MaxBulkEdges: 30},
		{Fanouts: []int{4, -1, 2}, Frontier: sampling.FrontierNew, Seed: 22, MaxBulkEdges: 40, Threads: 3},
		{Fanouts: []int{5, 3}, Weighted: true, Replace: true, Seed: 23, MaxBulkEdges: 50, Threads: 1},
	}
	for _, base := range opts {
		one, err := sampling.NewSampler(a, base)
		if err != nil {
			t.Fatal(err)
		}
		want := sampledDigest(t, one, mbs)
		for _, tc := range []struct {
			p, c int
		}{{1, 1}, {2, 1}, {2, 2}, {3, 1}, {4, 1}, {4, 2}} {
			for _, fetch := range []distsample.FetchMode{distsample.FetchPull, distsample.FetchPush, distsample.FetchAuto} {
				for _, budget := range []int64{0, 1} {
					for _, ov := range []distsample.OverlapMode{distsample.OverlapOff, distsample.OverlapOn, distsample.OverlapDefault} {
						if ov == distsample.OverlapOn && fetch == distsample.FetchPull {
							continue // an error (TestDistSamplerOptionsValidate)
						}
						name := fmt.Sprintf("%s/p=%d/c=%d/%v/batch=%d/overlap=%v", samplingtest.CaseName(base.NodeWiseOptions()), tc.p, tc.c, fetch, budget, ov)
						opt := distsample.DistSamplerOptions{SamplerOptions: base, Fetch: fetch, Overlap: ov}
						batchBudget(&opt, budget)
						samplers := make([]sampling.Sampler, tc.p)
						got, _ := distDigestOf(t, a, tc.p, tc.c, mbs, 8, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
							s, err := distsample.NewDistSampler(ctx, g, blockOf(g, a), opt)
							samplers[g.Rank()] = s
							return s, err
						})
						if got != want {
							t.Errorf("%s: digest %s; want %s", name, got, want)
						}
						var st distsample.OverlapStats
						for _, s := range samplers {
							d := s.(*distsample.DistNodeWise)
							if d.Rows().Overlap() != ov.Overlaps() {
								t.Errorf("%s: Overlap() = %v; want %v", name, d.Rows().Overlap(), ov.Overlaps())
							}
							o := d.Stats().Overlap
							st.Batches += o.Batches
							if o.Hidden() < 0 || o.Hidden() > o.Fetch {
								t.Errorf("%s: hidden %v of %v fetching", name, o.Hidden(), o.Fetch)
							}
						}
						switch {
						case !ov.Overlaps() && st.Batches != 0:
							t.Errorf("%s: %d batches overlapped with overlap off", name, st.Batches)
						case ov.Overlaps() && fetch == distsample.FetchPush && budget == 1 && st.Batches == 0:
							t.Errorf("%s: no batch overlapped", name)
						}
					}
				}
			}
		}
	}
}

// countdownCtx is a context whose Err becomes context.Canceled at its
// n-th call (on whichever goroutine makes it) and which is then done.
type countdownCtx struct {
	context.Context
	n      atomic.Int64
	cancel context.CancelFunc
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) == 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// TestDistOverlapFailureEnds: a rank whose context is cancelled in the
// middle of an overlapped layer (at its n-th check, for many n: before,
// during and after push rounds in flight) ends with an error, and the job
// ends (RunInProc aborts the other ranks, as dist.Run does): no rank waits
// forever for a round, and the goroutine of the rounds in flight is
// waited for (the race detector and the goroutine check of the package's
// tests would see one left behind).
func TestDistOverlapFailureEnds(t *testing.T) {
	a := samplingtest.RandomGraph(300, 8, false, 31)
	mbs := samplingtest.RandomSeeds(a.Rows, 24, 9, 32)
	base := sampling.SamplerOptions{Fanouts: []int{4, 3, 2}, Seed: 31, MaxBulkEdges: 30}
	opt := distsample.DistSamplerOptions{SamplerOptions: base, Fetch: distsample.FetchPush, PushBatchBytes: 1, Overlap: distsample.OverlapOn}
	for _, n := range []int64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89} {
		start := time.Now()
		err := dist.RunInProc(context.Background(), 4, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
			g, err := dist.NewGrid(ctx, w, 2, a.Rows)
			if err != nil {
				return err
			}
			defer g.Close()
			s, err := distsample.NewDistSampler(ctx, g, blockOf(g, a), opt)
			if err != nil {
				return err
			}
			if g.Rank() == 1 {
				cc, cancel := context.WithCancel(ctx)
				defer cancel()
				cd := &countdownCtx{Context: cc, cancel: cancel}
				cd.n.Store(n)
				ctx = cd
			}
			for i := 0; i < len(mbs); i += 12 {
				lo, hi := g.Minibatches(12)
				if _, err := s.SampleBulk(ctx, 0, i+lo, mbs[i+lo:i+hi]); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "cancel") {
			t.Errorf("cancelled at check %d: err = %v; want the cancellation", n, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("cancelled at check %d: the job took %v to end", n, d)
		}
	}
}
