package sampling

// The node-wise kernel's remote paths: the layers of a RemoteRows source,
// whose rows live in other processes (docs/design.md section 4). A local
// source never enters this file: sampleLayer hands a layer here only when
// the sampler's source is a RemoteRows (NodeWise.remote), and the call's
// scratch space for it (nwCall.remote) is made on the first such layer.
//
// Each layer asks the source for its plan (RemoteRows.PlanLayer): pulled
// or pushed, and its batches of consecutive groups of minibatches
// (groupLayer's groups).
//
//   - Pull: the distinct rows a batch expands come in with one FetchRows,
//     and its groups then select from them as a local group does
//     (selectGroup). A batch of one group whose rows the source cuts into
//     parts (PullParts) is sized from the rows' lengths and selected part
//     by part, each part fetched when the last is done (selectParts), so
//     that no more than a part's rows are held at once.
//   - Push: the batch's expanded rows go to their owners, which select
//     the picks as the kernel would (RowPicker) and send back only those
//     (FetchPicks); passes 1 and 2 then ran there, and the groups go
//     straight to the extraction (pushedGroup). When the plan overlaps,
//     batch b+1's picks are asked for on the source's goroutine
//     (StartPicks) while batch b's groups are extracted; the rounds run in
//     the same order either way, so every rank makes the same collective
//     calls and the sample is the same.

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/internal/par"
)

// nwRemote is a call's scratch space for the layers of a RemoteRows.
type nwRemote struct {
	batches []int // the layer's plan: batch b is groups batches[b]..batches[b+1]-1
	// A pushed layer's batches: batch b is in push[b%2] when they
	// overlap, so that the next batch's picks may come in (StartPicks)
	// while the groups of this one are extracted, else in push[0].
	push  [2]pushBatch
	fetch []int32 // a pulled batch: the distinct vertices it expands
	// A group pulled in parts (PullParts): parts[q] is where part q of
	// fetch ends; vdeg and vpart are per vertex of fetch its degree and
	// part (layerState's rowDeg and rowPart are the same per row).
	parts       []int
	vdeg, vpart []int32
}

// pushBatch is a batch of a pushed layer: its request, and where each
// stacked row of the batch's picks start in req.Picks (off, len rows+1).
type pushBatch struct {
	req     PickRequest
	off     []int64
	lo      int     // the first minibatch of the batch
	at      []int64 // per minibatch: where its requests (then its picks) start
	mbPicks []int64 // per minibatch: its picks (then where its counts start)
}

// sampleRemoteLayer is sampleLayer for a RemoteRows source: layer l's
// groups (total their selection bound) by the batches of its plan.
func (nw *NodeWise) sampleRemoteLayer(ctx context.Context, c *nwCall, la *LayerArrays, epoch, first, l, s int, prev []int32, prevStart []int, total int64) error {
	if c.remote == nil {
		c.remote = new(nwRemote)
	}
	rc := c.remote
	c.g.parted = false // fetchBatch sets it for a group pulled in parts
	plan := nw.remote.PlanLayer(nw.demand(c, l, s, prev, prevStart), rc.batches)
	rc.batches = plan.Batches
	// A batch may be empty: a rank without minibatches still takes part
	// in the column's push rounds.
	if !risingCuts(rc.batches, 0, len(c.groupCost), false) || rc.batches[0] != 0 {
		return fmt.Errorf("sampling: PlanLayer of layer %d returned the batch boundaries %v for %d groups; want 0 <= ... <= %d", l, rc.batches, len(c.groupCost), len(c.groupCost))
	}
	// A pushed layer whose plan overlaps asks for batch b+1's picks on
	// the source's goroutine while this one extracts batch b's groups.
	async := plan.Push && plan.Overlap && len(rc.batches) > 2
	var pending func() error // batch b's picks, when they are in flight
	if async {
		actx, cancel := context.WithCancel(ctx)
		defer func() {
			// An error: the rounds in flight are cancelled, and end
			// before the layer returns.
			cancel()
			if pending != nil {
				_ = pending()
			}
		}()
		ctx = actx
	}
	nb := len(rc.batches) - 1
	var done int64
	for b := range nb {
		j0, j1 := rc.batches[b], rc.batches[b+1]
		var pushed *pushBatch // nil: the groups select from the rows
		if plan.Push {
			pb := &rc.push[0] // one batch's arrays unless they overlap
			if async {
				pb = &rc.push[b%2]
			}
			pushed = pb
			var err error
			if pending != nil {
				err, pending = pending(), nil
			} else {
				nw.pushRequest(c, pb, epoch, first, l, s, prev, prevStart, c.groups[j0], c.groups[j1])
				err = nw.remote.FetchPicks(ctx, &pb.req)
			}
			if err == nil {
				err = nw.pushPlace(c, pb, prevStart, c.groups[j0], c.groups[j1])
			}
			if err != nil {
				return err
			}
			if async && b+1 < nb {
				nx := &rc.push[(b+1)%2]
				nw.pushRequest(c, nx, epoch, first, l, s, prev, prevStart, c.groups[j1], c.groups[rc.batches[b+2]])
				pending = nw.remote.StartPicks(ctx, &nx.req)
			}
		} else if err := nw.fetchBatch(ctx, c, prev, prevStart, j0, j1); err != nil {
			return err
		}
		for j := j0; j < j1; j++ {
			done += c.groupCost[j]
			if err := nw.sampleRemoteGroup(ctx, c, la, epoch, first, l, s, prev, prevStart, c.groups[j], c.groups[j+1], growth(total, done), pushed); err != nil {
				return err
			}
		}
	}
	return nil
}

