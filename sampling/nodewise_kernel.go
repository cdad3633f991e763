package sampling

// The node-wise kernel. A layer of a group of minibatches runs in three
// passes over the stacked rows of the group's frontiers (the rows of Q):
//
//  1. sizes (parallel over rows): each row's start and degree in A, turned
//     by a serial prefix sum into the offsets of each row's picks, so that
//     the picks buffer is allocated once at its exact bound;
//  2. selection (parallel over rows, so k = 1 uses every thread): each row
//     draws its picks with its row key and writes their global ids. For
//     uniform selection from a local CSR a chunk of rows first draws all
//     positions (which need only the degrees) and then gathers the column
//     ids in a loop of independent loads, so that many cache misses on A
//     are in flight at once instead of one per row;
//  3. extraction (parallel over minibatches): a per-worker array map from
//     vertex to local id renumbers the picks into the minibatch's columns,
//     appends new vertices to F_{l+1}, and writes the block straight into
//     the bulk's arrays at offsets known after pass 2.
//
// Profiles (R-MAT scale 20, fanouts 15,10,5) put the time in the random
// reads of passes 2 and 3 (A's rows, the vertex map) and in sorting the
// few picks of a row; all writes are sequential.

import (
	"context"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/bulksample/bulksample/spgemm"
)

// nwWorker is the scratch space of one goroutine of the sampler.
type nwWorker struct {
	// ids maps a vertex to its local id in the minibatch being extracted,
	// -1 when absent. Every task resets the entries it set, which costs
	// less than clearing n entries and keeps the map at 4 bytes a vertex
	// (half of a generation-stamped map: more of it stays in cache).
	ids   []int32
	fresh []int32 // local ids created by the current row
	sel   rowSelector
}

func (nw *NodeWise) getWorker() *nwWorker {
	if w, ok := nw.workers.Get().(*nwWorker); ok {
		return w
	}
	ids := make([]int32, nw.src.NumVertices())
	for i := range ids {
		ids[i] = -1
	}
	return &nwWorker{ids: ids}
}

// reset marks the vertices vs absent from the map again.
func (w *nwWorker) reset(vs []int32) {
	for _, v := range vs {
		w.ids[v] = -1
	}
}

// parallel runs body(w, lo, hi) over [0, n) in chunks of grain, taken in
// order by up to nw.threads goroutines, each with its own worker.
func (nw *NodeWise) parallel(n, grain int, body func(w *nwWorker, lo, hi int)) {
	if n == 0 {
		return
	}
	grain = max(grain, 1)
	nchunks := (n + grain - 1) / grain
	var next atomic.Int64
	run := func() {
		w := nw.getWorker()
		defer nw.workers.Put(w)
		for {
			c := int(next.Add(1)) - 1
			if c >= nchunks {
				return
			}
			body(w, c*grain, min((c+1)*grain, n))
		}
	}
	t := min(nw.threads, nchunks)
	if t == 1 {
		run()
		return
	}
	var wg sync.WaitGroup
	for range t {
		wg.Go(run)
	}
	wg.Wait()
}

// rowGrain is the number of rows a goroutine takes at a time in the sizes
// and selection passes: large enough to amortise the atomic counter, small
// enough to balance rows of very different degrees.
const rowGrain = 512

// resize returns s with length n, reusing its array when large enough.
// The contents are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// layerState holds the stacked rows of one layer of one group of
// minibatches, mb0..mb0+len(rowStart)-2.
type layerState struct {
	mb0      int
	rowStart []int     // row of the group where minibatch mb0+i starts
	verts    []int32   // vertex of each row (the nonzero column of Q)
	mbOf     []int32   // group-relative minibatch of each row
	skip     []int32   // per group minibatch: rows before this are not expanded
	off      []int64   // len rows+1: row r's picks are picks[off[r]:off[r]+cnt[r]]
	lo       []int64   // CSR path: where row r's vertex's row starts in A
	deg      []int32   // CSR path: its degree
	cnt      []int32   // number of picks of each row
	picks    []int32   // global ids of the picks
	pvals    []float32 // values of the picks when hasVals
	hasVals  bool      // the picks' values are not all 1 (weighted or with replacement)
	edgeBase []int64   // per group minibatch: where its entries start in the layer
}

