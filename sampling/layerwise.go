package sampling

// Layer-wise sampling in bulk (docs/design.md 3.2): LADIES (Zou et al., NeurIPS
// 2019) and FastGCN (Chen, Ma and Xiao, ICLR 2018).
//
// For layer l, the k minibatches of a bulk have frontiers F_l^m (F_0^m are
// the seeds). LADIES forms Q_l with one row per minibatch and ones at its
// frontier vertices and computes P_l = Q_l·(A∘A): P_l[m, v] is the squared
// norm of column v of A restricted to the rows F_l^m. FastGCN uses the
// squared column norms of the whole A, 1ᵀ·(A∘A), for every minibatch. Each
// minibatch draws s_l columns C_l^m from its row (SelectPerMinibatch's
// law), the block A[F_l^m, C_l^m] is extracted (extractBlocks) and
// normalised, and F_{l+1}^m = F_l^m followed by the vertices of C_l^m not
// in F_l^m, in increasing id order.
//
// The k x n matrix P is never formed: each worker computes one row of P at
// a time in a dense accumulator (probRow, equal bit for bit to the row of
// spgemm.Mul(Q, A∘A), tested), draws from it and keeps only the chosen
// columns and their probabilities. This saves Mul's symbolic pass and the
// memory of P: at R-MAT scale 20 with b = s = 512, a minibatch's second
// layer reads about 1.2 million entries of A and its row of P has about
// 250,000 (the raw adjacency; on the normalised matrix that `bulksample
// sample` uses by default, rows of P have 6,000-19,000 entries, about 200
// of them carrying 90% of the weight, which is what selectByBound exploits).

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/freelist"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// LayerWiseMethod chooses the column probabilities of a layer-wise sampler.
type LayerWiseMethod int

const (
	// LADIES samples columns with probability proportional to the squared
	// norm of the column restricted to the minibatch's frontier rows,
	// P = Q·(A∘A).
	LADIES LayerWiseMethod = iota
	// FastGCN samples columns with probability proportional to the squared
	// norm of the whole column of A, the same law for every minibatch.
	FastGCN
)

// String returns "ladies" or "fastgcn".
func (m LayerWiseMethod) String() string {
	switch m {
	case LADIES:
		return "ladies"
	case FastGCN:
		return "fastgcn"
	}
	return fmt.Sprintf("LayerWiseMethod(%d)", int(m))
}

// LayerWiseOptions configure a layer-wise sampler. The zero value of every
// field means its documented default.
//
// # Normalisation
//
// Let p_v = P[m, v] / Σ_w P[m, w] be the probability that one draw of
// minibatch m picks column v, s the number of draws (the budget, or the
// number of positive columns when that is smaller and Replace is false),
// and c_v the number of draws that picked v (1 without replacement). The
// block entry (u, v) for a frontier vertex u and a chosen column v is
//
//	default:   A[u,v]·c_v/(s·p_v), then each row scaled to sum to 1 (LADIES)
//	RowMean:   A[u,v], then each row scaled to sum to 1 (plain weighted mean)
//	Unbiased:  A[u,v]·c_v/(s·p_v), not row-normalised
//
// With Replace and Unbiased, Σ_v block[u,v]·H[v] is an unbiased estimate of
// Σ_v A[u,v]·H[v] = (A·H)[u]: the importance-sampling estimator. Row
// normalisation, the default, gives up that unbiasedness (it divides by a
// random row sum) for a much smaller variance and a bounded output, as the
// LADIES paper does; without replacement c_v/(s·p_v) only approximates the
// inverse inclusion probability. Entries exist only where A has an edge
// from a frontier vertex to a chosen column: a row with no chosen neighbour
// stays empty, and no self loop is added (a model that wants a self term
// finds each destination among the sources, Dst being a prefix of Src).
type LayerWiseOptions struct {
	// Method is LADIES (the default) or FastGCN.
	Method LayerWiseMethod
	// Budgets is the number of columns s_l drawn per minibatch for each
	// layer, the layer nearest the seeds first, each > 0; empty means
	// DefaultBudgets, two layers of DefaultBudget columns.
	Budgets []int
	// Semibulk is the number of minibatches whose columns are drawn
	// before their blocks are extracted together, the unit of parallel
	// work; 0 means 1, each block extracted right after its minibatch's
	// columns are drawn, while the rows of A both steps read are in the
	// caches. (A bulk with fewer minibatches than threads splits each
	// minibatch over the threads instead.) It does not change the result.
	Semibulk int
	// Replace draws columns with replacement (s independent draws);
	// default false: s distinct columns by successive sampling.
	Replace bool
	// RowMean replaces the LADIES normalisation by a plain row mean of A's
	// values over the chosen columns.
	RowMean bool
	// Unbiased skips the row normalisation (see Normalisation); it
	// excludes RowMean.
	Unbiased bool
	// Seed selects the random stream.
	Seed uint64
	// Threads is the number of goroutines; 0 means GOMAXPROCS.
	Threads int
	// Normalize samples from D^-1/2 (A+I) D^-1/2, the normalised
	// adjacency of the LADIES paper (D: the row and column sums of A+I,
	// the degrees plus one for a 0/1 symmetric graph), rather than from A
	// as given, and the blocks carry its values: NewLayerWise forms it
	// with spgemm.SymNormalizeWithSelfLoops, NewDistLayerWise with
	// dist.SymNormalizeWithSelfLoops, with the same bits. LADIES only;
	// default false, the matrix as given (with a raw 0/1 adjacency a
	// column's probability grows with its number of frontier neighbours).
	Normalize bool
}

