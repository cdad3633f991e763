package sampling

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// FrontierMode says which vertices of a minibatch's frontier a layer
// expands.
type FrontierMode int

const (
	// FrontierAll expands every vertex of F_l at layer l: block l is
	// |F_l| x |F_{l+1}| with every row sampled. This is DGL's block
	// semantics, which GraphSAGE's root (self) weights need.
	FrontierAll FrontierMode = iota
	// FrontierNew expands at layer l only the vertices first reached at
	// hop l (all seeds at layer 0), as PyG's NeighborLoader does. Blocks
	// keep FrontierAll's shapes, so a GNN consumes them the same way, but
	// the rows of vertices expanded at an earlier layer are empty: the union
	// of a minibatch's blocks, in the numbering of its last block's sources,
	// is PyG's one sampled subgraph per minibatch (see Subgraph).
	FrontierNew
)

// String returns "all" or "new".
func (m FrontierMode) String() string {
	switch m {
	case FrontierAll:
		return "all"
	case FrontierNew:
		return "new"
	}
	return fmt.Sprintf("FrontierMode(%d)", int(m))
}

// ParseFrontierMode parses "all" or "new".
func ParseFrontierMode(s string) (FrontierMode, error) {
	switch strings.ToLower(s) {
	case "all":
		return FrontierAll, nil
	case "new":
		return FrontierNew, nil
	}
	return 0, fmt.Errorf("sampling: frontier mode %q, want all or new", s)
}

// GroupCacheBytes is the cache budget of a group of minibatches when
// NodeWiseOptions.MaxBulkEdges is 0: the selection and extraction buffers
// of a group (about groupBytesPerEdge per selected entry) stay within it,
// so that each pass reads what the previous one wrote from the last-level
// cache rather than from memory, and a bulk's scratch space is the same
// whatever its size k. The figure is a share of the 32 MiB L3 of the
// development machines; the sweep in benchmarks/results/sampling.md
// chose it.
const GroupCacheBytes = 8 << 20

// GroupMemoryBytes bounds a group's buffers when NodeWiseOptions.MaxBulkEdges
// is 0, however many minibatches the thread count asks a group to hold.
const GroupMemoryBytes = 256 << 20

// groupBytesPerEdge is what one selected entry of a group costs in its
// buffers: its global id (picks), its slot for a new vertex (newv), and
// the row offsets, spans and counts shared by a row's entries.
const groupBytesPerEdge = 12

// NodeWiseOptions configure the node-wise (GraphSAGE) sampler. Fanouts is
// required; the zero value of every other field is its default.
type NodeWiseOptions struct {
	// Fanouts are s_1..s_L, s_1 for the layer nearest to the seeds
	// (Blocks[0]). Each is > 0, or -1 to take all neighbours.
	Fanouts []int
	// Replace samples with replacement (default: without). A neighbour
	// drawn c times appears once, with value c (times its weight).
	Replace bool
	// Weighted samples proportionally to the values of A (default:
	// uniformly); blocks then carry the selected weights normalised to sum
	// to 1 per row, and edges of weight <= 0 are never sampled.
	Weighted bool
	// Frontier chooses which frontier vertices each layer expands.
	Frontier FrontierMode
	// Seed selects the random stream.
	Seed uint64
	// Threads is the number of goroutines; 0 means GOMAXPROCS.
	Threads int
	// Degrees attaches to every block the degree in A (the row length) of
	// each of its source vertices (Block.Deg), which GCN's normalisation
	// needs; default off, since other models do not read them. The rows of
	// a local CSR give them at one lookup per input vertex; any other
	// RowSource must implement DegreeSource.
	Degrees bool
	// MaxBulkEdges caps the entries selected at one time before column
	// extraction (the sampled edges a layer of a group of minibatches
	// holds in global ids). A bulk whose layer would exceed it is sampled
	// in groups of consecutive minibatches, with the same output; a single
	// minibatch is never split. The cap counts rows times fanout, or rows
	// for a fanout of -1. 0 means the default: a cap that keeps a group's
	// buffers within GroupCacheBytes, with at least 2·Threads minibatches
	// a group so that every thread has minibatches to extract, within
	// GroupMemoryBytes. Groups make
	// the bulk size k a batching choice: a large bulk costs no more
	// scratch memory than a small one and runs as fast.
	MaxBulkEdges int64
}

