package sampling_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestNodeWiseConformance runs the node-wise conformance kit on the bulk
// kernel (of a CSR matrix and of a RowSource) and on the per-minibatch
// baseline.
func TestNodeWiseConformance(t *testing.T) {
	for name, mk := range map[string]samplingtest.NewNodeWise{
		"bulk": func(a *spgemm.CSR, o sampling.NodeWiseOptions) (sampling.Sampler, error) {
			return sampling.NewNodeWise(a, o)
		},
		"rowsource": func(a *spgemm.CSR, o sampling.NodeWiseOptions) (sampling.Sampler, error) {
			return sampling.NewNodeWiseFrom(sampling.CSRRows{A: a}, o)
		},
		"baseline": func(a *spgemm.CSR, o sampling.NodeWiseOptions) (sampling.Sampler, error) {
			return sampling.NewBaseline(a, o)
		},
	} {
		t.Run(name, func(t *testing.T) { samplingtest.RunNodeWise(t, mk) })
	}
}

// TestNodeWiseMatchesBaseline: the bulk kernel and the baseline return the
// same blocks bit for bit (the kit compares each with the explicit path
// within rounding).
func TestNodeWiseMatchesBaseline(t *testing.T) {
	a := samplingtest.RandomGraph(300, 12, true, 1)
	seeds := samplingtest.RandomSeeds(300, 5, 16, 2)
	ctx := context.Background()
	for _, opt := range samplingtest.NodeWiseCases() {
		nw, err := sampling.NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := nw.SampleBulk(ctx, 3, 10, seeds)
		if err != nil {
			t.Fatal(err)
		}
		bl, err := sampling.NewBaseline(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		base, err := bl.SampleBulk(ctx, 3, 10, seeds)
		if err != nil {
			t.Fatal(err)
		}
		samplingtest.CompareBulks(t, samplingtest.CaseName(opt)+": bulk vs baseline", got, base, 0)
	}
}

// TestNodeWiseEdgeCases: isolated seeds, a self loop, duplicate seeds,
// empty minibatches and an empty bulk.
func TestNodeWiseEdgeCases(t *testing.T) {
	// 0: isolated; 1: its own neighbour and 2's; 2 -> 1, 3.
	a := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 0, 2, 4, 4},
		Indices: []int32{1, 2, 1, 3}, Data: []float32{1, 1, 1, 1}}
	ctx := context.Background()
	for _, fr := range []sampling.FrontierMode{sampling.FrontierAll, sampling.FrontierNew} {
		opt := sampling.NodeWiseOptions{Fanouts: []int{5, 5}, Frontier: fr}
		nw, err := sampling.NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := nw.SampleBulk(ctx, 0, 0, [][]int32{{0}, {1, 1, 0, 1}, {}, {2}})
		if err != nil {
			t.Fatal(err)
		}
		samplingtest.CheckBulk(t, a, opt, b)
		m0 := b.Minibatch(0)
		if m0.Blocks[0].Adj.NNZ() != 0 || !slices.Equal(m0.InputNodes(), []int32{0}) {
			t.Errorf("%v isolated seed: %+v", fr, m0.Blocks)
		}
		m1 := b.Minibatch(1)
		if !slices.Equal(m1.Seeds, []int32{1, 0}) {
			t.Errorf("%v duplicate seeds: F_0 = %v, want [1 0]", fr, m1.Seeds)
		}
		blk := m1.Blocks[0]
		if c, _ := blk.Adj.Row(0); !slices.Equal(c, []int32{0, 2}) || !slices.Equal(blk.Src, []int32{1, 0, 2}) {
			t.Errorf("%v self loop: row 0 columns %v sources %v, want [0 2] and [1 0 2]", fr, c, blk.Src)
		}
		if m2 := b.Minibatch(2); len(m2.Seeds) != 0 || m2.Blocks[1].Adj.Rows != 0 || len(m2.InputNodes()) != 0 {
			t.Errorf("%v empty minibatch: %+v", fr, m2)
		}
		m3 := b.Minibatch(3)
		// Layer 1 row of vertex 1 (reached at hop 1): expanded in both
		// modes; row of the seed 2: only with FrontierAll.
		l1 := m3.Blocks[1]
		if got, want := l1.Adj.RowNNZ(0), map[sampling.FrontierMode]int{sampling.FrontierAll: 2, sampling.FrontierNew: 0}[fr]; got != want {
			t.Errorf("%v: seed row at layer 1 has %d entries, want %d", fr, got, want)
		}
		empty, err := nw.SampleBulk(ctx, 0, 0, nil)
		if err != nil || empty.Len() != 0 || empty.SampledEdges() != 0 {
			t.Errorf("empty bulk: %v, %v", empty, err)
		}
	}
}