// risingCuts reports whether cuts rise from at least lo to hi, strictly
// or, unless strict, with equal neighbours (empty batches) allowed:
// lo <= cuts[0] <= ... <= cuts[len(cuts)-1] = hi.
func risingCuts(cuts []int, lo, hi int, strict bool) bool {
	if len(cuts) == 0 || cuts[0] < lo || cuts[len(cuts)-1] != hi {
		return false
	}
	for i := 1; i < len(cuts); i++ {
		if cuts[i] < cuts[i-1] || strict && cuts[i] == cuts[i-1] {
			return false
		}
	}
	return true
}

// sampleRemoteGroup samples layer l of minibatches m0..m1-1 of a
// RemoteRows: from the picks their owners selected (pushed, the batch that
// holds them), from rows fetched part by part (c.g.parted), or from rows
// fetched for the batch (as a local group).
func (nw *NodeWise) sampleRemoteGroup(ctx context.Context, c *nwCall, la *LayerArrays, epoch, first, l, s int, prev []int32, prevStart []int, m0, m1 int, growth float64, pushed *pushBatch) error {
	if err := nw.startGroup(ctx, c, prev, prevStart, m0, m1); err != nil {
		return err
	}
	switch {
	case pushed != nil:
		// Passes 1 and 2 ran at the rows' owners, for the whole batch
		// (pushPlace).
		nw.pushedGroup(&c.g, prevStart, m0, m1, pushed)
	case c.g.parted:
		nw.rowParts(c)
		nw.sizeGroup(c, s)
		if err := nw.selectParts(ctx, c, epoch, first, l, s); err != nil {
			return err
		}
	default:
		nw.selectGroup(c, epoch, first, l, s)
	}
	return nw.extractGroup(ctx, c, la, prev, prevStart, m0, m1, growth)
}

// fetchBatch brings in the rows of the groups j0..j1-1 of a pulled layer,
// or, for a batch of one group whose rows PullParts cuts into several
// parts, leaves them to selectParts, which fetches them part by part
// (c.g.parted).
func (nw *NodeWise) fetchBatch(ctx context.Context, c *nwCall, prev []int32, prevStart []int, j0, j1 int) error {
	g, rc := &c.g, c.remote
	verts := nw.expandedVertices(c, prev, prevStart, c.groups[j0], c.groups[j1])
	g.parted = false
	if j1 == j0+1 {
		rc.vdeg = par.Resize(rc.vdeg, len(verts))
		var err error
		if rc.parts, err = nw.remote.PullParts(ctx, verts, rc.vdeg, rc.parts); err != nil {
			return err
		}
		if len(verts) > 0 && !risingCuts(rc.parts, 1, len(verts), true) {
			return fmt.Errorf("sampling: PullParts returned the part ends %v for %d vertices; want 0 < ... < %d", rc.parts, len(verts), len(verts))
		}
		g.parted = len(rc.parts) > 1
	}
	if g.parted {
		return nil
	}
	return nw.remote.FetchRows(ctx, verts)
}