// DefaultBudget is the column budget per layer of a layer-wise sampler
// whose options give none: 512, the budget of the LADIES paper's
// experiments and of the README's LADIES figures. A node-wise fanout (15
// or 25) as a column budget samples almost nothing (482 edges for 64
// minibatches of 512 seeds on R-MAT 20).
const DefaultBudget = 512

// DefaultBudgets returns the budgets of LayerWiseOptions and of
// SamplerOptions' layer-wise methods when they give none: two layers of
// DefaultBudget columns.
func DefaultBudgets() []int { return []int{DefaultBudget, DefaultBudget} }

// Validate returns an *option.Error naming the first invalid field, or
// nil. It checks the options alone; the constructors check them against
// the graph, and every layer-wise sampler, on the CPU or the GPU, calls it.
func (o *LayerWiseOptions) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("sampling", "LayerWiseOptions", field, value, format, args...)
	}
	switch {
	case o.Normalize && o.Method != LADIES:
		return option.With(bad("Normalize", true, "applies to LADIES only, not %v", o.Method), "Method")
	case o.Method != LADIES && o.Method != FastGCN:
		return bad("Method", int(o.Method), "want LADIES or FastGCN")
	case o.Semibulk < 0:
		return bad("Semibulk", o.Semibulk, "want >= 0")
	case o.Threads < 0:
		return bad("Threads", o.Threads, "want >= 0 (0: GOMAXPROCS)")
	case o.RowMean && o.Unbiased:
		return option.With(bad("RowMean", true, "excludes Unbiased"), "Unbiased")
	}
	for l, s := range o.Budgets {
		if s <= 0 {
			return bad(fmt.Sprintf("Budgets[%d]", l), s, "want a column budget > 0")
		}
	}
	return nil
}

// LayerWise is the bulk layer-wise sampler (LADIES or FastGCN). It
// implements Sampler and is safe for concurrent use. It keeps per-thread
// scratch space (for a graph of at most denseVertexMapMax vertices a dense
// row of n float32 and an n-bit set, a column map of n int32; for a larger
// one hash tables sized by a minibatch's rows) and per-call space (the
// blocks of the largest bulk, before they are stored back to back) for
// later calls, until the sampler itself is garbage. Its bulks' arrays come from bulks returned with Bulk.Release.
type LayerWise struct {
	src     RowSource   // the adjacency's rows (fetched per layer when a RemoteRows)
	n       int         // A is n x n
	fg      *spgemm.CSR // FastGCN: the 1 x n row 1ᵀ·(A∘A); nil for LADIES
	fgTotal float64     // FastGCN: the sum of fg's positive values
	opt     LayerWiseOptions
	// workers, colMaps, parts and calls are scratch space kept across
	// layers and calls (free lists, which unlike a sync.Pool survive
	// garbage collections: refilling an n-entry accumulator or column map,
	// or a bulk's blocks, costs fresh pages).
	workers freelist.List[*lwWorker]
	colMaps *vertexMapPool
	parts   freelist.List[*lwPart]
	calls   freelist.List[*lwCall]
	bulks   bulkPool
	// denseMapMax is the most vertices for which a worker's accumulator
	// and the column maps are dense (n entries), not hash tables.
	denseMapMax int
	// colCDF is A's cumulative column counts by buckets of cdfBucket
	// columns (colCuts), computed once; nil for a RemoteRows source.
	cdfOnce sync.Once
	colCDF  []int64
}

// NewLayerWise returns a layer-wise sampler of the n x n adjacency a, which
// it keeps (do not modify a afterwards). Row v of a lists the vertices v
// aggregates from, with their edge weights. It returns an error if the
// options are invalid or a is not a valid square CSR matrix.
func NewLayerWise(a *spgemm.CSR, opt LayerWiseOptions) (*LayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := opt.CheckAdjacency(a); err != nil {
		return nil, err
	}
	if opt.Normalize {
		a = spgemm.SymNormalizeWithSelfLoops(a, opt.Threads)
	}
	var fg *spgemm.CSR
	if opt.Method == FastGCN {
		fg = ColumnSquares(a)
	}
	return newLayerWiseFrom(CSRRows{A: a}, opt, fg)
}

// CheckAdjacency returns the error NewLayerWise returns for the adjacency
// a beyond Validate's: a nil or non-square a, or one that is not a valid
// CSR matrix (spgemm.CSR.Validate, in O(nnz)). The device samplers call
// it, with Validate, to refuse what the CPU's sampler refuses.
func (o *LayerWiseOptions) CheckAdjacency(a *spgemm.CSR) error {
	if a == nil {
		return fmt.Errorf("sampling: NewLayerWise: nil adjacency")
	}
	if a.Rows != a.Cols {
		return fmt.Errorf("sampling: NewLayerWise: adjacency is %d x %d, want square", a.Rows, a.Cols)
	}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("sampling: NewLayerWise: adjacency: %w", err)
	}
	return nil
}

// ColumnSquares returns FastGCN's squared column norms of the n x n
// adjacency a, the 1 x n row 1ᵀ·(A∘A) of its touched columns, summed in
// row order (AddColumnSquares, ColumnSquaresRow): one pass over a.
func ColumnSquares(a *spgemm.CSR) *spgemm.CSR {
	acc, touched := make([]float32, a.Cols), make([]bool, a.Cols)
	AddColumnSquares(CSRRows{A: a}, 0, a.Rows, acc, touched)
	return ColumnSquaresRow(acc, touched)
}

