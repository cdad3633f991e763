package sampling

import (
	"context"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// RemoteRows is the one seam through which a RowSource serves rows of A
// that live in other processes (docs/design.md section 4): rows pulled
// from their owners, or picks the owners select (push sampling) and send
// back. Package distsample's DistRows, over a row-distributed graph, is
// the implementation; a local source is not one, and the samplers take
// their remote paths (the node-wise kernel's are nodewise_remote.go) only
// for a RemoteRows.
//
// A sampler reads a row of a RemoteRows (Row; RowSpan and Packed when it
// is also PackedRows) only between the FetchRows that brought it in and
// the next call of the source that brings rows in, and may then read rows
// from several goroutines at once; every other method is called from the
// sampler's goroutine, in this order:
//
// Node-wise (NodeWise), for each layer of a bulk:
//
//  1. PlanLayer, once, with what the layer asks (LayerDemand): whether it
//     is pulled or pushed, and its batches of groups of minibatches.
//  2. For each batch, in order, if the layer is pulled: for a batch of one
//     group, PullParts with the group's distinct expanded vertices; then
//     FetchRows once with them all, or, when PullParts cut them into
//     several parts, once per part, the group's rows of a part selected
//     before the next part is fetched.
//  3. If the layer is pushed: FetchPicks with each batch's rows, or, when
//     the plan overlaps and the layer has several batches, StartPicks of
//     batch b+1 while batch b is extracted (one in flight at most; the
//     sampler calls its wait before it calls the source again, and also
//     when the layer ends in an error).
//
// After the last layer, with NodeWiseOptions.Degrees, DegreeSource's
// Degrees once (a RemoteRows must be a DegreeSource for that option).
//
// Layer-wise (LayerWise), for each layer of a bulk: FetchRows once with the
// distinct frontier vertices of the bulk's minibatches.
//
// An error from any method ends the sampling of the bulk. The calls that
// bring rows or picks in depend only on the bulk, the options and what
// the source returns, never on the sampler's thread count; in a
// distributed run they are the source's rounds with the ranks that serve
// each other, whose matching is the source's to arrange (DistRows' rounds
// of every kind run in the same collective calls, and its Drain serves
// the ranks still sampling).
type RemoteRows interface {
	RowSource
	// FetchRows brings in the rows of vertices (distinct), replacing
	// those the last FetchRows brought in.
	FetchRows(ctx context.Context, vertices []int32) error
	// PlanLayer returns how a node-wise layer reads its rows: pulled or
	// pushed, in which batches (appended to batches[:0]), and whether a
	// pushed layer's batches may overlap (StartPicks).
	PlanLayer(d LayerDemand, batches []int) LayerPlan
	// PullParts cuts vertices, the distinct rows of a pulled batch of one
	// group, whose rows may exceed what one FetchRows should bring in,
	// into consecutive parts, appending each part's end to parts[:0]; a
	// part of one vertex may exceed the budget. When it returns more than
	// one part it sets deg (len(vertices)) to the rows' lengths, since the
	// sampler sizes its selection from them before any part is fetched;
	// with one part deg may be left unset. The sample is the same either
	// way: parts bound the rows held (and sent by their owners) at once.
	PullParts(ctx context.Context, vertices, deg []int32, parts []int) ([]int, error)
	// FetchPicks has the owners of req's rows select their picks, exactly
	// as the sampler would (RowPicker), and fills req's answer.
	FetchPicks(ctx context.Context, req *PickRequest) error
	// StartPicks starts FetchPicks(ctx, req) on a goroutine of the
	// source's and returns the function that waits for it and returns its
	// error. Until that function returns, the caller touches neither req
	// nor the source; the picks land in req's own arrays, so that those of
	// another request stay valid meanwhile.
	StartPicks(ctx context.Context, req *PickRequest) (wait func() error)
}

// LayerDemand is what one node-wise layer of a bulk asks of a RemoteRows
// (PlanLayer): the rows it expands and how a pull would group them. Its
// slices are the sampler's, read-only and valid during the call.
type LayerDemand struct {
	Layer, Fanout int
	// Frontier holds the minibatches' frontiers back to back: minibatch
	// i's is Frontier[Start[i]:Start[i+1]], of which the first Skip[i]
	// rows are not expanded at this layer (FrontierNew; Skip is nil when
	// every row is expanded).
	Frontier []int32
	Start    []int
	Skip     []int32
	// Groups cut the minibatches into the groups whose distinct rows a
	// pull fetches together: group j is minibatches Groups[j] to
	// Groups[j+1]-1.
	Groups []int
}

// PickBound returns the most picks a row of deg entries yields at the
// layer, for every law: the sampler's bound of the row's selection.
func (d *LayerDemand) PickBound(deg int) int { return selectBound(deg, d.Fanout) }

// LayerPlan is how a node-wise layer reads its rows (RemoteRows.PlanLayer).
type LayerPlan struct {
	// Push has the owners of the rows select the picks (FetchPicks);
	// otherwise the rows are pulled (FetchRows).
	Push bool
	// Overlap, for a pushed layer, lets the sampler ask for the next
	// batch's picks (StartPicks) while it extracts the current batch's.
	Overlap bool
	// Batches cut the layer's groups (LayerDemand.Groups) into the
	// batches brought in together: batch j is groups Batches[j] to
	// Batches[j+1]-1, Batches[0] = 0 and the last boundary
	// len(Groups)-1. A pulled batch's distinct rows come in one FetchRows
	// (or in PullParts' parts); a pushed batch's picks in one FetchPicks.
	Batches []int
}

// PickRequest is one layer's rows of a batch of minibatches, to be
// selected by their owners (RemoteRows.FetchPicks).
type PickRequest struct {
	Epoch, Layer, Fanout int
	Vertex               []int32 // the row's vertex
	Minibatch            []int32 // its global minibatch index
	// Filled by FetchPicks: the number of picks of each row, the picks'
	// global ids (rows back to back, each in RowPicker's order) and, when
	// the sampler is weighted or samples with replacement, their values.
	// They may be the fetcher's arrays, valid until its next FetchPicks.
	Count  []int32
	Picks  []int32
	Values []float32
}

// RowPicker selects the picks of single rows exactly as the node-wise
// sampler with the same options does; owners use it to serve
// RemoteRows.FetchPicks requests. It is not safe for concurrent use.
type RowPicker struct {
	stream Stream
	opt    SelectOptions
	sel    rowSelector
	starts []int64 // PickRows: where each row starts in the block
}

// NewRowPicker returns the picker of a node-wise sampler with options opt
// (only Seed, Weighted and Replace matter).
func NewRowPicker(opt NodeWiseOptions) *RowPicker {
	return &RowPicker{stream: NewStream(opt.Seed), opt: SelectOptions{Weighted: opt.Weighted, Replace: opt.Replace}}
}

// HasValues reports whether picks carry values (weighted or with
// replacement); otherwise every value is 1.
func (p *RowPicker) HasValues() bool { return p.opt.Weighted || p.opt.Replace }

// Pick appends the picks of row (cols, vals) of vertex v in minibatch mb,
// layer, epoch with fanout s to picks and, when HasValues, their values to
// pvals, and returns both and the number of picks.
func (p *RowPicker) Pick(epoch, mb, layer int, v int32, cols []int32, vals []float32, s int, picks []int32, pvals []float32) ([]int32, []float32, int) {
	n0 := len(picks)
	bound := selectBound(len(cols), s)
	picks = slices.Grow(picks, bound)[:n0+bound]
	var pv []float32
	if p.HasValues() {
		m0 := len(pvals)
		pvals = slices.Grow(pvals, bound)[:m0+bound]
		pv = pvals[m0:]
	}
	n := p.sel.pick(p.stream.Row(epoch, mb, layer, v), cols, vals, s, p.opt, picks[n0:], pv)
	if p.HasValues() {
		pvals = pvals[:len(pvals)-bound+n]
	}
	return picks[:n0+n], pvals, n
}

// PickRows appends the picks of rows gids[i] of a block (row gid - lo of
// a), each for minibatch mbs[i], layer, epoch and fanout s, to picks (and,
// when HasValues, their values to pvals), row after row, sets counts[i] to
// row i's number of picks, and returns both slices: what Pick returns row
// by row. Unweighted, it draws every row's positions from the lengths
// first and gathers the column ids after, so that the loads of many rows
// are in flight at once (the sampler's uniform kernel, selectRowsUniform).
// It panics if a gid is outside the block.
func (p *RowPicker) PickRows(epoch, layer, s int, a *spgemm.CSR, lo int32, gids, mbs []int32, counts []int32, picks []int32, pvals []float32) ([]int32, []float32) {
	if p.opt.Weighted {
		for i, v := range gids {
			cols, vals := a.Row(int(v - lo))
			var n int
			picks, pvals, n = p.Pick(epoch, int(mbs[i]), layer, v, cols, vals, s, picks, pvals)
			counts[i] = int32(n)
		}
		return picks, pvals
	}
	n0 := len(picks)
	// The rows' starts and lengths first, in a loop of independent loads;
	// the lengths wait in counts until the positions replace them.
	p.starts = slices.Grow(p.starts[:0], len(gids))[:len(gids)]
	for i, v := range gids {
		r := v - lo
		p.starts[i] = a.Indptr[r]
		counts[i] = int32(a.Indptr[r+1] - p.starts[i])
	}
	bound := 0
	for _, deg := range counts {
		bound += selectBound(int(deg), s)
	}
	picks = slices.Grow(picks, bound)
	if p.opt.Replace {
		pvals = slices.Grow(pvals, bound)
	}
	var lk layerKey
	mb := int32(-1)
	for i, v := range gids {
		deg := int(counts[i])
		counts[i] = 0
		if deg == 0 || s == 0 {
			continue
		}
		if mbs[i] != mb {
			mb = mbs[i]
			lk = p.stream.layer(epoch, int(mb), layer)
		}
		pos, mult := p.sel.uniform(lk.row(v), deg, s, p.opt.Replace)
		picks = append(picks, pos...)
		if p.opt.Replace {
			for j := range pos {
				pvals = append(pvals, pickValue(1, mult, j))
			}
		}
		counts[i] = int32(len(pos))
	}
	k := n0
	for i, c := range counts {
		row := a.Indices[p.starts[i]:]
		for j := range picks[k : k+int(c)] {
			picks[k+j] = row[picks[k+j]]
		}
		k += int(c)
	}
	return picks, pvals
}
