package sampling

// Distributed sampling (docs/design.md section 4). Rows of A are split in
// p/c blocks over the process rows of a dist.Grid; a rank finds every
// block inside its process column. The samplers are the ordinary NodeWise
// and LayerWise reading A through DistRows: the row exchange of package
// dist (dist.RowExchange: rows pulled by global id, degrees) plus the push
// layer of this file, a dist.RowService with which the owners of rows
// select their picks with RowPicker and send back only those. Which of the
// two a node-wise layer uses is the DistRows' fetch plan (LayerFetch), so
// that pull and push can be chosen per layer; rounds of every kind run in
// the same collective calls, so ranks may mix them.

import (
	"context"
	"errors"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
)

// FetchMode is how a distributed sampler gets the rows it samples.
type FetchMode int

const (
	// FetchPull brings the rows of A to the sampling rank (the paper's
	// 1.5D sparsity-aware product, dist.Mul15D's exchange): deg words per
	// row.
	FetchPull FetchMode = iota
	// FetchPush sends the rows to sample to their owners, which select
	// and return only the picks: about s words per row.
	FetchPush
)

// String returns "pull" or "push".
func (m FetchMode) String() string {
	switch m {
	case FetchPull:
		return "pull"
	case FetchPush:
		return "push"
	}
	return fmt.Sprintf("FetchMode(%d)", int(m))
}

// ParseFetchMode parses "pull" or "push".
func ParseFetchMode(s string) (FetchMode, error) {
	switch s {
	case "pull":
		return FetchPull, nil
	case "push":
		return FetchPush, nil
	}
	return 0, fmt.Errorf("sampling: fetch mode %q, want pull or push", s)
}

// kindPicks is the dist.RowExchange kind of push requests.
const kindPicks = dist.KindUser

// DistRows is the RowSource of a row-distributed adjacency (dist.Matrix):
// local rows are read in place, the others come through a dist.RowExchange
// inside this rank's process column, pulled (RowFetcher, PackedRows) or
// selected by their owners (PickFetcher), as its fetch plan says per layer
// (FetchPlanner); it is a DegreeSource too (NodeWiseOptions.Degrees, for
// GCN). Every rank of the grid must make its DistRows with the same
// options, and call Drain after its own work of a bulk (the distributed
// samplers do). It is used by one goroutine (the sampler's), apart from
// Row, RowSpan and Packed, which may be called concurrently between
// fetches.
type DistRows struct {
	x      *dist.RowExchange
	mode   FetchMode
	picker *RowPicker
}

var (
	_ RowFetcher   = (*DistRows)(nil)
	_ PackedRows   = (*DistRows)(nil)
	_ PickFetcher  = (*DistRows)(nil)
	_ DegreeSource = (*DistRows)(nil)
	_ FetchPlanner = (*DistRows)(nil)
)

// NewDistRows returns the row source over m for a node-wise sampler with
// options opt (Seed, Weighted and Replace are used by the owners to pick),
// which fetches with mode at every layer. m must be square (a graph).
func NewDistRows(m *dist.Matrix, mode FetchMode, opt NodeWiseOptions) (*DistRows, error) {
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("sampling: NewDistRows: nil matrix")
	}
	if mode != FetchPull && mode != FetchPush {
		return nil, fmt.Errorf("sampling: NewDistRows: fetch mode %d", int(mode))
	}
	return newDistRows(m, mode, opt, opt.Weighted)
}

// newDistRows is NewDistRows, pulling values when values is set.
func newDistRows(m *dist.Matrix, mode FetchMode, opt NodeWiseOptions, values bool) (*DistRows, error) {
	if !m.IsSquare() {
		return nil, fmt.Errorf("sampling: rank %d: the graph's block is %d x %d of a %d-vertex graph; want a square adjacency", m.Grid.Rank(), m.Local.Rows, m.Local.Cols, m.Grid.NumVertices())
	}
	x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: values, Phase: dist.PhaseSample})
	if err != nil {
		return nil, err
	}
	d := &DistRows{x: x, mode: mode, picker: NewRowPicker(opt)}
	if err := x.Handle(kindPicks, pickService{d.picker}); err != nil {
		return nil, err
	}
	return d, nil
}

// Mode returns the fetch mode.
func (d *DistRows) Mode() FetchMode { return d.mode }

// LayerFetch returns the fetch mode of node-wise layer l (FetchPlanner):
// the DistRows' mode at every layer.
func (d *DistRows) LayerFetch(l int) FetchMode { return d.mode }

// Exchange returns the row exchange the DistRows reads through.
func (d *DistRows) Exchange() *dist.RowExchange { return d.x }

// NumVertices returns n.
func (d *DistRows) NumVertices() int { return d.x.NumVertices() }

