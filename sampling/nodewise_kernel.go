package sampling

// The node-wise kernel. A bulk's layer is sampled in groups of
// consecutive minibatches (NodeWiseOptions.MaxBulkEdges; by default a group
// holds about GroupCacheBytes of buffers and at least two minibatches a
// thread), so that a bulk of any size k needs the scratch space of one
// group and each pass reads what the previous one wrote from the cache. A
// group runs in three passes over the stacked rows of its frontiers (the
// rows of Q), which are a view of the previous layer's sources: the
// frontiers of consecutive minibatches are stored back to back.
//
//  1. sizes (parallel over chunks of rows): each row's start and degree in
//     A and its selection bound; each chunk sums its bounds, and a prefix
//     sum over the chunks (not the rows) places each chunk's picks;
//  2. selection (parallel over the same chunks, so k = 1 uses every
//     thread): a chunk turns its rows' bounds into offsets, draws each
//     row's picks with its row key and writes their global ids, and adds
//     its counts to its minibatches' entry totals. For uniform selection
//     from a local CSR a chunk first draws all positions (which need only
//     the degrees) and then gathers the column ids in a loop of
//     independent loads, so that many cache misses on A are in flight at
//     once instead of one per row;
//  3. extraction (parallel over minibatches, handed out one at a time): a
//     per-worker array map from vertex to local id renumbers the picks into
//     the minibatch's columns and writes the block straight into the bulk's
//     arrays at offsets known after pass 2, and its new vertices into a
//     group buffer; F_{l+1} = F_l followed by them is then copied into the
//     layer's sources, in parallel over minibatches. The minibatches that
//     whole-minibatch tasks would leave to fewer threads than there are
//     (all of a bulk of one minibatch; the last ng mod threads of a group)
//     are each split over the threads by cost instead (nodewise_split.go).
//
// Every buffer is reused: the workers' vertex maps and the group buffers
// live on the sampler's free lists, and a bulk's output arrays come from
// bulks the caller released (Bulk.Release). What stays serial is a loop
// over the group's minibatches and one over its chunks of rows.
//
// Profiles (R-MAT scale 20, fanouts 15,10,5, k = 16 and 64) put 44-46% of
// the CPU time in the extraction, 38-40% in the selection and 8-11% in the
// sizes pass, all parallel; the code outside the parallel passes took 0-0.6%.

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/freelist"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// nwWorker is the scratch space of one goroutine of the sampler.
type nwWorker struct {
	// ids maps a vertex to its local id in the minibatch being extracted
	// (dense or hashed by the graph's size: vertexMap). Every task resets
	// the entries it set, which costs less than clearing a dense map's n
	// entries and keeps it at 4 bytes a vertex (half of a
	// generation-stamped map: more of it stays in cache).
	ids     vertexMap
	sortBuf []uint64 // spgemm.SortPairs' scratch space
	sel     rowSelector
}

// nwCall is the scratch space of one SampleBulk call.
type nwCall struct {
	expanded []int32 // per minibatch: rows of its frontier expanded at an earlier layer (FrontierNew)
	inStart  []int   // per minibatch: where its seeds start in the caller's seeds, back to back
	seedCnt  []int   // per minibatch: its distinct seeds
	g        layerState
	team     par.Team // the call's helper goroutines
	// A layer's groups: group j is minibatches groups[j]..groups[j+1]-1,
	// its selection bound groupCost[j].
	groups    []int
	groupCost []int64
	// remote is the scratch space of the remote paths
	// (nodewise_remote.go), made on their first layer: nil while the
	// sampler's source is local.
	remote *nwRemote
}

// nwScratch holds the sampler's reusable memory: free lists that outlive
// garbage collections, unlike a sync.Pool, which empties at every other
// collection; a large bulk triggers several, and refilling an n-entry
// vertex map or a group's buffers touches fresh pages, each first touch a
// page fault (docs/perf-notes.md). Its size is bounded by the largest number of
// goroutines and calls that were ever active at once.
type nwScratch struct {
	workers freelist.List[*nwWorker]
	calls   freelist.List[*nwCall]
	shared  colMapPool // dense vertex maps of split extractions (-1: absent)
}

