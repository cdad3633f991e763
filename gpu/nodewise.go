package gpu

// Bulk node-wise sampling on a device (docs/design.md 3.1, sampling/nodewise.go).
//
// The graph is uploaded once (NewNodeWise). A bulk's seeds are
// deduplicated on the host (sampling.SeedDedup, the CPU's order) and
// uploaded in one copy; then each layer is three launches for every
// minibatch at once, and one copy back of the minibatches' offsets
// (internal/cuda/kernels/bs_nodewise.h says what each kernel does):
//
//  1. nw_select: each row's picks counted, their offsets by a single-pass
//     scan, the picks drawn with the row's key (sampling's laws bit for
//     bit) and entered, with the frontier, in the minibatch's hash table,
//     each with its first position (one probe per pick);
//  2. nw_flag: the picks that are a vertex's first appearance, numbered
//     in order by a second scan, written to the sources F_{l+1};
//  3. nw_emit: the block rows (local columns, values, sorted), the
//     frontier's sources, the minibatches' offsets, and the tables
//     cleared for the next layer.
//
// Buffers are sized on the host from bounds (a row's picks are at most
// its fanout), so no size comes back before a layer ends; a fanout of -1
// (every neighbour) adds a launch and a copy (nw_bound, the rows'
// degrees). The result is sampling.NodeWise's bit for bit (package gpu's
// tests run the conformance kit on the emulator; the cuda tests on a GPU).

import (
	"context"
	"fmt"
	"math"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// NodeWise is sampling.NodeWise on a device: the same options and the
// same samples bit for bit, with the graph uploaded once and the blocks
// built on the device. NodeWiseOptions.Threads and MaxBulkEdges do not
// apply (a bulk is sampled in one group, bounded by the device's memory).
// Its methods are safe for concurrent use but run one at a time.
type NodeWise struct {
	*base
	opt sampling.NodeWiseOptions
}

var _ sampling.Sampler = (*NodeWise)(nil)

// NewNodeWise uploads the n x n adjacency a to d and returns its node-wise
// sampler. It returns the error sampling.NewNodeWise returns for bad
// options or graphs (the same checks: NodeWiseOptions.Validate and
// CheckAdjacency), and an error naming both sizes if the graph does not
// fit the device's free memory.
func NewNodeWise(d *Device, a *spgemm.CSR, opt sampling.NodeWiseOptions) (*NodeWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := opt.CheckAdjacency(a); err != nil {
		return nil, err
	}
	if a.NNZ() > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: NewNodeWise: %d edges; the device sampler handles at most %d", a.NNZ(), math.MaxInt32)
	}
	opt.Fanouts = append([]int(nil), opt.Fanouts...)
	b, err := newBase(d, "NodeWise", len(opt.Fanouts), a, opt.Weighted)
	if err != nil {
		return nil, err
	}
	s := &NodeWise{base: b, opt: opt}
	b.layersOn = s.layersOn
	return s, nil
}

// layersOn is the pipeline of the file comment after the seeds' upload
// (base.layersOn).
func (s *NodeWise) layersOn(ctx context.Context, p *pipe, epoch, first int, k int64, b *DeviceBulk, front, frontStart mem, rows int64) *DeviceBulk {
	var prevStart mem // FrontierNew: the frontier's offsets at the layer before
	fs := b.SeedStart
	for l, fan := range s.opt.Fanouts {
		if err := ctx.Err(); err != nil {
			p.setErr(err)
			return nil
		}
		la, src, srcStart, srcLen := s.layer(p, l, int64(fan), epoch, first, k, front, frontStart, prevStart, rows, fs)
		if p.err != nil {
			return nil
		}
		if s.opt.Frontier == sampling.FrontierNew {
			prevStart = frontStart
		}
		b.Layers = append(b.Layers, la)
		front, frontStart, rows, fs = src, srcStart, srcLen, la.SrcStart
	}
	return b
}

// Flags of the layer kernels (bs_nodewise.h).
const (
	nwWeighted = 1 << iota
	nwReplace
	nwValues
	nwDegrees
)

// nwLocal is BS_NW_LOCAL: larger fanouts select in global scratch.
const nwLocal = 32