// Row returns row v: a local row, or one fetched by the last FetchRows
// (pull). It panics if v is neither.
func (d *DistRows) Row(v int32) ([]int32, []float32) { return d.x.Row(v) }

// RowSpan returns where row v, local or fetched, lies in Packed's arrays.
func (d *DistRows) RowSpan(v int32) (int64, int32) { return d.x.RowSpan(v) }

// Packed returns the local and fetched rows' arrays (values nil unless
// fetched).
func (d *DistRows) Packed() ([]int32, []float32) { return d.x.Packed() }

// FetchRows brings the rows of vertices (distinct) in: one pull round.
func (d *DistRows) FetchRows(ctx context.Context, vertices []int32) error {
	return d.x.Fetch(ctx, vertices)
}

// Degrees sets deg[i] to the length of row vertices[i] of A (DegreeSource):
// local rows are read in place, the others asked of their owners in one
// round, answered with the lengths alone. It leaves the rows fetched by the
// last FetchRows in place. Every rank of the column must be in SampleBulk
// or Drain meanwhile, as for any round.
func (d *DistRows) Degrees(ctx context.Context, vertices []int32, deg []int32) error {
	return d.x.Degrees(ctx, vertices, deg)
}

// FetchPicks has the owners of req's rows select them (PickFetcher): one
// push round, whose arguments are the request's epoch, layer and fanout
// and each row's minibatch.
func (d *DistRows) FetchPicks(ctx context.Context, req *PickRequest) error {
	res, err := d.x.Call(ctx, kindPicks, [3]int64{int64(req.Epoch), int64(req.Layer), int64(req.Fanout)}, req.Vertex, req.Minibatch)
	if err != nil {
		return err
	}
	req.Count, req.Picks, req.Values = res.Count, res.Items, res.Values
	return nil
}

// Drain serves the other ranks of the column until every one of them has
// finished its own rounds. Call it after this rank's work of a bulk.
func (d *DistRows) Drain(ctx context.Context) error { return d.x.Drain(ctx) }

// pickService is the push layer: the owner of a row selects its picks
// exactly as the sampler would (RowPicker) for the requester's epoch,
// layer, fanout and minibatch.
type pickService struct{ p *RowPicker }

func (s pickService) Serve(args [3]int64, gid, mb int32, cols []int32, vals []float32, picks []int32, pvals []float32) ([]int32, []float32, int) {
	return s.p.Pick(int(args[0]), int(mb), int(args[1]), gid, cols, vals, int(args[2]), picks, pvals)
}

func (s pickService) Values() bool { return s.p.HasValues() }

// DistNodeWise is the node-wise sampler of a row-distributed graph: the
// ordinary NodeWise reading A through a DistRows. SampleBulk is collective
// over the grid: every rank calls it once per bulk with its own run of the
// bulk's minibatches (dist.Grid.Minibatches), possibly none, and gets the
// same sample for them as a single-process NodeWise with the same options.
type DistNodeWise struct {
	nw   *NodeWise
	rows *DistRows
}

var _ Sampler = (*DistNodeWise)(nil)

// NewDistNodeWise returns the distributed node-wise sampler over m.
func NewDistNodeWise(m *dist.Matrix, mode FetchMode, opt NodeWiseOptions) (*DistNodeWise, error) {
	rows, err := NewDistRows(m, mode, opt)
	if err != nil {
		return nil, err
	}
	if opt.Weighted {
		for p, v := range m.Local.Data {
			if !(v >= 0) || v > maxFinite32 {
				return nil, fmt.Errorf("sampling: NewDistNodeWise: Weighted, but edge weight data[%d] = %v of rank %d's block; want finite and >= 0", p, v, m.Grid.Rank())
			}
		}
	}
	// The weights were checked on the local block above: each rank checks
	// its own, and no rank reads the others' rows up front.
	nw, err := newNodeWise(rows, opt)
	if err != nil {
		return nil, err
	}
	return &DistNodeWise{nw: nw, rows: rows}, nil
}

const maxFinite32 = 3.4028234663852886e38

// NumLayers returns the number of fanouts.
func (s *DistNodeWise) NumLayers() int { return s.nw.NumLayers() }

// NumVertices returns the number of vertices of the whole graph.
func (s *DistNodeWise) NumVertices() int { return s.nw.NumVertices() }

// Options returns the sampler's options.
func (s *DistNodeWise) Options() NodeWiseOptions { return s.nw.Options() }

// ProvidesDegrees reports whether the blocks carry the graph's degrees
// (DegreeProvider).
func (s *DistNodeWise) ProvidesDegrees() bool { return s.nw.ProvidesDegrees() }

// Fingerprint returns the options a resumed training run must share
// (Fingerprinter): those of the node-wise sampler.
func (s *DistNodeWise) Fingerprint() Fingerprint { return s.nw.Fingerprint() }

