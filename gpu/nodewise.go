package gpu

// Bulk node-wise sampling on a device (docs/design.md 3.1, sampling/nodewise.go).
//
// The graph is uploaded once (NewNodeWise). A bulk is sampled layer by
// layer, every minibatch at once, in a fixed sequence of launches whose
// results come back to the host only as sizes (to size the next buffers):
//
//  1. nw_bound: each frontier row's selection bound (0 for the rows a
//     FrontierNew layer does not expand); a scan places the rows' picks;
//  2. nw_select: each row draws its picks with its row key (bs_select_row,
//     sampling's laws bit for bit), writing their global ids (and values);
//     a scan of the counts gives the entries' offsets;
//  3. deduplication: one hash table per minibatch (nw_mbinfo sizes them)
//     maps each vertex of the frontier and of the picks to the first
//     position where it occurs in "F_l, then the picks in row and column
//     order" (an atomic minimum, so the order of the threads does not
//     matter); nw_flag marks the picks that are such first occurrences of a
//     new vertex, and a scan of the flags numbers the new vertices in order
//     of first appearance;
//  4. nw_emit: each row writes its block row (local ids, values, sorted)
//     and the minibatch's sources F_{l+1} = F_l followed by the new
//     vertices, which are the next layer's frontier.
//
// The seeds are deduplicated the same way (first occurrences). The result
// is sampling.NodeWise's bit for bit (package gpu's tests run the
// conformance kit on the emulator; the cuda tests on a GPU).

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
// options or graphs, and an error naming both sizes if the graph does not
// fit the device's free memory.
func NewNodeWise(d *Device, a *spgemm.CSR, opt sampling.NodeWiseOptions) (*NodeWise, error) {
	if _, err := sampling.NewNodeWise(a, opt); err != nil { // the same checks as the CPU's
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

// layersOn is the pipeline of the file comment after the seeds'
// deduplication (base.layersOn).
func (s *NodeWise) layersOn(ctx context.Context, p *pipe, epoch, first int, k int64, b *DeviceBulk, front, frontStart mem, rows int64) *DeviceBulk {
	skip := p.buf("nw.skip", k*4)
	p.launch("fill_i32", k, skip, int64(0))
	fs := b.SeedStart
	for l, fan := range s.opt.Fanouts {
		if err := ctx.Err(); err != nil {
			p.setErr(err)
			return nil
		}
		la, src, srcStart, srcLen := s.layer(p, l, int64(fan), epoch, first, k, front, frontStart, rows, skip, fs)
		if s.opt.Frontier == sampling.FrontierNew {
			p.launch("nw_skip", k, frontStart, skip)
		}
		b.Layers = append(b.Layers, la)
		front, frontStart, rows, fs = src, srcStart, srcLen, la.SrcStart
	}
	if s.opt.Degrees {
		for l := range b.Layers {
			la := &b.Layers[l]
			deg := p.buf(fmt.Sprintf("L%d.deg", l), la.Src.n*4)
			p.launch("nw_deg", la.Src.n, la.Src.m, s.g.indptr, deg)
			la.Deg = arrayOf[int32](deg, la.Src.n)
		}
	}
	return b
}

// layer samples layer l (fanout fan) of the k minibatches whose frontiers
// are the rows at front (offsets frontStart, on the host fs) and returns
// its arrays, its sources F_{l+1} and their offsets and number.
func (s *NodeWise) layer(p *pipe, l int, fan int64, epoch, first int, k int64, front, frontStart mem, rows int64, skip mem, fs []int) (DeviceLayer, mem, mem, int64) {
	g, o := s.g, &s.opt
	pre := fmt.Sprintf("L%d.", l)
	flags := int64(0)
	if o.Weighted {
		flags |= 1 // BS_NW_WEIGHTED
	}
	if o.Replace {
		flags |= 2 // BS_NW_REPLACE
	}
	if o.Weighted || o.Replace {
		flags |= 4 // BS_NW_VALUES
	}
	bound, rowmb := p.buf("nw.bound", rows*8), p.buf("nw.rowmb", rows*4)
	p.launch("nw_bound", rows, front, frontStart, k, skip, g.indptr, fan, bound, rowmb)
	boff := p.scan("nw.boff", bound, true, rows)
	nb := p.readI64(boff, rows)

	picks, pvals, cnt := p.buf("nw.picks", nb*4), p.buf("nw.pvals", nb*4), p.buf("nw.cnt", rows*4)
	iscr, fscr := p.buf("nw.iscratch", 4), p.buf("nw.fscratch", 8)
	if o.Replace && fan > 0 {
		iscr = p.buf("nw.iscratch", rows*2*fan*4)
	}
	if o.Weighted && fan > 0 {
		fscr = p.buf("nw.fscratch", rows*fan*8)
	}
	p.launch("nw_select", rows, front, rowmb, frontStart, skip, g.indptr, g.indices, g.data, fan, flags,
		o.Seed, int64(epoch), int64(first), int64(l), boff, picks, pvals, cnt, iscr, fscr)
	eoff := p.scan("nw.eoff", cnt, false, rows)
	ne := p.readI64(eoff, rows)

	edgeStart, tsize := p.buf(pre+"edgeStart", (k+1)*8), p.buf("nw.tsize", k*8)
	p.launch("nw_mbinfo", k, frontStart, eoff, edgeStart, tsize)
	toff := p.scan("nw.toff", tsize, true, k)
	keys, vals := p.tables("nw", toff, k)
	p.launch("nw_insert", rows, front, rowmb, frontStart, eoff, boff, picks, edgeStart, toff, keys, vals)
	flag := p.buf("nw.flag", ne*4)
	p.launch("nw_flag", rows, rowmb, frontStart, eoff, boff, picks, edgeStart, toff, keys, vals, flag)
	fscan := p.scan("nw.fscan", flag, false, ne)
	srclen := p.buf("nw.srclen", k*8)
	p.launch("nw_srclen", k, frontStart, edgeStart, fscan, srclen)
	srcStart := p.scan(pre+"srcStart", srclen, true, k)
	ns := p.readI64(srcStart, k)

	indptr, indices, data, src := p.buf(pre+"indptr", (rows+k)*8), p.buf(pre+"indices", ne*4), p.buf(pre+"data", ne*4), p.buf(pre+"src", ns*4)
	p.launch("nw_emit", rows, front, rowmb, frontStart, eoff, boff, picks, pvals, edgeStart, toff, keys, vals, fscan, srcStart,
		flags, indptr, indices, data, src)
	p.launch("nw_mbend", k, frontStart, edgeStart, indptr)

	la := DeviceLayer{Indptr: arrayOf[int64](indptr, rows+k), Indices: arrayOf[int32](indices, ne), Data: arrayOf[float32](data, ne),
		Src: arrayOf[int32](src, ns)}
	la.PtrStart = make([]int, k+1)
	for m := range la.PtrStart {
		la.PtrStart[m] = fs[m] + m
	}
	la.EdgeStart = p.fetchI64(edgeStart, k+1)
	la.SrcStart = toInts(p.fetchI64(srcStart, k+1))
	return la, src, srcStart, ns
}