// Validate returns an *option.Error naming the first invalid field of o,
// or nil. It checks the options alone; the constructors check them against
// the graph (the weights, DegreeSource), and every node-wise sampler, on
// the CPU or the GPU, calls it.
func (o *NodeWiseOptions) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("sampling", "NodeWiseOptions", field, value, format, args...)
	}
	if len(o.Fanouts) == 0 {
		return bad("Fanouts", "[]", "want one fanout per layer (Fanouts is empty)")
	}
	for l, s := range o.Fanouts {
		if s == 0 || s < -1 {
			return bad(fmt.Sprintf("Fanouts[%d]", l), s, "want > 0 or -1 (all neighbours)")
		}
	}
	switch {
	case o.Frontier != FrontierAll && o.Frontier != FrontierNew:
		return bad("Frontier", int(o.Frontier), "want FrontierAll or FrontierNew")
	case o.Threads < 0:
		return bad("Threads", o.Threads, "want >= 0 (0: GOMAXPROCS)")
	case o.MaxBulkEdges < 0:
		return bad("MaxBulkEdges", o.MaxBulkEdges, "want >= 0")
	}
	return nil
}

// CheckAdjacency returns the error NewNodeWise returns for the adjacency a
// beyond Validate's: a nil or non-square a, arrays of inconsistent lengths,
// and with Weighted a negative, NaN or infinite weight. It reads every
// weight only when Weighted. The device samplers call it, with Validate, to
// refuse what the CPU's sampler refuses.
func (o *NodeWiseOptions) CheckAdjacency(a *spgemm.CSR) error {
	if a == nil {
		return errors.New("sampling: NewNodeWise: nil adjacency")
	}
	if a.Rows != a.Cols {
		return fmt.Errorf("sampling: NewNodeWise: adjacency is %d x %d, want square", a.Rows, a.Cols)
	}
	if len(a.Indptr) != a.Rows+1 || int64(len(a.Indices)) != a.NNZ() || len(a.Data) != len(a.Indices) {
		return fmt.Errorf("sampling: NewNodeWise: adjacency arrays inconsistent (indptr %d, indices %d, data %d for %d rows)",
			len(a.Indptr), len(a.Indices), len(a.Data), a.Rows)
	}
	if o.Weighted {
		for p, v := range a.Data {
			if !(v >= 0) || math.IsInf(float64(v), 1) {
				return fmt.Errorf("sampling: NewNodeWise: Weighted, but edge weight data[%d] = %v; want finite and >= 0", p, v)
			}
		}
	}
	return nil
}

// NodeWise is the bulk node-wise sampler of docs/design.md 3.1. It is safe for
// concurrent use. It keeps its scratch space (a vertex map per thread,
// n entries up to 4M vertices and a hash table sized by a minibatch above,
// the selection buffers of one group per concurrent call) and the
// arrays of released bulks (Bulk.Release) for later calls, until the
// sampler itself is garbage.
//
// For each layer l it gathers the adjacency row of every frontier entry of
// every minibatch (P_l = Q_l·A, read in place from the RowSource rather than
// materialised), selects per row with the row key
// Stream.Row(epoch, minibatch, l, vertex) (SelectPerRow's laws), and
// extracts columns: each minibatch's picks are renumbered into its own
// local columns, F_{l+1} = F_l followed by the new vertices in order of
// first appearance (rows in order, picks of a row in column order). The
// selection runs in parallel over rows, the extraction over minibatches.
// The result equals QPerEntry, spgemm.Mul, SelectPerRow and
// spgemm.ExtractColumns applied minibatch by minibatch (tested).
type NodeWise struct {
	src    RowSource
	packed PackedRows // src, when its rows are packed (the uniform fast path)
	// equalWeight, when > 0, is the weight of every edge of a Weighted
	// sampler's graph, found once when it was made: the weighted law is
	// then the uniform one, and the packed rows take the uniform fast
	// path, drawing what per-row selection draws (choose) without reading
	// the weights. 0 when unknown (the rows of other ranks) or unequal.
	equalWeight float32
	// remote is src when its rows live in other processes: its layers
	// take the remote paths (nodewise_remote.go). nil for a local source.
	remote  RemoteRows
	opt     NodeWiseOptions
	stream  Stream
	threads int
	// minGroup is the fewest minibatches a group takes while the bulk
	// has more (1 when the caller set MaxBulkEdges).
	minGroup int
	// maxGroupEdges caps a group whatever minGroup says: MaxBulkEdges
	// when the caller set it, else GroupMemoryBytes' worth.
	maxGroupEdges int64
	// splitPicks is the fewest entries of a minibatch whose extraction
	// may be split over threads (splitExtractPicks; tests lower it).
	splitPicks int64
	// denseMapMax is the most vertices for which a worker's vertex map
	// is dense (denseVertexMapMax; tests change it).
	denseMapMax int
	scratch     nwScratch // workers and call state, reused across calls
	bulks       bulkPool  // released bulks' arrays, reused for new bulks
	// clock, when a benchmark of this package sets it, times the phases
	// of each bulk (phaseClock); nil otherwise.
	clock *phaseClock
}

