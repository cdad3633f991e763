package distsample

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/sampling"
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
	sampling.SamplerOptions
	// Layout is how the ranks hold the graph; default Split.
	Layout Layout
	// Fetch is how a Split node-wise sampler gets the rows it samples:
	// FetchAuto, the default (pull or push per layer, by the byte
	// model), FetchPull or FetchPush. The layer-wise methods pull the
	// frontier rows (FetchPush is an error with them, FetchAuto pulls); a
	// Replicated graph is sampled without communication, whatever Fetch
	// says.
	Fetch FetchMode
	// PullBatchBytes bounds the rows one pull round of a Split node-wise
	// sampler brings to a rank, estimated from its own block's rows: the
	// groups of minibatches of a pulled layer are fetched together while
	// their distinct rows fit it (a row many groups read then travels
	// once). Default 0: 4 times the bytes of the rank's block of column ids
	// (the words of the rank's block times pullBlocks), and at least 16
	// MiB; a larger budget sends fewer bytes and holds more, a smaller one
	// the reverse: a group of minibatches whose rows exceed it is pulled in
	// parts that fit it (DistRows.PullParts), down to a row a round.
	// FetchAuto's byte model counts the rounds of these batches. Setting it
	// where no node-wise sampler pulls rows (a layer-wise method, a
	// Replicated graph, FetchPush) is an error.
	PullBatchBytes int64
	// PushBatchBytes bounds the picks one push round of a Split node-wise
	// sampler brings to a rank (fanout times rows, 4 bytes a pick, 8 with
	// values): the groups of a pushed layer are pushed together while their
	// bound fits it. Default 0: DefaultPushBatchBytes. It changes the
	// number of rounds and their memory, not the bytes of the answers.
	// Setting it where no node-wise sampler pushes (a layer-wise method, a
	// Replicated graph, FetchPull) is an error.
	PushBatchBytes int64
	// Overlap is whether a Split node-wise sampler asks for a pushed
	// layer's next push batch (PushBatchBytes) while it extracts the
	// picks of the current one, so that the rank works while the column's
	// rounds are in flight rather than waiting in them: OverlapDefault,
	// OverlapOn or OverlapOff. The rounds run on a goroutine of the
	// sampler, one batch ahead at most (twice a batch's request and picks
	// in memory), in the same order, so the sample is the same either
	// way; it takes effect where the column communicator may be called
	// from another goroutine (dist.ConcurrentComms). Pulled layers are not
	// overlapped (their rows are one batch a layer at the default
	// PullBatchBytes). OverlapOn is an error with FetchPull and the
	// layer-wise methods.
	Overlap OverlapMode
}

// OverlapMode is whether a distributed sampler overlaps its push rounds
// with its own work (DistSamplerOptions.Overlap).
type OverlapMode int

const (
	// OverlapDefault is DefaultOverlap.
	OverlapDefault OverlapMode = iota
	// OverlapOn overlaps a pushed layer's next batch with the current one.
	OverlapOn
	// OverlapOff runs every round on the sampler's goroutine, then works.
	OverlapOff
)

// DefaultOverlap is what OverlapDefault means: off. The rounds in flight
// (the picks a rank serves its column, Open MPI's polling) need a core of
// their own, so the overlap pays only where each rank has one to spare; on
// the 2-core development machine it cost 5-10% of SEPS at p = 2 and 4
// (R-MAT 20, docs/design.md section 4).
const DefaultOverlap = OverlapOff

// String returns "default", "on" or "off".
func (m OverlapMode) String() string {
	switch m {
	case OverlapDefault:
		return "default"
	case OverlapOn:
		return "on"
	case OverlapOff:
		return "off"
	}
	return fmt.Sprintf("OverlapMode(%d)", int(m))
}

// ParseOverlapMode parses "default", "on" or "off".
func ParseOverlapMode(s string) (OverlapMode, error) {
	switch s {
	case "default":
		return OverlapDefault, nil
	case "on":
		return OverlapOn, nil
	case "off":
		return OverlapOff, nil
	}
	return 0, fmt.Errorf("distsample: overlap mode %q, want default, on or off", s)
}

// Overlaps reports whether m, resolved (OverlapDefault: DefaultOverlap),
// is on.
func (m OverlapMode) Overlaps() bool {
	if m == OverlapDefault {
		m = DefaultOverlap
	}
	return m == OverlapOn
}