// sampleLayer samples layer l (fanout s) of every minibatch, writing the
// blocks into la, and returns F_{l+1} of every minibatch.
func (nw *NodeWise) sampleLayer(ctx context.Context, la *LayerArrays, epoch, first, l, s int, frontiers [][]int32, expanded []int) ([][]int32, error) {
	k := len(frontiers)
	la.PtrStart = make([]int, k+1)
	for m, f := range frontiers {
		la.PtrStart[m+1] = la.PtrStart[m] + len(f) + 1
	}
	la.Indptr = make([]int64, la.PtrStart[k])
	la.EdgeStart = make([]int64, k+1)
	next := make([][]int32, k)
	perRow := int64(max(s, 1))
	for m0 := 0; m0 < k; {
		// A group takes minibatches while its selection bound fits the cap.
		m1, cost := m0, int64(0)
		for m1 < k {
			c := int64(len(frontiers[m1])-expanded[m1]) * perRow
			if m1 > m0 && cost+c > nw.opt.MaxBulkEdges {
				break
			}
			cost += c
			m1++
		}
		if err := nw.sampleGroup(ctx, la, epoch, first, l, s, frontiers, expanded, next, m0, m1); err != nil {
			return nil, err
		}
		m0 = m1
	}
	return next, nil
}

// sampleGroup samples layer l of minibatches m0..m1-1.
func (nw *NodeWise) sampleGroup(ctx context.Context, la *LayerArrays, epoch, first, l, s int, frontiers [][]int32, expanded []int, next [][]int32, m0, m1 int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g, _ := nw.states.Get().(*layerState)
	if g == nil {
		g = new(layerState)
	}
	defer nw.states.Put(g)
	g.mb0 = m0
	g.rowStart = resize(g.rowStart, m1-m0+1)
	g.rowStart[0] = 0
	g.skip = resize(g.skip, m1-m0)
	for m := m0; m < m1; m++ {
		g.rowStart[m-m0+1] = g.rowStart[m-m0] + len(frontiers[m])
		g.skip[m-m0] = int32(expanded[m])
	}
	rows := g.rowStart[m1-m0]
	g.verts, g.mbOf = g.verts[:0], g.mbOf[:0]
	for m := m0; m < m1; m++ {
		g.verts = append(g.verts, frontiers[m]...)
		for range frontiers[m] {
			g.mbOf = append(g.mbOf, int32(m-m0))
		}
	}
	if f, ok := nw.src.(RowFetcher); ok {
		if err := f.FetchRows(ctx, nw.expandedVertices(g)); err != nil {
			return err
		}
	}

	// Pass 1: sizes.
	g.off = resize(g.off, rows+1)
	clear(g.off)
	if nw.csr != nil {
		g.lo, g.deg = resize(g.lo, rows), resize(g.deg, rows)
	}
	nw.parallel(rows, rowGrain, func(w *nwWorker, lo, hi int) { nw.sizeRows(g, s, lo, hi) })
	for r := range rows {
		g.off[r+1] += g.off[r]
	}
	total := g.off[rows]

	// Pass 2: selection.
	g.cnt = resize(g.cnt, rows)
	clear(g.cnt)
	g.picks = resize(g.picks, int(total))
	g.hasVals = nw.opt.Weighted || nw.opt.Replace
	if g.hasVals {
		g.pvals = resize(g.pvals, int(total))
	}
	key := nw.stream
	nw.parallel(rows, rowGrain, func(w *nwWorker, lo, hi int) { nw.selectRows(w, g, key, epoch, first, l, s, lo, hi) })

	// Where each minibatch's entries go in the layer's arrays.
	base := int64(len(la.Indices))
	g.edgeBase = resize(g.edgeBase, m1-m0+1)
	g.edgeBase[0] = 0
	for i := range m1 - m0 {
		e := int64(0)
		for _, c := range g.cnt[g.rowStart[i]:g.rowStart[i+1]] {
			e += int64(c)
		}
		g.edgeBase[i+1] = g.edgeBase[i] + e
		la.EdgeStart[m0+i+1] = base + g.edgeBase[i+1]
	}
	la.Indices = slices.Grow(la.Indices, int(g.edgeBase[m1-m0]))[:base+g.edgeBase[m1-m0]]
	la.Data = slices.Grow(la.Data, int(g.edgeBase[m1-m0]))[:base+g.edgeBase[m1-m0]]
	for i := range g.edgeBase {
		g.edgeBase[i] += base
	}

	// Pass 3: extraction, one minibatch per task.
	nw.parallel(m1-m0, 1, func(w *nwWorker, lo, hi int) {
		for i := lo; i < hi; i++ {
			next[m0+i] = nw.extract(w, g, la, frontiers[m0+i], i)
		}
	})
	return ctx.Err()
}

