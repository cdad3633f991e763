package gnn

import (
	"math"

	"github.com/bulksample/bulksample/spgemm"
)

// The layer math of SAGE, GCN and Linear, written once against Backend:
// Model.Forward applies it to a sampled block (all of a minibatch's
// destinations at once), Model.Predict to row chunks of the full adjacency.
// Layers aggregate before they transform: a sampled block has many more
// sources than destinations, so multiplying the rows x fin aggregate by W
// costs less than multiplying all the sources' inputs (DGL's lin_before_mp
// rule assumes nSrc = nDst). When the input features are sparse the first
// layer transforms first (transformSparse, then forwardSparse), so that its
// cost follows the nonzeros.

// layerIO is one application of a layer to a set of destination rows.
type layerIO struct {
	rows int         // the number of destinations
	adj  *spgemm.CSR // rows x sources, normalised values (nil for Linear)
	self Buf         // GCN: the self-loop weight of each destination
	// Dense inputs: all sources' (sources x fin) and the destinations' own
	// (rows x fin, rows of in).
	in, inDst Buf
	// Sparse inputs: the destinations' own (rows x fin), and the sources'
	// inputs transformed by transformSparse (sources x fout) with its
	// destination rows.
	xsDst   *spgemm.CSR
	t, tDst Buf
	agg     Buf // scratch: rows x fin (dense path), rows x fout (sparse SAGE)
	out     Buf // rows x fout: the pre-activation
}

// forwardDense sets io.out from dense inputs:
//
//	SAGE:   out = in_dst·W_self + (Â·in)·W_neigh + b
//	GCN:    out = (Â·in + self·in_dst)·W + b
//	Linear: out = in_dst·W + b
func forwardDense(be Backend, arch Arch, w *weights, fin, fout int, io *layerIO) {
	n := io.rows
	switch arch {
	case Linear:
		be.Gemm(false, false, n, fout, fin, 1, io.inDst, w.w1, 0, io.out)
	case SAGE:
		be.SpMM(io.agg, io.adj, io.in, fin)
		be.Gemm(false, false, n, fout, fin, 1, io.inDst, w.w1, 0, io.out)
		be.Gemm(false, false, n, fout, fin, 1, io.agg, w.w2, 1, io.out)
	case GCN:
		be.SpMM(io.agg, io.adj, io.in, fin)
		be.AddRowScaled(io.agg, io.self, io.inDst, fin)
		be.Gemm(false, false, n, fout, fin, 1, io.agg, w.w1, 0, io.out)
	}
	be.AddBias(io.out, w.b)
}

// transformSparse sets t = xs·W_neigh (SAGE) or xs·W (GCN) for the sparse
// inputs xs of all sources: the transform forwardSparse aggregates.
func transformSparse(be Backend, arch Arch, w *weights, fout int, t Buf, xs *spgemm.CSR) {
	switch arch {
	case SAGE:
		be.SpMM(t, xs, w.w2, fout)
	case GCN:
		be.SpMM(t, xs, w.w1, fout)
	}
}

// forwardSparse sets io.out from sparse inputs, transformed first:
//
//	SAGE:   out = x_dst·W_self + Â·t + b
//	GCN:    out = Â·t + self·t_dst + b
//	Linear: out = x_dst·W + b
//
// With sparse x the products x·W cost nnz(x)·fout and the aggregation
// nnz(Â)·fout, instead of nnz(Â)·fin and rows·fin·fout for dense inputs.
func forwardSparse(be Backend, arch Arch, w *weights, fout int, io *layerIO) {
	switch arch {
	case Linear:
		be.SpMM(io.out, io.xsDst, w.w1, fout)
	case SAGE:
		be.SpMM(io.out, io.adj, io.t, fout)
		be.SpMM(io.agg, io.xsDst, w.w1, fout)
		be.Add(io.out, io.agg)
	case GCN:
		be.SpMM(io.out, io.adj, io.t, fout)
		be.AddRowScaled(io.out, io.self, io.tDst, fout)
	}
	be.AddBias(io.out, w.b)
}

// backwardLayer sets l's gradients from dOut (nDst x fout) and, when needIn,
// l.dIn (nSrc x fin), the gradient with respect to l.in.
func (m *Model) backwardLayer(l *layer, dOut Buf, needIn bool) {
	be := m.be
	be.ColSums(l.gb, dOut)
	inDst := l.in.Slice(0, l.nDst*l.fin)
	switch m.opt.Arch {
	case Linear:
		be.Gemm(true, false, l.fin, l.fout, l.nDst, 1, l.in, dOut, 0, l.g1)
	case SAGE:
		be.Gemm(true, false, l.fin, l.fout, l.nDst, 1, inDst, dOut, 0, l.g1)
		be.Gemm(true, false, l.fin, l.fout, l.nDst, 1, l.agg, dOut, 0, l.g2)
		if needIn {
			m.aggregateGrad(l, dOut, l.w.w2)
			// The self term: dIn_dst += dOut·W_selfᵀ.
			be.Gemm(false, true, l.nDst, l.fin, l.fout, 1, dOut, l.w.w1, 1, l.dIn.Slice(0, l.nDst*l.fin))
		}
	case GCN:
		be.Gemm(true, false, l.fin, l.fout, l.nDst, 1, l.agg, dOut, 0, l.g1)
		if needIn {
			m.aggregateGrad(l, dOut, l.w.w1)
			be.AddRowScaled(l.dIn, l.selfB, l.dAgg, l.fin)
		}
	}
}