// layer samples layer l (fanout fan) of the k minibatches whose frontiers
// are the rows at front (offsets frontStart, on the host fs), expanding
// only the rows after prevStart's frontiers when prevStart is set, and
// returns its arrays, its sources F_{l+1} and their offsets and number.
func (s *NodeWise) layer(p *pipe, l int, fan int64, epoch, first int, k int64, front, frontStart, prevStart mem, rows int64, fs []int) (DeviceLayer, mem, mem, int64) {
	g, o := s.g, &s.opt
	pre := fmt.Sprintf("L%d.", l)
	la := DeviceLayer{PtrStart: make([]int, k+1)}
	for m := range la.PtrStart {
		la.PtrStart[m] = fs[m] + m
	}
	indptr := p.buf(pre+"indptr", (rows+k)*8)
	if rows == 0 { // every frontier empty: every block is one row offset, 0
		p.launch("fill_i64", k, indptr, int64(0))
		la.Indptr, la.EdgeStart, la.SrcStart = arrayOf[int64](indptr, k), make([]int64, k+1), make([]int, k+1)
		return la, p.buf(pre+"src", 4), p.buf(pre+"summary", 8*(k+1)), 0
	}
	flags := int64(0)
	if o.Weighted {
		flags |= nwWeighted
	}
	if o.Replace {
		flags |= nwReplace
	}
	if o.Weighted || o.Replace {
		flags |= nwValues
	}
	if o.Degrees {
		flags |= nwDegrees
	}
	nt := tiles(rows)
	ctl, status := p.lookBack(max(nt, tiles(k+1)))
	// The kernels' parameters after n (bs_nw_p), some set below.
	args := []any{rows, k, fan, flags, o.Seed, int64(epoch), int64(first), int64(l), front, frontStart, prevStart,
		g.indptr, g.indices, g.data, mem{}, mem{}, int64(0), mem{}, mem{}, mem{}, mem{}, mem{}, mem{},
		indptr, mem{}, mem{}, mem{}, mem{}, mem{}, ctl, status}
	const aBoff, aTable, aTslots, aEoff, aPickslot, aNewBefore, aNewidx, aIscratch, aFscratch = 14, 15, 16, 17, 18, 19, 20, 21, 22
	const aIndices, aData, aSrc, aDeg, aSummary = 24, 25, 26, 27, 28
	ecap := rows * fan // the picks are at most the fanout a row
	if fan < 0 {       // every neighbour: the rows' degrees bound them
		boff := p.buf("nw.boff", (rows+1)*8)
		args[aBoff] = boff
		p.launch("nw_bound", nt, args...)
		ecap = p.readI64(boff, rows)
	}
	if rows+ecap >= math.MaxUint32/2 || ecap > math.MaxInt32 {
		p.setErr(fmt.Errorf("gpu: NodeWise: layer %d of a bulk of %d minibatches: %d frontier rows with up to %d picks; the device sampler handles at most %d in a layer",
			l, k, rows, ecap, math.MaxInt32))
		return la, mem{}, mem{}, 0
	}
	tslots := 3 * (rows + ecap) / 2 // BS_NW_SLOTS
	args[aTable], args[aTslots] = p.bufZero("nw.table", tslots*8), tslots
	args[aEoff], args[aNewBefore] = p.buf("nw.eoff", (rows+1)*4), p.buf("nw.newbefore", (rows+1)*4)
	args[aPickslot], args[aNewidx] = p.buf("nw.pickslot", ecap*4), p.buf("nw.newidx", ecap*4)
	if fan > nwLocal {
		args[aIscratch] = p.buf("nw.iscratch", rows*3*fan*4)
		if o.Weighted {
			args[aFscratch] = p.buf("nw.fscratch", rows*fan*8)
		}
	}
	indices, data, src := p.buf(pre+"indices", ecap*4), p.buf(pre+"data", ecap*4), p.buf(pre+"src", (rows+ecap)*4)
	summary := p.buf(pre+"summary", 2*(k+1)*8)
	args[aIndices], args[aData], args[aSrc], args[aSummary] = indices, data, src, summary
	var deg mem
	if o.Degrees {
		deg = p.buf(pre+"deg", (rows+ecap)*4)
		args[aDeg] = deg
	}
	p.launch("nw_select", nt, args...)
	p.launch("nw_flag", nt, args...)
	p.launch("nw_emit", max(nt, tiles(k+1)), args...)

	sum := p.fetchI64(summary, 2*(k+1)) // the layer's one copy back
	if p.err != nil {
		return la, mem{}, mem{}, 0
	}
	ne, ns := sum[k], sum[2*k+1]
	la.Indptr, la.Indices, la.Data, la.Src = arrayOf[int64](indptr, rows+k), arrayOf[int32](indices, ne), arrayOf[float32](data, ne),
		arrayOf[int32](src, ns)
	if o.Degrees {
		la.Deg = arrayOf[int32](deg, ns)
	}
	la.EdgeStart = sum[:k+1]
	la.SrcStart = toInts(sum[k+1:])
	return la, src, summary.at((k + 1) * 8), ns
}