// rowParts sets the degree and part of each row of a group pulled in parts
// (g.parted) from those of its vertex, found through a vertex map of the
// group's distinct vertices (rc.fetch), which the rows read concurrently.
func (nw *NodeWise) rowParts(c *nwCall) {
	g, rc := &c.g, c.remote
	rc.vpart = par.Resize(rc.vpart, len(rc.fetch))
	start := 0
	for q, end := range rc.parts {
		for i := start; i < end; i++ {
			rc.vpart[i] = int32(q)
		}
		start = end
	}
	w := nw.getWorker()
	defer nw.putWorker(w)
	w.ids.reserve(len(rc.fetch))
	w.ids.enter(rc.fetch)
	rows := len(g.verts)
	g.rowDeg, g.rowPart = par.Resize(g.rowDeg, rows), par.Resize(g.rowPart, rows)
	nw.parallel(&c.team, rows, rowGrain, func(_ *nwWorker, _, lo, hi int) {
		i := g.mbAt(lo)
		for r := lo; r < hi; r++ {
			for r >= g.rowStart[i+1] {
				i++
			}
			if r-g.rowStart[i] < int(g.skip[i]) {
				g.rowDeg[r], g.rowPart[r] = 0, 0
				continue
			}
			k := w.ids.get(g.verts[r])
			g.rowDeg[r], g.rowPart[r] = rc.vdeg[k], rc.vpart[k]
		}
	})
	w.reset(rc.fetch)
}

// selectParts is pass 2 of a group pulled in parts: for each part, it
// fetches the part's rows and selects the rows of the group whose vertex
// is in it (selectRows skips the others), then counts the picks.
func (nw *NodeWise) selectParts(ctx context.Context, c *nwCall, epoch, first, l, s int) error {
	g, rc := &c.g, c.remote
	rows := len(g.verts)
	nw.parallel(&c.team, rows, rowGrain, func(_ *nwWorker, ch, lo, hi int) { g.placeRows(ch, lo, hi) })
	start := 0
	for q, end := range rc.parts {
		if err := nw.remote.FetchRows(ctx, rc.fetch[start:end]); err != nil {
			return err
		}
		start = end
		g.part = int32(q)
		if nw.packed != nil {
			g.pk = nw.packed.Packed()
		}
		nw.parallel(&c.team, rows, rowGrain, func(w *nwWorker, _, lo, hi int) {
			if nw.packed != nil {
				for r := lo; r < hi; r++ {
					if g.rowPart[r] == g.part && g.rowDeg[r] > 0 {
						g.lo[r], g.deg[r] = nw.packed.RowSpan(g.verts[r])
					}
				}
			}
			nw.selectRows(w, g, nw.stream, epoch, first, l, s, lo, hi)
		})
	}
	g.parted = false
	nw.parallel(&c.team, rows, rowGrain, func(_ *nwWorker, _, lo, hi int) { g.countEdges(lo, hi) })
	return nil
}

// demand returns what layer l asks of the RemoteRows (PlanLayer).
func (nw *NodeWise) demand(c *nwCall, l, s int, prev []int32, prevStart []int) LayerDemand {
	d := LayerDemand{Layer: l, Fanout: s, Frontier: prev, Start: prevStart, Groups: c.groups}
	if nw.opt.Frontier == FrontierNew {
		d.Skip = c.expanded
	}
	return d
}

// pushRequest sets pb's request to the layer's expanded rows of
// minibatches m0..m1-1 (a push batch of the layer's plan).
func (nw *NodeWise) pushRequest(c *nwCall, pb *pushBatch, epoch, first, l, s int, prev []int32, prevStart []int, m0, m1 int) {
	k := m1 - m0
	// at[m]: where minibatch m0+m's requests start.
	pb.at = par.Resize(pb.at, k+1)
	at := pb.at
	at[0] = 0
	for m := range k {
		at[m+1] = at[m] + int64(prevStart[m0+m+1]-prevStart[m0+m]-int(c.expanded[m0+m]))
	}
	req := &pb.req
	req.Epoch, req.Layer, req.Fanout = epoch, l, s
	req.Vertex, req.Minibatch = par.Resize(req.Vertex, int(at[k])), par.Resize(req.Minibatch, int(at[k]))
	nw.parallel(&c.team, k, 1, func(_ *nwWorker, _, lo, hi int) {
		for m := lo; m < hi; m++ {
			copy(req.Vertex[at[m]:at[m+1]], prev[prevStart[m0+m]+int(c.expanded[m0+m]):prevStart[m0+m+1]])
			mb := req.Minibatch[at[m]:at[m+1]]
			for i := range mb {
				mb[i] = int32(first + m0 + m)
			}
		}
	})
}