func TestNodeWiseErrors(t *testing.T) {
	a := samplingtest.RandomGraph(20, 4, false, 1)
	for _, tc := range []struct {
		opt  sampling.NodeWiseOptions
		want string
	}{
		{sampling.NodeWiseOptions{}, "Fanouts is empty"},
		{sampling.NodeWiseOptions{Fanouts: []int{3, 0}}, "Fanouts[1] = 0"},
		{sampling.NodeWiseOptions{Fanouts: []int{-2}}, "Fanouts[0] = -2"},
		{sampling.NodeWiseOptions{Fanouts: []int{2}, Frontier: 5}, "Frontier"},
		{sampling.NodeWiseOptions{Fanouts: []int{2}, Threads: -1}, "Threads"},
		{sampling.NodeWiseOptions{Fanouts: []int{2}, MaxBulkEdges: -1}, "MaxBulkEdges"},
	} {
		if _, err := sampling.NewNodeWise(a, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.opt, err, tc.want)
		}
		if _, err := sampling.NewBaseline(a, tc.opt); err == nil {
			t.Errorf("baseline %+v: no error", tc.opt)
		}
	}
	neg := a.Clone()
	neg.Data[3] = -1
	if _, err := sampling.NewNodeWise(neg, sampling.NodeWiseOptions{Fanouts: []int{2}, Weighted: true}); err == nil || !strings.Contains(err.Error(), "data[3]") {
		t.Errorf("negative weight: %v", err)
	}
	if _, err := sampling.NewNodeWise(&spgemm.CSR{Rows: 2, Cols: 3, Indptr: make([]int64, 3)}, sampling.NodeWiseOptions{Fanouts: []int{1}}); err == nil {
		t.Error("non-square adjacency accepted")
	}
	nw, _ := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{2}})
	if _, err := nw.SampleBulk(context.Background(), 0, 4, [][]int32{{1}, {2, 20}}); err == nil || !strings.Contains(err.Error(), "minibatch 5 seed 1") {
		t.Errorf("seed out of range: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := nw.SampleBulk(ctx, 0, 0, [][]int32{{1}}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// pullGroups is the plan of a RemoteRows that pulls every layer, a batch
// per group, each in one FetchRows; it never pushes.
type pullGroups struct{}

func (pullGroups) PlanLayer(d sampling.LayerDemand, dst []int) sampling.LayerPlan {
	dst = dst[:0]
	for j := range len(d.Groups) {
		dst = append(dst, j)
	}
	return sampling.LayerPlan{Batches: dst}
}

func (pullGroups) PullParts(_ context.Context, vs, _ []int32, parts []int) ([]int, error) {
	return append(parts[:0], len(vs)), nil
}

func (pullGroups) FetchPicks(context.Context, *sampling.PickRequest) error {
	return errors.New("pullGroups pulls every layer: no picks to fetch")
}

func (p pullGroups) StartPicks(ctx context.Context, req *sampling.PickRequest) func() error {
	err := p.FetchPicks(ctx, req)
	return func() error { return err }
}

// nwFetchSource serves only rows fetched beforehand, as a remote source.
type nwFetchSource struct {
	pullGroups
	a       *spgemm.CSR
	fetched map[int32]bool
	calls   int
}

func (s *nwFetchSource) NumVertices() int { return s.a.Rows }
func (s *nwFetchSource) Row(v int32) ([]int32, []float32) {
	if !s.fetched[v] {
		panic(fmt.Sprintf("row %d read before it was fetched", v))
	}
	return s.a.Row(int(v))
}
func (s *nwFetchSource) FetchRows(_ context.Context, vs []int32) error {
	s.calls++
	s.fetched = map[int32]bool{}
	for _, v := range vs {
		if s.fetched[v] {
			return fmt.Errorf("vertex %d fetched twice", v)
		}
		s.fetched[v] = true
	}
	return nil
}

func TestNodeWiseRowFetcher(t *testing.T) {
	a := samplingtest.RandomGraph(500, 10, false, 4)
	seeds := samplingtest.RandomSeeds(500, 6, 20, 5)
	opt := sampling.NodeWiseOptions{Fanouts: []int{4, 3}, Seed: 2, MaxBulkEdges: 100}
	src := &nwFetchSource{a: a}
	nw, err := sampling.NewNodeWiseFrom(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nw.SampleBulk(context.Background(), 1, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	if src.calls <= 2 {
		t.Errorf("%d fetches: the cap should split the layers into groups", src.calls)
	}
	samplingtest.CompareBulks(t, "fetching source vs general", got, samplingtest.ExplicitNodeWise(a, opt, 1, 0, seeds), 0)
}

// nwDegSource is a RowSource without direct CSR access that serves degrees
// through DegreeSource, as a remote source does.
type nwDegSource struct {
	a     *spgemm.CSR
	calls int
	asked []int32
}

func (s *nwDegSource) NumVertices() int                 { return s.a.Rows }
func (s *nwDegSource) Row(v int32) ([]int32, []float32) { return s.a.Row(int(v)) }
func (s *nwDegSource) Degrees(ctx context.Context, vs, deg []int32) error {
	s.calls++
	s.asked = append(s.asked[:0], vs...)
	return sampling.CSRRows{A: s.a}.Degrees(ctx, vs, deg)
}

// TestNodeWiseDegrees: with Degrees, every block carries the row length in
// A of each source vertex, from the CSR path, from a DegreeSource (asked
// once per bulk, for distinct vertices) and from the baseline; the blocks
// are otherwise those sampled without Degrees.
func TestNodeWiseDegrees(t *testing.T) {
	a := samplingtest.RandomGraph(300, 12, true, 4)
	seeds := samplingtest.RandomSeeds(300, 4, 16, 5)
	ctx := context.Background()
	for _, opt := range []sampling.NodeWiseOptions{
		{Fanouts: []int{3, 2}, Seed: 1},
		{Fanouts: []int{-1, -1}, Seed: 1},
		{Fanouts: []int{4, 2, 3}, Frontier: sampling.FrontierNew, Weighted: true, Replace: true, Seed: 2},
	} {
		t.Run(samplingtest.CaseName(opt), func(t *testing.T) {
			nw, _ := sampling.NewNodeWise(a, opt)
			plain, err := nw.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			opt.Degrees = true
			nw, _ = sampling.NewNodeWise(a, opt)
			got, err := nw.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			for m := range got.Len() {
				mb, pm := got.Minibatch(m), plain.Minibatch(m)
				for l := range mb.Blocks {
					blk := &mb.Blocks[l]
					if len(blk.Deg) != len(blk.Src) {
						t.Fatalf("minibatch %d block %d: %d degrees for %d sources", m, l, len(blk.Deg), len(blk.Src))
					}
					for i, v := range blk.Src {
						if want := a.Indptr[v+1] - a.Indptr[v]; int64(blk.Deg[i]) != want {
							t.Fatalf("minibatch %d block %d: Deg[%d] = %d for vertex %d; want its row length %d", m, l, i, blk.Deg[i], v, want)
						}
					}
					pm.Blocks[l].Deg = blk.Deg
				}
				mbs := []sampling.Minibatch{pm}
				mbs[0].Index = 0
				gm := []sampling.Minibatch{mb}
				gm[0].Index = 0
				samplingtest.CompareBulks(t, "with vs without degrees", sampling.BulkOf(0, gm, len(mb.Blocks)), sampling.BulkOf(0, mbs, len(mb.Blocks)), 0)
			}
			src := &nwDegSource{a: a}
			fnw, err := sampling.NewNodeWiseFrom(src, opt)
			if err != nil {
				t.Fatal(err)
			}
			fromSrc, err := fnw.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			samplingtest.CompareBulks(t, "DegreeSource vs CSR", fromSrc, got, 0)
			if src.calls != 1 || len(src.asked) != len(slices.Compact(slices.Sorted(slices.Values(src.asked)))) {
				t.Errorf("DegreeSource asked %d times, last for %d vertices (distinct: want once, distinct)", src.calls, len(src.asked))
			}
			bl, _ := sampling.NewBaseline(a, opt)
			base, err := bl.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			samplingtest.CompareBulks(t, "bulk vs baseline", got, base, 0)
		})
	}
	if _, err := sampling.NewNodeWiseFrom(&nwFetchSource{a: a}, sampling.NodeWiseOptions{Fanouts: []int{2}, Degrees: true}); err == nil || !strings.Contains(err.Error(), "DegreeSource") {
		t.Errorf("Degrees from a RowSource without DegreeSource: %v; want an error naming DegreeSource", err)
	}
}

// TestSubgraphFrontierNew: with FrontierNew, the union of the blocks has
// every sampled edge once, rows of the vertices expanded at each hop.
func TestSubgraphFrontierNew(t *testing.T) {
	a := samplingtest.RandomGraph(300, 10, false, 6)
	seeds := samplingtest.RandomSeeds(300, 3, 10, 1)
	nw, _ := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{3, 2, 2}, Frontier: sampling.FrontierNew, Seed: 3})
	b, err := nw.SampleBulk(context.Background(), 0, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	for m := range b.Len() {
		mb := b.Minibatch(m)
		g := mb.Subgraph()
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		var total int64
		for _, blk := range mb.Blocks {
			total += blk.Adj.NNZ()
		}
		if g.NNZ() != total || g.Rows != len(mb.InputNodes()) {
			t.Errorf("minibatch %d: subgraph %dx%d with %d entries; blocks have %d entries over %d nodes",
				m, g.Rows, g.Cols, g.NNZ(), total, len(mb.InputNodes()))
		}
		nodes := mb.InputNodes()
		for r := range g.Rows {
			cols, _ := g.Row(r)
			for _, c := range cols {
				if _, ok := slices.BinarySearch(a.Indices[a.Indptr[nodes[r]]:a.Indptr[nodes[r]+1]], nodes[c]); !ok {
					t.Fatalf("subgraph edge %d->%d not in A", nodes[r], nodes[c])
				}
			}
		}
	}
}
