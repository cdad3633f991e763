package gpu

// Bulk layer-wise sampling on a device (docs/design.md 3.2, sampling/layerwise.go):
// LADIES and FastGCN. Per layer, for all k minibatches at once:
//
//  1. LADIES' probabilities P = Q·(A∘A), one row per minibatch: each
//     minibatch's frontier is sorted (radix sort of (minibatch, vertex)),
//     the squares of its rows gathered, sorted stably by (minibatch,
//     column), and each column's run summed in float32 by one thread in
//     increasing frontier order (lw_psum): spgemm.Mul's accumulation, bit
//     for bit. FastGCN's row 1ᵀ·(A∘A) is the same for every minibatch and
//     is computed once, on the host, by sampling.AddColumnSquares.
//  2. lw_select: one thread per minibatch draws its columns from its row
//     (bs_select_row, weighted, SelectPerMinibatch's law) and sums the
//     row's positive values in column order (the normalisation's total).
//  3. lw_cols: the chosen columns' slots in F_{l+1} (a hash table of the
//     frontier) and their scales; lw_srcfront and lw_srcnew write F_{l+1}.
//  4. lw_ecount, lw_efill: each frontier row's entries in the chosen
//     columns (a hash table of them; hubs binary-searched), scaled, sorted
//     by slot and normalised (relabelRows, normalizeRows).
//
// Selection and the total are sequential per minibatch (k threads): they
// must add in column order to give the CPU's bits. Tuning them (a parallel
// key-bound pass, as chooseSplit does on the CPU) is left for later.

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
	// FastGCN: the row 1ᵀ·(A∘A) on the device, its length and its positive
	// sum (one float64, computed on the device in column order).
	fgCol, fgVal, fgTotal mem
	fgLen                 int64
}

var _ sampling.Sampler = (*LayerWise)(nil)

// NewLayerWise uploads the n x n adjacency a to d and returns its
// layer-wise sampler; with opt.Normalize (LADIES) it samples from
// D^-1/2 (A+I) D^-1/2, normalised on the host by the CPU's operator
// (spgemm.SymNormalizeWithSelfLoops), as sampling.NewLayerWise does. It
// returns the error sampling.NewLayerWise returns for bad options or
// graphs, and an error naming both sizes if the graph does not fit the
// device's free memory.
func NewLayerWise(d *Device, a *spgemm.CSR, opt sampling.LayerWiseOptions) (*LayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	normalize := opt.Normalize
	opt.Normalize = false
	if _, err := sampling.NewLayerWise(a, opt); err != nil { // the same checks as the CPU's
		return nil, err
	}
	if normalize { // LADIES over D^-1/2 (A+I) D^-1/2, the CPU's operator
		a = spgemm.SymNormalizeWithSelfLoops(a, opt.Threads)
	}
	if a.NNZ() > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: NewLayerWise: %d edges; the device sampler handles at most %d", a.NNZ(), math.MaxInt32)
	}
	opt.Budgets = append([]int(nil), opt.Budgets...)
	if len(opt.Budgets) == 0 {
		opt.Budgets = sampling.DefaultBudgets() // as the CPU's sampler
	}
	b, err := newBase(d, "LayerWise", len(opt.Budgets), a, true)
	if err != nil {
		return nil, err
	}
	s := &LayerWise{base: b, opt: opt}
	b.layersOn = s.layersOn
	if opt.Method == sampling.FastGCN {
		acc, touched := make([]float32, a.Rows), make([]bool, a.Rows)
		sampling.AddColumnSquares(sampling.CSRRows{A: a}, 0, a.Rows, acc, touched)
		fg := sampling.ColumnSquaresRow(acc, touched)
		err := d.do(func(ex executor) error {
			p := d.newPipe(ex, &b.garena)
			s.fgLen = fg.NNZ()
			s.fgCol, s.fgVal = put(p, "fg.col", fg.Indices), put(p, "fg.val", fg.Data)
			s.fgTotal = p.buf("fg.total", 8)
			p.launch("lw_total", 1, s.fgVal, s.fgLen, s.fgTotal)
			return p.err
		})
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("gpu: uploading FastGCN's column norms: %w", err)
		}
	}
	return s, nil
}

// layersOn is the pipeline of the file comment after the seeds'
// deduplication (base.layersOn): each layer.
func (s *LayerWise) layersOn(ctx context.Context, p *pipe, epoch, first int, k int64, b *DeviceBulk, front, frontStart mem, rows int64) *DeviceBulk {
	fs := b.SeedStart
	for l, budget := range s.opt.Budgets {
		if err := ctx.Err(); err != nil {
			p.setErr(err)
			return nil
		}
		la, src, srcStart, srcLen := s.layer(p, l, int64(budget), epoch, first, k, front, frontStart, rows, fs)
		b.Layers = append(b.Layers, la)
		front, frontStart, rows, fs = src, srcStart, srcLen, la.SrcStart
	}
	return b
}