// NewNodeWise returns the node-wise sampler of the n x n adjacency a (row v
// lists the vertices v samples from). a is read, never modified, and must
// not change while the sampler is in use. With opt.Weighted it checks every
// weight once, and a graph whose weights are all equal (an unweighted one)
// is sampled as fast as without Weighted, with the same picks
// (EqualWeights). It returns an error naming the
// field for bad options, or if a is not square, or if opt.Weighted and a
// value of a is negative, infinite or NaN.
func NewNodeWise(a *spgemm.CSR, opt NodeWiseOptions) (*NodeWise, error) {
	if err := opt.CheckAdjacency(a); err != nil {
		return nil, err
	}
	nw, err := newNodeWise(CSRRows{A: a}, opt)
	if err != nil {
		return nil, err
	}
	if opt.Weighted && len(a.Data) > 0 && equalPositive(a.Data) {
		nw.equalWeight = a.Data[0]
	}
	return nw, nil
}

// NewNodeWiseFrom returns the node-wise sampler of the rows of src. It
// returns an error naming the field for bad options, and, with
// opt.Weighted, an error naming the row of the first edge weight that is
// negative, infinite or NaN, as NewNodeWise does: all rows are read for
// that check unless src is a RemoteRows, whose rows cannot be read before
// they are fetched (the fetching side checks them).
func NewNodeWiseFrom(src RowSource, opt NodeWiseOptions) (*NodeWise, error) {
	if src == nil {
		return nil, errors.New("sampling: NewNodeWiseFrom: nil RowSource")
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	var equal float32 // the weight of every edge, if they are all equal
	if _, remote := src.(RemoteRows); opt.Weighted && !remote {
		first := true
		for v := range int32(src.NumVertices()) {
			cols, vals := src.Row(v)
			for j, w := range vals {
				if !(w >= 0) || math.IsInf(float64(w), 1) {
					return nil, fmt.Errorf("sampling: NewNodeWiseFrom: Weighted, but the edge (%d, %d) has weight %v; want finite and >= 0", v, cols[j], w)
				}
				if first {
					equal, first = w, false
				} else if w != equal {
					equal = 0
				}
			}
		}
	}
	nw, err := newNodeWise(src, opt)
	if err != nil {
		return nil, err
	}
	nw.equalWeight = equal
	return nw, nil
}

// newNodeWise is NewNodeWiseFrom without the check of the weights.
func newNodeWise(src RowSource, opt NodeWiseOptions) (*NodeWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	opt.Fanouts = append([]int(nil), opt.Fanouts...)
	defaultGroups := opt.MaxBulkEdges == 0
	if defaultGroups {
		opt.MaxBulkEdges = GroupCacheBytes / groupBytesPerEdge
	}
	if _, ok := src.(DegreeSource); opt.Degrees && !ok {
		return nil, fmt.Errorf("sampling: NewNodeWiseFrom: NodeWiseOptions.Degrees needs a RowSource that implements DegreeSource; %T does not", src)
	}
	threads := par.Threads(opt.Threads)
	minGroup, maxGroup := 1, opt.MaxBulkEdges
	if defaultGroups {
		maxGroup = GroupMemoryBytes / groupBytesPerEdge
		// Two minibatches a thread: the extraction hands them out one at
		// a time, so that a costly one does not leave a thread idle.
		minGroup = 2 * threads
	}
	nw := &NodeWise{src: src, opt: opt, stream: NewStream(opt.Seed), threads: threads,
		minGroup: minGroup, maxGroupEdges: max(maxGroup, opt.MaxBulkEdges), splitPicks: splitExtractPicks, denseMapMax: denseVertexMapMax}
	nw.packed, _ = src.(PackedRows)
	nw.remote, _ = src.(RemoteRows)
	return nw, nil
}

// EqualWeights reports whether the sampler is Weighted on a graph whose
// weights it found all equal (and positive) when it was made, so that it
// samples it by the uniform law's fast path: the picks are those of the
// unweighted sampler, and only the blocks' values (normalised weights)
// differ.
func (nw *NodeWise) EqualWeights() bool { return nw.equalWeight > 0 }

// NumLayers returns the number of fanouts.
func (nw *NodeWise) NumLayers() int { return len(nw.opt.Fanouts) }

// NumVertices returns the number of vertices n of the graph it samples.
func (nw *NodeWise) NumVertices() int { return nw.src.NumVertices() }

var _ RowSource = CSRRows{}

// Options returns the sampler's options with the defaults filled in.
func (nw *NodeWise) Options() NodeWiseOptions {
	o := nw.opt
	o.Fanouts = append([]int(nil), o.Fanouts...)
	return o
}

// SampleBulk samples minibatches first..first+len(seeds)-1 of epoch (see
// Sampler). Duplicate seeds of a minibatch are sampled once: F_0 keeps each
// seed's first occurrence, and Bulk.Seeds holds these deduplicated seeds.
// It returns an error if a seed is outside [0, n) or ctx is cancelled.
//
// The bulk's arrays come from bulks returned with Bulk.Release when there
// are any, so that a caller who releases each bulk when done with it makes
// a warm sampler allocate nothing per bulk.
func (nw *NodeWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	clock := nw.clock
	clock.begin()
	n := nw.src.NumVertices()
	for m, s := range seeds {
		for i, v := range s {
			if uint32(v) >= uint32(n) {
				return nil, fmt.Errorf("sampling: minibatch %d seed %d: vertex %d outside [0, %d)", first+m, i, v, n)
			}
		}
	}
	clock.mark("seed check")
	k := len(seeds)
	c := nw.getCall()
	defer nw.putCall(c)
	c.team.Timer = nil
	if clock != nil {
		c.team.Timer = clock
	}
	if nw.threads > 1 {
		c.team.Start(nw.threads - 1)
	}
	defer func() {
		clock.mark("end of bulk")
		if nw.threads > 1 {
			c.team.Stop()
			clock.mark("team stop")
		}
	}()
	clock.mark("team start")
	bulk := nw.bulks.get(len(nw.opt.Fanouts))
	bulk.First = first
	clock.mark("bulk arrays")
	nw.dedupSeeds(c, seeds, bulk)
	clock.mark("dedupSeeds: gather")
	c.expanded = par.Resize(c.expanded, k)
	clear(c.expanded) // rows of F_l^m already expanded (FrontierNew)
	prev, prevStart := bulk.Seeds, bulk.SeedStart
	for l, s := range nw.opt.Fanouts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		la := &bulk.Layers[l]
		if err := nw.sampleLayer(ctx, c, la, epoch, first, l, s, prev, prevStart); err != nil {
			return nil, err
		}
		if nw.opt.Frontier == FrontierNew {
			for m := range k {
				c.expanded[m] = int32(prevStart[m+1] - prevStart[m])
			}
		}
		prev, prevStart = la.Src, la.SrcStart
	}
	if nw.opt.Degrees {
		if err := nw.attachDegrees(ctx, c, bulk); err != nil {
			return nil, err
		}
	} else {
		for l := range bulk.Layers {
			bulk.Layers[l].Deg = nil
		}
	}
	bulk.pool = &nw.bulks
	return bulk, nil
}

