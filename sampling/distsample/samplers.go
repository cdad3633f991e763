package distsample

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// DistNodeWise is the node-wise sampler of a row-distributed graph: the
// ordinary sampling.NodeWise reading A through a DistRows. SampleBulk is
// collective over the grid: every rank calls it once per bulk with its own
// run of the bulk's minibatches (dist.Grid.Minibatches), possibly none, and
// gets the same sample for them as a single-process sampling.NodeWise with
// the same options.
type DistNodeWise struct {
	nw    *sampling.NodeWise
	rows  *DistRows
	clock distClock
}

var _ sampling.Sampler = (*DistNodeWise)(nil)

// NewDistNodeWise returns the distributed node-wise sampler over m.
func NewDistNodeWise(m *dist.Matrix, mode FetchMode, opt sampling.NodeWiseOptions) (*DistNodeWise, error) {
	rows, err := NewDistRows(m, mode, opt)
	if err != nil {
		return nil, err
	}
	if opt.Weighted {
		for p, v := range m.Local.Data {
			if !(v >= 0) || v > maxFinite32 {
				return nil, fmt.Errorf("distsample: NewDistNodeWise: Weighted, but edge weight data[%d] = %v of rank %d's block; want finite and >= 0", p, v, m.Grid.Rank())
			}
		}
	}
	// The weights were checked on the local block above: each rank checks
	// its own, and no rank reads the others' rows up front (nor does
	// NewNodeWiseFrom, from a RemoteRows).
	nw, err := sampling.NewNodeWiseFrom(rows, opt)
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
func (s *DistNodeWise) Options() sampling.NodeWiseOptions { return s.nw.Options() }

// ProvidesDegrees reports whether the blocks carry the graph's degrees
// (sampling.DegreeProvider).
func (s *DistNodeWise) ProvidesDegrees() bool { return s.nw.ProvidesDegrees() }

// Fingerprint returns the options a resumed training run must share
// (sampling.Fingerprinter): those of the node-wise sampler.
func (s *DistNodeWise) Fingerprint() sampling.Fingerprint { return s.nw.Fingerprint() }

// Comm returns the communicator the sampler calls: the grid's process column.
func (s *DistNodeWise) Comm() dist.Comm { return s.rows.x.Comm() }

// Rows returns the row source the sampler reads through.
func (s *DistNodeWise) Rows() *DistRows { return s.rows }

// SampleBulk samples minibatches first..first+len(seeds)-1 of epoch, this
// rank's share of a bulk, serving the other ranks of its column meanwhile.
func (s *DistNodeWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	defer s.clock.start()()
	b, err := s.nw.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	if err := s.rows.Drain(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// Stats returns this rank's figures so far.
func (s *DistNodeWise) Stats() DistStats { return s.clock.stats(s.rows) }

// Stats returns this rank's figures so far.
func (s *DistLayerWise) Stats() DistStats { return s.clock.stats(s.rows) }

// DistStats are a rank's figures of its distributed sampler: the bulks it
// sampled and its wall time in SampleBulk (the rounds of its row exchange
// and the Drain after its own work included), and its DistRows' figures.
type DistStats struct {
	Bulks int64
	Wall  time.Duration
	DistRowsStats
}

// Work returns the time the rank spent on its own sampling: its time in
// SampleBulk less the time in its row exchange's rounds (their waits,
// transfers and serving, Drain's included) that it did not overlap with
// its sampling (OverlapStats.Hidden).
func (s DistStats) Work() time.Duration {
	t := s.Exchange.Total()
	return s.Wall - (t.Wait + t.Transfer + t.Serve - s.Overlap.Hidden())
}

// distClock counts a distributed sampler's bulks and times them.
type distClock struct {
	bulks   int64
	seconds time.Duration
}

// start counts a bulk and returns the function that ends its timing.
func (c *distClock) start() func() {
	t := time.Now()
	c.bulks++
	return func() { c.seconds += time.Since(t) }
}

func (c *distClock) stats(rows *DistRows) DistStats {
	return DistStats{Bulks: c.bulks, Wall: c.seconds, DistRowsStats: rows.Stats()}
}

// DistLayerWise is the layer-wise sampler (LADIES, FastGCN) of a
// row-distributed graph: the ordinary sampling.LayerWise reading A through
// a pull DistRows, which brings in the frontier rows of the rank's
// minibatches at every layer (with their values: LADIES squares them,
// extraction keeps them). FastGCN's column norms 1ᵀ·(A∘A) are computed once
// at construction by passing the partial sums along the blocks of each
// process column in block order (so that they equal the single-process sums
// bit for bit) and broadcasting the result. SampleBulk is collective, as
// DistNodeWise's.
type DistLayerWise struct {
	lw    *sampling.LayerWise
	rows  *DistRows
	clock distClock
	// normalize is LayerWiseOptions.Normalize: the rows (and lw's) are
	// those of the normalised matrix.
	normalize bool
}

var _ sampling.Sampler = (*DistLayerWise)(nil)

// blockRows is the sampling.RowSource of a rank's own block, in global row
// ids.
type blockRows struct{ m *dist.Matrix }

func (b blockRows) NumVertices() int { return b.m.Grid.NumVertices() }
func (b blockRows) Row(v int32) ([]int32, []float32) {
	return b.m.Local.Row(int(v - b.m.Lo))
}

// NewDistLayerWise returns the distributed layer-wise sampler over m (with
// Normalize, over the block of D^-1/2 (A+I) D^-1/2 that
// dist.SymNormalizeWithSelfLoops forms). It is collective over m's grid.
func NewDistLayerWise(ctx context.Context, m *dist.Matrix, opt sampling.LayerWiseOptions) (*DistLayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("distsample: NewDistLayerWise: nil matrix")
	}
	var err error
	if opt.Normalize {
		if m, err = dist.SymNormalizeWithSelfLoops(ctx, m, opt.Threads); err != nil {
			return nil, err
		}
	}
	rows, err := newDistRows(m, FetchPull, sampling.NodeWiseOptions{}, true)
	if err != nil {
		return nil, err
	}
	var fg *spgemm.CSR
	if opt.Method == sampling.FastGCN {
		if fg, err = distColumnSquares(ctx, m); err != nil {
			return nil, err
		}
	}
	// The rows are normalised already: the local sampler reads them as
	// given, and the options say what they are (Options, Fingerprint).
	local := opt
	local.Normalize = false
	lw, err := sampling.NewLayerWiseFrom(rows, local, fg)
	if err != nil {
		return nil, err
	}
	return &DistLayerWise{lw: lw, rows: rows, normalize: opt.Normalize}, nil
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
		sampling.AddColumnSquares(blockRows{m}, int(m.Lo), int(m.Hi), acc, touched)
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
	return sampling.ColumnSquaresRow(acc, touched), nil
}

// NumLayers returns the number of layers.
func (s *DistLayerWise) NumLayers() int { return s.lw.NumLayers() }

// Matrix returns the distributed matrix the sampler reads: the one it was
// given or, with sampling.LayerWiseOptions.Normalize, its normalised copy
// (D^-1/2 (A+I) D^-1/2, with values), which the rank holds besides.
func (s *DistLayerWise) Matrix() *dist.Matrix { return s.rows.x.Matrix() }

// NumVertices returns the number of vertices of the whole graph.
func (s *DistLayerWise) NumVertices() int { return s.lw.NumVertices() }

// Options returns the sampler's options.
func (s *DistLayerWise) Options() sampling.LayerWiseOptions {
	o := s.lw.Options()
	o.Normalize = s.normalize
	return o
}

// Fingerprint returns the options a resumed training run must share
// (sampling.Fingerprinter): those of the layer-wise sampler
// (sampling.LayerWiseOptions.Fingerprint).
func (s *DistLayerWise) Fingerprint() sampling.Fingerprint { return s.Options().Fingerprint() }

// Comm returns the communicator the sampler calls: the grid's process column.
func (s *DistLayerWise) Comm() dist.Comm { return s.rows.x.Comm() }

// SampleBulk samples this rank's minibatches first..first+len(seeds)-1 of
// epoch, serving the other ranks of its column meanwhile.
func (s *DistLayerWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	defer s.clock.start()()
	b, err := s.lw.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	if err := s.rows.Drain(ctx); err != nil {
		return nil, err
	}
	return b, nil
}