// NewLayerWiseFrom returns the layer-wise sampler that reads the rows of A
// through src: per layer it fetches the frontier rows of the whole bulk
// (when src is a RemoteRows), computes LADIES' probabilities from their
// squared values, and extracts the blocks from them. FastGCN needs the
// squared column norms of the whole A, fastGCN = 1ᵀ·(A∘A) as a 1 x n row
// (ColumnSquaresRow; nil for LADIES): a distributed caller computes them
// once from the row blocks. src is read as given: it returns an error for
// invalid options, Normalize among them (normalise the rows first).
func NewLayerWiseFrom(src RowSource, opt LayerWiseOptions, fastGCN *spgemm.CSR) (*LayerWise, error) {
	if opt.Normalize {
		return nil, fmt.Errorf("sampling: NewLayerWiseFrom reads its rows as given: LayerWiseOptions.Normalize must be false (normalise the rows first)")
	}
	return newLayerWiseFrom(src, opt, fastGCN)
}

// newLayerWiseFrom is NewLayerWiseFrom for src's rows, normalised already
// when opt.Normalize is set.
func newLayerWiseFrom(src RowSource, opt LayerWiseOptions, fastGCN *spgemm.CSR) (*LayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("sampling: NewLayerWiseFrom: nil RowSource")
	}
	n := src.NumVertices()
	if (opt.Method == FastGCN) != (fastGCN != nil) || (fastGCN != nil && (fastGCN.Rows != 1 || fastGCN.Cols != n)) {
		return nil, fmt.Errorf("sampling: NewLayerWiseFrom: %v needs the 1 x %d column norms exactly when the method is FastGCN", opt.Method, n)
	}
	opt.Budgets = append([]int(nil), opt.Budgets...)
	if len(opt.Budgets) == 0 {
		opt.Budgets = DefaultBudgets()
	}
	s := &LayerWise{src: src, n: n, fg: fastGCN, opt: opt}
	s.setDenseMapMax(denseVertexMapMax)
	if fastGCN != nil {
		s.fgTotal = positiveSum(fastGCN.Data)
	}
	return s, nil
}

// setDenseMapMax makes the workers' accumulators and the column maps dense
// for graphs of at most n vertices, hash tables above; s must be unused.
func (s *LayerWise) setDenseMapMax(n int) {
	s.denseMapMax = n
	s.colMaps = newVertexMapPool(s.n, n)
}

// AddColumnSquares adds the squared values of rows lo..hi-1 of src, in row
// order, to acc (float32, the accumulation of spgemm.Mul), and marks the
// columns it touches. Summing the row blocks of A in block order this way
// gives 1ᵀ·(A∘A) bit for bit whatever the number of blocks.
func AddColumnSquares(src RowSource, lo, hi int, acc []float32, touched []bool) {
	for u := lo; u < hi; u++ {
		idx, vals := src.Row(int32(u))
		for t, v := range idx {
			acc[v] += vals[t] * vals[t]
			touched[v] = true
		}
	}
}

// ColumnSquaresRow returns the 1 x n row of the touched columns of acc:
// FastGCN's column norms for NewLayerWiseFrom.
func ColumnSquaresRow(acc []float32, touched []bool) *spgemm.CSR {
	row := &spgemm.CSR{Rows: 1, Cols: len(acc), Indptr: []int64{0, 0}}
	for v, ok := range touched {
		if ok {
			row.Indices, row.Data = append(row.Indices, int32(v)), append(row.Data, acc[v])
		}
	}
	row.Indptr[1] = int64(len(row.Indices))
	return row
}

// NumLayers returns the number of layers, len(Budgets).
func (s *LayerWise) NumLayers() int { return len(s.opt.Budgets) }

// NumVertices returns the number of vertices n of the graph it samples.
func (s *LayerWise) NumVertices() int { return s.n }

// Options returns the sampler's options.
func (s *LayerWise) Options() LayerWiseOptions {
	o := s.opt
	o.Budgets = append([]int(nil), o.Budgets...)
	return o
}

// SampleBulk samples the minibatches first, ..., first+len(seeds)-1 of
// epoch (see Sampler). Duplicate seeds of a minibatch are sampled once:
// F_0 keeps each seed's first occurrence, and Bulk.Seeds holds these
// deduplicated seeds. Minibatch m's block of layer l has the frontier
// F_l^m as rows and F_{l+1}^m as sources, with the normalised values of
// LayerWiseOptions. The column draws of minibatch g at layer l use the
// stream row (epoch, g, l, vertex -1): the result depends only on (Seed,
// epoch, g, seeds[g-first]), never on the bulk size, Semibulk or Threads.
// It returns an error naming the minibatch and position of a seed outside
// [0, n), or the context's error if ctx is done between layers (or, when
// the layers of a chunk of minibatches are sampled one after the other,
// between chunks).
//
// The bulk's arrays come from bulks returned with Bulk.Release when there
// are any, and every intermediate array is kept for the next call, so that
// a caller who releases each bulk when done with it makes a warm sampler
// allocate nothing per bulk that grows with it.
func (s *LayerWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	n := s.n
	k := len(seeds)
	for m, sd := range seeds {
		for i, v := range sd {
			if uint(v) >= uint(n) {
				return nil, fmt.Errorf("sampling: LayerWise.SampleBulk: minibatch %d seed %d: vertex %d outside [0, %d)", first+m, i, v, n)
			}
		}
	}
	c := s.getCall(len(s.opt.Budgets))
	defer s.calls.Put(c)
	if t := par.Threads(s.opt.Threads); t > 1 {
		c.team.Start(t - 1)
		defer c.team.Stop()
	}
	bulk := s.bulks.get(len(s.opt.Budgets))
	bulk.First = first
	bulk.pool = &s.bulks // also on error: Release gives its arrays back
	frontiers := s.dedupSeeds(c, seeds, bulk)
	if _, remote := s.src.(RemoteRows); !remote && k >= par.Threads(s.opt.Threads) {
		if err := s.sampleDepthFirst(ctx, c, bulk, epoch, frontiers); err != nil {
			bulk.Release()
			return nil, err
		}
		return bulk, nil
	}
	stream := NewStream(s.opt.Seed)
	for l, budget := range s.opt.Budgets {
		if err := ctx.Err(); err != nil {
			bulk.Release()
			return nil, err
		}
		if f, ok := s.src.(RemoteRows); ok {
			c.union = frontierUnion(c.union, frontiers)
			if err := f.FetchRows(ctx, c.union); err != nil {
				bulk.Release()
				return nil, err
			}
		}
		ly := &c.layers[l]
		spec := ly.reset(frontiers)
		for m := range ly.keys {
			ly.keys[m] = stream.Row(epoch, first+m, l, -1)
		}
		la := &bulk.Layers[l]
		if blocks := s.chooseLayer(&c.team, ly, budget); blocks != nil {
			assembleLayer(la, blocks, spec.srcs)
		} else {
			extractBlocks(&c.team, s.src, s.n, spec, s.opt.Semibulk, s.opt.Threads, s.colMaps, &ly.ext, la)
		}
		if !s.opt.Unbiased {
			normalizeBlocks(&c.team, la, s.opt.Threads)
		}
		frontiers = spec.srcs
	}
	return bulk, nil
}

