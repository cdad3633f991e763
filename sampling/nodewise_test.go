package sampling

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// nwGraph returns a random n-vertex graph with skewed degrees (vertex v
// has about avg·(n/(v+1))^0.5/2 neighbours, so low ids are hubs), sorted
// rows, optional self loops, and weights in [0.5, 2).
func nwGraph(n, avg int, selfLoops bool, seed uint64) *spgemm.CSR {
	rng := rand.New(rand.NewPCG(seed, 99))
	a := &spgemm.CSR{Rows: n, Cols: n, Indptr: make([]int64, n+1)}
	for v := range n {
		d := int(float64(avg) * math.Sqrt(float64(n)/float64(v+1)) / 2)
		d = min(d, n)
		if v%17 == 5 {
			d = 0 // isolated
		}
		row := map[int32]bool{}
		for range d {
			u := int32(rng.IntN(n))
			if u != int32(v) || selfLoops {
				row[u] = true
			}
		}
		cols := make([]int32, 0, len(row))
		for u := range row {
			cols = append(cols, u)
		}
		slices.Sort(cols)
		for _, u := range cols {
			a.Indices = append(a.Indices, u)
			a.Data = append(a.Data, 0.5+1.5*rng.Float32())
		}
		a.Indptr[v+1] = int64(len(a.Indices))
	}
	return a
}

// nwSeeds returns k minibatches of up to b random seeds (with repeats).
func nwSeeds(n, k, b int, seed uint64) [][]int32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([][]int32, k)
	for m := range out {
		sz := b - rng.IntN(b/2+1)
		for range sz {
			out[m] = append(out[m], int32(rng.IntN(n)))
		}
	}
	return out
}

// nwGeneral samples with the explicit matrices of DESIGN.md 3.1: Q built by
// QPerEntry, P = Q·A by spgemm.Mul, SelectPerRow, then per minibatch the
// new vertices in order of first appearance and spgemm.ExtractColumns.
func nwGeneral(a *spgemm.CSR, opt NodeWiseOptions, epoch, first int, seeds [][]int32) *Bulk {
	k, n := len(seeds), a.Rows
	st := NewStream(opt.Seed)
	mbs := make([]Minibatch, k)
	front := make([][]int32, k)
	for m, s := range seeds {
		var f []int32
		for _, v := range s {
			if !slices.Contains(f, v) {
				f = append(f, v)
			}
		}
		front[m] = f
		mbs[m] = Minibatch{Index: first + m, Seeds: f}
	}
	skip := make([]int, k)
	colMap := make([]int32, n)
	for l, s := range opt.Fanouts {
		exp := make([][]int32, k)
		var keys []RowKey
		for m, f := range front {
			exp[m] = f[skip[m]:]
			for _, v := range exp[m] {
				keys = append(keys, st.Row(epoch, first+m, l, v))
			}
		}
		p := spgemm.Mul(QPerEntry(exp, n), a, &spgemm.MulOptions{StructureOnly: !opt.Weighted})
		sel := SelectPerRow(p, keys, s, SelectOptions{Weighted: opt.Weighted, Replace: opt.Replace})
		r0 := 0
		for m, f := range front {
			rows := len(exp[m])
			lo, hi := sel.Indptr[r0], sel.Indptr[r0+rows]
			part := &spgemm.CSR{Rows: rows, Cols: n, Indptr: make([]int64, rows+1),
				Indices: sel.Indices[lo:hi], Data: sel.Data[lo:hi]}
			for i := range rows {
				part.Indptr[i+1] = sel.Indptr[r0+i+1] - lo
			}
			r0 += rows
			next := append([]int32(nil), f...)
			for _, u := range part.Indices { // rows in order, columns ascending
				if !slices.Contains(next, u) {
					next = append(next, u)
				}
			}
			for i := range colMap {
				colMap[i] = -1
			}
			for i, u := range next {
				colMap[u] = int32(i)
			}
			ext := spgemm.ExtractColumns(part, colMap, len(next), 1)
			if opt.Weighted {
				spgemm.NormalizeRows(ext, 1)
			}
			// Rows not expanded (FrontierNew) come first and are empty.
			blk := &spgemm.CSR{Rows: len(f), Cols: len(next), Indptr: make([]int64, skip[m], len(f)+1),
				Indices: ext.Indices, Data: ext.Data}
			blk.Indptr = append(blk.Indptr, ext.Indptr...)
			mbs[m].Blocks = append(mbs[m].Blocks, Block{Adj: *blk, Src: next})
			if opt.Frontier == FrontierNew {
				skip[m] = len(f)
			}
			front[m] = next
		}
	}
	return BulkOf(first, mbs, len(opt.Fanouts))
}