func (nw *NodeWise) getWorker() *nwWorker {
	if w, ok := nw.scratch.workers.Get(); ok {
		return w
	}
	return &nwWorker{ids: newVertexMap(nw.src.NumVertices(), nw.denseMapMax)}
}

func (nw *NodeWise) putWorker(w *nwWorker) { nw.scratch.workers.Put(w) }

func (nw *NodeWise) getCall() *nwCall {
	if c, ok := nw.scratch.calls.Get(); ok {
		return c
	}
	return new(nwCall)
}

func (nw *NodeWise) putCall(c *nwCall) {
	c.g.verts, c.g.pk = nil, PackedArrays{} // views of data the sampler does not own
	c.g.picks, c.g.pvals = nil, nil
	// A remote call's push batches keep their answers: a RemoteRows
	// answers into a request's own arrays, reused by the next call.
	nw.scratch.calls.Put(c)
}

// reset empties the map; vs are the vertices entered since the last reset.
func (w *nwWorker) reset(vs []int32) { w.ids.reset(vs) }

// parallel runs body(w, c, lo, hi) over [0, n) in chunks c of grain, taken
// in order by up to nw.threads goroutines, each with its own worker; chunk
// c is [c*grain, min((c+1)*grain, n)). The goroutines are tm's (Run).
func (nw *NodeWise) parallel(tm *par.Team, n, grain int, body func(w *nwWorker, c, lo, hi int)) {
	if n == 0 {
		return
	}
	grain = max(grain, 1)
	nchunks := (n + grain - 1) / grain
	var next atomic.Int64
	run := func() {
		var w *nwWorker // taken with the first chunk: a helper may find none
		for {
			c := int(next.Add(1)) - 1
			if c >= nchunks {
				break
			}
			if w == nil {
				w = nw.getWorker()
			}
			body(w, c, c*grain, min((c+1)*grain, n))
		}
		if w != nil {
			nw.putWorker(w)
		}
	}
	tm.Run(min(nw.threads, nchunks), func(int) { run() })
}

// rowGrain is the number of rows a goroutine takes at a time in the sizes
// and selection passes: large enough to amortise the atomic counter, small
// enough to balance rows of very different degrees.
const rowGrain = 512

// extend returns s lengthened by n elements. When its array lacks room it
// moves to a new one of capacity want (at least the new length), so that a
// caller who can estimate the final length moves the data once or twice
// rather than at every doubling.
func extend[T any](s []T, n, want int) []T {
	if cap(s)-len(s) >= n {
		return s[:len(s)+n]
	}
	t := make([]T, len(s)+n, max(want, len(s)+n))
	copy(t, s)
	return t
}

// layerState holds the stacked rows of one layer of one group of
// minibatches, mb0..mb0+len(rowStart)-2. Its arrays are reused from group
// to group and call to call; only verts, ind and val are views of memory
// it does not own.
type layerState struct {
	mb0      int
	rowStart []int        // row of the group where minibatch mb0+i starts
	verts    []int32      // vertex of each row: the group's frontiers, back to back (a view)
	skip     []int32      // per group minibatch: rows before this are not expanded
	off      []int64      // len rows+1: row r's picks start at picks[off[r]]
	chunkOff []int64      // per chunk of rowGrain rows: its picks' bound, then where they start
	lo       []int64      // packed path: where row r's vertex's row starts in ind
	deg      []int32      // packed path: its degree
	pk       PackedArrays // packed path: the source's packed rows (views)
	cnt      []int32      // number of picks of each row
	picks    []int32      // global ids of the picks: selPicks, or a view of a pushed layer's
	pvals    []float32    // values of the picks when hasVals: selVals, or a view
	selPicks []int32      // the selection's picks and values (owned)
	selVals  []float32
	hasVals  bool      // the picks' values are not all 1 (weighted or with replacement)
	mbEdges  []int64   // per group minibatch: the entries it selected
	edgeBase []int64   // len group+1: where each minibatch's entries start, from the group's first
	newv     []int32   // extraction: minibatch i's new vertices at newv[edgeBase[i]:]
	nnew     []int     // per group minibatch: its number of new vertices
	pieces   []nwPiece // split extraction: the pieces of one minibatch
	// A group of a remote source pulled in parts (RemoteRows.PullParts,
	// nodewise_remote.go): rowDeg and rowPart are per row its degree and
	// part (part 0 for rows not expanded). The sizes pass reads the
	// degrees, and selection runs once per part, on the rows of part.
	// parted is false for a local source.
	parted  bool
	part    int32
	rowDeg  []int32
	rowPart []int32
}

