package sampling

import (
	"context"
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

// Packed returns A.Indices and A.Data.
func (c CSRRows) Packed() ([]int32, []float32) { return c.A.Indices, c.A.Data }

// PackedRows is an optional capability of a RowSource whose rows lie in
// shared packed arrays, as a CSR's do: row v is
// indices[start:start+deg] (and values alike) for start, deg = RowSpan(v).
// The node-wise sampler's uniform kernel then draws every row's positions
// from the degrees alone and gathers the column ids afterwards, in a loop of
// independent loads. A local CSR (CSRRows) and the rows a distributed
// source has fetched (sampling.DistRows) both provide it.
type PackedRows interface {
	RowSource
	// RowSpan returns where row v starts in the packed arrays and its
	// length. For a RowFetcher, only rows fetched by the last FetchRows.
	RowSpan(v int32) (start int64, deg int32)
	// Packed returns the packed arrays; values may be nil when the
	// sampler does not read them (unweighted). A RowFetcher's arrays may
	// change with each FetchRows: the sampler calls Packed after it.
	Packed() (indices []int32, values []float32)
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
// of the node-wise sampler, whether it pulls the layer's rows (FetchRows)
// or has their owners select the picks (FetchPicks). A PickFetcher without
// it is pushed to at every layer.
type FetchPlanner interface {
	LayerFetch(layer int) FetchMode
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
