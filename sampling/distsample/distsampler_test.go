package distsample_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// blockOf returns the rows g.MyRows() of a: what a rank of a Split run
// reads of the graph.
func blockOf(g *dist.Grid, a *spgemm.CSR) *spgemm.CSR {
	lo, hi := g.MyRows()
	rows := make([]int32, hi-lo)
	for i := range rows {
		rows[i] = lo + int32(i)
	}
	return spgemm.GatherRows(a, rows, 1)
}

// TestNewDistSamplerEqualsNewSampler: NewDistSampler gives, for every
// method (node-wise pulled and pushed, with degrees; LADIES on the matrix as
// given and normalised; FastGCN), on a Split and a Replicated graph and on
// grids with and without replicas, the digest of NewSampler on the whole
// graph with the same options, and a sampler of the same fingerprint.
func TestNewDistSamplerEqualsNewSampler(t *testing.T) {
	a := samplingtest.RandomGraph(240, 7, true, 8)
	mbs := samplingtest.RandomSeeds(a.Rows, 7, 10, 6)
	for _, opt := range []distsample.DistSamplerOptions{
		{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{3, 2}, Seed: 1, Degrees: true}},
		{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4, 2}, Seed: 2, Weighted: true}, Fetch: distsample.FetchPush},
		{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{20, 10}, Seed: 3}},
		{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{20, 10}, Seed: 3, Normalize: true}},
		{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodFastGCN, Fanouts: []int{15, 15}, Seed: 4}},
	} {
		one, err := sampling.NewSampler(a, opt.SamplerOptions)
		if err != nil {
			t.Fatal(err)
		}
		want := sampledDigest(t, one, mbs)
		for _, layout := range []distsample.Layout{distsample.Split, distsample.Replicated} {
			opt.Layout = layout
			for _, gc := range [][2]int{{2, 1}, {4, 2}, {3, 3}} {
				var fingerprint string // rank 0's sampler's
				got, _ := distDigestOf(t, a, gc[0], gc[1], mbs, 4, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
					graph := a
					if layout == distsample.Split {
						graph = blockOf(g, a)
					}
					s, err := distsample.NewDistSampler(ctx, g, graph, opt)
					if err == nil && g.Rank() == 0 {
						fingerprint = s.(sampling.Fingerprinter).Fingerprint().String()
					}
					return s, err
				})
				if got != want {
					t.Errorf("%s %v %v p=%d c=%d: digest %s; want %s", opt.SamplerOptions.Method, layout, opt.Fetch, gc[0], gc[1], got, want)
				}
				if w := one.(sampling.Fingerprinter).Fingerprint().String(); fingerprint != w {
					t.Errorf("%s %v %v p=%d c=%d: fingerprint %s; want %s", opt.SamplerOptions.Method, layout, opt.Fetch, gc[0], gc[1], fingerprint, w)
				}
			}
		}
	}
}

// TestDistSamplerOptionsValidate: an option that does not apply to the
// method or the layout is an error naming the field.
func TestDistSamplerOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opt  distsample.DistSamplerOptions
		want string
	}{
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{4}}, Fetch: distsample.FetchPush}, "Fetch = push, applies to method node"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Layout: 7}, "Layout = 7"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Fetch: 5}, "Fetch = 5"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, PullBatchBytes: -1}, "PullBatchBytes = -1, want >= 0"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, PushBatchBytes: -8}, "PushBatchBytes = -8, want >= 0"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}, Normalize: true}}, "Normalize = true, applies to method ladies"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Overlap: 3}, "Overlap = 3, want OverlapDefault, OverlapOn or OverlapOff"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Overlap: -1}, "Overlap = -1"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Fetch: distsample.FetchPull, Overlap: distsample.OverlapOn}, "Overlap = on, overlaps push batches, and fetch pull pulls every layer"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{4}}, Overlap: distsample.OverlapOn}, "Overlap = on, applies to method node"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodFastGCN, Fanouts: []int{4}}, PullBatchBytes: 1 << 20}, "PullBatchBytes = 1048576, applies to method node"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Layout: distsample.Replicated, PushBatchBytes: 4096}, "PushBatchBytes = 4096, applies to a split graph"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Fetch: distsample.FetchPush, PullBatchBytes: 1}, "PullBatchBytes = 1, makes no rounds with fetch push"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Fetch: distsample.FetchPull, PushBatchBytes: 1}, "PushBatchBytes = 1, makes no rounds with fetch pull"},
		{distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Method: sampling.MethodFastGCN, Fanouts: []int{4}, Normalize: true}}, "Normalize = true, applies to method ladies"},
	} {
		if err := tc.opt.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v; want one containing %q", tc.opt, err, tc.want)
		}
	}
	if err := (&distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}}).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for _, ov := range []distsample.OverlapMode{distsample.OverlapDefault, distsample.OverlapOn, distsample.OverlapOff} {
		if err := (&distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{4}}, Fetch: distsample.FetchPush, Overlap: ov}).Validate(); err != nil {
			t.Errorf("push, overlap %v: %v", ov, err)
		}
		if m, err := distsample.ParseOverlapMode(ov.String()); m != ov || err != nil {
			t.Errorf("ParseOverlapMode(%q) = %v, %v", ov.String(), m, err)
		}
	}
	if _, err := distsample.ParseOverlapMode("yes"); err == nil {
		t.Error("ParseOverlapMode(\"yes\"): no error")
	}
}

