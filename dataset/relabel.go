package dataset

// Vertex relabelling for balanced row blocks. A distributed run cuts the
// vertex ids into p/c contiguous blocks (dist.BlockRange); a graph whose
// heavy vertices cluster in some id range gives the ranks owning it most of
// the edges and most of the sampling. Relabelling once, when a graph is
// converted or generated, spreads them:
//
//   - RelabelRandom: a seeded uniformly random permutation (Fisher-Yates on
//     the counter-based stream), which balances in expectation;
//   - RelabelDegree: a deterministic deal of the vertices sorted by degree
//     over a recursive bisection of the id range, which balances every
//     power-of-two block count at once, up to about one largest degree
//     (DegreeOrder says exactly what it guarantees).
//
// The file records the permutation (OrigIDs) so that ids map back to the
// source's.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// Relabelling methods.
const (
	RelabelRandom = "random"
	RelabelDegree = "degree"
)

// Relabelling records the vertex relabelling a file's graph went through
// when it was converted or generated.
type Relabelling struct {
	// Method is RelabelRandom or RelabelDegree.
	Method string
	// Seed is RelabelRandom's seed (0 with RelabelDegree).
	Seed uint64
	// OrigIDs[v] is the id in the source (the file converted, or the
	// generator's output without relabelling) of vertex v: a permutation
	// of [0, n). Relabelling a relabelled graph composes the two, so
	// OrigIDs always names the first source's ids.
	OrigIDs []int32
}

// validate checks that r is a relabelling of n vertices. Its errors have
// no package prefix, as validateAttributes' (their callers add it once).
func (r *Relabelling) validate(n int) error {
	if r.Method != RelabelRandom && r.Method != RelabelDegree {
		return fmt.Errorf("relabelling method %q, want %q or %q", r.Method, RelabelRandom, RelabelDegree)
	}
	if len(r.OrigIDs) != n {
		return fmt.Errorf("%d original ids (orig_ids) for %d nodes", len(r.OrigIDs), n)
	}
	seen := make([]uint64, (n+63)/64)
	for v, o := range r.OrigIDs {
		if uint32(o) >= uint32(n) {
			return fmt.Errorf("orig_ids[%d] = %d outside [0, %d)", v, o, n)
		}
		if seen[o/64]&(1<<(o%64)) != 0 {
			return fmt.Errorf("orig_ids[%d] = %d appears twice: not a permutation", v, o)
		}
		seen[o/64] |= 1 << (o % 64)
	}
	return nil
}

// RelabelOptions configure Relabel.
type RelabelOptions struct {
	// Method is RelabelRandom or RelabelDegree; required.
	Method string
	// Seed seeds RelabelRandom; it must be 0 with RelabelDegree, which
	// draws nothing.
	Seed uint64
	// Threads is the number of goroutines; <= 0 means GOMAXPROCS. The
	// result does not depend on it.
	Threads int
}

// Relabel returns a copy of d whose vertex x is vertex order[x] of d, where
// order is RandomOrder(n, opt.Seed) or DegreeOrder of d's row lengths: the
// adjacency's rows and columns (each row's columns sorted again), the
// features, the labels and the split (sorted again) follow, and Relabel
// records the permutation, composed with d's own when d was relabelled
// already. d is left unchanged and may be closed once Relabel returns. It
// costs O(nnz·log(row length) + n·(f + log n)) and holds a second copy of d.
func Relabel(d *Dataset, opt RelabelOptions) (*Dataset, error) {
	if d.Adj == nil {
		return nil, fmt.Errorf("dataset: Relabel: no adjacency")
	}
	n := d.NumNodes()
	var order []int32
	switch opt.Method {
	case RelabelRandom:
		order = RandomOrder(n, opt.Seed)
	case RelabelDegree:
		if opt.Seed != 0 {
			return nil, fmt.Errorf("dataset: Relabel: Seed %d with method %q, which draws nothing", opt.Seed, opt.Method)
		}
		order = DegreeOrder(RowLengths(d.Adj), opt.Threads)
	default:
		return nil, fmt.Errorf("dataset: Relabel: Method %q, want %q or %q", opt.Method, RelabelRandom, RelabelDegree)
	}
	return permuteDataset(d, order, opt, par.Threads(opt.Threads)), nil
}

// RowLengths returns the number of stored entries of every row of a.
func RowLengths(a *spgemm.CSR) []int32 {
	deg := make([]int32, a.Rows)
	for v := range deg {
		deg[v] = int32(a.Indptr[v+1] - a.Indptr[v])
	}
	return deg
}

