package sampling

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// Baseline is a conventional per-minibatch node-wise sampler, written the
// way DGL's and PyG's CPU samplers work: one minibatch at a time, a hash
// map from global to local ids, rows appended as they are sampled. It draws
// from the same random stream with the same per-row selection as NodeWise,
// so it returns the same samples; it exists as the peer of benchmarks and as
// a second implementation for tests. With several threads, minibatches are
// spread over goroutines, each sampled by one of them (as data-loader
// worker processes do); a minibatch is never split.
type Baseline struct {
	src     RowSource
	opt     NodeWiseOptions
	stream  Stream
	threads int
}

// NewBaseline returns the baseline sampler of the adjacency a with the
// options of the node-wise sampler (MaxBulkEdges is ignored). It returns the
// errors NewNodeWise returns.
func NewBaseline(a *spgemm.CSR, opt NodeWiseOptions) (*Baseline, error) {
	// NewNodeWise checks the options and the matrix exactly as needed here.
	nw, err := NewNodeWise(a, opt)
	if err != nil {
		return nil, err
	}
	return &Baseline{src: nw.src, opt: nw.opt, stream: nw.stream, threads: nw.threads}, nil
}

// NumLayers returns the number of fanouts.
func (b *Baseline) NumLayers() int { return len(b.opt.Fanouts) }

// SampleBulk samples the minibatches one by one (see Sampler and
// NodeWise.SampleBulk, whose output it reproduces).
func (b *Baseline) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	n := b.src.NumVertices()
	for m, s := range seeds {
		for i, v := range s {
			if uint32(v) >= uint32(n) {
				return nil, fmt.Errorf("sampling: minibatch %d seed %d: vertex %d outside [0, %d)", first+m, i, v, n)
			}
		}
	}
	mbs := make([]Minibatch, len(seeds))
	threads := min(b.threads, len(seeds))
	sels := make([]rowSelector, max(threads, 1))
	var cancelled atomic.Bool
	par.For(len(seeds), threads, func(w, m int) {
		if ctx.Err() != nil {
			cancelled.Store(true)
			return
		}
		mbs[m] = b.sampleOne(&sels[w], epoch, first+m, seeds[m])
	})
	if cancelled.Load() {
		return nil, ctx.Err()
	}
	return BulkOf(first, mbs, len(b.opt.Fanouts)), nil
}

// sampleOne samples one minibatch.
func (b *Baseline) sampleOne(sel *rowSelector, epoch, mb int, seeds []int32) Minibatch {
	local := make(map[int32]int32, len(seeds))
	f := make([]int32, 0, len(seeds))
	for _, v := range seeds {
		if _, ok := local[v]; !ok {
			local[v] = int32(len(f))
			f = append(f, v)
		}
	}
	out := Minibatch{Index: mb, Seeds: f, Blocks: make([]Block, len(b.opt.Fanouts))}
	opt := SelectOptions{Weighted: b.opt.Weighted, Replace: b.opt.Replace}
	var sortBuf []uint64 // spgemm.SortPairs' scratch space
	expandFrom := 0
	for l, s := range b.opt.Fanouts {
		src := append([]int32(nil), f...)
		indptr := make([]int64, 1, len(f)+1)
		var indices []int32
		var data []float32
		for i, v := range f {
			if i >= expandFrom {
				cols, vals := b.src.Row(v)
				pos, mult := sel.choose(b.stream.Row(epoch, mb, l, v), cols, vals, s, opt)
				start := len(indices)
				for j, p := range pos {
					u := cols[p]
					id, ok := local[u]
					if !ok {
						id = int32(len(src))
						local[u] = id
						src = append(src, u)
					}
					wt := float32(1)
					if opt.Weighted {
						wt = vals[p]
					}
					indices = append(indices, id)
					data = append(data, pickValue(wt, mult, j))
				}
				if opt.Weighted {
					spgemm.NormalizeVec(data[start:])
				}
				sortBuf = spgemm.SortPairs(indices[start:], data[start:], sortBuf)
			}
			indptr = append(indptr, int64(len(indices)))
		}
		out.Blocks[l] = Block{
			Adj: spgemm.CSR{Rows: len(f), Cols: len(src), Indptr: indptr, Indices: indices, Data: data},
			Src: src,
		}
		if b.opt.Degrees {
			deg := make([]int32, len(src))
			for i, v := range src {
				cols, _ := b.src.Row(v)
				deg[i] = int32(len(cols))
			}
			out.Blocks[l].Deg = deg
		}
		if b.opt.Frontier == FrontierNew {
			expandFrom = len(f)
		}
		f = src
	}
	return out
}

// BulkOf stores minibatches, each with numLayers blocks, in one Bulk whose
// first minibatch has global index first, copying their arrays. It is how
// a sampler that produces minibatches one at a time (or a test) builds
// the Bulk that Sampler returns. A layer's Deg is kept when every
// minibatch's block of that layer has one. It panics with an
// spgemm.IndexError if a minibatch does not have numLayers blocks or a
// block's Deg is neither nil nor as long as its Src, and panics if an Index
// does not follow first in order.
func BulkOf(first int, mbs []Minibatch, numLayers int) *Bulk {
	b := &Bulk{First: first, SeedStart: make([]int, len(mbs)+1), Layers: make([]LayerArrays, numLayers)}
	hasDeg := make([]bool, numLayers)
	for l := range hasDeg {
		hasDeg[l] = len(mbs) > 0
		for m := range mbs {
			if l < len(mbs[m].Blocks) && mbs[m].Blocks[l].Deg == nil {
				hasDeg[l] = false
			}
		}
	}
	for l := range b.Layers {
		la := &b.Layers[l]
		la.PtrStart = make([]int, 1, len(mbs)+1)
		la.EdgeStart = make([]int64, 1, len(mbs)+1)
		la.SrcStart = make([]int, 1, len(mbs)+1)
		if hasDeg[l] {
			la.Deg = []int32{}
		}
	}
	for m := range mbs {
		mb := &mbs[m]
		if mb.Index != first+m {
			panic(spgemm.ArgError{Op: "sampling.BulkOf", Msg: fmt.Sprintf("minibatch %d has Index %d, want first+%d = %d", m, mb.Index, m, first+m)})
		}
		if len(mb.Blocks) != numLayers {
			panic(indexError("BulkOf: blocks of a minibatch", len(mb.Blocks), numLayers))
		}
		b.Seeds = append(b.Seeds, mb.Seeds...)
		b.SeedStart[m+1] = len(b.Seeds)
		for l := range b.Layers {
			la, blk := &b.Layers[l], &mb.Blocks[l]
			ptr := blk.Adj.Indptr
			if len(ptr) == 0 { // the zero CSR: 0 rows
				ptr = []int64{0}
			}
			la.Indptr = append(la.Indptr, ptr...)
			la.Indices = append(la.Indices, blk.Adj.Indices...)
			la.Data = append(la.Data, blk.Adj.Data...)
			la.Src = append(la.Src, blk.Src...)
			if hasDeg[l] {
				if len(blk.Deg) != len(blk.Src) {
					panic(indexError("BulkOf: Deg of a block", len(blk.Deg), len(blk.Src)))
				}
				la.Deg = append(la.Deg, blk.Deg...)
			}
			la.PtrStart = append(la.PtrStart, len(la.Indptr))
			la.EdgeStart = append(la.EdgeStart, int64(len(la.Indices)))
			la.SrcStart = append(la.SrcStart, len(la.Src))
		}
	}
	return b
}