// expandedVertices returns the distinct vertices of the group's rows that
// the layer expands.
func (nw *NodeWise) expandedVertices(g *layerState) []int32 {
	w := nw.getWorker()
	defer nw.workers.Put(w)
	var out []int32
	for r, v := range g.verts {
		if g.expands(r) && w.ids[v] < 0 {
			w.ids[v] = 0
			out = append(out, v)
		}
	}
	w.reset(out)
	return out
}

// expands reports whether row r of the group is expanded at this layer.
func (g *layerState) expands(r int) bool {
	i := g.mbOf[r]
	return int32(r-g.rowStart[i]) >= g.skip[i]
}

// sizeRows stores the selection bound of rows lo..hi-1 in off[r+1] (and,
// on the CSR path, where each row starts and its degree).
func (nw *NodeWise) sizeRows(g *layerState, s, lo, hi int) {
	if a := nw.csr; a != nil {
		for r := lo; r < hi; r++ {
			v := g.verts[r]
			start, end := a.Indptr[v], a.Indptr[v+1]
			g.lo[r], g.deg[r] = start, int32(end-start)
			if g.expands(r) {
				g.off[r+1] = int64(selectBound(int(end-start), s))
			}
		}
		return
	}
	for r := lo; r < hi; r++ {
		if g.expands(r) {
			cols, _ := nw.src.Row(g.verts[r])
			g.off[r+1] = int64(selectBound(len(cols), s))
		}
	}
}

// selectRows draws the picks of rows lo..hi-1.
func (nw *NodeWise) selectRows(w *nwWorker, g *layerState, stream Stream, epoch, first, l, s, lo, hi int) {
	opt := SelectOptions{Weighted: nw.opt.Weighted, Replace: nw.opt.Replace}
	if nw.csr != nil && !opt.Weighted {
		nw.selectRowsUniform(w, g, stream, epoch, first, l, s, lo, hi)
		return
	}
	cur, lk := -1, layerKey(0)
	for r := lo; r < hi; r++ {
		if !g.expands(r) {
			continue
		}
		v := g.verts[r]
		var cols []int32
		var vals []float32
		if a := nw.csr; a != nil {
			start := g.lo[r]
			cols, vals = a.Indices[start:start+int64(g.deg[r])], a.Data[start:start+int64(g.deg[r])]
		} else {
			cols, vals = nw.src.Row(v)
		}
		if i := int(g.mbOf[r]); i != cur {
			cur, lk = i, stream.layer(epoch, first+g.mb0+i, l)
		}
		pos, mult := w.sel.choose(lk.row(v), cols, vals, s, opt)
		out := g.picks[g.off[r]:]
		for j, p := range pos {
			out[j] = cols[p]
		}
		if g.hasVals {
			pv := g.pvals[g.off[r]:]
			for j, p := range pos {
				wt := float32(1)
				if opt.Weighted {
					wt = vals[p]
				}
				pv[j] = pickValue(wt, mult, j)
			}
		}
		g.cnt[r] = int32(len(pos))
	}
}