// RandomOrder returns a uniformly random permutation of [0, n), a pure
// function of (n, seed): the order of RelabelRandom (order[x] is the
// vertex that gets id x).
func RandomOrder(n int, seed uint64) []int32 {
	return randomPermutation(n, seed, streamRelabel)
}

// DegreeOrder returns the order of RelabelDegree for a graph whose vertex v
// has deg[v] edges: order[x] is the vertex that gets id x. The vertices are
// sorted by degree (descending, ties by id) and dealt over a recursive
// bisection of the ids [0, n): a range [lo, hi) at depth j (the j-th
// halving: [b·n/2^j, (b+1)·n/2^j) with integer division, as dist.BlockRange
// cuts) is split at its middle, and its vertices, in degree order, go left,
// right, right, left, left, right, ... (the last one of an odd count to
// the half with room), each half keeping degree order.
//
// What it guarantees: for any block count B = 2^j every row block of
// dist.BlockRange(n, B, ·) is one range of depth j, so its vertices are
// every B-th of the degree order, dealt so that a pair of sibling ranges
// differs by at most the largest degree among them, and each block's edge
// count is within about one largest degree (plus one mean degree) of
// n_block·nnz/n. Each block also holds an even share of every degree
// class, so work that grows with degree in any other way (sampled edges,
// rows fetched) balances too. Block counts that are not powers of two cut
// ranges of the bisection and balance within a few largest degrees
// (measured in benchmarks/results/dist.md, not guaranteed).
//
// It costs O(n·log n) work on threads goroutines (<= 0: GOMAXPROCS) and
// 12 bytes per vertex besides the result; the order does not depend on
// threads.
func DegreeOrder(deg []int32, threads int) []int32 {
	n := len(deg)
	cur := sortByDegree(deg)
	if n <= 2 {
		return cur
	}
	next := make([]int32, n)
	t := par.Threads(threads)
	for span := int64(1); span < int64(n); span *= 2 {
		// Each goroutine takes a contiguous run of positions.
		par.Ranges(n, min(t, n/4096+1), 1, func(_, lo, hi int) { bisectLevel(cur, next, span, lo, hi) })
		cur, next = next, cur
	}
	return cur
}

// sortByDegree returns [0, n) sorted by deg descending, ties by id
// ascending, by a counting sort on the degree.
func sortByDegree(deg []int32) []int32 {
	var top int32
	for _, d := range deg {
		top = max(top, d)
	}
	if top < 0 || int(top) > 4*len(deg)+1024 {
		// Not the row lengths of a simple graph: sort by comparison.
		out := make([]int32, len(deg))
		for v := range out {
			out[v] = int32(v)
		}
		slices.SortStableFunc(out, func(a, b int32) int { return cmp.Compare(deg[b], deg[a]) })
		return out
	}
	// start[d]: where the vertices of degree d begin (higher degrees first).
	start := make([]int64, int(top)+2)
	for _, d := range deg {
		start[d]++
	}
	var sum int64
	for d := int(top); d >= 0; d-- {
		c := start[d]
		start[d] = sum
		sum += c
	}
	out := make([]int32, len(deg))
	for v, d := range deg {
		out[start[d]] = int32(v)
		start[d]++
	}
	return out
}

// bisectLevel moves the positions [lo, hi) of cur to next for one level
// of DegreeOrder's bisection, whose ranges are the span ranges of
// [0, len(cur)).
func bisectLevel(cur, next []int32, span int64, lo, hi int) {
	n := int64(len(cur))
	// The range holding position lo: b = floor((lo·span + span - 1)/n)
	// estimates it; correct by a step either way.
	b := int64(lo) * span / n
	for b > 0 && b*n/span > int64(lo) {
		b--
	}
	for (b+1)*n/span <= int64(lo) {
		b++
	}
	for pos := int64(lo); pos < int64(hi); b++ {
		s, e := b*n/span, (b+1)*n/span
		mid := (2*b + 1) * n / (2 * span)
		end := min(e, int64(hi))
		for ; pos < end; pos++ {
			next[bisectDest(pos-s, e-s, mid-s)+s] = cur[pos]
		}
	}
}