// nwCompare fails unless the bulks hold the same minibatches; values may
// differ by tol relatively.
func nwCompare(t *testing.T, name string, got, want *Bulk, tol float64) {
	t.Helper()
	if got.Len() != want.Len() || got.First != want.First {
		t.Fatalf("%s: %d minibatches from %d, want %d from %d", name, got.Len(), got.First, want.Len(), want.First)
	}
	for m := range got.Len() {
		g, w := got.Minibatch(m), want.Minibatch(m)
		if !slices.Equal(g.Seeds, w.Seeds) {
			t.Fatalf("%s: minibatch %d: seeds %v, want %v", name, m, g.Seeds, w.Seeds)
		}
		for l := range g.Blocks {
			gb, wb := &g.Blocks[l], &w.Blocks[l]
			if gb.Adj.Rows != wb.Adj.Rows || gb.Adj.Cols != wb.Adj.Cols || !slices.Equal(gb.Adj.Indptr, wb.Adj.Indptr) ||
				!slices.Equal(gb.Adj.Indices, wb.Adj.Indices) || !slices.Equal(gb.Src, wb.Src) {
				t.Fatalf("%s: minibatch %d block %d differs:\n got %dx%d %v %v src %v\nwant %dx%d %v %v src %v", name, m, l,
					gb.Adj.Rows, gb.Adj.Cols, gb.Adj.Indptr, gb.Adj.Indices, gb.Src, wb.Adj.Rows, wb.Adj.Cols, wb.Adj.Indptr, wb.Adj.Indices, wb.Src)
			}
			if !slices.Equal(gb.Deg, wb.Deg) {
				t.Fatalf("%s: minibatch %d block %d degrees %v, want %v", name, m, l, gb.Deg, wb.Deg)
			}
			for i := range gb.Adj.Data {
				x, y := float64(gb.Adj.Data[i]), float64(wb.Adj.Data[i])
				if math.Abs(x-y) > tol*math.Abs(y) || (tol == 0 && x != y) {
					t.Fatalf("%s: minibatch %d block %d value %d: %v, want %v", name, m, l, i, x, y)
				}
			}
		}
	}
}

// nwCases are the option sets the equivalence tests run.
func nwCases() []NodeWiseOptions {
	var out []NodeWiseOptions
	for _, fan := range [][]int{{3, 2}, {5, 1, -1}, {2, 4, 3}} {
		for _, w := range []bool{false, true} {
			for _, r := range []bool{false, true} {
				for _, fr := range []FrontierMode{FrontierAll, FrontierNew} {
					out = append(out, NodeWiseOptions{Fanouts: fan, Weighted: w, Replace: r, Frontier: fr, Seed: 11})
				}
			}
		}
	}
	return out
}

func nwName(o NodeWiseOptions) string {
	return fmt.Sprintf("fan%v/w=%v/r=%v/%v", o.Fanouts, o.Weighted, o.Replace, o.Frontier)
}