// lwCall is the scratch space of one SampleBulk call, kept for later calls
// in the sampler's free list: its arrays grow to the largest bulk sampled
// and are reused.
type lwCall struct {
	frontiers [][]int32 // F_0: each minibatch's deduplicated seeds, views of the bulk's Seeds
	union     []int32   // the distinct vertices of a layer's frontiers (RemoteRows)
	layers    []lwLayer // one per layer: layer l+1's rows are layer l's sources
	team      par.Team  // the call's helper goroutines
}

// lwLayer is a call's scratch space for one layer: what its columns'
// selection gives the extraction (the per-minibatch arrays of spec keep
// their memory from call to call), the minibatches' random streams, and
// the blocks before they are stored back to back.
type lwLayer struct {
	spec extractSpec
	keys []RowKey
	ext  extractBufs
}

// getCall returns a call's scratch space with one layer per budget.
func (s *LayerWise) getCall(layers int) *lwCall {
	c, ok := s.calls.Get()
	if !ok {
		c = new(lwCall)
	}
	c.layers = resizeKeep(c.layers, layers)
	return c
}

// reset prepares the layer for the minibatches whose frontiers are rows:
// every per-minibatch array of its spec empty (an empty minibatch, which
// chooseChunk skips, has empty columns and sources) with its memory kept.
func (ly *lwLayer) reset(rows [][]int32) *extractSpec {
	k := len(rows)
	sp := &ly.spec
	sp.rows = rows
	sp.cols, sp.slots, sp.srcs = emptied(sp.cols, k), emptied(sp.slots, k), emptied(sp.srcs, k)
	sp.scale = emptied(sp.scale, k)
	sp.widths = par.Resize(sp.widths, k)
	clear(sp.widths)
	ly.keys = par.Resize(ly.keys, k)
	return sp
}

// emptied returns s with length n, each element emptied but keeping its
// array (resizeKeep's).
func emptied[T any](s [][]T, n int) [][]T {
	s = resizeKeep(s, n)
	for i := range s {
		s[i] = s[i][:0]
	}
	return s
}

// dedupSeeds stores each minibatch's seeds without repeats, first
// occurrences in order (as NodeWise does), back to back in bulk.Seeds
// (offsets bulk.SeedStart), and returns them per minibatch (F_0), as views
// of bulk.Seeds.
func (s *LayerWise) dedupSeeds(c *lwCall, seeds [][]int32, bulk *Bulk) [][]int32 {
	k := len(seeds)
	total := 0
	for _, sd := range seeds {
		total += len(sd)
	}
	mark := s.colMaps.get(s.n)
	all := par.Resize(bulk.Seeds[:cap(bulk.Seeds)], total)[:0]
	bulk.SeedStart = par.Resize(bulk.SeedStart, k+1)
	bulk.SeedStart[0] = 0
	for m, sd := range seeds {
		all = mark.appendDistinct(all, sd)
		bulk.SeedStart[m+1] = len(all)
	}
	s.colMaps.put(mark)
	bulk.Seeds = all
	c.frontiers = par.Resize(c.frontiers, k)
	for m := range k {
		lo, hi := bulk.SeedStart[m], bulk.SeedStart[m+1]
		c.frontiers[m] = all[lo:hi:hi]
	}
	return c.frontiers
}