// pushPlace checks the answer to pb's request (minibatches m0..m1-1), whose
// owners selected the picks (FetchPicks), and sets pb.off to where each
// stacked row's picks start in pb.req.Picks (rows not expanded have none),
// row prevStart[m0] first.
func (nw *NodeWise) pushPlace(c *nwCall, pb *pushBatch, prevStart []int, m0, m1 int) error {
	k := m1 - m0
	req, at := &pb.req, pb.at
	if len(req.Count) != len(req.Vertex) || (nw.opt.Weighted || nw.opt.Replace) && len(req.Values) != len(req.Picks) {
		return fmt.Errorf("sampling: FetchPicks returned %d counts and %d values for %d rows and %d picks", len(req.Count), len(req.Values), len(req.Vertex), len(req.Picks))
	}
	// Each minibatch's picks, then where they start (in at, reused), then
	// each row's offset, the minibatches in parallel.
	pb.mbPicks = par.Resize(pb.mbPicks, k)
	nw.parallel(&c.team, k, 1, func(_ *nwWorker, _, lo, hi int) {
		for m := lo; m < hi; m++ {
			var n int64
			for _, cnt := range req.Count[at[m]:at[m+1]] {
				n += int64(cnt)
			}
			pb.mbPicks[m] = n
		}
	})
	base := prevStart[m0]
	pb.lo = m0
	pb.off = par.Resize(pb.off, prevStart[m1]-base+1)
	off := pb.off
	off[0] = 0
	var total int64
	for m := range k {
		j := at[m]
		at[m] = total
		total += pb.mbPicks[m]
		pb.mbPicks[m] = j // now where m's counts start
	}
	if total != int64(len(req.Picks)) {
		return fmt.Errorf("sampling: FetchPicks returned %d picks, its counts sum to %d", len(req.Picks), total)
	}
	nw.parallel(&c.team, k, 1, func(_ *nwWorker, _, lo, hi int) {
		for m := lo; m < hi; m++ {
			o, j := at[m], pb.mbPicks[m]
			mlo, mhi := prevStart[m0+m], prevStart[m0+m+1]
			for r := mlo; r < mhi; r++ {
				if r >= mlo+int(c.expanded[m0+m]) {
					o += int64(req.Count[j])
					j++
				}
				off[r-base+1] = o
			}
		}
	})
	return nil
}

// pushedGroup sets the group's counts, offsets and picks (views of
// pb.req's) from the pushed batch pb that holds it, as passes 1 and 2
// would.
func (nw *NodeWise) pushedGroup(g *layerState, prevStart []int, m0, m1 int, pb *pushBatch) {
	rows := len(g.verts)
	p0 := prevStart[pb.lo]
	base := prevStart[m0] - p0
	off := pb.off[base : base+rows+1]
	o0 := off[0]
	g.off = par.Resize(g.off, rows+1)
	g.cnt = par.Resize(g.cnt, rows)
	for r := range rows {
		g.off[r] = off[r] - o0
		g.cnt[r] = int32(off[r+1] - off[r])
	}
	g.off[rows] = off[rows] - o0
	for i := range m1 - m0 {
		g.mbEdges[i] = pb.off[prevStart[m0+i+1]-p0] - pb.off[prevStart[m0+i]-p0]
	}
	g.picks = pb.req.Picks[o0:off[rows]]
	if g.hasVals {
		g.pvals = pb.req.Values[o0:off[rows]]
	}
}

// expandedVertices returns the distinct vertices of minibatches m0..m1-1
// of the layer (frontiers prev, prevStart) whose rows the layer expands
// (in c.remote.fetch, reused).
func (nw *NodeWise) expandedVertices(c *nwCall, prev []int32, prevStart []int, m0, m1 int) []int32 {
	w := nw.getWorker()
	defer nw.putWorker(w)
	out := c.remote.fetch[:0]
	w.ids.reserve(prevStart[m1] - prevStart[m0])
	for m := m0; m < m1; m++ {
		for _, v := range prev[prevStart[m]+int(c.expanded[m]) : prevStart[m+1]] {
			if _, added := w.ids.add(v, 0); added {
				out = append(out, v)
			}
		}
	}
	w.reset(out)
	c.remote.fetch = out
	return out
}