// aggregateGrad sets l.dAgg = dOut·wᵀ, the gradient with respect to the
// aggregate, and l.dIn = Âᵀ·dAgg, its part of the input gradient.
func (m *Model) aggregateGrad(l *layer, dOut, w Buf) {
	be := m.be
	l.dAgg = growBuf(be, l.dAgg, l.nDst*l.fin)
	be.Gemm(false, true, l.nDst, l.fin, l.fout, 1, dOut, w, 0, l.dAgg)
	l.dIn = growBuf(be, l.dIn, l.nSrc*l.fin)
	be.SpMMT(l.dIn, &l.adj, l.dAgg, l.fin)
}

// backwardSparse sets the gradients of a layer that took the sparse-input
// path (it has no input gradient: it is the first layer).
func (m *Model) backwardSparse(l *layer, dOut Buf) {
	be := m.be
	be.ColSums(l.gb, dOut)
	switch m.opt.Arch {
	case Linear:
		be.SpMMT(l.g1, &l.xsDst, dOut, l.fout)
	case SAGE:
		be.SpMMT(l.g1, &l.xsDst, dOut, l.fout)
		l.dT = growBuf(be, l.dT, l.nSrc*l.fout)
		be.SpMMT(l.dT, &l.adj, dOut, l.fout)
		be.SpMMT(l.g2, &l.xs, l.dT, l.fout)
	case GCN:
		l.dT = growBuf(be, l.dT, l.nSrc*l.fout)
		be.SpMMT(l.dT, &l.adj, dOut, l.fout)
		be.AddRowScaled(l.dT, l.selfB, dOut, l.fout)
		be.SpMMT(l.g1, &l.xs, l.dT, l.fout)
	}
}

// normalize sets l.adj to blk with the values the architecture aggregates
// with (see the package documentation), and l.self to GCN's self-loop
// weights.
func (m *Model) normalize(l *layer, blk *spgemm.CSR) {
	l.norm = grow(l.norm, len(blk.Data))
	l.adj = spgemm.CSR{Rows: blk.Rows, Cols: blk.Cols, Indptr: blk.Indptr, Indices: blk.Indices, Data: l.norm}
	switch m.opt.Arch {
	case SAGE:
		copy(l.norm, blk.Data)
		m.be.NormalizeRows(&l.adj)
		l.self = l.self[:0]
	case GCN:
		l.self = grow(l.self, blk.Rows)
		m.degs = gcnNormalize(l.norm, l.self, blk, m.degs)
	}
	l.selfB = hostView(m.be, l.self, &l.selfUp)
}

// gcnNormalize writes the values GCN aggregates block a with into norm, and
// the weights of the self loops a does not store into self (one per
// destination row): D_r^-1/2 (A+I) D_c^-1/2 with the block's own degrees
// when every value of a is 1 (symNormalize); a's values as given, and no
// self loop, otherwise (LADIES and FastGCN blocks carry their
// normalisation). degs is scratch, returned for reuse.
func gcnNormalize(norm, self []float32, a *spgemm.CSR, degs []float64) []float64 {
	if allOnes(a.Data) {
		return symNormalize(norm, self, a, degs)
	}
	copy(norm, a.Data)
	clear(self)
	return degs
}

func allOnes(v []float32) bool {
	for _, x := range v {
		if x != 1 {
			return false
		}
	}
	return true
}

// symNormalize writes the values of D_r^-1/2 (A+I) D_c^-1/2 for the
// rectangular block a (destinations a prefix of sources) into norm, and the
// diagonal's values, which a does not store, into self: D_r holds the row
// sums of A+I, D_c the column sums (GCN's normalisation with the block's own
// degrees, DGL's norm="both"; on a full symmetric graph both are the
// degrees plus one). Sums are accumulated in float64. degs is scratch,
// returned for reuse.
func symNormalize(norm, self []float32, a *spgemm.CSR, degs []float64) []float64 {
	if cap(degs) < a.Rows+a.Cols {
		degs = make([]float64, a.Rows+a.Cols)
	}
	degs = degs[:a.Rows+a.Cols]
	rowDeg, colDeg := degs[:a.Rows], degs[a.Rows:]
	clear(colDeg)
	for i := range a.Rows {
		s := 1.0 // the self loop
		colDeg[i]++
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			s += float64(a.Data[p])
			colDeg[a.Indices[p]] += float64(a.Data[p])
		}
		rowDeg[i] = s
	}
	for i := range a.Rows {
		ri := 1 / math.Sqrt(rowDeg[i])
		self[i] = float32(ri / math.Sqrt(colDeg[i]))
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			norm[p] = float32(float64(a.Data[p]) * ri / math.Sqrt(colDeg[a.Indices[p]]))
		}
	}
	return degs
}
