package sampling

import (
	"context"
	"sync"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// Block is the sample of one layer of one minibatch (docs/design.md 3.1 step 5).
// Adj is |Dst| x |Src|: row r is destination vertex Src[r] (destinations are
// a prefix of sources, DGL's block convention), and its column ids index Src.
// Adj's values are 1 for unweighted node-wise sampling, or the normalised
// weights the sampler defines (LADIES normalisation, edge weights).
//
// Deg, when the sampler supplies it (NodeWiseOptions.Degrees), holds the
// degree in the graph of each source vertex, in Src's order: the length of
// its row of A, however many of its edges the block sampled. Since the
// destinations are a prefix of the sources, Deg[:NumDst()] are theirs. GCN
// normalises with these degrees, so that a block holding every neighbour
// computes exactly what full-batch GCN computes. It is nil when the sampler
// does not supply degrees (LayerWise, whose values carry their own
// normalisation).
type Block struct {
	Adj spgemm.CSR // a view into the bulk's arrays; do not append to it
	Src []int32    // global vertex ids of the block's columns, frontier first
	Deg []int32    // graph degree of each source vertex, or nil
}

// NumDst returns the number of destination vertices (rows).
func (b *Block) NumDst() int { return b.Adj.Rows }

// Dst returns the global ids of the destination vertices, Src[:NumDst()].
func (b *Block) Dst() []int32 { return b.Src[:b.Adj.Rows:b.Adj.Rows] }

// Minibatch is the sample of one minibatch: Blocks[0] has the seeds as rows
// (the layer with fanout s_1), Blocks[l+1]'s rows are Blocks[l]'s sources.
// A GNN applies the blocks from the last to the first.
type Minibatch struct {
	Index  int     // global minibatch index within the epoch
	Seeds  []int32 // global ids of the seed vertices, F_0
	Blocks []Block
}

// InputNodes returns the vertices whose input features the minibatch needs:
// the sources of its last block (the seeds when it has no blocks).
func (m *Minibatch) InputNodes() []int32 {
	if len(m.Blocks) == 0 {
		return m.Seeds
	}
	return m.Blocks[len(m.Blocks)-1].Src
}

// LayerArrays holds one layer of a bulk: the blocks of k minibatches stored
// back to back so that a minibatch's block is a set of slices of these arrays.
// Minibatch m's row offsets are Indptr[PtrStart[m] : PtrStart[m+1]] (they
// start at 0: each minibatch's offsets are local), its entries are
// Indices/Data[EdgeStart[m] : EdgeStart[m+1]], and its sources are
// Src[SrcStart[m] : SrcStart[m+1]]. Deg, when the sampler supplies
// degrees, is parallel to Src (the same offsets); otherwise it is nil.
type LayerArrays struct {
	Indptr    []int64
	Indices   []int32
	Data      []float32
	Src       []int32
	Deg       []int32
	PtrStart  []int   // len k+1
	EdgeStart []int64 // len k+1
	SrcStart  []int   // len k+1
}

// Bulk is the sample of k consecutive minibatches of one epoch.
type Bulk struct {
	First     int     // global index of the first minibatch
	Seeds     []int32 // the seeds of all minibatches, back to back
	SeedStart []int   // len k+1: minibatch m's seeds are Seeds[SeedStart[m]:SeedStart[m+1]]
	Layers    []LayerArrays

	pool *bulkPool // where Release returns the arrays; nil if none
}

// Len returns the number of minibatches k.
func (b *Bulk) Len() int { return len(b.SeedStart) - 1 }

// Bytes returns the bytes of the bulk's arrays (their lengths, not their
// capacities): the size of the sample.
func (b *Bulk) Bytes() int64 {
	n := 4*int64(len(b.Seeds)) + 8*int64(len(b.SeedStart))
	for l := range b.Layers {
		la := &b.Layers[l]
		n += 8*int64(len(la.Indptr)) + 4*int64(len(la.Indices)+len(la.Data)+len(la.Src)+len(la.Deg)) +
			8*int64(len(la.PtrStart)+len(la.EdgeStart)+len(la.SrcStart))
	}
	return n
}

// Minibatch returns minibatch m (0 <= m < Len()) of the bulk as views of the
// bulk's arrays; nothing is copied.
func (b *Bulk) Minibatch(m int) Minibatch {
	if uint(m) >= uint(b.Len()) {
		panic(spgemm.IndexError{Op: "Bulk.Minibatch", Index: m, Len: b.Len()})
	}
	mb := Minibatch{
		Index:  b.First + m,
		Seeds:  b.Seeds[b.SeedStart[m]:b.SeedStart[m+1]],
		Blocks: make([]Block, len(b.Layers)),
	}
	for l := range b.Layers {
		la := &b.Layers[l]
		ptr := la.Indptr[la.PtrStart[m]:la.PtrStart[m+1]]
		lo, hi := la.EdgeStart[m], la.EdgeStart[m+1]
		src := la.Src[la.SrcStart[m]:la.SrcStart[m+1]]
		mb.Blocks[l] = Block{
			Adj: spgemm.CSR{
				Rows:    len(ptr) - 1,
				Cols:    len(src),
				Indptr:  ptr,
				Indices: la.Indices[lo:hi:hi],
				Data:    la.Data[lo:hi:hi],
			},
			Src: src,
		}
		if la.Deg != nil {
			mb.Blocks[l].Deg = la.Deg[la.SrcStart[m]:la.SrcStart[m+1]]
		}
	}
	return mb
}

// SampledEdges returns the total number of entries of all blocks of the bulk
// (the numerator of SEPS, docs/design.md section 8).
func (b *Bulk) SampledEdges() int64 {
	var n int64
	for l := range b.Layers {
		n += int64(len(b.Layers[l].Indices))
	}
	return n
}

// Sampler samples the minibatches of an epoch in bulk. The node-wise, LADIES
// and FastGCN samplers implement it, and so may a user's own type; the
// trainer and the CLI accept any Sampler.
//
// SampleBulk samples the minibatches first, first+1, ..., first+len(seeds)-1
// of epoch, whose seed vertices are seeds[0], seeds[1], .... The result of a
// minibatch must depend only on (seed, epoch, its global index, its seeds),
// never on how minibatches are grouped into bulks.
type Sampler interface {
	SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error)
	// NumLayers returns the number of blocks each minibatch has.
	NumLayers() int
}