// attachDegrees sets every layer's Deg. Each minibatch's sources at layer l
// (F_{l+1}) are a prefix of its sources at the last layer (F_L), so the
// degrees of F_L are looked up once and copied to the other layers.
func (nw *NodeWise) attachDegrees(ctx context.Context, c *nwCall, bulk *Bulk) error {
	last := &bulk.Layers[len(bulk.Layers)-1]
	last.Deg = par.Resize(last.Deg, len(last.Src))
	if src, ok := nw.src.(CSRRows); ok {
		a, deg := src.A, last.Deg
		nw.parallel(&c.team, len(deg), 4*rowGrain, func(_ *nwWorker, _, lo, hi int) {
			for i, v := range last.Src[lo:hi] {
				deg[lo+i] = int32(a.Indptr[v+1] - a.Indptr[v])
			}
		})
	} else if err := nw.sourceDegrees(ctx, last.Src, last.Deg); err != nil {
		return err
	}
	for l := range len(bulk.Layers) - 1 {
		la := &bulk.Layers[l]
		la.Deg = par.Resize(la.Deg, len(la.Src))
		nw.parallel(&c.team, len(la.SrcStart)-1, 1, func(_ *nwWorker, _, lo, hi int) {
			for m := lo; m < hi; m++ {
				copy(la.Deg[la.SrcStart[m]:la.SrcStart[m+1]], last.Deg[last.SrcStart[m]:])
			}
		})
	}
	return nil
}