// Validate returns an error naming the field of o that is invalid or that
// does not apply to its method or layout.
func (o *DistSamplerOptions) Validate() error {
	if err := o.SamplerOptions.Validate(); err != nil {
		return err
	}
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("distsample", "DistSamplerOptions", field, value, format, args...)
	}
	switch {
	case o.Layout != Split && o.Layout != Replicated:
		return bad("Layout", int(o.Layout), "want Split or Replicated")
	case o.Fetch != FetchAuto && o.Fetch != FetchPull && o.Fetch != FetchPush:
		return bad("Fetch", int(o.Fetch), "want FetchAuto, FetchPull or FetchPush")
	case o.PullBatchBytes < 0:
		return bad("PullBatchBytes", o.PullBatchBytes, "want >= 0 (0: 4 times the bytes of the rank's block)")
	case o.PushBatchBytes < 0:
		return bad("PushBatchBytes", o.PushBatchBytes, "want >= 0 (0: DefaultPushBatchBytes)")
	case o.Overlap < OverlapDefault || o.Overlap > OverlapOff:
		return bad("Overlap", int(o.Overlap), "want OverlapDefault, OverlapOn or OverlapOff")
	case o.Overlap == OverlapOn && o.Fetch == FetchPull && o.IsNodeWise():
		return option.With(bad("Overlap", o.Overlap, "overlaps push batches, and fetch %s pulls every layer", FetchPull), "Fetch")
	case o.Overlap == OverlapOn && !o.IsNodeWise():
		return option.With(bad("Overlap", o.Overlap, "applies to method %s (the layer-wise samplers pull the frontier rows), not %s", sampling.MethodNode, o.Method), "Method")
	case o.Fetch == FetchPush && !o.IsNodeWise():
		return option.With(bad("Fetch", o.Fetch, "applies to method %s (the layer-wise samplers pull the frontier rows), not %s", sampling.MethodNode, o.Method), "Method")
	}
	return o.validateBatches(bad)
}

// validateBatches refuses a pull or push batch bound that no round of o's
// sampler would follow: a bound that changes nothing is a mistake to
// report, not to ignore.
func (o *DistSamplerOptions) validateBatches(bad func(field string, value any, format string, args ...any) error) error {
	for _, b := range []struct {
		field  string
		value  int64
		unused FetchMode // the fetch mode that makes no rounds of this kind
	}{{"PullBatchBytes", o.PullBatchBytes, FetchPush}, {"PushBatchBytes", o.PushBatchBytes, FetchPull}} {
		switch {
		case b.value == 0:
		case o.Layout == Replicated:
			return option.With(bad(b.field, b.value, "applies to a split graph (a replicated graph is sampled without communication)"), "Layout")
		case !o.IsNodeWise():
			return option.With(bad(b.field, b.value, "applies to method %s (the layer-wise samplers fetch a layer's frontier rows in one round), not %s", sampling.MethodNode, o.Method), "Method")
		case o.Fetch == b.unused:
			return option.With(bad(b.field, b.value, "makes no rounds with fetch %s", b.unused), "Fetch")
		}
	}
	return nil
}

// EffectiveFetch returns how the sampler of o reads the rows of other
// ranks: Fetch, or FetchPull for a layer-wise method with FetchAuto (it
// has no other way).
func (o *DistSamplerOptions) EffectiveFetch() FetchMode {
	if o.Fetch == FetchAuto && !o.IsNodeWise() {
		return FetchPull
	}
	return o.Fetch
}

// NewDistSampler returns this rank's sampler of a graph distributed over
// the grid g, the distributed counterpart of sampling.NewSampler: every
// method, on either layout, pulling or pushing. a is the graph as this rank
// holds it: its block of rows (Split: the rows g.MyRows() of the n x n
// adjacency, with global column ids, as dataset.LoadRowBlock reads them) or
// the whole adjacency (Replicated).
//
// Each rank samples its run of every bulk (g.Minibatches) and gets, for
// those minibatches, the samples of sampling.NewSampler on the whole graph
// with the same options, bit for bit. On a Split graph the sampler is a
// DistNodeWise or DistLayerWise and SampleBulk is collective on the process
// column (every rank calls it once per bulk, with a run that may be empty);
// the constructor is collective too (LADIES' normalised matrix and
// FastGCN's column norms are summed along the blocks). On a
// Replicated graph it is the single-process sampler and needs no
// communication. It returns an error naming the invalid field, or a block
// that is not this rank's.
func NewDistSampler(ctx context.Context, g *dist.Grid, a *spgemm.CSR, opt DistSamplerOptions) (sampling.Sampler, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if g == nil || a == nil {
		return nil, fmt.Errorf("distsample: NewDistSampler: nil grid or graph")
	}
	if opt.Layout == Replicated {
		if a.Rows != g.NumVertices() {
			return nil, fmt.Errorf("distsample: NewDistSampler on rank %d: a replicated graph of %d vertices on a grid of %d", g.Rank(), a.Rows, g.NumVertices())
		}
		return sampling.NewSampler(a, opt.SamplerOptions)
	}
	m, err := dist.NewMatrix(g, a)
	if err != nil {
		return nil, fmt.Errorf("distsample: NewDistSampler: %w", err)
	}
	if opt.IsNodeWise() {
		s, err := NewDistNodeWise(m, opt.Fetch, opt.NodeWiseOptions())
		if err != nil {
			return nil, err
		}
		s.Rows().SetBatchBytes(opt.PullBatchBytes, opt.PushBatchBytes)
		s.Rows().SetOverlap(opt.Overlap.Overlaps())
		return s, nil
	}
	s, err := NewDistLayerWise(ctx, m, opt.LayerWiseOptions())
	if err != nil {
		return nil, err
	}
	return s, nil
}