// Compile-time checks that the samplers of this package implement Sampler.
var (
	_ Sampler = (*NodeWise)(nil)
	_ Sampler = (*LayerWise)(nil)
	_ Sampler = (*Baseline)(nil)
)

// Release gives the bulk's arrays back to the sampler that returned it, to
// be reused by a later SampleBulk, when the caller is done with the bulk:
// neither the bulk nor any Minibatch or Block taken from it may be used
// afterwards (the bulk is emptied, but views taken earlier would see the
// next bulk's data). A trainer or any loop that drops each bulk after use
// should release it: the sampler then allocates nothing per bulk, and no
// bulk's output lands on fresh pages. Releasing a bulk twice, a bulk of a
// sampler that does not recycle, or a nil bulk does nothing.
func (b *Bulk) Release() {
	if b == nil || b.pool == nil {
		return
	}
	p := b.pool
	p.put(bulkArrays{seeds: b.Seeds, seedStart: b.SeedStart, layers: b.Layers})
	*b = Bulk{}
}

// bulkArrays are the arrays of a released bulk.
type bulkArrays struct {
	seeds     []int32
	seedStart []int
	layers    []LayerArrays
}

// maxPooledBulks is how many released bulks a sampler keeps: enough for a
// caller that holds one bulk while the next is sampled (a pipeline), few
// enough that releasing many bulks holds no more memory than two.
const maxPooledBulks = 2

// bulkPool keeps the arrays of released bulks for reuse. The zero value is
// ready; it is safe for concurrent use.
type bulkPool struct {
	mu   sync.Mutex
	free []bulkArrays
}

// get returns a bulk of l layers with the arrays of a released bulk, or
// none. Its arrays' contents are stale: the sampler overwrites them.
func (p *bulkPool) get(l int) *Bulk {
	b := &Bulk{}
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		a := p.free[n-1]
		p.free[n-1] = bulkArrays{}
		p.free = p.free[:n-1]
		b.Seeds, b.SeedStart, b.Layers = a.seeds[:0], a.seedStart[:0], a.layers
	}
	p.mu.Unlock()
	b.Layers = par.Resize(b.Layers, l)
	return b
}

func (p *bulkPool) put(a bulkArrays) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < maxPooledBulks {
		p.free = append(p.free, a)
	}
}