// Comm returns the communicator the sampler calls: the grid's process column.
func (s *DistNodeWise) Comm() dist.Comm { return s.rows.x.Comm() }

// Rows returns the row source the sampler reads through.
func (s *DistNodeWise) Rows() *DistRows { return s.rows }

// SampleBulk samples minibatches first..first+len(seeds)-1 of epoch, this
// rank's share of a bulk, serving the other ranks of its column meanwhile.
func (s *DistNodeWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	b, err := s.nw.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	if err := s.rows.Drain(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// DistLayerWise is the layer-wise sampler (LADIES, FastGCN) of a
// row-distributed graph: the ordinary LayerWise reading A through a pull
// DistRows, which brings in the frontier rows of the rank's minibatches at
// every layer (with their values: LADIES squares them, extraction keeps
// them). FastGCN's column norms 1ᵀ·(A∘A) are computed once at construction
// by passing the partial sums along the blocks of each process column in
// block order (so that they equal the single-process sums bit for bit) and
// broadcasting the result. SampleBulk is collective, as DistNodeWise's.
type DistLayerWise struct {
	lw   *LayerWise
	rows *DistRows
}

var _ Sampler = (*DistLayerWise)(nil)

// blockRows is the RowSource of a rank's own block, in global row ids.
type blockRows struct{ m *dist.Matrix }

func (b blockRows) NumVertices() int { return b.m.Grid.NumVertices() }
func (b blockRows) Row(v int32) ([]int32, []float32) {
	return b.m.Local.Row(int(v - b.m.Lo))
}

// NewDistLayerWise returns the distributed layer-wise sampler over m (with
// Normalize, over the block of D^-1/2 (A+I) D^-1/2 that
// dist.SymNormalizeWithSelfLoops forms). It is collective over m's grid.
func NewDistLayerWise(ctx context.Context, m *dist.Matrix, opt LayerWiseOptions) (*DistLayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("sampling: NewDistLayerWise: nil matrix")
	}
	var err error
	if opt.Normalize {
		if m, err = dist.SymNormalizeWithSelfLoops(ctx, m, opt.Threads); err != nil {
			return nil, err
		}
	}
	rows, err := newDistRows(m, FetchPull, NodeWiseOptions{}, true)
	if err != nil {
		return nil, err
	}
	var fg *spgemm.CSR
	if opt.Method == FastGCN {
		if fg, err = distColumnSquares(ctx, m); err != nil {
			return nil, err
		}
	}
	lw, err := newLayerWiseFrom(rows, opt, fg)
	if err != nil {
		return nil, err
	}
	return &DistLayerWise{lw: lw, rows: rows}, nil
}

// distColumnSquares computes 1ᵀ·(A∘A) over the blocks of this rank's
// process column with dist.Chain: block i adds its rows to the sums of
// blocks 0..i-1 and passes them on; the last block broadcasts the result.
func distColumnSquares(ctx context.Context, m *dist.Matrix) (*spgemm.CSR, error) {
	n := m.Grid.NumVertices()
	acc := make([]float32, n)
	mark := make([]byte, n) // touched columns, as bytes on the wire
	err := dist.Chain(ctx, m.Grid.Col(), dist.PhaseSample, []any{acc, mark}, func() error {
		touched := make([]bool, n)
		for i, b := range mark {
			touched[i] = b != 0
		}
		AddColumnSquares(blockRows{m}, int(m.Lo), int(m.Hi), acc, touched)
		for i, t := range touched {
			if t {
				mark[i] = 1
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	touched := make([]bool, n)
	for i, b := range mark {
		touched[i] = b != 0
	}
	return ColumnSquaresRow(acc, touched), nil
}

// NumLayers returns the number of layers.
func (s *DistLayerWise) NumLayers() int { return s.lw.NumLayers() }

// NumVertices returns the number of vertices of the whole graph.
func (s *DistLayerWise) NumVertices() int { return s.lw.NumVertices() }

// Options returns the sampler's options.
func (s *DistLayerWise) Options() LayerWiseOptions { return s.lw.Options() }

// Fingerprint returns the options a resumed training run must share
// (Fingerprinter): those of the layer-wise sampler.
func (s *DistLayerWise) Fingerprint() Fingerprint { return s.lw.Fingerprint() }

// Comm returns the communicator the sampler calls: the grid's process column.
func (s *DistLayerWise) Comm() dist.Comm { return s.rows.x.Comm() }

// SampleBulk samples this rank's minibatches first..first+len(seeds)-1 of
// epoch, serving the other ranks of its column meanwhile.
func (s *DistLayerWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	b, err := s.lw.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	if err := s.rows.Drain(ctx); err != nil {
		return nil, err
	}
	return b, nil
}