// sourceDegrees sets deg[i] to the degree of vs[i], asking the RowSource
// (a DegreeSource, checked by NewNodeWiseFrom) once for the distinct
// vertices of vs.
func (nw *NodeWise) sourceDegrees(ctx context.Context, vs, deg []int32) error {
	w := nw.getWorker()
	defer nw.putWorker(w)
	var distinct []int32
	w.ids.reserve(len(vs))
	for _, v := range vs {
		if _, added := w.ids.add(v, int32(len(distinct))); added {
			distinct = append(distinct, v)
		}
	}
	dd := make([]int32, len(distinct))
	err := nw.src.(DegreeSource).Degrees(ctx, distinct, dd)
	if err == nil {
		for i, v := range vs {
			deg[i] = dd[w.ids.get(v)]
		}
	}
	w.reset(distinct)
	if err != nil {
		return fmt.Errorf("sampling: degrees of %d input vertices: %w", len(distinct), err)
	}
	return nil
}

// dedupSeeds stores each minibatch's seeds without repeats, first
// occurrences in order, back to back in bulk.Seeds (offsets
// bulk.SeedStart). The minibatches are deduplicated in parallel, each in
// the slot of its seeds in the caller's list, then moved together.
func (nw *NodeWise) dedupSeeds(c *nwCall, seeds [][]int32, bulk *Bulk) {
	k := len(seeds)
	c.inStart = par.Resize(c.inStart, k+1)
	c.inStart[0] = 0
	for m, s := range seeds {
		c.inStart[m+1] = c.inStart[m] + len(s)
	}
	c.seedCnt = par.Resize(c.seedCnt, k)
	bulk.Seeds = par.Resize(bulk.Seeds, c.inStart[k])
	nw.parallel(&c.team, k, 1, func(w *nwWorker, _, lo, hi int) {
		for m := lo; m < hi; m++ {
			f := bulk.Seeds[c.inStart[m]:c.inStart[m]:c.inStart[m+1]]
			c.seedCnt[m] = len(w.ids.appendDistinct(f, seeds[m]))
		}
	})
	bulk.SeedStart = par.Resize(bulk.SeedStart, k+1)
	bulk.SeedStart[0] = 0
	for m := range k {
		o := bulk.SeedStart[m]
		copy(bulk.Seeds[o:], bulk.Seeds[c.inStart[m]:c.inStart[m]+c.seedCnt[m]])
		bulk.SeedStart[m+1] = o + c.seedCnt[m]
	}
	bulk.Seeds = bulk.Seeds[:bulk.SeedStart[k]]
}