// mbAt returns the group minibatch i that row r belongs to:
// rowStart[i] <= r < rowStart[i+1].
func (g *layerState) mbAt(r int) int {
	lo, hi := 0, len(g.rowStart)-1 // invariant: rowStart[lo] <= r < rowStart[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if g.rowStart[mid] <= r {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// sampleLayer samples layer l (fanout s) of every minibatch, whose
// frontiers F_l are prev[prevStart[m]:prevStart[m+1]], writing the blocks
// and F_{l+1} into la. A local source's groups select from its rows one
// after the other; a RemoteRows' layer is sampleRemoteLayer's.
func (nw *NodeWise) sampleLayer(ctx context.Context, c *nwCall, la *LayerArrays, epoch, first, l, s int, prev []int32, prevStart []int) error {
	total := nw.groupLayer(c, la, s, prevStart)
	if nw.remote != nil {
		return nw.sampleRemoteLayer(ctx, c, la, epoch, first, l, s, prev, prevStart, total)
	}
	var done int64
	for j := range len(c.groupCost) {
		done += c.groupCost[j]
		m0, m1 := c.groups[j], c.groups[j+1]
		if err := nw.startGroup(ctx, c, prev, prevStart, m0, m1); err != nil {
			return err
		}
		nw.selectGroup(c, epoch, first, l, s)
		if err := nw.extractGroup(ctx, c, la, prev, prevStart, m0, m1, growth(total, done)); err != nil {
			return err
		}
	}
	return nil
}

// growth estimates the ratio of a layer's final output to its output so
// far from the selection bounds of the layer (total) and of its groups
// sampled so far (done), for sizing the output arrays when they must move.
func growth(total, done int64) float64 { return float64(total) / float64(max(done, 1)) }

// groupLayer sizes la's offsets for a layer (fanout s) of the minibatches
// whose frontiers start at prevStart, and cuts them into c.groups (cost
// c.groupCost each); it returns the layer's total cost.
func (nw *NodeWise) groupLayer(c *nwCall, la *LayerArrays, s int, prevStart []int) int64 {
	k := len(prevStart) - 1
	la.PtrStart = par.Resize(la.PtrStart, k+1)
	la.PtrStart[0] = 0
	for m := range k {
		la.PtrStart[m+1] = la.PtrStart[m] + prevStart[m+1] - prevStart[m] + 1
	}
	la.Indptr = par.Resize(la.Indptr, la.PtrStart[k])
	la.EdgeStart = par.Resize(la.EdgeStart, k+1)
	la.EdgeStart[0] = 0
	la.SrcStart = par.Resize(la.SrcStart, k+1)
	la.SrcStart[0] = 0
	la.Indices, la.Data, la.Src = la.Indices[:0], la.Data[:0], la.Src[:0]
	perRow := int64(max(s, 1))
	cost := func(m int) int64 { return int64(prevStart[m+1]-prevStart[m]-int(c.expanded[m])) * perRow }
	var total int64
	for m := range k {
		total += cost(m)
	}
	// A group takes minibatches while its selection bound fits the cap,
	// and at least minGroup of them, so that the extraction, parallel over
	// the group's minibatches, has work for every thread, as long as they
	// fit the memory cap.
	c.groups, c.groupCost = append(c.groups[:0], 0), c.groupCost[:0]
	for m0 := 0; m0 < k; {
		m1, gc := m0, int64(0)
		for m1 < k {
			cm := cost(m1)
			if m1 > m0 && (gc+cm > nw.maxGroupEdges || m1-m0 >= nw.minGroup && gc+cm > nw.opt.MaxBulkEdges) {
				break
			}
			gc += cm
			m1++
		}
		c.groups, c.groupCost = append(c.groups, m1), append(c.groupCost, gc)
		m0 = m1
	}
	return total
}

// startGroup sets c.g to the stacked rows of layer l's minibatches
// m0..m1-1, for their selection. It returns ctx's error, if any.
func (nw *NodeWise) startGroup(ctx context.Context, c *nwCall, prev []int32, prevStart []int, m0, m1 int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g := &c.g
	ng := m1 - m0
	g.mb0 = m0
	g.rowStart = par.Resize(g.rowStart, ng+1)
	g.skip = par.Resize(g.skip, ng)
	for i := range ng + 1 {
		g.rowStart[i] = prevStart[m0+i] - prevStart[m0]
	}
	for i := range ng {
		g.skip[i] = c.expanded[m0+i]
	}
	g.verts = prev[prevStart[m0]:prevStart[m1]]
	g.hasVals = nw.opt.Weighted || nw.opt.Replace
	g.mbEdges = par.Resize(g.mbEdges, ng)
	clear(g.mbEdges)
	return nil
}

// extractGroup runs pass 3 of the group of minibatches m0..m1-1 (c.g),
// whose picks are selected, and writes their blocks and F_{l+1} into la.
// growth estimates the ratio of the layer's final output to its output so
// far, for sizing the output arrays when they must move.
func (nw *NodeWise) extractGroup(ctx context.Context, c *nwCall, la *LayerArrays, prev []int32, prevStart []int, m0, m1 int, growth float64) error {
	g := &c.g
	ng := m1 - m0
	// Where each minibatch's entries go in the layer's arrays.
	g.edgeBase = par.Resize(g.edgeBase, ng+1)
	g.edgeBase[0] = 0
	for i := range ng {
		g.edgeBase[i+1] = g.edgeBase[i] + g.mbEdges[i]
	}
	base := int64(len(la.Indices))
	for i := range ng {
		la.EdgeStart[m0+i+1] = base + g.edgeBase[i+1]
	}
	edges := int(g.edgeBase[ng])
	want := int(float64(int(base)+edges) * growth * 1.05)
	la.Indices = extend(la.Indices, edges, want)
	la.Data = extend(la.Data, edges, want)
	g.newv = par.Resize(g.newv, edges)
	g.nnew = par.Resize(g.nnew, ng)

	// Pass 3: extraction, one minibatch per task, except the last ones
	// when they would leave threads idle: those are split over the
	// threads, one after the other.
	split := nw.splitTail(g, ng)
	nw.parallel(&c.team, split, 1, func(w *nwWorker, _, lo, hi int) {
		for i := lo; i < hi; i++ {
			m := m0 + i
			nw.extract(w, g, la, base, prev[prevStart[m]:prevStart[m+1]], i)
		}
	})
	for i := split; i < ng; i++ {
		m := m0 + i
		nw.extractSplit(&c.team, g, la, base, prev[prevStart[m]:prevStart[m+1]], i)
	}

	// F_{l+1} of each minibatch: its F_l, then its new vertices.
	srcBase := len(la.Src)
	for i := range ng {
		m := m0 + i
		la.SrcStart[m+1] = la.SrcStart[m] + prevStart[m+1] - prevStart[m] + g.nnew[i]
	}
	add := la.SrcStart[m1] - srcBase
	la.Src = extend(la.Src, add, int(float64(srcBase+add)*growth*1.05))
	nw.parallel(&c.team, ng, 1, func(_ *nwWorker, _, lo, hi int) {
		for i := lo; i < hi; i++ {
			m := m0 + i
			dst := la.Src[la.SrcStart[m]:la.SrcStart[m+1]]
			n := copy(dst, prev[prevStart[m]:prevStart[m+1]])
			copy(dst[n:], g.newv[g.edgeBase[i]:g.edgeBase[i]+int64(g.nnew[i])])
		}
	})
	return ctx.Err()
}

// selectGroup runs passes 1 and 2 of a group that selects from rows the
// source holds (local ones, or those a RemoteRows fetched): its rows'
// bounds and where their picks go, then the selection.
func (nw *NodeWise) selectGroup(c *nwCall, epoch, first, l, s int) {
	nw.sizeGroup(c, s)
	g := &c.g
	nw.parallel(&c.team, len(g.verts), rowGrain, func(w *nwWorker, ch, lo, hi int) {
		g.placeRows(ch, lo, hi)
		nw.selectRows(w, g, nw.stream, epoch, first, l, s, lo, hi)
		g.countEdges(lo, hi)
	})
}

// sizeGroup runs pass 1 of the group (c.g): row r's bound goes to off[r]
// and each chunk's sum to chunkOff, whose prefix sum gives where the
// chunk's picks start (pass 2 turns its rows' bounds into offsets); it
// sizes the picks' arrays for the selection.
func (nw *NodeWise) sizeGroup(c *nwCall, s int) {
	g := &c.g
	rows := len(g.verts)
	if nw.packed != nil {
		g.pk = nw.packed.Packed()
	}
	nchunks := (rows + rowGrain - 1) / rowGrain
	g.off = par.Resize(g.off, rows+1)
	g.chunkOff = par.Resize(g.chunkOff, nchunks)
	if nw.packed != nil {
		g.lo, g.deg = par.Resize(g.lo, rows), par.Resize(g.deg, rows)
	}
	nw.parallel(&c.team, rows, rowGrain, func(_ *nwWorker, ch, lo, hi int) { g.chunkOff[ch] = nw.sizeRows(g, s, lo, hi) })
	var bound int64
	for ch, b := range g.chunkOff {
		g.chunkOff[ch] = bound
		bound += b
	}
	g.off[rows] = bound
	g.cnt = par.Resize(g.cnt, rows)
	g.selPicks = par.Resize(g.selPicks, int(bound))
	g.picks = g.selPicks
	if g.hasVals {
		g.selVals = par.Resize(g.selVals, int(bound))
		g.pvals = g.selVals
	}
}

// placeRows turns the selection bounds of rows lo..hi-1, chunk ch, into
// where their picks start.
func (g *layerState) placeRows(ch, lo, hi int) {
	o := g.chunkOff[ch]
	for r := lo; r < hi; r++ {
		b := g.off[r]
		g.off[r] = o
		o += b
	}
}

// countEdges adds the picks of rows lo..hi-1 to their minibatches'
// mbEdges (atomically: a minibatch's rows may span several chunks).
func (g *layerState) countEdges(lo, hi int) {
	i := g.mbAt(lo)
	var sum int64
	for r := lo; r < hi; r++ {
		for r >= g.rowStart[i+1] {
			if sum != 0 {
				atomic.AddInt64(&g.mbEdges[i], sum)
				sum = 0
			}
			i++
		}
		sum += int64(g.cnt[r])
	}
	if sum != 0 {
		atomic.AddInt64(&g.mbEdges[i], sum)
	}
}

// sizeRows stores the selection bound of each row r of lo..hi-1 in off[r]
// (and, on the packed path, where the row starts and its degree) and
// returns their sum. Rows not expanded at this layer have bound 0.
func (nw *NodeWise) sizeRows(g *layerState, s, lo, hi int) int64 {
	i := g.mbAt(lo)
	var sum int64
	pk := nw.packed
	for r := lo; r < hi; r++ {
		for r >= g.rowStart[i+1] {
			i++
		}
		if r-g.rowStart[i] < int(g.skip[i]) {
			g.off[r] = 0
			if pk != nil {
				g.lo[r], g.deg[r] = 0, 0 // not fetched: no span to read
			}
			continue
		}
		var b int
		if g.parted {
			// A remote group's rows are fetched later, by parts: their
			// lengths are known, their spans not yet (selectParts).
			if pk != nil {
				g.lo[r], g.deg[r] = 0, g.rowDeg[r]
			}
			b = selectBound(int(g.rowDeg[r]), s)
		} else if pk != nil {
			start, deg := pk.RowSpan(g.verts[r])
			g.lo[r], g.deg[r] = start, deg
			b = selectBound(int(deg), s)
		} else {
			cols, _ := nw.src.Row(g.verts[r])
			b = selectBound(len(cols), s)
		}
		g.off[r] = int64(b)
		sum += int64(b)
	}
	return sum
}

// selectRows draws the picks of rows lo..hi-1 and sets their counts
// (0 for rows not expanded).
func (nw *NodeWise) selectRows(w *nwWorker, g *layerState, stream Stream, epoch, first, l, s, lo, hi int) {
	opt := SelectOptions{Weighted: nw.opt.Weighted, Replace: nw.opt.Replace}
	if nw.packed != nil && (!opt.Weighted || nw.equalWeight > 0) {
		nw.selectRowsUniform(w, g, stream, epoch, first, l, s, lo, hi)
		return
	}
	i := g.mbAt(lo)
	lk := stream.layer(epoch, first+g.mb0+i, l)
	for r := lo; r < hi; r++ {
		for r >= g.rowStart[i+1] {
			i++
			lk = stream.layer(epoch, first+g.mb0+i, l)
		}
		if g.parted && g.rowPart[r] != g.part {
			continue // another part's row
		}
		g.cnt[r] = 0
		if r-g.rowStart[i] < int(g.skip[i]) {
			continue
		}
		v := g.verts[r]
		var cols []int32
		var vals []float32
		if nw.packed != nil {
			cols, vals = g.pk.Row(g.lo[r], g.deg[r])
		} else {
			cols, vals = nw.src.Row(v)
		}
		var pv []float32
		if g.hasVals {
			pv = g.pvals[g.off[r]:]
		}
		g.cnt[r] = int32(w.sel.pick(lk.row(v), cols, vals, s, opt, g.picks[g.off[r]:], pv))
	}
}

// pick selects from the row (cols, vals) with key, writes the picks' global
// ids into picks and, when pvals is not nil, their values (pickValue), and
// returns their number. It is the selection of one row wherever it runs:
// in the sampler, or at the row's owner for push sampling (RowPicker).
func (sel *rowSelector) pick(key RowKey, cols []int32, vals []float32, s int, opt SelectOptions, picks []int32, pvals []float32) int {
	pos, mult := sel.choose(key, cols, vals, s, opt)
	for j, p := range pos {
		picks[j] = cols[p]
	}
	if pvals != nil {
		for j, p := range pos {
			wt := float32(1)
			if opt.Weighted {
				wt = vals[p]
			}
			pvals[j] = pickValue(wt, mult, j)
		}
	}
	return len(pos)
}

// selectRowsUniform is selectRows for uniform selection from packed rows,
// and for weighted selection when every weight is nw.equalWeight: the
// picks are choose's for such rows, and their values what pick writes.
// Uniform positions depend only on the row's degree, so it first draws the
// positions of all rows lo..hi-1 without touching A, then gathers the
// column ids in a loop whose loads are independent of each other: the CPU
// keeps many of these cache misses in flight instead of one per row.
func (nw *NodeWise) selectRowsUniform(w *nwWorker, g *layerState, stream Stream, epoch, first, l, s, lo, hi int) {
	wt := float32(1)
	if nw.opt.Weighted {
		wt = nw.equalWeight
	}
	i := g.mbAt(lo)
	lk := stream.layer(epoch, first+g.mb0+i, l)
	for r := lo; r < hi; r++ {
		for r >= g.rowStart[i+1] {
			i++
			lk = stream.layer(epoch, first+g.mb0+i, l)
		}
		if g.parted && g.rowPart[r] != g.part {
			continue // another part's row
		}
		g.cnt[r] = 0
		if g.deg[r] == 0 || r-g.rowStart[i] < int(g.skip[i]) {
			continue
		}
		pos, mult := w.sel.uniform(lk.row(g.verts[r]), int(g.deg[r]), s, nw.opt.Replace)
		copy(g.picks[g.off[r]:], pos)
		if g.hasVals {
			pv := g.pvals[g.off[r] : g.off[r]+int64(len(pos))]
			for j := range pv {
				pv[j] = pickValue(wt, mult, j)
			}
		}
		g.cnt[r] = int32(len(pos))
	}
	pk := &g.pk
	for r := lo; r < hi; r++ {
		if g.parted && g.rowPart[r] != g.part {
			continue
		}
		o := g.off[r]
		picks := g.picks[o : o+int64(g.cnt[r])]
		row := pk.Cols(g.lo[r], g.deg[r])
		for j, p := range picks {
			picks[j] = row[p]
		}
	}
}

// extract renumbers the picks of group minibatch i (frontier f) into its
// local columns, writes its block into la (its entries at base plus its
// edgeBase) and its new vertices, in order of first appearance, into
// g.newv at its edgeBase (a minibatch has no more new vertices than
// entries), and sets g.nnew[i].
func (nw *NodeWise) extract(w *nwWorker, g *layerState, la *LayerArrays, base int64, f []int32, i int) {
	m := g.mb0 + i
	e0, e1 := g.edgeBase[i], g.edgeBase[i+1]
	ids := &w.ids
	ids.reserve(len(f) + int(e1-e0))
	ids.enter(f)
	newv := g.newv[e0:e0:e1]
	nf := int32(len(f)) // the local id of newv[0]
	ptr := la.Indptr[la.PtrStart[m]:la.PtrStart[m+1]]
	ind, dat := la.Indices[base+e0:base+e1], la.Data[base+e0:base+e1]
	e := 0
	for j := range f {
		r := g.rowStart[i] + j
		ptr[j] = int64(e)
		c := int(g.cnt[r])
		if c == 0 {
			continue
		}
		created := nf + int32(len(newv)) // the first id the row creates
		row := ind[e : e+c]
		// Without values finishRow writes the created ids.
		var nk int
		newv, nk = ids.renumber(g.picks[g.off[r]:g.off[r]+int64(c)], row, newv, nf, g.hasVals)
		nw.finishRow(g, r, row, dat[e:e+c], nk, created, &w.sortBuf)
		e += c
	}
	ptr[len(f)] = int64(e)
	if !g.hasVals {
		for j := range dat {
			dat[j] = 1
		}
	}
	w.reset(f)
	w.reset(newv)
	g.nnew[i] = len(newv)
}

// finishRow completes row r of the group, whose picks the caller
// (extract, extractSplit) renumbered into local ids, numbering first
// appearances in order: the ids the row's own picks created are created,
// created+1, ... in the order of the picks and exceed every id known before
// the row, so the sorted row is the other ids, sorted, then those. With
// values (g.hasVals) the caller wrote every id into row and finishRow
// writes the values (the picks', normalised when weighted) and sorts the
// pairs (the row's ids are distinct: any sort gives the same order), with
// *sortBuf as scratch space (kept for the next call); without, the caller
// wrote only the nk known ids, in row[:nk], and finishRow sorts them and
// appends the created ones (vals is set to 1 elsewhere).
func (nw *NodeWise) finishRow(g *layerState, r int, row []int32, vals []float32, nk int, created int32, sortBuf *[]uint64) {
	if g.hasVals {
		copy(vals, g.pvals[g.off[r]:g.off[r]+int64(len(row))])
		if nw.opt.Weighted {
			spgemm.NormalizeVec(vals)
		}
		*sortBuf = spgemm.SortPairs(row, vals, *sortBuf)
		return
	}
	slices.Sort(row[:nk])
	for q := nk; q < len(row); q++ {
		row[q] = created + int32(q-nk)
	}
}
