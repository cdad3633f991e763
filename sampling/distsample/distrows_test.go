package distsample_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/testenv"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// distDigest samples the bulks of mbs (k minibatches each) on p in-process
// ranks with replication c, each rank its run of every bulk, and returns
// the digest of every minibatch in global order. mode < 0 means the graph
// replicated on every rank (no communication).
func distDigest(t *testing.T, a *spgemm.CSR, p, c int, mode distsample.FetchMode, replicated bool, opt sampling.NodeWiseOptions, mbs [][]int32, k int) (string, dist.Stats) {
	t.Helper()
	return distDigestOf(t, a, p, c, mbs, k, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
		if replicated {
			return sampling.NewNodeWise(a, opt)
		}
		m, err := dist.Distribute(g, a)
		if err != nil {
			return nil, err
		}
		return distsample.NewDistNodeWise(m, mode, opt)
	})
}

// distDigestOf is distDigest with the sampler of each rank made by mk.
func distDigestOf(t *testing.T, a *spgemm.CSR, p, c int, mbs [][]int32, k int, mk func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error)) (string, dist.Stats) {
	t.Helper()
	world, err := dist.NewInProcWorld(p, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nb := (len(mbs) + k - 1) / k
	bulks := make([][]*sampling.Bulk, p) // rank -> bulk -> its part
	errs := make([]error, p)
	stats := make([]dist.Stats, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() {
			errs[r] = func() error {
				g, err := dist.NewGrid(ctx, world[r], c, a.Rows)
				if err != nil {
					return err
				}
				defer g.Close()
				s, err := mk(ctx, g)
				if err != nil {
					return err
				}
				for i := range nb {
					lo, hi := i*k, min((i+1)*k, len(mbs))
					mlo, mhi := g.Minibatches(hi - lo)
					b, err := s.SampleBulk(ctx, 0, lo+mlo, mbs[lo+mlo:lo+mhi])
					if err != nil {
						return err
					}
					bulks[r] = append(bulks[r], b)
				}
				for _, cm := range g.Comms() {
					stats[r].Add(cm.Stats())
				}
				return nil
			}()
			if errs[r] != nil {
				world[r].Abort(errs[r])
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	d := sampling.NewDigest()
	var total dist.Stats
	for i := range nb {
		for r := range p {
			d.AddBulk(bulks[r][i])
		}
	}
	for r := range p {
		total.Add(stats[r])
	}
	return d.Sum(), total
}

func oneProcessDigest(t *testing.T, a *spgemm.CSR, opt sampling.NodeWiseOptions, mbs [][]int32) string {
	t.Helper()
	s, err := sampling.NewNodeWise(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sampledDigest(t, s, mbs)
}

// sampledDigest returns the digest of the bulk s samples for mbs (epoch
// 0, first minibatch 0), or ends the test on an error.
func sampledDigest(t *testing.T, s sampling.Sampler, mbs [][]int32) string {
	t.Helper()
	b, err := s.SampleBulk(context.Background(), 0, 0, mbs)
	if err != nil {
		t.Fatal(err)
	}
	return samplingtest.BulkDigest(b)
}

// TestDistNodeWiseEqualsOneProcess: pull, push and replicated sampling on
// p in-process ranks with replication c give the single-process digest,
// for every p and c of the issue, both frontier modes, weighted and with
// replacement, bulks that leave some ranks without minibatches, and a
// MaxBulkEdges that makes ranks run different numbers of rounds.
func TestDistNodeWiseEqualsOneProcess(t *testing.T) {
	a := samplingtest.RandomGraph(300, 8, true, 5)
	mbs := samplingtest.RandomSeeds(a.Rows, 11, 12, 3)
	type cfg struct{ p, c int }
	var grids []cfg
	for _, p := range []int{1, 2, 3, 4, 8} {
		for _, c := range []int{1, 2, 4} {
			if p%c == 0 {
				grids = append(grids, cfg{p, c})
			}
		}
	}
	opts := []sampling.NodeWiseOptions{
		{Fanouts: []int{3, 2}, Seed: 11},
		{Fanouts: []int{2, 4, -1}, Frontier: sampling.FrontierNew, Seed: 12, MaxBulkEdges: 40, Threads: 3},
		{Fanouts: []int{5, 3}, Weighted: true, Replace: true, Seed: 13, Threads: 1},
	}
	if !testing.Short() {
		opts = append(opts, samplingtest.NodeWiseCases()...)
	}
	for _, opt := range opts {
		want := oneProcessDigest(t, a, opt, mbs)
		for i, gc := range grids {
			if len(opts) > 3 && i%3 != 0 && opt.Seed == 11 && len(opt.Fanouts) == 3 {
				continue // the full option matrix on a third of the grids keeps the test short
			}
			for _, k := range []int{5, 11} {
				for _, mode := range []string{"pull", "push", "auto", "replicated"} {
					name := fmt.Sprintf("%s/p=%d/c=%d/k=%d/%s", samplingtest.CaseName(opt), gc.p, gc.c, k, mode)
					fm, _ := distsample.ParseFetchMode(mode)
					got, st := distDigest(t, a, gc.p, gc.c, fm, mode == "replicated", opt, mbs, k)
					if got != want {
						t.Errorf("%s: digest %s; want %s", name, got, want)
					}
					if mode == "replicated" && st.Bytes[dist.PhaseSample] != 0 {
						t.Errorf("%s: %d bytes sent while sampling a replicated graph", name, st.Bytes[dist.PhaseSample])
					}
					if mode != "replicated" && gc.p/gc.c > 1 && st.Bytes[dist.PhaseSample] == 0 {
						t.Errorf("%s: no bytes counted", name)
					}
				}
			}
		}
	}
}

// TestDistNodeWisePushSendsLess: at fanout 15 on a graph of average
// degree about 60, push moves far fewer sampling bytes than pull.
func TestDistNodeWisePushSendsLess(t *testing.T) {
	a := samplingtest.RandomGraph(2000, 120, false, 9)
	mbs := samplingtest.RandomSeeds(a.Rows, 4, 64, 4)
	opt := sampling.NodeWiseOptions{Fanouts: []int{15, 10}, Seed: 3}
	_, pull := distDigest(t, a, 4, 1, distsample.FetchPull, false, opt, mbs, 4)
	_, push := distDigest(t, a, 4, 1, distsample.FetchPush, false, opt, mbs, 4)
	ratio := float64(push.Bytes[dist.PhaseSample]) / float64(pull.Bytes[dist.PhaseSample])
	t.Logf("push/pull sampling bytes = %d/%d = %.3f", push.Bytes[dist.PhaseSample], pull.Bytes[dist.PhaseSample], ratio)
	if ratio >= 0.5 {
		t.Errorf("push sent %.2f of pull's bytes; want well under 0.5 at fanout 15", ratio)
	}
}

func TestDistRowsErrors(t *testing.T) {
	if _, err := distsample.NewDistRows(nil, distsample.FetchPull, sampling.NodeWiseOptions{}); err == nil {
		t.Error("nil matrix: no error")
	}
	if _, err := distsample.ParseFetchMode("pool"); err == nil {
		t.Error(`distsample.ParseFetchMode("pool"): no error`)
	}
}

// TestDistLayerWiseEqualsOneProcess: sampling.LADIES and sampling.FastGCN
// on row blocks (frontier rows pulled per layer, sampling.FastGCN's column
// norms passed along the blocks) give the single-process digest for every p
// and c, on a weighted graph whose float sums depend on their order.
func TestDistLayerWiseEqualsOneProcess(t *testing.T) {
	a := samplingtest.RandomGraph(300, 8, true, 6)
	mbs := samplingtest.RandomSeeds(a.Rows, 7, 12, 5)
	for _, opt := range []sampling.LayerWiseOptions{
		{Method: sampling.LADIES, Budgets: []int{20, 30}, Seed: 4},
		{Method: sampling.FastGCN, Budgets: []int{25, 10}, Seed: 5, Replace: true},
	} {
		one, err := sampling.NewLayerWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := sampledDigest(t, one, mbs)
		for _, gc := range [][3]int{{1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 2, 0}, {8, 2, 0}, {4, 4, 0}, {8, 1, 0}, {2, 1, 1}, {4, 2, 1}} {
			hashed := gc[2] == 1 // the maps of a graph above denseVertexMapMax
			got, _ := distDigestOf(t, a, gc[0], gc[1], mbs, 3, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
				m, err := dist.Distribute(g, a)
				if err != nil {
					return nil, err
				}
				if hashed {
					return distsample.NewHashedDistLayerWise(ctx, m, opt)
				}
				return distsample.NewDistLayerWise(ctx, m, opt)
			})
			if got != want {
				t.Errorf("%v p=%d c=%d hashed=%v: digest %s; want %s", opt.Method, gc[0], gc[1], hashed, got, want)
			}
		}
	}
}

// degreeChecked is a sampler whose bulks must carry the degrees of a.
type degreeChecked struct {
	sampling.Sampler
	a *spgemm.CSR
}

func (s degreeChecked) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	b, err := s.Sampler.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	for m := range b.Len() {
		mb := b.Minibatch(m)
		for l, blk := range mb.Blocks {
			if len(blk.Deg) != len(blk.Src) {
				return nil, fmt.Errorf("minibatch %d block %d: %d degrees for %d sources", mb.Index, l, len(blk.Deg), len(blk.Src))
			}
			for i, v := range blk.Src {
				if want := s.a.Indptr[v+1] - s.a.Indptr[v]; int64(blk.Deg[i]) != want {
					return nil, fmt.Errorf("minibatch %d block %d: Deg[%d] = %d for vertex %d; want its row length %d", mb.Index, l, i, blk.Deg[i], v, want)
				}
			}
		}
	}
	// Digested without them: the caller compares the sample with the one
	// drawn without degrees (the digest covers the degrees).
	for l := range b.Layers {
		b.Layers[l].Deg = nil
	}
	return b, nil
}

// TestDistNodeWiseDegrees: with NodeWiseOptions.Degrees, the distributed
// sampler (pull and push, c = 1 and 2, groups that make ranks run
// different numbers of rounds, bulks leaving ranks without minibatches)
// attaches every source's degree in A, asked of its owner, and samples the
// same minibatches as without degrees, with dense and hashed vertex maps
// (which the degrees' lookup uses too).
func TestDistNodeWiseDegrees(t *testing.T) {
	a := samplingtest.RandomGraph(300, 8, true, 7)
	mbs := samplingtest.RandomSeeds(a.Rows, 9, 12, 4)
	for _, opt := range []sampling.NodeWiseOptions{
		{Fanouts: []int{3, 2}, Seed: 21},
		{Fanouts: []int{4, 3}, Seed: 22, MaxBulkEdges: 30, Weighted: true},
	} {
		want := oneProcessDigest(t, a, opt, mbs)
		opt.Degrees = true
		for _, gc := range [][2]int{{2, 1}, {4, 1}, {4, 2}, {3, 1}} {
			for _, mode := range []distsample.FetchMode{distsample.FetchPull, distsample.FetchPush} {
				for _, hashed := range []bool{false, true} {
					got, _ := distDigestOf(t, a, gc[0], gc[1], mbs, 5, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
						m, err := dist.Distribute(g, a)
						if err != nil {
							return nil, err
						}
						newSampler := distsample.NewDistNodeWise
						if hashed {
							newSampler = distsample.NewHashedDistNodeWise
						}
						s, err := newSampler(m, mode, opt)
						return degreeChecked{s, a}, err
					})
					if got != want {
						t.Errorf("p=%d c=%d %v MaxBulkEdges=%d hashed maps %v: digest %s; want %s (the sample without degrees)", gc[0], gc[1], mode, opt.MaxBulkEdges, hashed, got, want)
					}
				}
			}
		}
	}
}

// distStats samples mbs as distDigestOf does with a DistNodeWise of mode
// and opt on every rank, and returns the digest, the counters and rank 0's
// DistStats.
func distStats(t *testing.T, a *spgemm.CSR, p, c int, mode distsample.FetchMode, opt sampling.NodeWiseOptions, mbs [][]int32, k int) (string, dist.Stats, distsample.DistStats) {
	t.Helper()
	d, st, samplers := distNodeWise(t, a, p, c, mode, opt, mbs, k, 0)
	return d, st, samplers[0].Stats()
}

// distNodeWise is distDigestOf with a DistNodeWise of mode and opt on each
// rank, its pull batches bounded by pullBatch bytes (0: the default); it
// also returns every rank's sampler, in rank order.
func distNodeWise(t *testing.T, a *spgemm.CSR, p, c int, mode distsample.FetchMode, opt sampling.NodeWiseOptions, mbs [][]int32, k int, pullBatch int64) (string, dist.Stats, []*distsample.DistNodeWise) {
	t.Helper()
	samplers := make([]*distsample.DistNodeWise, p)
	d, st := distDigestOf(t, a, p, c, mbs, k, func(ctx context.Context, g *dist.Grid) (sampling.Sampler, error) {
		m, err := dist.Distribute(g, a)
		if err != nil {
			return nil, err
		}
		s, err := distsample.NewDistNodeWise(m, mode, opt)
		if err == nil {
			s.Rows().SetBatchBytes(pullBatch, 0)
		}
		samplers[g.Rank()] = s
		return s, err
	})
	return d, st, samplers
}

// TestDistAutoChoosesByModel: FetchAuto pushes the layers whose rows are
// long beside the fanout (fanout 3 on a graph of average degree about 60)
// and pulls those where pulling sends less (fanout -1: a push would send
// every entry and a pair per row), samples what one process samples
// either way, and counts its choices per layer.
func TestDistAutoChoosesByModel(t *testing.T) {
	a := samplingtest.RandomGraph(2000, 120, false, 9)
	mbs := samplingtest.RandomSeeds(a.Rows, 4, 64, 4)
	for _, tc := range []struct {
		fanouts []int
		want    distsample.FetchMode
	}{{[]int{3, 3}, distsample.FetchPush}, {[]int{-1, -1}, distsample.FetchPull}} {
		opt := sampling.NodeWiseOptions{Fanouts: tc.fanouts, Seed: 3}
		want := oneProcessDigest(t, a, opt, mbs)
		got, traffic, st := distStats(t, a, 2, 1, distsample.FetchAuto, opt, mbs, 4)
		if got != want {
			t.Errorf("fanouts %v: digest %s; want %s", tc.fanouts, got, want)
		}
		_, forced, _ := distStats(t, a, 2, 1, tc.want, opt, mbs, 4)
		if traffic.Bytes[dist.PhaseSample] != forced.Bytes[dist.PhaseSample] {
			t.Errorf("fanouts %v: auto sent %d bytes, %v %d", tc.fanouts, traffic.Bytes[dist.PhaseSample], tc.want, forced.Bytes[dist.PhaseSample])
		}
		if len(st.Layers) != len(tc.fanouts) {
			t.Fatalf("fanouts %v: %d layers of fetch figures", tc.fanouts, len(st.Layers))
		}
		for l, ls := range st.Layers {
			pulled, pushed := ls.Pull == 1 && ls.Push == 0, ls.Push == 1 && ls.Pull == 0
			if (tc.want == distsample.FetchPush) != pushed || (tc.want == distsample.FetchPull) != pulled || !(ls.ModelPullBytes > 0 && ls.ModelPushBytes > 0) {
				t.Errorf("fanouts %v layer %d: %+v; want one %v round and the model's bytes", tc.fanouts, l, ls, tc.want)
			}
		}
	}
}

// TestDistPullBatches: the pull rounds of a layer bring in the rows of
// several groups at once (within the fetch budget, which a small graph
// never reaches), so that the bytes pulled do not grow with the number of
// groups, and the sample stays the single process's.
func TestDistPullBatches(t *testing.T) {
	a := samplingtest.RandomGraph(2000, 120, false, 9)
	mbs := samplingtest.RandomSeeds(a.Rows, 8, 64, 4)
	var bytes []int64
	for _, cap := range []int64{0, 40} {
		opt := sampling.NodeWiseOptions{Fanouts: []int{5, 3}, Seed: 3, MaxBulkEdges: cap}
		want := oneProcessDigest(t, a, opt, mbs)
		got, traffic, st := distStats(t, a, 4, 1, distsample.FetchPull, opt, mbs, 8)
		if got != want {
			t.Errorf("MaxBulkEdges %d: digest %s; want %s", cap, got, want)
		}
		if st.Exchange.Rows.Rounds != int64(len(opt.Fanouts)) {
			t.Errorf("MaxBulkEdges %d: %d pull rounds on rank 0; want one a layer", cap, st.Exchange.Rows.Rounds)
		}
		bytes = append(bytes, traffic.Bytes[dist.PhaseSample])
	}
	if bytes[0] != bytes[1] {
		t.Errorf("pull bytes %d with the default groups, %d with groups of a minibatch; want equal", bytes[0], bytes[1])
	}
}

// TestDistPullParts: with a pull budget smaller than a group's rows, each
// group is pulled in parts (DistRows.PullParts: a lengths round, then a
// pull round a part) and samples what one process samples, for the laws
// and frontier modes, groups of one minibatch, several threads, p = 2 and
// 4, c = 1 and 2, in more rounds the smaller the budget.
func TestDistPullParts(t *testing.T) {
	a := samplingtest.RandomGraph(2000, 120, true, 9)
	mbs := samplingtest.RandomSeeds(a.Rows, 8, 64, 4)
	opts := []sampling.NodeWiseOptions{
		{Fanouts: []int{5, 3}, Seed: 3},
		{Fanouts: []int{4, -1}, Seed: 4, Weighted: true, Threads: 3},
		{Fanouts: []int{3, 3, 2}, Seed: 5, Replace: true, Frontier: sampling.FrontierNew},
		{Fanouts: []int{5, 3}, Seed: 6, MaxBulkEdges: 40, Threads: 2},
	}
	for _, opt := range opts {
		want := oneProcessDigest(t, a, opt, mbs)
		for _, gc := range [][2]int{{2, 1}, {4, 1}, {4, 2}} {
			rounds := map[int64]dist.RoundStats{}
			for _, budget := range []int64{0, 16 << 10, 4 << 10} {
				got, _, samplers := distNodeWise(t, a, gc[0], gc[1], distsample.FetchPull, opt, mbs, 8, budget)
				name := fmt.Sprintf("%s p=%d c=%d budget %d", samplingtest.CaseName(opt), gc[0], gc[1], budget)
				if got != want {
					t.Errorf("%s: digest %s; want %s", name, got, want)
				}
				st := samplers[0].Stats().Exchange
				rounds[budget] = st.Rows
				if (budget == 0) != (st.Degrees.Rounds == 0) {
					t.Errorf("%s: %d lengths rounds; want some exactly when the budget is small", name, st.Degrees.Rounds)
				}
			}
			if !(rounds[4<<10].Rounds > rounds[16<<10].Rounds && rounds[16<<10].Rounds > rounds[0].Rounds) {
				t.Errorf("%s p=%d c=%d: pull rounds %d, %d, %d at budgets 0, 16 KiB, 4 KiB; want more as it shrinks",
					samplingtest.CaseName(opt), gc[0], gc[1], rounds[0].Rounds, rounds[16<<10].Rounds, rounds[4<<10].Rounds)
			}
		}
	}
}

// TestPullParts: DistRows.PullParts on rank 0 of 2 (rank 1 serving in
// Drain) cuts a list of vertices into consecutive parts, in order, each
// part's remote rows (entries plus an id and a length) within the budget
// unless it holds one remote row, local rows costing nothing, and every
// degree its row's length; where its estimate from the local rows among
// the list is at most half the budget (the default budget, no vertices)
// it answers one part without a lengths round.
func TestPullParts(t *testing.T) {
	a := samplingtest.RandomGraph(400, 30, false, 12)
	type result struct {
		parts  []int
		deg    []int32
		rounds int64
	}
	run := func(vertices []int32, budget int64) result {
		var res result
		err := dist.RunInProc(context.Background(), 2, dist.Options{}, func(ctx context.Context, world dist.Comm) error {
			g, err := dist.NewGrid(ctx, world, 1, a.Rows)
			if err != nil {
				return err
			}
			defer g.Close()
			m, err := dist.Distribute(g, a)
			if err != nil {
				return err
			}
			d, err := distsample.NewDistRows(m, distsample.FetchPull, sampling.NodeWiseOptions{Fanouts: []int{3}})
			if err != nil {
				return err
			}
			d.SetBatchBytes(budget, 0)
			if g.Rank() == 0 {
				deg := make([]int32, len(vertices))
				parts, err := d.PullParts(ctx, vertices, deg, nil)
				if err != nil {
					return err
				}
				res = result{parts, deg, 0}
			}
			if err := d.Drain(ctx); err != nil {
				return err
			}
			if g.Rank() == 0 {
				res.rounds = d.Stats().Exchange.Degrees.Rounds
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := samplingtest.Vertices(a.Rows) // rank 0 owns 0..199
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	for _, tc := range []struct {
		name     string
		vertices []int32
		budget   int64
		parts    int  // 0: more than one, checked below
		asks     bool // a lengths round
	}{
		{"no vertices", nil, 64, 1, false},
		{"default budget", all, 0, 1, false},
		{"local rows only", all[:200], 64, 1, true}, // the estimate takes them for a sample of all
		{"a part a remote row", all[190:260], 4, 60, true},
		{"small budget", all, 1024, 0, true},
		{"mixed, reversed", reversed, 2048, 0, true},
	} {
		r := run(tc.vertices, tc.budget)
		if r.parts[len(r.parts)-1] != len(tc.vertices) || !slices.IsSorted(r.parts) || (len(tc.vertices) > 0 && r.parts[0] == 0) {
			t.Errorf("%s: part ends %v for %d vertices", tc.name, r.parts, len(tc.vertices))
			continue
		}
		if tc.parts > 0 && len(r.parts) != tc.parts || tc.parts == 0 && len(r.parts) < 2 {
			t.Errorf("%s: %d parts; want %d (0: several)", tc.name, len(r.parts), tc.parts)
		}
		if tc.asks != (r.rounds > 0) {
			t.Errorf("%s: %d lengths rounds; want some: %v", tc.name, r.rounds, tc.asks)
		}
		if !tc.asks {
			continue
		}
		start := 0
		for _, end := range r.parts {
			var words int64
			remote := 0
			for i := start; i < end; i++ {
				v := tc.vertices[i]
				if got, want := r.deg[i], int32(a.Indptr[v+1]-a.Indptr[v]); got != want {
					t.Fatalf("%s: degree of %d = %d, want %d", tc.name, v, got, want)
				}
				if v >= 200 {
					words += int64(r.deg[i]) + 2
					remote++
				}
			}
			if remote > 1 && words > tc.budget/4 {
				t.Errorf("%s: part %d..%d holds %d words, over the budget's %d", tc.name, start, end, words, tc.budget/4)
			}
			start = end
		}
	}
}

// TestPickRowsEqualsPick: RowPicker.PickRows, which draws a chunk of rows'
// positions before it reads their entries, picks what Pick picks row by
// row, for every law, fanouts above and below the degrees, all
// neighbours, rows of a block that starts past row 0, and rows repeated
// for several minibatches.
func TestPickRowsEqualsPick(t *testing.T) {
	a := samplingtest.RandomGraph(400, 12, true, 8)
	const lo = 100
	block := spgemm.GatherRows(a, func() []int32 {
		ids := make([]int32, a.Rows-lo)
		for i := range ids {
			ids[i] = int32(lo + i)
		}
		return ids
	}(), 1)
	var gids, mbs []int32
	for i := range 700 {
		gids = append(gids, int32(lo+(i*37)%(a.Rows-lo)))
		mbs = append(mbs, int32(i/50))
	}
	for _, opt := range []sampling.NodeWiseOptions{
		{Seed: 1}, {Seed: 2, Replace: true}, {Seed: 3, Weighted: true}, {Seed: 4, Weighted: true, Replace: true},
	} {
		for _, s := range []int{1, 4, 30, -1} {
			if s < 0 && opt.Replace {
				continue
			}
			p := sampling.NewRowPicker(opt)
			counts := make([]int32, len(gids))
			got, gotVals := p.PickRows(2, 1, s, block, lo, gids, mbs, counts, []int32{-7}, nil)
			var want []int32
			var wantVals []float32
			wantCounts := make([]int32, len(gids))
			for i, v := range gids {
				cols, vals := a.Row(int(v))
				var n int
				want, wantVals, n = p.Pick(2, int(mbs[i]), 1, v, cols, vals, s, want, wantVals)
				wantCounts[i] = int32(n)
			}
			name := fmt.Sprintf("weighted=%v replace=%v s=%d", opt.Weighted, opt.Replace, s)
			if fmt.Sprint(counts) != fmt.Sprint(wantCounts) || got[0] != -7 || fmt.Sprint(got[1:]) != fmt.Sprint(want) || !testenv.SameBits(gotVals, wantVals) {
				t.Errorf("%s: PickRows differs from Pick row by row", name)
			}
		}
	}
}

// TestDistAutoModelCountsParts: FetchAuto's byte model of a pulled layer
// (DistStats' ModelPullBytes, over the ranks) stays within 20% of the
// bytes a forced pull with the same pull budget sends, also when the
// budget is so small that PullParts cuts every group into parts (a round
// of the rows' lengths, then a round a part): a model that counted one
// round and no lengths per batch fell to 0.47-0.72 of them here.
func TestDistAutoModelCountsParts(t *testing.T) {
	mbs := samplingtest.RandomSeeds(2000, 8, 64, 4)
	opt := sampling.NodeWiseOptions{Fanouts: []int{-1, -1}, Seed: 3}
	for _, deg := range []int{4, 30} {
		a := samplingtest.RandomGraph(2000, deg, false, 9)
		for _, budget := range []int64{0, 2048, 256} {
			for _, p := range []int{2, 4} {
				run := func(mode distsample.FetchMode) (float64, int64) {
					_, st, samplers := distNodeWise(t, a, p, 1, mode, opt, mbs, 8, budget)
					var model float64
					for _, s := range samplers {
						for _, l := range s.Stats().Layers {
							model += l.ModelPullBytes
						}
					}
					return model, st.Bytes[dist.PhaseSample]
				}
				model, _ := run(distsample.FetchAuto)
				_, sent := run(distsample.FetchPull)
				if r := model / float64(sent); r < 0.8 || r > 1.2 {
					t.Errorf("degree %d, budget %d bytes, p = %d: the model's pull bytes %.0f are %.2f of the %d a pull sends; want 0.8-1.2", deg, budget, p, model, r, sent)
				}
			}
		}
	}
}