// TestNewDistSamplerBlock: a block that is not this rank's is an error
// naming the rank and both shapes.
func TestNewDistSamplerBlock(t *testing.T) {
	a := samplingtest.RandomGraph(50, 4, false, 2)
	err := dist.RunInProc(context.Background(), 2, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := dist.NewGrid(ctx, w, 1, a.Rows)
		if err != nil {
			return err
		}
		defer g.Close()
		_, err = distsample.NewDistSampler(ctx, g, a, distsample.DistSamplerOptions{SamplerOptions: sampling.SamplerOptions{Fanouts: []int{2}}})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rank %d", g.Rank())) || !strings.Contains(err.Error(), "50 x 50") {
			return fmt.Errorf("the whole graph as a block: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestDistSamplerBatchBytes: the budgets of pull and push batches change
// the rounds (a budget of one byte makes a round of every group, more
// messages than the defaults' one or few per layer), never the sample: every
// budget gives NewSampler's digest, with fanouts and with every neighbour,
// weighted and not.
func TestDistSamplerBatchBytes(t *testing.T) {
	a := samplingtest.RandomGraph(300, 6, true, 11)
	mbs := samplingtest.RandomSeeds(a.Rows, 5, 24, 12)
	for _, base := range []sampling.SamplerOptions{
		{Fanouts: []int{3, 2}, Seed: 5, MaxBulkEdges: 40},
		{Fanouts: []int{-1, 2}, Seed: 6, MaxBulkEdges: 60, Weighted: true},
	} {
		one, err := sampling.NewSampler(a, base)
		if err != nil {
			t.Fatal(err)
		}
		want := sampledDigest(t, one, mbs)
		for _, fetch := range []distsample.FetchMode{distsample.FetchPull, distsample.FetchPush, distsample.FetchAuto} {
			var msgs []int64
			for _, budget := range []int64{0, 1, 256, 1 << 40} {
				opt := distsample.DistSamplerOptions{SamplerOptions: base, Fetch: fetch}
				batchBudget(&opt, budget)
				got, st := distDigestOf(t, a, 4, 1, mbs, 12, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
					return distsample.NewDistSampler(ctx, g, blockOf(g, a), opt)
				})
				if got != want {
					t.Errorf("fanouts %v %v, batches of %d bytes: digest %s; want %s", base.Fanouts, fetch, budget, got, want)
				}
				msgs = append(msgs, st.Messages[dist.PhaseSample])
			}
			if fetch != distsample.FetchAuto && msgs[1] <= msgs[0] {
				t.Errorf("fanouts %v %v: %d sample messages with batches of 1 byte, %d with the default; want more", base.Fanouts, fetch, msgs[1], msgs[0])
			}
		}
	}
}

// batchBudget sets the pull and push batch bounds of opt that its fetch
// mode makes rounds of (the other is an error) to budget.
func batchBudget(opt *distsample.DistSamplerOptions, budget int64) {
	if opt.Fetch != distsample.FetchPush {
		opt.PullBatchBytes = budget
	}
	if opt.Fetch != distsample.FetchPull {
		opt.PushBatchBytes = budget
	}
}
