package sampling

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/spgemm"
)

// Layout is how the ranks of a distributed run hold the graph.
type Layout int

const (
	// Split: each rank holds the rows of its vertex block (the 1.5D
	// layout of dist.Grid: p/c blocks, each on the c ranks of a process
	// row), and the rows of other blocks come from their owners in the
	// rank's process column (DistRows).
	Split Layout = iota
	// Replicated: every rank holds the whole graph and samples its
	// minibatches without communication.
	Replicated
)

// String returns "split" or "replicated".
func (l Layout) String() string {
	switch l {
	case Split:
		return "split"
	case Replicated:
		return "replicated"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// DistSamplerOptions configure NewDistSampler: the sampler's options, as
// NewSampler takes them, and how the graph is distributed. The zero value
// of each field means its documented default.
type DistSamplerOptions struct {
	SamplerOptions
	// Layout is how the ranks hold the graph; default Split.
	Layout Layout
	// Fetch is how a Split node-wise sampler gets the rows it samples:
	// FetchAuto, the default (pull or push per layer, by the byte
	// model), FetchPull or FetchPush. The layer-wise methods pull the
	// frontier rows (FetchPush is an error with them, FetchAuto pulls); a
	// Replicated graph is sampled without communication, whatever Fetch
	// says.
	Fetch FetchMode
}

// Validate returns an error naming the field of o that is invalid or that
// does not apply to its method or layout.
func (o *DistSamplerOptions) Validate() error {
	if err := o.SamplerOptions.Validate(); err != nil {
		return err
	}
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("sampling", "DistSamplerOptions", field, value, format, args...)
	}
	switch {
	case o.Layout != Split && o.Layout != Replicated:
		return bad("Layout", int(o.Layout), "want Split or Replicated")
	case o.Fetch != FetchAuto && o.Fetch != FetchPull && o.Fetch != FetchPush:
		return bad("Fetch", int(o.Fetch), "want FetchAuto, FetchPull or FetchPush")
	case o.Fetch == FetchPush && !o.isNode():
		return option.With(bad("Fetch", o.Fetch, "applies to method %s (the layer-wise samplers pull the frontier rows), not %s", MethodNode, o.Method), "Method")
	}
	return nil
}

// EffectiveFetch returns how the sampler of o reads the rows of other
// ranks: Fetch, or FetchPull for a layer-wise method with FetchAuto (it
// has no other way).
func (o *DistSamplerOptions) EffectiveFetch() FetchMode {
	if o.Fetch == FetchAuto && !o.isNode() {
		return FetchPull
	}
	return o.Fetch
}

// NewDistSampler returns this rank's sampler of a graph distributed over
// the grid g, the distributed counterpart of NewSampler: every method, on
// either layout, pulling or pushing. a is the graph as this rank holds it:
// its block of rows (Split: the rows g.MyRows() of the n x n adjacency,
// with global column ids, as dataset.LoadRowBlock reads them) or the whole
// adjacency (Replicated).
//
// Each rank samples its run of every bulk (g.Minibatches) and gets, for
// those minibatches, the samples of NewSampler on the whole graph with the
// same options, bit for bit. On a Split graph the sampler is a
// DistNodeWise or DistLayerWise and SampleBulk is collective on the
// process column (every rank calls it once per bulk, with a run that may
// be empty); the constructor is collective too (LADIES' normalised matrix
// and FastGCN's column norms are summed along the blocks). On a Replicated
// graph it is the single-process sampler and needs no communication. It
// returns an error naming the invalid field, or a block that is not this
// rank's.
func NewDistSampler(ctx context.Context, g *dist.Grid, a *spgemm.CSR, opt DistSamplerOptions) (Sampler, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if g == nil || a == nil {
		return nil, fmt.Errorf("sampling: NewDistSampler: nil grid or graph")
	}
	if opt.Layout == Replicated {
		if a.Rows != g.NumVertices() {
			return nil, fmt.Errorf("sampling: NewDistSampler on rank %d: a replicated graph of %d vertices on a grid of %d", g.Rank(), a.Rows, g.NumVertices())
		}
		return NewSampler(a, opt.SamplerOptions)
	}
	m, err := dist.NewMatrix(g, a)
	if err != nil {
		return nil, fmt.Errorf("sampling: NewDistSampler: %w", err)
	}
	if opt.isNode() {
		s, err := NewDistNodeWise(m, opt.Fetch, opt.NodeWiseOptions())
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	s, err := NewDistLayerWise(ctx, m, opt.LayerWiseOptions())
	if err != nil {
		return nil, err
	}
	return s, nil
}

// GatherDigest adds to d, on rank 0 of c, every rank's minibatches of a
// bulk in rank order (each rank passes its part b, possibly empty): the
// minibatches' global order when the ranks sample contiguous runs
// (dist.Grid.Minibatches), so that d ends with the single process's
// digest. Ranks other than 0 pass a nil d. It is collective on c.
func GatherDigest(ctx context.Context, c dist.Comm, d *Digest, b *Bulk) error {
	return GatherEncoded(ctx, c, d, AppendBulkEncoding(nil, b))
}

// GatherEncoded sends every rank's encoded part (AppendBulkEncoding,
// AppendRowsEncoding; possibly empty) to rank 0 of c, which adds them to d
// in rank order. Ranks other than 0 pass a nil d. It is collective on c.
func GatherEncoded(ctx context.Context, c dist.Comm, d *Digest, enc []byte) error {
	const tag = 1
	if c.Rank() != 0 {
		if err := c.Send(ctx, dist.PhaseControl, 0, tag, []int64{int64(len(enc))}); err != nil {
			return err
		}
		return c.Send(ctx, dist.PhaseControl, 0, tag, enc)
	}
	d.AddEncoded(enc)
	for r := 1; r < c.Size(); r++ {
		n := []int64{0}
		if err := c.Recv(ctx, dist.PhaseControl, r, tag, n); err != nil {
			return err
		}
		buf := make([]byte, n[0])
		if err := c.Recv(ctx, dist.PhaseControl, r, tag, buf); err != nil {
			return err
		}
		d.AddEncoded(buf)
	}
	return nil
}