// sampleDepthFirst samples the layers of bulk (its seeds set, frontiers
// its deduplicated seeds) chunk by chunk of Semibulk minibatches (default
// 1), each chunk through all layers before the next: drawing a layer's
// columns, extracting and normalising its blocks and going on to the next
// layer while the rows of A these steps share are still in the caches (the
// frontier of layer l is a prefix of that of layer l+1, so its rows are
// read again). Chunks run in parallel. It needs every row of A at hand
// (not a RemoteRows) and at least as many minibatches as threads; the
// result is that of the layer-by-layer loop of SampleBulk, bit for bit.
func (s *LayerWise) sampleDepthFirst(ctx context.Context, c *lwCall, bulk *Bulk, epoch int, frontiers [][]int32) error {
	k, nl := len(frontiers), len(s.opt.Budgets)
	stream := NewStream(s.opt.Seed)
	rows := frontiers
	for l := range nl {
		ly := &c.layers[l]
		rows = ly.reset(rows).srcs // filled chunk by chunk before the next layer reads it
		ly.ext.blocksFor(k)
		for m := range k {
			ly.keys[m] = stream.Row(epoch, bulk.First+m, l, -1)
		}
	}
	fgTotal := s.fgTotal
	threads := par.Threads(s.opt.Threads)
	sb := max(s.opt.Semibulk, 1)
	nchunks := (k + sb - 1) / sb
	// Chunks are handed out one at a time (forRanges' grain of an eighth
	// of the bulk a thread left one thread finishing the last grain alone:
	// at k = 256 and 2 threads, 32 minibatches, about 6% of a bulk).
	var next atomic.Int64
	c.team.Run(min(threads, nchunks), func(int) {
		w := s.getWorker()
		defer s.workers.Put(w)
		colMap := s.colMaps.get(s.n)
		defer s.colMaps.put(colMap) // empty again
		for {
			ch := int(next.Add(1) - 1)
			if ch >= nchunks || ctx.Err() != nil {
				return
			}
			lo, hi := ch*sb, min((ch+1)*sb, k)
			for l, budget := range s.opt.Budgets {
				ly := &c.layers[l]
				s.chooseChunk(nil, w, &ly.spec, ly.spec.rows, ly.keys, budget, lo, hi, threads, fgTotal)
				extractChunk(s.src, &ly.spec, lo, hi, colMap, ly.ext.blocks, &w.sbuf)
				if !s.opt.Unbiased {
					for _, b := range ly.ext.blocks[lo:hi] {
						normalizeRows(b.Indptr[:b.Rows+1], b.Data)
					}
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	for l := range nl {
		assembleLayer(&bulk.Layers[l], c.layers[l].ext.blocks, c.layers[l].spec.srcs)
	}
	return nil
}

// lwWorker is the scratch space of one goroutine of a layer-wise sampler.
type lwWorker struct {
	acc  []float32 // dense row of P being accumulated; zero between rows
	seen []uint64  // bit set of the columns acc holds
	// ids replaces acc and seen (nil) above the sampler's denseMapMax
	// vertices: a hash table from a column to its place in the row being
	// accumulated (probHashed); empty between rows.
	ids  vertexMap
	last int       // the columns of the last row probHashed computed
	q    []int32   // the frontier, sorted, without repeats
	ord  []uint64  // appendNew's scratch
	sbuf []uint64  // spgemm.SortPairs' scratch (extraction)
	cols []int32   // P's row: column ids, ascending
	vals []float32 // and values
	sel  rowSelector
}

func (s *LayerWise) getWorker() *lwWorker {
	if w, ok := s.workers.Get(); ok {
		return w
	}
	n := s.n
	if n > s.denseMapMax {
		return &lwWorker{ids: newVertexMap(n, s.denseMapMax)}
	}
	return &lwWorker{acc: make([]float32, n), seen: make([]uint64, (n+63)/64)}
}

// probRow computes row m of P = Q·(A∘A) for the frontier f into w.cols
// and w.vals: the squared values of A's rows f, summed per column. It is
// spgemm.Mul(QPerMinibatch(...), A∘A) for one row (tested bit for bit):
// a column's sum is accumulated in float32 over the frontier in increasing
// vertex order, as Mul's accumulator does, and the row comes out sorted.
// The dense accumulator and bit set avoid Mul's symbolic pass, its
// allocation of P, and any sort.
func (s *LayerWise) probRow(w *lwWorker, f []int32) {
	q := append(w.q[:0], f...)
	slices.Sort(q)
	q = slices.Compact(q)
	w.q = q
	if w.acc == nil {
		w.cols, w.vals = s.probHashed(w, q, 0, int32(s.n), w.cols[:0], w.vals[:0])
		return
	}
	acc, seen := w.acc, w.seen
	wlo, whi := len(seen), 0 // range of bit-set words touched
	for _, u := range q {
		idx, val := s.src.Row(u)
		if len(idx) == 0 {
			continue
		}
		val = val[:len(idx)]
		wlo, whi = min(wlo, int(idx[0]>>6)), max(whi, int(idx[len(idx)-1]>>6)+1)
		for t, v := range idx {
			seen[v>>6] |= 1 << (uint32(v) & 63)
			acc[v] += val[t] * val[t] // (A∘A)'s value: the same float32 product
		}
	}
	cols, vals := w.cols[:0], w.vals[:0]
	for i := wlo; i < whi; i++ {
		for b := seen[i]; b != 0; b &= b - 1 {
			v := int32(i<<6 | bits.TrailingZeros64(b))
			cols, vals = append(cols, v), append(vals, acc[v])
			acc[v] = 0
		}
		seen[i] = 0
	}
	w.cols, w.vals = cols, vals
}

// probRowSplit is probRow on up to threads goroutines: the column space
// is cut into one range a goroutine, of about equal numbers of entries of A
// (colCuts), and each range's sums are accumulated by one goroutine over
// the whole frontier in increasing vertex order, as probRow does: the row
// is the same bit for bit. Every range reads the start of each frontier
// row, a cache miss that a row's first reader pays anyway; more ranges than
// goroutines (three a goroutine, handed out in turn) made the row cost 1.5
// times probRow on R-MAT scale 20, so that two threads were slower than one.
func (s *LayerWise) probRowSplit(tm *par.Team, w *lwWorker, f []int32, threads int) {
	q := append(w.q[:0], f...)
	slices.Sort(q)
	q = slices.Compact(q)
	w.q = q
	cuts := s.colCuts(threads)
	parts := getParts(&s.parts, len(cuts)-1)
	// One accumulator a range, taken here rather than by the goroutine
	// that computes it: the sampler holds as many from its first call on,
	// however many goroutines a pass happens to use.
	acc := make([]*lwWorker, len(parts))
	for r := range acc {
		acc[r] = s.getWorker()
	}
	tm.ForRanges(len(parts), threads, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			p := parts[r]
			p.cols, p.vals = s.probRange(acc[r], q, cuts[r], cuts[r+1], p.cols[:0], p.vals[:0])
		}
	})
	for _, pw := range acc {
		s.workers.Put(pw)
	}
	cols, vals := w.cols[:0], w.vals[:0]
	for _, p := range parts {
		cols, vals = append(cols, p.cols...), append(vals, p.vals...)
	}
	putParts(&s.parts, parts)
	w.cols, w.vals = cols, vals
}

// colCuts returns nr+1 column boundaries 0 = c_0 < ... < c_nr = n, multiples
// of 64 but the last, such that A has about as many entries in each range
// [c_r, c_r+1) (the cost of probRange, since a frontier's rows reach
// columns in proportion to their in-degrees; R-MAT's low ids hold most).
// The column counts come from one pass over A, on first use; a RemoteRows
// source, whose rows are not all at hand, gets ranges of equal width.
func (s *LayerWise) colCuts(nr int) []int32 {
	s.cdfOnce.Do(func() {
		if _, remote := s.src.(RemoteRows); !remote {
			s.colCDF = columnCDF(s.src, s.n)
		}
	})
	cuts := make([]int32, 0, nr+1)
	cuts = append(cuts, 0)
	cdf := s.colCDF
	for r := 1; r < nr; r++ {
		var c int
		if cdf == nil {
			c = r * s.n / nr
		} else {
			target := cdf[len(cdf)-1] * int64(r) / int64(nr)
			b, _ := slices.BinarySearch(cdf, target)
			c = b * cdfBucket
		}
		c = min(c&^63, s.n)
		if c > int(cuts[len(cuts)-1]) && c < s.n {
			cuts = append(cuts, int32(c))
		}
	}
	return append(cuts, int32(s.n))
}

// cdfBucket is the width in columns (a multiple of 64) of a bucket of
// columnCDF.
const cdfBucket = 256

// columnCDF returns cdf with cdf[b] the number of entries of src in the
// columns below b·cdfBucket, for b = 0 .. ceil(n/cdfBucket).
func columnCDF(src RowSource, n int) []int64 {
	nb := (n + cdfBucket - 1) / cdfBucket
	cdf := make([]int64, nb+1)
	for u := range n {
		idx, _ := src.Row(int32(u))
		for _, v := range idx {
			cdf[v/cdfBucket+1]++
		}
	}
	for b := 1; b <= nb; b++ {
		cdf[b] += cdf[b-1]
	}
	return cdf
}

// lwPart is the scratch space of a piece of a row computed by one
// goroutine: a range of a row of P (cols, vals) or the heap of the smallest
// keys of a range of positions (pos, hk).
type lwPart struct {
	cols []int32
	vals []float32
	pos  []int32
	hk   []float64
}

// getParts returns n pieces from pool (new ones when it has too few), to
// be given back with putParts. Piece r of a split is the same piece from
// call to call (putParts returns them in reverse order), so that its
// arrays, which grow to the largest range r had, stop growing once warm,
// whichever goroutine computes which range.
func getParts(pool *freelist.List[*lwPart], n int) []*lwPart {
	parts := make([]*lwPart, n)
	for r := range parts {
		p, ok := pool.Get()
		if !ok {
			p = &lwPart{}
		}
		parts[r] = p
	}
	return parts
}

// putParts gives back the pieces of getParts.
func putParts(pool *freelist.List[*lwPart], parts []*lwPart) {
	for r := len(parts) - 1; r >= 0; r-- {
		pool.Put(parts[r])
	}
}

// probRange is probRow for the columns [c0, c1) of the sorted frontier q,
// appended to cols and vals, with w's accumulator.
func (s *LayerWise) probRange(w *lwWorker, q []int32, c0, c1 int32, cols []int32, vals []float32) ([]int32, []float32) {
	if w.acc == nil {
		return s.probHashed(w, q, c0, c1, cols, vals)
	}
	acc, seen := w.acc, w.seen
	for _, u := range q {
		idx, val := s.src.Row(u)
		lo, hi := columnRange(idx, c0, c1)
		for t, v := range idx[lo:hi] {
			seen[v>>6] |= 1 << (uint32(v) & 63)
			x := val[lo+t]
			acc[v] += x * x
		}
	}
	for i := int(c0 >> 6); i < int(c1+63)>>6; i++ {
		for b := seen[i]; b != 0; b &= b - 1 {
			v := int32(i<<6 | bits.TrailingZeros64(b))
			cols, vals = append(cols, v), append(vals, acc[v])
			acc[v] = 0
		}
		seen[i] = 0
	}
	return cols, vals
}

// probHashed is probRange with w's hash table (w.ids) in place of the
// dense accumulator: a column's sum is accumulated in vals, at the place
// the column took in cols when first met, over the frontier in increasing
// vertex order as the dense accumulator does, and the row's pairs are then
// sorted by column, so that the row is the same bit for bit.
func (s *LayerWise) probHashed(w *lwWorker, q []int32, c0, c1 int32, cols []int32, vals []float32) ([]int32, []float32) {
	base := len(cols)
	// Sized by the last row, which is of the same layer but for a layer's
	// first: the table rarely doubles.
	w.ids.reserve(w.last)
	for _, u := range q {
		idx, val := s.src.Row(u)
		lo, hi := columnRange(idx, c0, c1)
		for t, v := range idx[lo:hi] {
			x := val[lo+t]
			if j, added := w.ids.add(v, int32(len(cols)-base)); added {
				cols, vals = append(cols, v), append(vals, x*x) // acc[v] += x*x on a zero: the same bits
			} else {
				vals[base+int(j)] += x * x
			}
		}
	}
	w.last = len(cols) - base
	w.ids.reset(cols[base:])
	w.sbuf = spgemm.SortPairs(cols[base:], vals[base:], w.sbuf)
	return cols, vals
}

// columnRange returns the positions [lo, hi) of the sorted row idx whose
// columns are in [c0, c1).
func columnRange(idx []int32, c0, c1 int32) (lo, hi int) {
	if len(idx) == 0 || idx[len(idx)-1] < c0 || idx[0] >= c1 {
		return 0, 0 // no column in the range
	}
	lo, hi = 0, len(idx)
	if idx[0] < c0 {
		lo, _ = slices.BinarySearch(idx, c0)
	}
	if idx[hi-1] >= c1 {
		hi, _ = slices.BinarySearch(idx, c1)
	}
	return lo, hi
}

// probabilities returns P: for LADIES the k x n matrix whose row m is
// probRow of frontiers[m], for FastGCN the one row 1ᵀ·(A∘A) that every
// minibatch shares.
func (s *LayerWise) probabilities(frontiers [][]int32) *spgemm.CSR {
	if s.fg != nil {
		return s.fg
	}
	w := s.getWorker()
	defer s.workers.Put(w)
	p := &spgemm.CSR{Rows: len(frontiers), Cols: s.n, Indptr: make([]int64, len(frontiers)+1)}
	for m, f := range frontiers {
		s.probRow(w, f)
		p.Indices, p.Data = append(p.Indices, w.cols...), append(p.Data, w.vals...)
		p.Indptr[m+1] = int64(len(p.Indices))
	}
	return p
}

// chooseLayer draws the columns of every minibatch from its row of P with
// keys[m] (SelectPerMinibatch's law) and builds the extraction of the
// layer: the chosen columns of minibatch m, their slots in F_{l+1}^m =
// F_l^m followed by the new vertices, and the per-slot scale of the
// normalisation. Minibatches run in parallel, each computing its row of P
// in a worker's dense accumulator; no k x n matrix is formed.
//
// With at least as many minibatches as threads it also extracts the
// blocks, chunk by chunk of Semibulk minibatches (default 1): a chunk's
// blocks are extracted right after its columns are drawn, while the
// frontier rows of A that both steps read are still in the caches (drawing
// every minibatch's columns first and extracting afterwards read them all
// twice from memory: at R-MAT scale 20 and b = s = 512 one thread sampled
// a bulk of 16 about a fifth slower than bulks of 1). It returns the
// blocks, or nil when it left the extraction to extractBlocks (fewer
// minibatches than threads: the minibatches are then taken one after the
// other, each row of P, its selection and its block split over the
// threads). The selection goes to ly.spec (reset for the layer's
// frontiers, with its keys set), the blocks to ly.ext's. The parallel
// passes run on tm.
func (s *LayerWise) chooseLayer(tm *par.Team, ly *lwLayer, budget int) []*spgemm.CSR {
	spec, frontiers, keys := &ly.spec, ly.spec.rows, ly.keys
	k := len(frontiers)
	fgTotal := s.fgTotal
	threads := par.Threads(s.opt.Threads)
	fused := k >= threads
	sb := max(s.opt.Semibulk, 1)
	if !fused {
		// Each minibatch's steps are split over the threads (tm's
		// passes, which a pass over minibatches would hold).
		w := s.getWorker()
		defer s.workers.Put(w)
		s.chooseChunk(tm, w, spec, frontiers, keys, budget, 0, k, threads, fgTotal)
		return nil
	}
	blocks := ly.ext.blocksFor(k)
	nchunks := (k + sb - 1) / sb
	tm.ForRanges(nchunks, threads, func(clo, chi int) {
		w := s.getWorker()
		defer s.workers.Put(w)
		colMap := s.colMaps.get(s.n)
		defer s.colMaps.put(colMap) // empty again
		for c := clo; c < chi; c++ {
			lo, hi := c*sb, min((c+1)*sb, k)
			s.chooseChunk(nil, w, spec, frontiers, keys, budget, lo, hi, threads, fgTotal)
			extractChunk(s.src, spec, lo, hi, colMap, blocks, &w.sbuf)
		}
	})
	return blocks
}

// chooseChunk is chooseLayer's work for minibatches [lo, hi) on worker w.
// With fewer minibatches than threads (k < threads) each row's steps are
// split over the threads, in passes of tm.
func (s *LayerWise) chooseChunk(tm *par.Team, w *lwWorker, spec *extractSpec, frontiers [][]int32, keys []RowKey, budget, lo, hi, threads int, fgTotal float64) {
	k := len(frontiers)
	opt := SelectOptions{Weighted: true, Replace: s.opt.Replace}
	for m := lo; m < hi; m++ {
		if len(frontiers[m]) == 0 {
			// An empty minibatch gets empty blocks. FastGCN's law,
			// shared by all minibatches, would otherwise draw columns
			// (and fetch their features) for nobody.
			continue
		}
		var pCols []int32
		var pVals []float32
		var total float64
		switch {
		case s.fg != nil:
			pCols, pVals, total = s.fg.Indices, s.fg.Data, fgTotal
		case k < threads:
			// Fewer minibatches than threads: the row of P is split
			// over the threads by columns instead.
			s.probRowSplit(tm, w, frontiers[m], threads)
			pCols, pVals, total = w.cols, w.vals, positiveSum(w.vals)
		default:
			s.probRow(w, frontiers[m])
			pCols, pVals, total = w.cols, w.vals, positiveSum(w.vals)
		}
		var pos, mult []int32
		if k < threads && !s.opt.Replace {
			// The selection of a long row is split too (serial, it
			// was about a quarter of the time at k = 1, 2 threads).
			pos = chooseSplit(tm, w, &s.parts, keys[m], pCols, pVals, budget, threads, minSplitSelect)
		} else {
			pos, mult = w.sel.chooseByWeight(keys[m], pCols, pVals, budget, opt.Replace)
		}
		cIdx := par.Resize(spec.cols[m], len(pos))
		for j, p := range pos {
			cIdx[j] = pCols[p]
		}
		src, slots := appendNew(spec.srcs[m], spec.slots[m], &w.ord, frontiers[m], cIdx)
		spec.cols[m], spec.slots[m], spec.srcs[m], spec.widths[m] = cIdx, slots, src, len(src)
		sc := par.Resize(spec.scale[m], len(src))
		clear(sc)
		if s.opt.RowMean {
			for _, c := range slots {
				sc[c] = 1
			}
		} else {
			// A column drawn c times contributes c/p_v with
			// p_v = P[m, v]/total; draws is the budget with
			// replacement and the number of columns taken without.
			draws := 0.0
			for j, p := range pos {
				c := 1.0
				if mult != nil {
					c = float64(mult[j])
				}
				draws += c
				sc[slots[j]] = c * total / float64(pVals[p])
			}
			for _, c := range slots {
				sc[c] /= draws
			}
		}
		spec.scale[m] = sc
	}
}

// minSplitSelect is the fewest entries of a row of P per goroutine for
// chooseSplit: under it the selection stays on one (a range's pass costs
// about 5 ns an entry, a hand-off to another goroutine a few microseconds).
const minSplitSelect = 4096

// chooseSplit is w.sel.choose for the weighted law without replacement
// (SelectOptions{Weighted: true}) on up to threads goroutines: the pass of
// selectByBound, which keeps the entries whose key is below a bound, runs
// over ranges of at least minPer positions in parallel, and the s smallest
// of the union are the row's, the choice of the serial heap. The positions
// come back ascending in w.sel's scratch space. The passes run on tm.
func chooseSplit(tm *par.Team, w *lwWorker, pool *freelist.List[*lwPart], key RowKey, cols []int32, vals []float32, s, threads, minPer int) []int32 {
	nr := min(threads, len(cols)/max(minPer, 1))
	npos := 0
	for _, v := range vals {
		if v > 0 {
			npos++
		}
	}
	if nr <= 1 || s <= 0 || npos <= s {
		pos, _ := w.sel.chooseByWeight(key, cols, vals, s, false)
		return pos
	}
	scan := func(tau float64, pos []int32, hk []float64) ([]int32, []float64) {
		parts := getParts(pool, nr)
		tm.ForRanges(nr, threads, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				a, b := r*len(cols)/nr, (r+1)*len(cols)/nr
				p := parts[r]
				p.pos, p.hk = keysBelow(key, cols, vals, a, b, tau, p.pos[:0], p.hk[:0])
			}
		})
		for _, p := range parts {
			pos, hk = append(pos, p.pos...), append(hk, p.hk...)
		}
		putParts(pool, parts)
		return pos, hk
	}
	return w.sel.selectByBound(key, cols, vals, s, scan)
}

// PositiveSum returns the float64 sum of the positive values of vals, in
// order: the total of a row of P that layer-wise sampling normalises by
// (for samplers outside this package that must equal it bit for bit).
func PositiveSum(vals []float32) float64 { return positiveSum(vals) }

// positiveSum returns the float64 sum of the positive values, in order.
func positiveSum(vals []float32) float64 {
	total := 0.0
	for _, x := range vals {
		if x > 0 {
			total += float64(x)
		}
	}
	return total
}

// normalizeBlocks scales every row of every block of la to sum to 1
// (spgemm.NormalizeRows of each block), on tm.
func normalizeBlocks(tm *par.Team, la *LayerArrays, threads int) {
	k := len(la.PtrStart) - 1
	tm.ForRanges(k, threads, func(lo, hi int) {
		for m := lo; m < hi; m++ {
			normalizeRows(la.Indptr[la.PtrStart[m]:la.PtrStart[m+1]], la.Data[la.EdgeStart[m]:la.EdgeStart[m+1]])
		}
	})
}

// normalizeRows scales each row of the block with row offsets ptr (from 0)
// and values data to sum to 1: spgemm.NormalizeRows on one goroutine,
// without its closure and block header, which a call per block allocates.
func normalizeRows(ptr []int64, data []float32) {
	for i := range len(ptr) - 1 {
		spgemm.NormalizeVec(data[ptr[i]:ptr[i+1]])
	}
}

// frontierUnion returns the distinct vertices of all frontiers, ascending,
// in buf's array.
func frontierUnion(buf []int32, frontiers [][]int32) []int32 {
	all := buf[:0]
	for _, f := range frontiers {
		all = append(all, f...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}