// bisectDest returns where the k-th vertex (in degree order) of a range of
// size vertices goes when it is dealt left, right, right, left, ... into a
// left half of left vertices and a right half of size-left: every 4
// vertices put 2 on each side, so only the last vertex of an odd range
// can find its side full, and goes to the other.
func bisectDest(k, size, left int64) int64 {
	toLeft := k%4 == 0 || k%4 == 3
	leftBefore := k/4*2 + min(k%4, 1) // vertices dealt left among the first k
	if k == size-1 {
		if toLeft && leftBefore == left {
			toLeft = false
		} else if !toLeft && k-leftBefore == size-left {
			toLeft = true
		}
	}
	if toLeft {
		return leftBefore
	}
	return left + k - leftBefore
}

// inverse returns the inverse of the permutation order.
func inverse(order []int32) []int32 {
	inv := make([]int32, len(order))
	for x, v := range order {
		inv[v] = int32(x)
	}
	return inv
}

// permuteDataset returns d with vertex order[x] renamed x (see Relabel).
func permuteDataset(d *Dataset, order []int32, opt RelabelOptions, t int) *Dataset {
	inv := inverse(order)
	n := len(order)
	out := &Dataset{Name: d.Name, Weighted: d.Weighted, NumFeatures: d.NumFeatures, NumClasses: d.NumClasses}
	out.Adj = permuteCSR(d.Adj, order, inv, t)
	if d.Features != nil {
		f := d.NumFeatures
		out.Features = make([]float32, len(d.Features))
		par.Ranges(n, t, 1, func(_, lo, hi int) {
			for x := lo; x < hi; x++ {
				v := int(order[x])
				copy(out.Features[x*f:(x+1)*f], d.Features[v*f:(v+1)*f])
			}
		})
	}
	if d.Labels != nil {
		out.Labels = make([]int32, n)
		for x, v := range order {
			out.Labels[x] = d.Labels[v]
		}
	}
	mapSorted := func(ids []int32) []int32 {
		if ids == nil {
			return nil
		}
		m := make([]int32, len(ids))
		for i, v := range ids {
			m[i] = inv[v]
		}
		slices.Sort(m)
		return m
	}
	out.Train, out.Valid, out.Test = mapSorted(d.Train), mapSorted(d.Valid), mapSorted(d.Test)
	for _, s := range d.Splits {
		out.Splits = append(out.Splits, Split{mapSorted(s.Train), mapSorted(s.Valid), mapSorted(s.Test)})
	}
	if d.SparseFeatures != nil {
		out.SparseFeatures = spgemm.GatherRows(d.SparseFeatures, order, t)
	}
	if d.SourceIDs != nil {
		out.SourceIDs = make([]int64, n)
		for x, v := range order {
			out.SourceIDs[x] = d.SourceIDs[v]
		}
	}
	out.ClassNames, out.Report = d.ClassNames, d.Report
	orig := order
	if d.Relabel != nil {
		orig = make([]int32, n)
		for x, v := range order {
			orig[x] = d.Relabel.OrigIDs[v]
		}
	}
	out.Relabel = &Relabelling{Method: opt.Method, Seed: opt.Seed, OrigIDs: orig}
	return out
}

// permuteCSR returns P·a·Pᵀ for the permutation that renames vertex
// order[x] to x (inv its inverse): row x is row order[x] of a with every
// column j renamed inv[j], sorted by the new column.
func permuteCSR(a *spgemm.CSR, order, inv []int32, t int) *spgemm.CSR {
	n := a.Rows
	c := &spgemm.CSR{Rows: n, Cols: a.Cols, Indptr: make([]int64, n+1)}
	for x, v := range order {
		c.Indptr[x+1] = c.Indptr[x] + a.Indptr[v+1] - a.Indptr[v]
	}
	nnz := c.Indptr[n]
	c.Indices, c.Data = make([]int32, nnz), make([]float32, nnz)
	parallelParts(c.Indptr, min(t, n), func(lo, hi int) {
		var keys []uint64
		for x := lo; x < hi; x++ {
			v := order[x]
			src := a.Indices[a.Indptr[v]:a.Indptr[v+1]]
			vals := a.Data[a.Indptr[v]:a.Indptr[v+1]]
			keys = keys[:0]
			for p, j := range src {
				keys = append(keys, uint64(inv[j])<<32|uint64(math.Float32bits(vals[p])))
			}
			slices.Sort(keys)
			dst := c.Indices[c.Indptr[x]:c.Indptr[x+1]]
			dv := c.Data[c.Indptr[x]:c.Indptr[x+1]]
			for p, k := range keys {
				dst[p], dv[p] = int32(k>>32), math.Float32frombits(uint32(k))
			}
		}
	})
	return c
}
