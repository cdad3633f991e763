package sampling

import (
	"context"
	"math"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// RowSource supplies the adjacency rows that the node-wise product
// P = Q·A gathers (docs/design.md 3.1 step 2). A local graph is a CSRRows; the
// distributed sampler supplies rows fetched from the ranks that own them
// (docs/design.md section 4) through the same interface, so it reuses the
// sampling code unchanged.
//
// Row must be safe for concurrent use. The rows it returns are read, never
// modified, and must keep the CSR invariant: column ids sorted ascending and
// unique, in [0, NumVertices()).
type RowSource interface {
	// NumVertices returns n: A is n x n.
	NumVertices() int
	// Row returns the column ids and values of row v, 0 <= v < n.
	Row(v int32) (cols []int32, vals []float32)
}

// RowFetcher is implemented by a RowSource whose rows must be brought in
// (from other ranks) before they can be read. The node-wise sampler calls
// FetchRows once per layer and group of minibatches with the distinct
// vertices whose rows that group reads at that layer, and reads none of
// them before it returns. An error ends the sampling of the bulk.
type RowFetcher interface {
	FetchRows(ctx context.Context, vertices []int32) error
}

// DegreeSource is implemented by a RowSource that can report the degree of
// any vertex: the length of its row of A (its number of entries, whatever
// their values). NodeWise needs it when NodeWiseOptions.Degrees is set, to
// attach to every block the degrees of its source vertices (Block.Deg),
// which GCN normalises with; NewNodeWiseFrom refuses a source without it
// then. A CSRRows is one.
//
// NodeWise calls Degrees once per SampleBulk, after every row the bulk reads
// has been read, from one goroutine, with the distinct input vertices of
// the bulk's minibatches (the sources of their last blocks, each in
// [0, NumVertices())), in no particular order; most of them are vertices
// whose rows the sampler has not read (the last layer's new sources). A
// distributed source asks the ranks that own them (an all-to-all of the ids
// and of the lengths back, inside the process column); it must not assume
// that their rows were fetched. An error ends the sampling of the bulk.
type DegreeSource interface {
	// Degrees sets deg[i] to the length of row vertices[i] of A for every
	// i; len(deg) == len(vertices).
	Degrees(ctx context.Context, vertices []int32, deg []int32) error
}

// CSRRows is the RowSource of a local adjacency matrix held in memory. It
// is also PackedRows and a DegreeSource.
type CSRRows struct {
	A *spgemm.CSR
}

// NumVertices returns A.Rows.
func (c CSRRows) NumVertices() int { return c.A.Rows }

// Row returns views of row v of A. It panics with an spgemm.IndexError if v
// is out of range.
func (c CSRRows) Row(v int32) ([]int32, []float32) { return c.A.Row(int(v)) }

// Degrees sets deg[i] to the length of row vertices[i] of A. It panics with
// an spgemm.IndexError if a vertex is out of range.
func (c CSRRows) Degrees(_ context.Context, vertices []int32, deg []int32) error {
	if len(deg) != len(vertices) {
		panic(spgemm.ShapeError{Op: "CSRRows.Degrees", ARows: len(vertices), ACols: 1, BRows: len(deg), BCols: 1})
	}
	for i, v := range vertices {
		if uint32(v) >= uint32(c.A.Rows) {
			panic(spgemm.IndexError{Op: "CSRRows.Degrees", Index: int(v), Len: c.A.Rows})
		}
		deg[i] = int32(c.A.Indptr[v+1] - c.A.Indptr[v])
	}
	return nil
}

// RowSpan returns where row v starts in A.Indices and its degree.
func (c CSRRows) RowSpan(v int32) (int64, int32) {
	return c.A.Indptr[v], int32(c.A.Indptr[v+1] - c.A.Indptr[v])
}

// Packed returns A.Indices and A.Data, all rows in one pair of arrays.
func (c CSRRows) Packed() PackedArrays {
	return PackedArrays{Ind: c.A.Indices, Val: c.A.Data, Base: math.MaxInt64}
}

// PackedRows is an optional capability of a RowSource whose rows lie in
// shared packed arrays, as a CSR's do: row v is the span of RowSpan(v) in
// the arrays of Packed. The node-wise sampler's uniform kernel then draws
// every row's positions from the degrees alone and gathers the column ids
// afterwards, in a loop of independent loads. A local CSR (CSRRows) and
// the rows a distributed source holds and has fetched (sampling.DistRows)
// both provide it.
type PackedRows interface {
	RowSource
	// RowSpan returns where row v starts in the packed arrays and its
	// length. For a RowFetcher, only rows local or fetched by the last
	// FetchRows.
	RowSpan(v int32) (start int64, deg int32)
	// Packed returns the packed arrays; values may be nil when the
	// sampler does not read them (unweighted). A RowFetcher's arrays may
	// change with each FetchRows: the sampler calls Packed after it.
	Packed() PackedArrays
}

// PackedArrays are the arrays of a PackedRows: a span (start, deg) of
// RowSpan lies in Ind and Val at start when start < Base, and in FarInd
// and FarVal at start - Base otherwise (a distributed source's own block
// and the rows it fetched, kept apart so that the block is read in place
// rather than copied). Val and FarVal are nil when the source does not
// supply values.
type PackedArrays struct {
	Ind    []int32
	Val    []float32
	Base   int64
	FarInd []int32
	FarVal []float32
}

// Row returns the column ids and values (nil when the arrays have none) of
// the span (start, deg).
func (p *PackedArrays) Row(start int64, deg int32) ([]int32, []float32) {
	ind, val := p.Ind, p.Val
	if start >= p.Base {
		ind, val, start = p.FarInd, p.FarVal, start-p.Base
	}
	end := start + int64(deg)
	if val == nil {
		return ind[start:end], nil
	}
	return ind[start:end], val[start:end]
}

// Cols returns the column ids of the span (start, deg).
func (p *PackedArrays) Cols(start int64, deg int32) []int32 {
	if start >= p.Base {
		return p.FarInd[start-p.Base : start-p.Base+int64(deg)]
	}
	return p.Ind[start : start+int64(deg)]
}

// PickFetcher is an optional capability of a RowSource whose rows are
// selected by the ranks that own them (push sampling, docs/design.md section 4):
// the node-wise sampler then sends the rows to sample and receives only the
// picks, instead of reading the rows. The owners must select exactly as the
// sampler would, with a RowPicker, so that the sample does not change.
type PickFetcher interface {
	FetchPicks(ctx context.Context, req *PickRequest) error
}

// FetchPlanner is an optional capability of a RowSource that is both a
// RowFetcher and a PickFetcher (DistRows): LayerFetch says, for each layer
// of each bulk of the node-wise sampler, whether it pulls the layer's rows
// (FetchRows, once per group of minibatches) or has their owners select
// the picks (FetchPicks, once for the layer). A PickFetcher without it is
// pushed to at every layer.
type FetchPlanner interface {
	LayerFetch(d LayerDemand) FetchMode
}

// FetchBatcher is an optional capability of a RowFetcher: PullBatches cuts
// the groups of a pulled layer (d.Groups) into the batches whose distinct
// rows one FetchRows brings in together, appending their boundaries to
// dst[:0] as group indices (batch j is groups b[j] to b[j+1]-1, b[0] = 0,
// the last boundary len(d.Groups)-1). Fewer, larger batches fetch a row
// that several groups read once rather than once per group, at the cost
// of holding more fetched rows at a time. Without it each group is a
// batch of its own.
type FetchBatcher interface {
	PullBatches(d LayerDemand, dst []int) []int
}

// PartFetcher is an optional capability of a FetchBatcher: PullParts
// cuts the distinct vertices of a batch of one group, whose rows may
// exceed the pull budget, into consecutive parts whose rows one FetchRows
// brings in within it, from the rows' lengths, which it writes into deg
// (len(vertices); asked of their owners in one round, fetching nothing),
// and appends each part's end to dst[:0]; a part of one vertex may exceed
// the budget. The node-wise sampler then selects the group's rows part by
// part, fetching each part when the last is done, so that no more than a
// part's rows are held at once (and sent by their owners at once); the
// sample is the same. Without it a group's rows are fetched together.
type PartFetcher interface {
	PullParts(ctx context.Context, vertices, deg []int32, dst []int) ([]int, error)
}

// PickBatcher is an optional capability of a PickFetcher: PushBatches cuts
// the groups of a pushed layer (d.Groups) into the batches whose picks one
// FetchPicks brings in, appending their boundaries to dst[:0] as
// FetchBatcher's PullBatches does. Smaller batches bound the memory of a
// round (its requests, the answers the owners hold and send, the picks
// received) at the cost of more rounds; the sample is the same. Without it
// a pushed layer is one batch.
type PickBatcher interface {
	PushBatches(d LayerDemand, dst []int) []int
}

// LayerDemand is what one layer of a bulk asks of a FetchPlanner: the
// rows it expands and how a pull would group them. Its slices are the
// sampler's, read-only and valid during the call.
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

// PickRequest is one layer's rows of a group of minibatches, to be
// selected by their owners (PickFetcher).
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
// sampler with the same options does; owners use it to serve PickFetcher
// requests. It is not safe for concurrent use.
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
