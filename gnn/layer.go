package gnn

import (
	"github.com/bulksample/bulksample/internal/par"
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
	// noBias leaves the bias out of out: the caller adds it in its next
	// pass over out (fusedBackend.BiasActivate).
	noBias bool
}

// fusedBackend is implemented by backends that fuse passes the layer math
// would otherwise make one after the other over the same memory. Each
// method computes exactly, bit for bit, what the sequence it replaces
// computes; a backend without them gets the sequence.
type fusedBackend interface {
	// BiasActivate adds b to every row of h and then applies ReLU, or
	// with dropout set Dropout(h, mask, true): AddBias followed by ReLU or
	// Dropout.
	BiasActivate(h, b Buf, mask DropoutMask, dropout bool)
	// CopyDropout sets dst to Dropout(src, mask, false) without changing
	// src: Upload (a copy) followed by Dropout.
	CopyDropout(dst, src Buf, mask DropoutMask)
	// ReLUDropoutGradColSums is ReLUDropoutGrad(dh, h, scale) followed by
	// ColSums(sums, dh): the gradient through the activation and the bias
	// gradient of the layer below in one pass.
	ReLUDropoutGradColSums(dh, h Buf, scale float32, sums Buf)
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
	if !io.noBias {
		be.AddBias(io.out, w.b)
	}
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
	if !io.noBias {
		be.AddBias(io.out, w.b)
	}
}

// backwardLayer sets l's gradients from dOut (nDst x fout) and, when needIn,
// l.dIn (nSrc x fin), the gradient with respect to l.in. haveGB says that
// l.gb, the column sums of dOut, is already set.
func (m *Model) backwardLayer(l *layer, dOut Buf, needIn, haveGB bool) {
	be := m.be
	if !haveGB {
		be.ColSums(l.gb, dOut)
	}
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
// path (it has no input gradient: it is the first layer). haveGB is as for
// backwardLayer.
func (m *Model) backwardSparse(l *layer, dOut Buf, haveGB bool) {
	be := m.be
	if !haveGB {
		be.ColSums(l.gb, dOut)
	}
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
// weights. deg is the block's Deg (nil when the sampler gave none).
func (m *Model) normalize(l *layer, blk *spgemm.CSR, deg []int32) {
	l.norm = par.Resize(l.norm, len(blk.Data))
	l.adj = spgemm.CSR{Rows: blk.Rows, Cols: blk.Cols, Indptr: blk.Indptr, Indices: blk.Indices, Data: l.norm}
	switch m.opt.Arch {
	case SAGE:
		copy(l.norm, blk.Data)
		m.be.NormalizeRows(&l.adj)
		l.self = l.self[:0]
	case GCN:
		l.self = par.Resize(l.self, blk.Rows)
		switch {
		case deg != nil && m.opt.GCNNorm == GCNGraphNorm:
			m.degs = gcnNormalize(l.norm, l.self, blk, deg, m.degs)
		case allOnes(blk.Data):
			m.degs = gcnNormalize(l.norm, l.self, blk, nil, m.degs)
		default:
			copy(l.norm, blk.Data)
			clear(l.self)
		}
	}
	l.selfB = hostView(m.be, l.self, &l.selfUp)
	m.hold(&l.adj)
}

func allOnes(v []float32) bool {
	for _, x := range v {
		if x != 1 {
			return false
		}
	}
	return true
}

// gcnNormalize computes GCN's normalised block Â, the one function that
// forms it for training (Forward) and inference (Predict). It writes the
// values of Â for the stored entries of the block a (destinations a prefix
// of sources) into norm, and the self loops, which a does not store, into
// self (one per destination row). degs is float64 scratch, returned for
// reuse.
//
// With deg (the degree in the graph of each source vertex, len a.Cols),
// Â is Kipf and Welling's D^-1/2 (A+I) D^-1/2 with the graph's degrees,
// d_v = deg[v] + 1, whatever the block sampled:
//
//	Â[i,j] = c_i · a[i,j] / sqrt(d_i · d_j),  Â[i,i] = 1 / d_i,
//	c_i = deg[i] / Σ_j a[i,j]  (1 when the row sums to 0)
//
// c_i scales the sampled neighbours' values up to the degree: with every
// neighbour of value 1 it is 1, so a full-neighbour block is exactly the
// rows of the full-batch operator; with a uniform sample of s of deg[i]
// neighbours it is deg[i]/s, which makes the sampled aggregate an unbiased
// estimate of the full one, so training and inference use the same operator
// in expectation. Predict passes A itself with its row lengths.
//
// With deg nil, Â is D_r^-1/2 (A+I) D_c^-1/2 with the block's own degrees:
// D_r the row sums of a+I, D_c its column sums (DGL's GraphConv with
// norm="both" on a block, GCNBlockNorm; on a full symmetric graph both are
// the degrees plus one): the normalisation of
// spgemm.SymNormalizeWithSelfLoops, with the sums of spgemm.SelfLoopSums,
// the self loops kept apart in self.
func gcnNormalize(norm, self []float32, a *spgemm.CSR, deg []int32, degs []float64) []float64 {
	degs = par.Resize(degs, a.Rows+a.Cols)
	// rowScale[i] multiplies row i's values, colScale[j] = 1/sqrt(d_j).
	rowScale, colScale := degs[:a.Rows], degs[a.Rows:]
	if deg != nil {
		if len(deg) != a.Cols {
			panic(spgemm.ShapeError{Op: "gnn: GCN block degrees", ARows: a.Rows, ACols: a.Cols, BRows: len(deg), BCols: 1})
		}
		for j, d := range deg {
			colScale[j] = float64(d) + 1
		}
		spgemm.InvSqrt(colScale)
		for i := range a.Rows {
			sum := 0.0
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				sum += float64(a.Data[p])
			}
			c := 1.0
			if sum != 0 {
				c = float64(deg[i]) / sum
			}
			rowScale[i] = c * colScale[i]
			self[i] = float32(colScale[i] * colScale[i])
		}
	} else {
		clear(degs)
		spgemm.SelfLoopSums(a, 0, rowScale, colScale)
		spgemm.InvSqrt(rowScale)
		spgemm.InvSqrt(colScale)
		for i := range a.Rows {
			self[i] = float32(rowScale[i] * colScale[i])
		}
	}
	spgemm.ScaleRowsCols(norm[:a.NNZ()], a, rowScale, colScale, 1)
	return degs
}