// layer samples layer l (budget s) of the k minibatches whose frontiers
// are at front (offsets frontStart, fs on the host).
func (s *LayerWise) layer(p *pipe, l int, budget int64, epoch, first int, k int64, front, frontStart mem, rows int64, fs []int) (DeviceLayer, mem, mem, int64) {
	g, o := s.g, &s.opt
	n := int64(g.n)
	pre := fmt.Sprintf("L%d.", l)
	flags := int64(0)
	if o.Replace {
		flags |= 1 // BS_LW_REPLACE
	}
	if o.RowMean {
		flags |= 2 // BS_LW_ROWMEAN
	}
	if o.Unbiased {
		flags |= 4 // BS_LW_UNBIASED
	}

	// 1. The rows of P.
	pcol, pval, pStart, fgTotal := s.fgCol, s.fgVal, p.buf("lw.pstart", 8), s.fgTotal
	fgLen := s.fgLen
	if o.Method == sampling.FastGCN {
		flags |= 8 // BS_LW_FASTGCN
	} else {
		fgTotal = p.buf("lw.fgtotal", 8)
		keyBits := bitLen(uint64(k)*uint64(n) - 1)
		fk, fv := p.buf("lw.fkeys", rows*8), p.buf("lw.fvals", rows*4)
		p.launch("lw_fkeys", rows, front, frontStart, k, n, fk, fv)
		sorted, _ := p.sortPairs("lw.fsort", fk, fv, rows, keyBits)
		cnt := p.buf("lw.gcnt", rows*8)
		p.launch("lw_gdeg", rows, sorted, n, g.indptr, cnt)
		goff := p.scan("lw.goff", cnt, true, rows)
		ng := p.readI64(goff, rows)
		gk, gi, gv := p.buf("lw.gkeys", ng*8), p.buf("lw.gidx", ng*4), p.buf("lw.gval", ng*4)
		p.launch("lw_gather", rows, sorted, n, g.indptr, g.indices, g.data, goff, gk, gi, gv)
		sk, si := p.sortPairs("lw.gsort", gk, gi, ng, keyBits)
		heads := p.buf("lw.heads", ng*4)
		p.launch("lw_heads", ng, sk, heads)
		hscan := p.scan("lw.hscan", heads, false, ng)
		np := p.readI64(hscan, ng)
		pcol, pval = p.buf("lw.pcol", np*4), p.buf("lw.pval", np*4)
		p.launch("lw_psum", ng, sk, si, gv, hscan, n, pcol, pval)
		pStart = p.buf("lw.pstart", (k+1)*8)
		p.launch("lw_pstart", k+1, sk, ng, hscan, n, pStart)
	}

	// 2. Selection.
	kb := k * budget
	chosen, cpv, mult := p.buf("lw.chosen", kb*4), p.buf("lw.cpv", kb*4), p.buf("lw.mult", kb*4)
	ccnt, total := p.buf("lw.ccnt", k*4), p.buf("lw.total", k*8)
	d, hk := p.buf("lw.d", kb*4), p.buf("lw.hk", kb*8)
	p.launch("lw_select", k, pcol, pval, pStart, fgTotal, fgLen, frontStart, budget, flags, o.Seed, int64(epoch), int64(first), int64(l),
		chosen, cpv, mult, ccnt, total, d, hk)

	// 3. Slots, scales and F_{l+1}.
	ftsize := p.buf("lw.ftsize", k*8)
	p.launch("sd_table", k, frontStart, ftsize)
	ftoff := p.scan("lw.ftoff", ftsize, true, k)
	fkeys, fvals := p.tables("lw.ft", ftoff, k)
	p.launch("sd_insert", rows, front, frontStart, k, ftoff, fkeys, fvals)
	slot, scale, nextLen := p.buf("lw.slot", kb*4), p.buf("lw.scale", kb*8), p.buf("lw.nextlen", k*8)
	p.launch("lw_cols", k, chosen, cpv, mult, ccnt, total, budget, flags, frontStart, ftoff, fkeys, fvals, slot, scale, nextLen)
	srcStart := p.scan(pre+"srcStart", nextLen, true, k)
	ns := p.readI64(srcStart, k)
	src := p.buf(pre+"src", ns*4)
	ctsize := p.buf("lw.ctsize", k*8)
	p.launch("lw_srcfront", rows, front, frontStart, k, srcStart, src)
	p.launch("lw_srcnew", k, chosen, slot, ccnt, budget, frontStart, srcStart, src, ctsize)
	ctoff := p.scan("lw.ctoff", ctsize, true, k)
	ckeys, cvals := p.tables("lw.ct", ctoff, k)
	p.launch("lw_cinsert", kb, chosen, ccnt, budget, ctoff, ckeys, cvals)

	// 4. Extraction.
	ecnt := p.buf("lw.ecnt", rows*8)
	p.launch("lw_ecount", rows, front, frontStart, k, g.indptr, g.indices, chosen, ccnt, budget, ctoff, ckeys, cvals, ecnt)
	eoff := p.scan("lw.eoff", ecnt, true, rows)
	ne := p.readI64(eoff, rows)
	edgeStart := p.buf(pre+"edgeStart", (k+1)*8)
	p.launch("nw_mbinfo", k, frontStart, eoff, edgeStart, p.buf("lw.unused", k*8))
	indptr, indices, data := p.buf(pre+"indptr", (rows+k)*8), p.buf(pre+"indices", ne*4), p.buf(pre+"data", ne*4)
	p.launch("lw_efill", rows, front, frontStart, k, g.indptr, g.indices, g.data, chosen, slot, scale, ccnt, budget,
		ctoff, ckeys, cvals, flags, eoff, edgeStart, indptr, indices, data)
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