// TestNodeWiseMatchesGeneralPath: the fast kernel, the baseline and the
// explicit SpGEMM formulation return the same blocks.
func TestNodeWiseMatchesGeneralPath(t *testing.T) {
	a := nwGraph(300, 12, true, 1)
	seeds := nwSeeds(300, 5, 16, 2)
	ctx := context.Background()
	for _, opt := range nwCases() {
		t.Run(nwName(opt), func(t *testing.T) {
			want := nwGeneral(a, opt, 3, 10, seeds)
			nw, err := NewNodeWise(a, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := nw.SampleBulk(ctx, 3, 10, seeds)
			if err != nil {
				t.Fatal(err)
			}
			nwCompare(t, "bulk vs general", got, want, 1e-6)
			bl, err := NewBaseline(a, opt)
			if err != nil {
				t.Fatal(err)
			}
			base, err := bl.SampleBulk(ctx, 3, 10, seeds)
			if err != nil {
				t.Fatal(err)
			}
			nwCompare(t, "bulk vs baseline", got, base, 0)
			nwCheckBulk(t, a, opt, got)
		})
	}
}

// nwCheckBulk checks the invariants of every block of a bulk: shapes,
// the CSR invariant, edges that exist in A, min(s, deg) distinct picks,
// frontier-first numbering, and columns local to their minibatch.
func nwCheckBulk(t *testing.T, a *spgemm.CSR, opt NodeWiseOptions, b *Bulk) {
	t.Helper()
	for m := range b.Len() {
		mb := b.Minibatch(m)
		dst := mb.Seeds
		expandFrom := 0
		for l, blk := range mb.Blocks {
			if err := blk.Adj.Validate(); err != nil {
				t.Fatalf("minibatch %d block %d: %v", m, l, err)
			}
			if blk.Adj.Rows != len(dst) || blk.Adj.Cols != len(blk.Src) || !slices.Equal(blk.Dst(), dst) {
				t.Fatalf("minibatch %d block %d: %dx%d with %d sources; destinations are not the previous sources",
					m, l, blk.Adj.Rows, blk.Adj.Cols, len(blk.Src))
			}
			distinct := map[int32]bool{}
			for _, v := range blk.Src {
				if distinct[v] {
					t.Fatalf("minibatch %d block %d: vertex %d twice in sources", m, l, v)
				}
				distinct[v] = true
			}
			s := opt.Fanouts[l]
			for r := range blk.Adj.Rows {
				v := blk.Src[r]
				cols, vals := blk.Adj.Row(r)
				acols, avals := a.Row(int(v))
				deg := len(acols)
				if opt.Weighted {
					deg = 0
					for _, w := range avals {
						if w > 0 {
							deg++
						}
					}
				}
				want := deg
				if s >= 0 {
					want = min(s, deg)
				}
				if r < expandFrom {
					want = 0
				}
				if opt.Replace && r >= expandFrom && s >= 0 {
					sum := float32(0)
					for _, x := range vals {
						sum += x
					}
					if !opt.Weighted && deg > 0 && sum != float32(s) {
						t.Fatalf("minibatch %d block %d row %d: multiplicities sum to %v, want %d", m, l, r, sum, s)
					}
					if len(cols) > want {
						t.Fatalf("minibatch %d block %d row %d: %d picks > %d", m, l, r, len(cols), want)
					}
				} else if len(cols) != want {
					t.Fatalf("minibatch %d block %d row %d (vertex %d, deg %d): %d picks, want %d", m, l, r, v, deg, len(cols), want)
				}
				for _, c := range cols {
					if _, ok := slices.BinarySearch(acols, blk.Src[c]); !ok {
						t.Fatalf("minibatch %d block %d: edge %d->%d is not in A", m, l, v, blk.Src[c])
					}
				}
				if !opt.Weighted && !opt.Replace {
					for _, x := range vals {
						if x != 1 {
							t.Fatalf("unweighted value %v, want 1", x)
						}
					}
				}
			}
			// Frontier first, then new vertices in order of first appearance.
			seen := len(dst)
			for _, c := range blk.Adj.Indices {
				if int(c) > seen {
					t.Fatalf("minibatch %d block %d: column %d appears before column %d", m, l, c, seen)
				}
				if int(c) == seen {
					seen++
				}
			}
			if seen != len(blk.Src) {
				t.Fatalf("minibatch %d block %d: %d sources, %d referenced", m, l, len(blk.Src), seen)
			}
			if opt.Frontier == FrontierNew {
				expandFrom = len(dst)
			}
			dst = blk.Src
		}
	}
}

// TestNodeWiseDeterminism: the same digest for any bulk size, thread count
// and selection cap, and from the baseline.
func TestNodeWiseDeterminism(t *testing.T) {
	a := nwGraph(2000, 16, false, 3)
	plan, err := NewPlan(nwRange(2000), PlanOptions{BatchSize: 16, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ep := plan.Epoch(2)
	if testing.Short() {
		ep.Minibatches = ep.Minibatches[:40]
	}
	for _, fr := range []FrontierMode{FrontierAll, FrontierNew} {
		opt := NodeWiseOptions{Fanouts: []int{5, 3, 2}, Seed: 8, Frontier: fr}
		var want string
		for _, k := range []int{1, 3, 64} {
			for _, threads := range []int{1, 2, 8} {
				for _, cap := range []int64{0, 50} {
					o := opt
					o.Threads, o.MaxBulkEdges = threads, cap
					got := nwSampleEpoch(t, func() (Sampler, error) { return NewNodeWise(a, o) }, ep, k)
					if want == "" {
						want = got
					} else if got != want {
						t.Errorf("%v k=%d threads=%d cap=%d: digest %s, want %s", fr, k, threads, cap, got, want)
					}
				}
			}
		}
		for _, threads := range []int{1, 2} {
			o := opt
			o.Threads = threads
			if got := nwSampleEpoch(t, func() (Sampler, error) { return NewBaseline(a, o) }, ep, 7); got != want {
				t.Errorf("%v baseline threads=%d: digest %s, want %s", fr, threads, got, want)
			}
		}
		o := opt
		o.Seed++
		if got := nwSampleEpoch(t, func() (Sampler, error) { return NewNodeWise(a, o) }, ep, 4); got == want {
			t.Errorf("%v: another seed gives the same digest", fr)
		}
	}
}

func nwRange(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// nwSampleEpoch samples every minibatch of ep in bulks of k and returns
// the digest.
func nwSampleEpoch(t *testing.T, mk func() (Sampler, error), ep *EpochPlan, k int) string {
	t.Helper()
	s, err := mk()
	if err != nil {
		t.Fatal(err)
	}
	d := NewDigest()
	for lo := 0; lo < len(ep.Minibatches); lo += k {
		hi := min(lo+k, len(ep.Minibatches))
		b, err := s.SampleBulk(context.Background(), ep.Epoch, lo, ep.Minibatches[lo:hi])
		if err != nil {
			t.Fatal(err)
		}
		d.AddBulk(b)
	}
	return d.Sum()
}

// TestNodeWiseUniformLaw: through the whole sampler, a vertex of degree 5
// with fanout 2 draws each of the 10 subsets with probability 1/10.
func TestNodeWiseUniformLaw(t *testing.T) {
	// Vertex 0's neighbours are 1..5; each minibatch is the seed 0.
	a := &spgemm.CSR{Rows: 6, Cols: 6, Indptr: []int64{0, 5, 5, 5, 5, 5, 5},
		Indices: []int32{1, 2, 3, 4, 5}, Data: []float32{1, 1, 1, 1, 1}}
	nw, err := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{2}, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	draws := nwDraws() / 4
	seeds := make([][]int32, draws)
	for i := range seeds {
		seeds[i] = []int32{0}
	}
	b, err := nw.SampleBulk(context.Background(), 0, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[[2]int32]int{}
	for m := range b.Len() {
		mb := b.Minibatch(m)
		src := mb.Blocks[0].Src
		if len(src) != 3 {
			t.Fatalf("minibatch %d: %d sources, want 3", m, len(src))
		}
		x, y := src[1], src[2]
		counts[[2]int32{min(x, y), max(x, y)}]++
	}
	if len(counts) != 10 {
		t.Fatalf("%d subsets, want 10", len(counts))
	}
	var obs []int
	var prob []float64
	for _, c := range counts {
		obs, prob = append(obs, c), append(prob, 0.1)
	}
	if stat, pv := nwChiSquare(obs, prob); pv < 1e-6 {
		t.Errorf("chi-square %.1f, p = %.2g: %v", stat, pv, counts)
	}
}

// TestNodeWiseEdgeCases: isolated seeds, a self loop, duplicate seeds,
// empty minibatches and an empty bulk.
func TestNodeWiseEdgeCases(t *testing.T) {
	// 0: isolated; 1: its own neighbour and 2's; 2 -> 1, 3.
	a := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 0, 2, 4, 4},
		Indices: []int32{1, 2, 1, 3}, Data: []float32{1, 1, 1, 1}}
	ctx := context.Background()
	for _, fr := range []FrontierMode{FrontierAll, FrontierNew} {
		opt := NodeWiseOptions{Fanouts: []int{5, 5}, Frontier: fr}
		nw, err := NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := nw.SampleBulk(ctx, 0, 0, [][]int32{{0}, {1, 1, 0, 1}, {}, {2}})
		if err != nil {
			t.Fatal(err)
		}
		nwCheckBulk(t, a, opt, b)
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
		if got, want := l1.Adj.RowNNZ(0), map[FrontierMode]int{FrontierAll: 2, FrontierNew: 0}[fr]; got != want {
			t.Errorf("%v: seed row at layer 1 has %d entries, want %d", fr, got, want)
		}
		empty, err := nw.SampleBulk(ctx, 0, 0, nil)
		if err != nil || empty.Len() != 0 || empty.SampledEdges() != 0 {
			t.Errorf("empty bulk: %v, %v", empty, err)
		}
	}
}

func TestNodeWiseErrors(t *testing.T) {
	a := nwGraph(20, 4, false, 1)
	for _, tc := range []struct {
		opt  NodeWiseOptions
		want string
	}{
		{NodeWiseOptions{}, "Fanouts is empty"},
		{NodeWiseOptions{Fanouts: []int{3, 0}}, "Fanouts[1] = 0"},
		{NodeWiseOptions{Fanouts: []int{-2}}, "Fanouts[0] = -2"},
		{NodeWiseOptions{Fanouts: []int{2}, Frontier: 5}, "Frontier"},
		{NodeWiseOptions{Fanouts: []int{2}, Threads: -1}, "Threads"},
		{NodeWiseOptions{Fanouts: []int{2}, MaxBulkEdges: -1}, "MaxBulkEdges"},
	} {
		if _, err := NewNodeWise(a, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.opt, err, tc.want)
		}
		if _, err := NewBaseline(a, tc.opt); err == nil {
			t.Errorf("baseline %+v: no error", tc.opt)
		}
	}
	neg := a.Clone()
	neg.Data[3] = -1
	if _, err := NewNodeWise(neg, NodeWiseOptions{Fanouts: []int{2}, Weighted: true}); err == nil || !strings.Contains(err.Error(), "data[3]") {
		t.Errorf("negative weight: %v", err)
	}
	if _, err := NewNodeWise(&spgemm.CSR{Rows: 2, Cols: 3, Indptr: make([]int64, 3)}, NodeWiseOptions{Fanouts: []int{1}}); err == nil {
		t.Error("non-square adjacency accepted")
	}
	nw, _ := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{2}})
	if _, err := nw.SampleBulk(context.Background(), 0, 4, [][]int32{{1}, {2, 20}}); err == nil || !strings.Contains(err.Error(), "minibatch 5 seed 1") {
		t.Errorf("seed out of range: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := nw.SampleBulk(ctx, 0, 0, [][]int32{{1}}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// nwFetchSource serves only rows fetched beforehand, as a remote source.
type nwFetchSource struct {
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
	a := nwGraph(500, 10, false, 4)
	seeds := nwSeeds(500, 6, 20, 5)
	opt := NodeWiseOptions{Fanouts: []int{4, 3}, Seed: 2, MaxBulkEdges: 100}
	src := &nwFetchSource{a: a}
	nw, err := NewNodeWiseFrom(src, opt)
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
	nwCompare(t, "fetching source vs general", got, nwGeneral(a, opt, 1, 0, seeds), 0)
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
	return CSRRows{A: s.a}.Degrees(ctx, vs, deg)
}

// TestNodeWiseDegrees: with Degrees, every block carries the row length in
// A of each source vertex, from the CSR path, from a DegreeSource (asked
// once per bulk, for distinct vertices) and from the baseline; the blocks
// are otherwise those sampled without Degrees.
func TestNodeWiseDegrees(t *testing.T) {
	a := nwGraph(300, 12, true, 4)
	seeds := nwSeeds(300, 4, 16, 5)
	ctx := context.Background()
	for _, opt := range []NodeWiseOptions{
		{Fanouts: []int{3, 2}, Seed: 1},
		{Fanouts: []int{-1, -1}, Seed: 1},
		{Fanouts: []int{4, 2, 3}, Frontier: FrontierNew, Weighted: true, Replace: true, Seed: 2},
	} {
		t.Run(nwName(opt), func(t *testing.T) {
			nw, _ := NewNodeWise(a, opt)
			plain, err := nw.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			opt.Degrees = true
			nw, _ = NewNodeWise(a, opt)
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
				mbs := []Minibatch{pm}
				mbs[0].Index = 0
				gm := []Minibatch{mb}
				gm[0].Index = 0
				nwCompare(t, "with vs without degrees", BulkOf(0, gm, len(mb.Blocks)), BulkOf(0, mbs, len(mb.Blocks)), 0)
			}
			src := &nwDegSource{a: a}
			fnw, err := NewNodeWiseFrom(src, opt)
			if err != nil {
				t.Fatal(err)
			}
			fromSrc, err := fnw.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			nwCompare(t, "DegreeSource vs CSR", fromSrc, got, 0)
			if src.calls != 1 || len(src.asked) != len(slices.Compact(slices.Sorted(slices.Values(src.asked)))) {
				t.Errorf("DegreeSource asked %d times, last for %d vertices (distinct: want once, distinct)", src.calls, len(src.asked))
			}
			bl, _ := NewBaseline(a, opt)
			base, err := bl.SampleBulk(ctx, 1, 3, seeds)
			if err != nil {
				t.Fatal(err)
			}
			nwCompare(t, "bulk vs baseline", got, base, 0)
		})
	}
	if _, err := NewNodeWiseFrom(&nwFetchSource{a: a}, NodeWiseOptions{Fanouts: []int{2}, Degrees: true}); err == nil || !strings.Contains(err.Error(), "DegreeSource") {
		t.Errorf("Degrees from a RowSource without DegreeSource: %v; want an error naming DegreeSource", err)
	}
}

// TestSubgraphFrontierNew: with FrontierNew, the union of the blocks has
// every sampled edge once, rows of the vertices expanded at each hop.
func TestSubgraphFrontierNew(t *testing.T) {
	a := nwGraph(300, 10, false, 6)
	seeds := nwSeeds(300, 3, 10, 1)
	nw, _ := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{3, 2, 2}, Frontier: FrontierNew, Seed: 3})
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