// selectRowsUniform is selectRows for uniform selection from a local CSR.
// Uniform positions depend only on the row's degree, so it first draws the
// positions of all rows lo..hi-1 without touching A, then gathers the
// column ids in a loop whose loads are independent of each other: the CPU
// keeps many of these cache misses in flight instead of one per row.
func (nw *NodeWise) selectRowsUniform(w *nwWorker, g *layerState, stream Stream, epoch, first, l, s, lo, hi int) {
	cur, lk := -1, layerKey(0)
	for r := lo; r < hi; r++ {
		if !g.expands(r) || g.deg[r] == 0 {
			continue
		}
		if i := int(g.mbOf[r]); i != cur {
			cur, lk = i, stream.layer(epoch, first+g.mb0+i, l)
		}
		pos, mult := w.sel.uniform(lk.row(g.verts[r]), int(g.deg[r]), s, nw.opt.Replace)
		copy(g.picks[g.off[r]:], pos)
		if mult != nil {
			pv := g.pvals[g.off[r]:]
			for j, c := range mult {
				pv[j] = float32(c)
			}
		} else if g.hasVals {
			pv := g.pvals[g.off[r] : g.off[r]+int64(len(pos))]
			for j := range pv {
				pv[j] = 1
			}
		}
		g.cnt[r] = int32(len(pos))
	}
	ind := nw.csr.Indices
	for r := lo; r < hi; r++ {
		o := g.off[r]
		picks := g.picks[o : o+int64(g.cnt[r])]
		row := ind[g.lo[r] : g.lo[r]+int64(g.deg[r])]
		for j, p := range picks {
			picks[j] = row[p]
		}
	}
}

// extract renumbers the picks of group minibatch i (frontier f) into its
// local columns, writes its block into la and returns F_{l+1}.
func (nw *NodeWise) extract(w *nwWorker, g *layerState, la *LayerArrays, f []int32, i int) []int32 {
	m := g.mb0 + i
	ids := w.ids
	for j, v := range f {
		ids[v] = int32(j)
	}
	e0, e1 := g.edgeBase[i], g.edgeBase[i+1]
	nf := make([]int32, len(f), len(f)+int(e1-e0))
	copy(nf, f)
	ptr := la.Indptr[la.PtrStart[m]:la.PtrStart[m+1]]
	ind, dat := la.Indices[e0:e1], la.Data[e0:e1]
	e := 0
	for j := range f {
		r := g.rowStart[i] + j
		ptr[j] = int64(e)
		c := int(g.cnt[r])
		if c == 0 {
			continue
		}
		picks := g.picks[g.off[r] : g.off[r]+int64(c)]
		row := ind[e : e+c]
		if g.hasVals {
			for q, v := range picks {
				id := ids[v]
				if id < 0 {
					id = int32(len(nf))
					ids[v] = id
					nf = append(nf, v)
				}
				row[q] = id
			}
			vals := dat[e : e+c]
			copy(vals, g.pvals[g.off[r]:g.off[r]+int64(c)])
			if nw.opt.Weighted {
				spgemm.NormalizeVec(vals)
			}
			sortPairs(row, vals)
		} else {
			// Ids created by this row exceed every id known before it and
			// increase, so the sorted row is the known ids, sorted, then
			// the new ones in order: only the known ids need sorting.
			nk, fresh := 0, w.fresh[:0]
			for _, v := range picks {
				id := ids[v]
				if id < 0 {
					id = int32(len(nf))
					ids[v] = id
					nf = append(nf, v)
					fresh = append(fresh, id)
				} else {
					row[nk] = id
					nk++
				}
			}
			slices.Sort(row[:nk])
			copy(row[nk:], fresh)
			w.fresh = fresh
		}
		e += c
	}
	ptr[len(f)] = int64(e)
	if !g.hasVals {
		for j := range dat {
			dat[j] = 1
		}
	}
	w.reset(nf)
	return nf
}

// sortPairs sorts ind ascending, permuting vals alike.
func sortPairs(ind []int32, vals []float32) {
	if len(ind) <= 32 {
		for i := 1; i < len(ind); i++ {
			for j := i; j > 0 && ind[j] < ind[j-1]; j-- {
				ind[j], ind[j-1] = ind[j-1], ind[j]
				vals[j], vals[j-1] = vals[j-1], vals[j]
			}
		}
		return
	}
	sort.Sort(pairSorter{ind, vals})
}

type pairSorter struct {
	ind  []int32
	vals []float32
}

func (p pairSorter) Len() int           { return len(p.ind) }
func (p pairSorter) Less(i, j int) bool { return p.ind[i] < p.ind[j] }
func (p pairSorter) Swap(i, j int) {
	p.ind[i], p.ind[j] = p.ind[j], p.ind[i]
	p.vals[i], p.vals[j] = p.vals[j], p.vals[i]
}
