package gpu

// Bulk layer-wise sampling on a device (docs/design.md 3.2, sampling/layerwise.go):
// LADIES and FastGCN. Per layer, for all k minibatches at once, block
// kernels of internal/cuda/kernels/bs_layerwise.h (which says what each
// computes, bit for bit as the CPU):
//
//  1. lw_sort: each minibatch's frontier sorted by vertex (a block per
//     minibatch);
//  2. LADIES' probabilities P = Q·(A∘A), one row per minibatch: lw_gdeg
//     (the sorted rows' degrees scanned: the one size read back before
//     the layer ends), lw_gather (a warp per row: the squares), lw_sort by
//     column and lw_psum (each column's squares summed in increasing
//     frontier order, spgemm.Mul's accumulation). FastGCN's row
//     1ᵀ·(A∘A), the same for every minibatch, is computed once on the host
//     by sampling.ColumnSquares, with its total (sampling.PositiveSum);
//  3. lw_select: each minibatch's columns (SelectPerMinibatch's law) and
//     its row's total, by a block;
//  4. lw_cols: the columns' slots in F_{l+1} and scales, F_{l+1};
//  5. lw_ecount, lw_efill: the blocks (relabelRows, normalizeRows), and
//     the minibatches' offsets, the layer's copy back to the host.
//
// A LADIES layer is thus 9 launches and 2 copies back, a FastGCN layer 5
// launches and one copy, whatever k.

import (
	"context"
	"fmt"
	"math"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// LayerWise is sampling.LayerWise (LADIES or FastGCN) on a device: the
// same options and samples bit for bit. LayerWiseOptions.Semibulk and
// Threads do not apply. Its methods are safe for concurrent use but run one
// at a time.
type LayerWise struct {
	*base
	opt sampling.LayerWiseOptions
	// FastGCN: the row 1ᵀ·(A∘A) on the device, its length, its positive
	// entries and their sum in column order.
	fgCol, fgVal  mem
	fgLen, fgNpos int64
	fgTotal       float64
	keyPasses     int64 // lw_sort's passes: the bytes of a vertex id
	// fingerprint is the CPU sampler's of the options given (opt has
	// Normalize cleared once the matrix is normalised).
	fingerprint sampling.Fingerprint
}

var _ sampling.Sampler = (*LayerWise)(nil)

// NewLayerWise uploads the n x n adjacency a to d and returns its
// layer-wise sampler; with opt.Normalize (LADIES) it samples from
// D^-1/2 (A+I) D^-1/2, normalised on the host by the CPU's operator
// (spgemm.SymNormalizeWithSelfLoops), as sampling.NewLayerWise does. It
// returns the error sampling.NewLayerWise returns for bad options or
// graphs (the same checks: LayerWiseOptions.Validate and CheckAdjacency),
// and an error naming both sizes if the graph does not fit the device's
// free memory.
func NewLayerWise(d *Device, a *spgemm.CSR, opt sampling.LayerWiseOptions) (*LayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := opt.CheckAdjacency(a); err != nil {
		return nil, err
	}
	opt.Budgets = append([]int(nil), opt.Budgets...)
	if len(opt.Budgets) == 0 {
		opt.Budgets = sampling.DefaultBudgets() // as the CPU's sampler
	}
	fingerprint := opt.Fingerprint()
	if opt.Normalize { // LADIES over D^-1/2 (A+I) D^-1/2, the CPU's operator
		a = spgemm.SymNormalizeWithSelfLoops(a, opt.Threads)
		opt.Normalize = false // a holds the normalised values now
	}
	if a.NNZ() > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: NewLayerWise: %d edges; the device sampler handles at most %d", a.NNZ(), math.MaxInt32)
	}
	b, err := newBase(d, "LayerWise", len(opt.Budgets), a, true)
	if err != nil {
		return nil, err
	}
	s := &LayerWise{base: b, opt: opt, fingerprint: fingerprint, keyPasses: int64(max((bitLen(uint64(max(a.Rows-1, 0)))+7)/8, 1))}
	b.layersOn = s.layersOn
	if opt.Method == sampling.FastGCN {
		fg := sampling.ColumnSquares(a) // the CPU's row, computed once
		s.fgLen, s.fgTotal = fg.NNZ(), sampling.PositiveSum(fg.Data)
		for _, v := range fg.Data {
			if v > 0 {
				s.fgNpos++
			}
		}
		err := d.do(func(ex executor) error {
			p := d.newPipe(ex, &b.garena)
			s.fgCol, s.fgVal = put(p, "fg.col", fg.Indices), put(p, "fg.val", fg.Data)
			p.setErr(p.ex.syncStream()) // as the graph's (uploadGraph)
			return p.err
		})
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("gpu: uploading FastGCN's column norms: %w", err)
		}
	}
	return s, nil
}

