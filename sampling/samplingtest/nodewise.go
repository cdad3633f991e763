package samplingtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// RandomGraph returns a random n-vertex graph with skewed degrees (vertex v
// has about avg·(n/(v+1))^0.5/2 neighbours, so low ids are hubs), sorted
// rows, optional self loops, and weights in [0.5, 2).
func RandomGraph(n, avg int, selfLoops bool, seed uint64) *spgemm.CSR {
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

// RandomSeeds returns k minibatches of up to b random seeds (with repeats).
func RandomSeeds(n, k, b int, seed uint64) [][]int32 {
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

// ExplicitNodeWise samples with the explicit matrices of docs/design.md 3.1: Q built by
// QPerEntry, P = Q·A by spgemm.Mul, SelectPerRow, then per minibatch the
// new vertices in order of first appearance and spgemm.ExtractColumns.
func ExplicitNodeWise(a *spgemm.CSR, opt sampling.NodeWiseOptions, epoch, first int, seeds [][]int32) *sampling.Bulk {
	k, n := len(seeds), a.Rows
	st := sampling.NewStream(opt.Seed)
	mbs := make([]sampling.Minibatch, k)
	front := make([][]int32, k)
	for m, s := range seeds {
		var f []int32
		for _, v := range s {
			if !slices.Contains(f, v) {
				f = append(f, v)
			}
		}
		front[m] = f
		mbs[m] = sampling.Minibatch{Index: first + m, Seeds: f}
	}
	skip := make([]int, k)
	colMap := make([]int32, n)
	for l, s := range opt.Fanouts {
		exp := make([][]int32, k)
		var keys []sampling.RowKey
		for m, f := range front {
			exp[m] = f[skip[m]:]
			for _, v := range exp[m] {
				keys = append(keys, st.Row(epoch, first+m, l, v))
			}
		}
		p := spgemm.Mul(sampling.QPerEntry(exp, n), a, &spgemm.MulOptions{StructureOnly: !opt.Weighted})
		sel := sampling.SelectPerRow(p, keys, s, sampling.SelectOptions{Weighted: opt.Weighted, Replace: opt.Replace})
		r0 := 0
		for m, f := range front {
			rows := len(exp[m])
			part := sel.SliceRows(r0, r0+rows, nil)
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
			mbs[m].Blocks = append(mbs[m].Blocks, sampling.Block{Adj: *blk, Src: next})
			if opt.Frontier == sampling.FrontierNew {
				skip[m] = len(f)
			}
			front[m] = next
		}
	}
	return sampling.BulkOf(first, mbs, len(opt.Fanouts))
}

// CompareBulks fails unless the bulks hold the same minibatches; values may
// differ by tol relatively.
func CompareBulks(t *testing.T, name string, got, want *sampling.Bulk, tol float64) {
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

// NodeWiseCases are the option sets the equivalence tests run.
func NodeWiseCases() []sampling.NodeWiseOptions {
	var out []sampling.NodeWiseOptions
	for _, fan := range [][]int{{3, 2}, {5, 1, -1}, {2, 4, 3}} {
		for _, w := range []bool{false, true} {
			for _, r := range []bool{false, true} {
				for _, fr := range []sampling.FrontierMode{sampling.FrontierAll, sampling.FrontierNew} {
					out = append(out, sampling.NodeWiseOptions{Fanouts: fan, Weighted: w, Replace: r, Frontier: fr, Seed: 11})
				}
			}
		}
	}
	return out
}

func CaseName(o sampling.NodeWiseOptions) string {
	return fmt.Sprintf("fan%v/w=%v/r=%v/%v", o.Fanouts, o.Weighted, o.Replace, o.Frontier)
}

// CheckBulk checks the invariants of every block of a bulk: shapes,
// the CSR invariant, edges that exist in A, min(s, deg) distinct picks,
// frontier-first numbering, and columns local to their minibatch.
func CheckBulk(t *testing.T, a *spgemm.CSR, opt sampling.NodeWiseOptions, b *sampling.Bulk) {
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
			if opt.Frontier == sampling.FrontierNew {
				expandFrom = len(dst)
			}
			dst = blk.Src
		}
	}
}

func Vertices(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// EpochDigest samples every minibatch of ep in bulks of k and returns
// the digest.
func EpochDigest(t *testing.T, mk func() (sampling.Sampler, error), ep *sampling.EpochPlan, k int) string {
	t.Helper()
	s, err := mk()
	if err != nil {
		t.Fatal(err)
	}
	d := sampling.NewDigest()
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

// BulkDigest returns the digest of one bulk.
func BulkDigest(b *sampling.Bulk) string {
	d := sampling.NewDigest()
	d.AddBulk(b)
	return d.Sum()
}

// BulkBytes is the memory of a bulk's output arrays, which the tests'
// bounds on a warm sampler's allocations allow a fraction of.
func BulkBytes(b *sampling.Bulk) int64 {
	var n int64
	for _, la := range b.Layers {
		n += int64(8*len(la.Indptr) + 4*len(la.Indices) + 4*len(la.Data) + 4*len(la.Src) + 4*len(la.Deg))
	}
	return n
}

// NewNodeWise builds the node-wise sampler under test over a with opt.
type NewNodeWise func(a *spgemm.CSR, opt sampling.NodeWiseOptions) (sampling.Sampler, error)

// RunNodeWise is the conformance kit of node-wise samplers (the bulk
// kernel, the baseline, the distributed sampler): for every option set of
// NodeWiseCases it compares the sampler's bulk with the explicit matrix
// formulation (ExplicitNodeWise; values within 1e-6 relatively) and checks
// the blocks' invariants (CheckBulk); then it checks that the digest of an
// epoch (EpochDigest) is the same for bulk sizes 1, 3 and 64, 1, 2 and 8
// threads and selection caps 0 and 50, in both frontier modes, and that
// another seed changes it. In -short mode the epoch is cut to 40
// minibatches.
func RunNodeWise(t *testing.T, newSampler NewNodeWise) {
	a := RandomGraph(300, 12, true, 1)
	seeds := RandomSeeds(300, 5, 16, 2)
	for _, opt := range NodeWiseCases() {
		t.Run(CaseName(opt), func(t *testing.T) {
			want := ExplicitNodeWise(a, opt, 3, 10, seeds)
			s, err := newSampler(a, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.SampleBulk(context.Background(), 3, 10, seeds)
			if err != nil {
				t.Fatal(err)
			}
			CompareBulks(t, "sampler vs explicit", got, want, 1e-6)
			CheckBulk(t, a, opt, got)
		})
	}
	big := RandomGraph(2000, 16, false, 3)
	plan, err := sampling.NewPlan(Vertices(2000), sampling.PlanOptions{BatchSize: 16, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ep := plan.Epoch(2)
	if testing.Short() {
		ep.Minibatches = ep.Minibatches[:40]
	}
	for _, fr := range []sampling.FrontierMode{sampling.FrontierAll, sampling.FrontierNew} {
		opt := sampling.NodeWiseOptions{Fanouts: []int{5, 3, 2}, Seed: 8, Frontier: fr}
		var want string
		for _, k := range []int{1, 3, 64} {
			for _, threads := range []int{1, 2, 8} {
				for _, cap := range []int64{0, 50} {
					o := opt
					o.Threads, o.MaxBulkEdges = threads, cap
					got := EpochDigest(t, func() (sampling.Sampler, error) { return newSampler(big, o) }, ep, k)
					if want == "" {
						want = got
					} else if got != want {
						t.Errorf("%v k=%d threads=%d cap=%d: digest %s, want %s", fr, k, threads, cap, got, want)
					}
				}
			}
		}
		o := opt
		o.Seed++
		if got := EpochDigest(t, func() (sampling.Sampler, error) { return newSampler(big, o) }, ep, 4); got == want {
			t.Errorf("%v: another seed gives the same digest", fr)
		}
	}
}