// layersOn is the pipeline of the file comment after the seeds' upload
// (base.layersOn): each layer.
func (s *LayerWise) layersOn(ctx context.Context, p *pipe, epoch, first int, k int64, b *DeviceBulk, front, frontStart mem, rows int64) *DeviceBulk {
	fs := b.SeedStart
	for l, budget := range s.opt.Budgets {
		if err := ctx.Err(); err != nil {
			p.setErr(err)
			return nil
		}
		la, src, srcStart, srcLen := s.layer(p, l, int64(budget), epoch, first, k, front, frontStart, rows, fs)
		if p.err != nil {
			return nil
		}
		b.Layers = append(b.Layers, la)
		front, frontStart, rows, fs = src, srcStart, srcLen, la.SrcStart
	}
	return b
}

// Flags of the layer-wise kernels (bs_layerwise.h).
const (
	lwReplace = 1 << iota
	lwRowMean
	lwUnbiased
	lwFastGCN
)

// layer samples layer l (budget s) of the k minibatches whose frontiers
// are at front (offsets frontStart, fs on the host).
func (s *LayerWise) layer(p *pipe, l int, budget int64, epoch, first int, k int64, front, frontStart mem, rows int64, fs []int) (DeviceLayer, mem, mem, int64) {
	g, o := s.g, &s.opt
	pre := fmt.Sprintf("L%d.", l)
	la := DeviceLayer{PtrStart: make([]int, k+1)}
	for m := range la.PtrStart {
		la.PtrStart[m] = fs[m] + m
	}
	indptr := p.buf(pre+"indptr", (rows+k)*8)
	if rows == 0 { // every frontier empty: no columns, every block one row offset
		p.launch("fill_i64", k, indptr, int64(0))
		la.Indptr, la.EdgeStart, la.SrcStart = arrayOf[int64](indptr, k), make([]int64, k+1), make([]int, k+1)
		return la, p.buf(pre+"src", 4), p.buf(pre+"summary", 8*(k+1)), 0
	}
	flags := int64(0)
	if o.Replace {
		flags |= lwReplace
	}
	if o.RowMean {
		flags |= lwRowMean
	}
	if o.Unbiased {
		flags |= lwUnbiased
	}
	kb := k * budget
	if rows+kb >= math.MaxInt32 || rows*budget >= math.MaxInt32 {
		p.setErr(fmt.Errorf("gpu: LayerWise: layer %d of a bulk of %d minibatches: %d frontier rows and budget %d; the device sampler handles at most %d entries in a layer",
			l, k, rows, budget, math.MaxInt32))
		return la, mem{}, mem{}, 0
	}
	ctl, status := p.lookBack(max(tiles(rows), tiles(k+1), k))

	// 1. The frontiers sorted by vertex, a minibatch at a time.
	fa, fb := p.buf("lw.fsort.a", rows*8), p.buf("lw.fsort.b", rows*8)
	p.launch("lw_sort", k, frontStart, front, mem{}, fa, fa.at(rows*4), fb, fb.at(rows*4), s.keyPasses, ctl, status)
	skeys := fb
	if s.keyPasses%2 == 1 {
		skeys = fa
	}
	svals := skeys.at(rows * 4)

	// 2. The rows of P.
	pcol, pval, pStart := s.fgCol, s.fgVal, mem{}
	if o.Method == sampling.FastGCN {
		flags |= lwFastGCN
	} else {
		goff, gstart := p.buf("lw.goff", (rows+1)*8), p.buf("lw.gstart", (k+1)*8)
		p.launch("lw_gdeg", tiles(rows), rows, k, frontStart, skeys, g.indptr, goff, gstart, ctl, status)
		ng := p.readI64(goff, rows)
		pStart = p.buf("lw.pstart", (k+1)*8)
		pcol, pval = p.buf("lw.pcol", ng*4), p.buf("lw.pval", ng*4)
		if ng == 0 {
			p.launch("fill_i64", k+1, pStart, int64(0))
		} else {
			gk, gv := p.buf("lw.gkeys", ng*4), p.buf("lw.gval", ng*4)
			p.launch("lw_gather", rows*32, skeys, g.indptr, g.indices, g.data, goff, gk, gv)
			ga, gb := p.buf("lw.gsort.a", ng*8), p.buf("lw.gsort.b", ng*8)
			p.launch("lw_sort", k, gstart, gk, mem{}, ga, ga.at(ng*4), gb, gb.at(ng*4), s.keyPasses, ctl, status)
			gs := gb
			if s.keyPasses%2 == 1 {
				gs = ga
			}
			ctl, status := p.lookBack(tiles(ng))
			p.launch("lw_psum", tiles(ng), ng, k, gstart, gs, gs.at(ng*4), gv, pcol, pval, pStart, ctl, status)
		}
	}

	// 3. Selection.
	chosen, cpv, mult := p.buf("lw.chosen", kb*4), p.buf("lw.cpv", kb*4), p.buf("lw.mult", kb*4)
	ccnt, total := p.buf("lw.ccnt", k*4), p.buf("lw.total", k*8)
	d, hk := p.buf("lw.d", kb*4), p.buf("lw.hk", kb*8)
	ctl, status = p.lookBack(max(tiles(rows), tiles(k+1), k)) // psum's may have moved them
	p.launch("lw_select", k, pcol, pval, pStart, s.fgLen, s.fgTotal, s.fgNpos, frontStart, budget, flags, o.Seed, int64(epoch),
		int64(first), int64(l), chosen, cpv, mult, ccnt, total, d, hk, ctl, status)

	// 4. Slots, scales and F_{l+1}.
	slot, scale := p.buf("lw.slot", kb*4), p.buf("lw.scale", kb*8)
	src, summary := p.buf(pre+"src", (rows+kb)*4), p.buf(pre+"summary", 2*(k+1)*8)
	p.launch("lw_cols", k, k, chosen, cpv, mult, ccnt, total, budget, flags, front, frontStart, skeys, svals, slot, scale, src, summary,
		ctl, status)

	// 5. Extraction.
	ecap := rows * budget // a row meets at most its minibatch's columns
	eoff := p.buf("lw.eoff", (rows+1)*8)
	indices, data := p.buf(pre+"indices", ecap*4), p.buf(pre+"data", ecap*4)
	args := []any{rows, k, front, frontStart, g.indptr, g.indices, g.data, chosen, slot, scale, ccnt, budget, flags, eoff, indptr,
		indices, data, summary, ctl, status}
	p.launch("lw_ecount", tiles(rows), args...)
	p.launch("lw_efill", max(tiles(rows), tiles(k+1)), args...)

	sum := p.fetchI64(summary, 2*(k+1)) // the layer's copy back
	if p.err != nil {
		return la, mem{}, mem{}, 0
	}
	ne, ns := sum[k], sum[2*k+1]
	la.Indptr, la.Indices, la.Data, la.Src = arrayOf[int64](indptr, rows+k), arrayOf[int32](indices, ne), arrayOf[float32](data, ne),
		arrayOf[int32](src, ns)
	la.EdgeStart = sum[:k+1]
	la.SrcStart = toInts(sum[k+1:])
	return la, src, summary.at((k + 1) * 8), ns
}
