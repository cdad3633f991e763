package gnn

// The residual architecture of Platonov et al., "A critical look at the
// evaluation of GNNs under heterophily: are we really making progress?"
// (ICLR 2023; their model.py and modules.py), with which GraphSAGE and GCN
// reach their published figures on Tolokers and the other heterophilous
// graphs:
//
//	h_0     = GELU(dropout(x·W_in + b_in))                  (all input vertices)
//	z_l     = LN(h_l)                                        (Norm; z_l = h_l without)
//	u_l     = dropout(conv_l(z_l))                           (SAGE or GCN, weights and bias)
//	h_{l+1} = h_l[dst] + dropout(GELU(u_l)·W2_l + b2_l)      (Residual; without, the sum's second term alone)
//	logits  = LN(h_L)·W_out + b_out
//
// conv_l is the architecture's layer (SAGE: z_dst·W_self + mean(z)·W_neigh
// + b; GCN: (Â·z + self·z_dst)·W + b) on block L-1-l, so that, as for the
// plain stack, the minibatch's blocks are applied from the input layer's
// to the seeds'; h_l[dst] is the prefix of h_l of the block's destinations.
// Every hidden width is ModelOptions.Hidden (their hidden_dim_multiplier 1)
// and LN is layer normalisation with a learnt scale and shift (PyTorch's
// nn.LayerNorm; NormBackend). Dropout applies after the input linear map
// and twice in every block, as theirs does, and not to the features.
//
// The layer math is written once against Backend and NormBackend, for
// training (forwardBlocks, backwardBlocks) and full-neighbour inference
// (inferBlocks) alike, and the conv is the plain stack's forwardDense and
// backwardLayer.

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// Norm is the normalisation of the residual architecture.
type Norm int

const (
	// NormNone normalises nothing.
	NormNone Norm = iota
	// NormLayer is layer normalisation of every block's input and of the
	// output layer's (Ba, Kiros and Hinton 2016; PyTorch's nn.LayerNorm).
	NormLayer
)

var normNames = [...]string{NormNone: "none", NormLayer: "layer"}

// String returns the normalisation's command-line name.
func (n Norm) String() string {
	if n >= 0 && int(n) < len(normNames) {
		return normNames[n]
	}
	return fmt.Sprintf("Norm(%d)", int(n))
}

// ParseNorm returns the normalisation named s ("none" or "layer").
func ParseNorm(s string) (Norm, error) {
	for n, name := range normNames {
		if s == name {
			return Norm(n), nil
		}
	}
	return 0, fmt.Errorf("gnn: unknown normalisation %q (want none or layer)", s)
}

// blockArch reports whether the options select the residual architecture.
func (o *ModelOptions) blockArch() bool { return o.Residual || o.Norm != NormNone }

// linear is a dense map x·W + b with its gradients, views of the model's
// flat buffers.
type linear struct {
	fin, fout int
	w, b      Buf
	gw, gb    Buf
	x         Buf         // the input of the last pass (dense)
	xs        *spgemm.CSR // or its sparse input
	pre, out  Buf         // the pre-activation after dropout, and the output
	dOut      Buf         // scratch of the backward pass
}

// layerNorm is a layer normalisation's parameters, gradients and the state
// of the last pass.
type layerNorm struct {
	gamma, beta, gGamma, gBeta Buf
	xhat, rstd, z              Buf
}

// resBlock is the state of one block besides its conv (Model.layers).
type resBlock struct {
	norm   layerNorm
	ff     linear // W2, b2: Hidden x Hidden
	u, a   Buf    // the conv's output after dropout, and its GELU
	h      Buf    // the block's output, destinations x Hidden
	dv, da Buf    // backward scratch
	dh     Buf    // the gradient with respect to the block's input
}

// resNet is the residual architecture's state: the input map, the blocks
// (whose convs are Model.layers) and the output layer.
type resNet struct {
	in       linear
	blk      []resBlock
	headNorm layerNorm
	head     linear
	headDh   Buf  // the gradient with respect to the output layer's input
	xUp      Buf  // upload scratch of dense host features
	nIn      int  // the input vertices of the last pass
	pass     Pass // the last forward pass, whose dropout backward undoes
}

// resParamCount returns the number of parameters of the residual
// architecture for options with their defaults filled in.
func (o *ModelOptions) resParamCount() int {
	h, f, c := o.Hidden, o.InFeatures, o.Classes
	n := f*h + h                                        // input map
	n += o.Layers * (o.weightCount(h, h) + h + h*h + h) // convs and W2
	n += h*c + c                                        // output map
	if o.Norm == NormLayer {
		n += 2 * h * (o.Layers + 1)
	}
	return n
}

// newResNet lays out the residual architecture's parameters in m.params
// (the input map, then each block: its conv's weights and bias, W2, b2
// and, with Norm, LN's scale and shift; then the output layer's LN and
// map) and initialises them: Glorot-uniform weights drawn from stream,
// zero biases and shifts, unit scales. init is the host copy of the
// parameters. NewModel has checked the options and the backend.
func (m *Model) newResNet(init []float32, stream sampling.Stream) error {
	o := &m.opt
	h := o.Hidden
	r := &resNet{blk: make([]resBlock, o.Layers)}
	off := 0
	take := func(k int) (Buf, Buf, []float32) {
		p, g, v := m.params.Slice(off, off+k), m.grads.Slice(off, off+k), init[off:off+k]
		off += k
		return p, g, v
	}
	key := 0 // the stream row of each weight matrix
	weight := func(fin, fout int) (Buf, Buf) {
		p, g, v := take(fin * fout)
		glorot(v, fin, fout, stream.Row(0, 0, key, 3))
		key++
		return p, g
	}
	norm := func() layerNorm {
		var n layerNorm
		if o.Norm != NormLayer {
			return n
		}
		var v []float32
		n.gamma, n.gGamma, v = take(h)
		for i := range v {
			v[i] = 1
		}
		n.beta, n.gBeta, _ = take(h)
		return n
	}
	r.in = linear{fin: o.InFeatures, fout: h}
	r.in.w, r.in.gw = weight(o.InFeatures, h)
	r.in.b, r.in.gb, _ = take(h)
	m.layers = make([]layer, o.Layers)
	for i := range m.layers {
		l := &m.layers[i]
		l.fin, l.fout = h, h
		l.w.w1, l.g1 = weight(h, h)
		if o.Arch == SAGE {
			l.w.w2, l.g2 = weight(h, h)
		}
		l.w.b, l.gb, _ = take(h)
		b := &r.blk[i]
		b.ff = linear{fin: h, fout: h}
		b.ff.w, b.ff.gw = weight(h, h)
		b.ff.b, b.ff.gb, _ = take(h)
		b.norm = norm()
	}
	r.headNorm = norm()
	r.head = linear{fin: h, fout: o.Classes}
	r.head.w, r.head.gw = weight(h, o.Classes)
	r.head.b, r.head.gb, _ = take(o.Classes)
	if off != m.params.Len() {
		panic(fmt.Sprintf("gnn: residual layout of %d parameters, want %d", off, m.params.Len()))
	}
	m.blocks = r
	return nil
}

// resDropout returns the dropout mask of site s of the residual
// architecture in pass p: 0 the input map's, 1+2l and 2+2l block l's.
func (m *Model) resDropout(p Pass, site int) (DropoutMask, bool) {
	if !p.Train || m.opt.Dropout == 0 {
		return DropoutMask{}, false
	}
	return m.dropoutMask(p, site), true
}

// normalizeInto sets n.z (grown to rows x cols) to LN(x), keeping xhat and
// rstd for the backward pass when keep is set; without Norm it returns x.
func (m *Model) normalizeInto(n *layerNorm, x Buf, rows, cols int, keep bool) Buf {
	if m.opt.Norm != NormLayer {
		return x
	}
	be := m.be.(NormBackend)
	n.z = growBuf(be, n.z, rows*cols)
	var xhat, rstd Buf
	if keep {
		n.xhat = growBuf(be, n.xhat, rows*cols)
		n.rstd = growBuf(be, n.rstd, rows)
		xhat, rstd = n.xhat, n.rstd
	}
	be.LayerNorm(n.z, xhat, rstd, x, n.gamma, n.beta, cols)
	return n.z
}

// inputMap sets r.in.out (rows x Hidden) to GELU(dropout(x·W_in + b_in))
// for dense x (rows x InFeatures on the backend) or sparse xs.
func (m *Model) inputMap(x Buf, xs *spgemm.CSR, rows int, p Pass) {
	be := m.be.(NormBackend)
	in := &m.blocks.in
	in.x, in.xs = x, xs
	in.pre = growBuf(be, in.pre, rows*in.fout)
	if xs != nil {
		be.SpMM(in.pre, xs, in.w, in.fout)
	} else {
		be.Gemm(false, false, rows, in.fout, in.fin, 1, x, in.w, 0, in.pre)
	}
	be.AddBias(in.pre, in.b)
	if mask, ok := m.resDropout(p, 0); ok {
		be.Dropout(in.pre, mask, false)
	}
	in.out = growBuf(be, in.out, rows*in.fout)
	be.GELU(in.out, in.pre)
}

// blockTail computes a block's output rows from its conv's output u
// (rows x Hidden, dropped out in place): h = hIn[:rows] + dropout(GELU(u)·W2
// + b2) with Residual, the second term alone without. It writes GELU(u)
// into a and the output into h.
func (m *Model) blockTail(b *resBlock, u, a, h, hIn Buf, rows int, p Pass, i int) {
	be := m.be.(NormBackend)
	hid := m.opt.Hidden
	if mask, ok := m.resDropout(p, 1+2*i); ok {
		be.Dropout(u, mask, false)
	}
	be.GELU(a, u)
	be.Gemm(false, false, rows, hid, hid, 1, a, b.ff.w, 0, h)
	be.AddBias(h, b.ff.b)
	if mask, ok := m.resDropout(p, 2+2*i); ok {
		be.Dropout(h, mask, false)
	}
	if m.opt.Residual {
		be.Add(h, hIn.Slice(0, rows*hid))
	}
}

// forwardBlocks is forward for the residual architecture.
func (m *Model) forwardBlocks(mb *sampling.Minibatch, x Input, p Pass) Buf {
	be := m.be
	r := m.blocks
	fin, hid := m.opt.InFeatures, m.opt.Hidden
	L := len(m.layers)
	if x.Blocks != nil && len(x.Blocks) != L || x.Blocks == nil && len(mb.Blocks) != L {
		panic(spgemm.ShapeError{Op: "gnn.Forward blocks", ARows: max(len(mb.Blocks), len(x.Blocks)), BRows: L})
	}
	if x.Sparse != nil && x.Sparse.Cols != fin || x.Sparse == nil && x.denseLen()%fin != 0 {
		panic(spgemm.ShapeError{Op: "gnn.Forward input", ARows: x.rows(fin), ACols: fin, BRows: x.rows(fin), BCols: fin})
	}
	r.nIn, r.pass = x.rows(fin), p
	switch {
	case x.Sparse != nil:
		m.hold(x.Sparse)
		m.inputMap(Buf{}, x.Sparse, r.nIn, p)
	case x.hasBuf():
		m.inputMap(x.Buf, nil, r.nIn, p)
	default:
		m.inputMap(hostView(be, x.Dense, &r.xUp), nil, r.nIn, p)
	}
	h := r.in.out
	rows := r.nIn
	for i := range m.layers {
		l, b := &m.layers[i], &r.blk[i]
		var blk *sampling.Block
		if x.Blocks != nil {
			db := x.Blocks[L-1-i]
			l.nSrc, l.nDst = db.Cols(), db.Rows()
		} else {
			blk = &mb.Blocks[L-1-i]
			l.nSrc, l.nDst = blk.Adj.Cols, blk.Adj.Rows
		}
		if l.nSrc != rows || l.nDst > l.nSrc {
			panic(spgemm.ShapeError{Op: fmt.Sprintf("gnn.Forward block %d", i), ARows: l.nDst, ACols: l.nSrc, BRows: rows, BCols: hid})
		}
		z := m.normalizeInto(&b.norm, h, rows, hid, p.Train)
		if blk != nil {
			m.normalize(l, &blk.Adj, blk.Deg)
		} else {
			m.formBlock(l, x.Blocks[L-1-i])
		}
		l.sparse = false
		l.in = z
		l.agg = growBuf(be, l.agg, l.nDst*hid)
		l.out = growBuf(be, l.out, l.nDst*hid)
		forwardDense(be, m.opt.Arch, &l.w, hid, hid, &layerIO{rows: l.nDst, adj: &l.adj, self: l.selfB,
			in: z, inDst: z.Slice(0, l.nDst*hid), agg: l.agg, out: l.out})
		b.u = l.out
		b.a = growBuf(be, b.a, l.nDst*hid)
		b.h = growBuf(be, b.h, l.nDst*hid)
		m.blockTail(b, b.u, b.a, b.h, h, l.nDst, p, i)
		h, rows = b.h, l.nDst
	}
	if rows != len(mb.Seeds) {
		panic(spgemm.ShapeError{Op: "gnn.Forward seeds", ARows: rows, ACols: hid, BRows: len(mb.Seeds), BCols: 0})
	}
	z := m.normalizeInto(&r.headNorm, h, rows, hid, p.Train)
	r.head.x = z
	r.head.out = growBuf(be, r.head.out, rows*r.head.fout)
	be.Gemm(false, false, rows, r.head.fout, hid, 1, z, r.head.w, 0, r.head.out)
	be.AddBias(r.head.out, r.head.b)
	return r.head.out
}

// normGrad returns the gradient with respect to the input of n from dz,
// the gradient with respect to its output (rows x cols), written into
// *dst (grown), and sets n's parameter gradients; without Norm it returns
// dz itself.
func (m *Model) normGrad(n *layerNorm, dz Buf, dst *Buf, rows, cols int) Buf {
	if m.opt.Norm != NormLayer {
		return dz
	}
	be := m.be.(NormBackend)
	*dst = growBuf(be, *dst, rows*cols)
	be.LayerNormGrad(*dst, dz, n.xhat, n.rstd, n.gamma, n.gGamma, n.gBeta, cols, false)
	return *dst
}

// backwardBlocks is backward for the residual architecture.
func (m *Model) backwardBlocks(dLogits Buf) {
	be := m.be.(NormBackend)
	r := m.blocks
	hid := m.opt.Hidden
	head := &r.head
	rows := dLogits.Len() / head.fout
	last := r.nIn
	if L := len(m.layers); L > 0 {
		last = m.layers[L-1].nDst
	}
	if rows != last || dLogits.Len() != rows*head.fout {
		panic(spgemm.ShapeError{Op: "gnn.Backward", ARows: rows, ACols: head.fout, BRows: last, BCols: head.fout})
	}
	// The output layer: logits = z·W_out + b_out.
	be.Gemm(true, false, hid, head.fout, rows, 1, head.x, dLogits, 0, head.gw)
	be.ColSums(head.gb, dLogits)
	head.dOut = growBuf(be, head.dOut, rows*hid)
	be.Gemm(false, true, rows, hid, head.fout, 1, dLogits, head.w, 0, head.dOut)
	dh := m.normGrad(&r.headNorm, head.dOut, &r.headDh, rows, hid)
	for i := len(m.layers) - 1; i >= 0; i-- {
		l, b := &m.layers[i], &r.blk[i]
		n := l.nDst
		// dv: the gradient after the second dropout, a copy when there is
		// one, since dh (the block's output gradient) also flows through
		// the residual path unchanged.
		dv := dh
		if mask, ok := m.resDropout(r.pass, 2+2*i); ok {
			b.dv = growBuf(be, b.dv, n*hid)
			be.CopyDropout(b.dv, dh, mask)
			dv = b.dv
		}
		be.Gemm(true, false, hid, hid, n, 1, b.a, dv, 0, b.ff.gw)
		be.ColSums(b.ff.gb, dv)
		b.da = growBuf(be, b.da, n*hid)
		be.Gemm(false, true, n, hid, hid, 1, dv, b.ff.w, 0, b.da)
		be.GELUGrad(b.da, b.da, b.u)
		if mask, ok := m.resDropout(r.pass, 1+2*i); ok {
			be.Dropout(b.da, mask, false)
		}
		m.backwardLayer(l, b.da, true, false)
		din := m.normGrad(&b.norm, l.dIn, &b.dh, l.nSrc, hid)
		if m.opt.Residual {
			be.Add(din.Slice(0, n*hid), dh)
		}
		dh = din
	}
	// The input map: out = GELU(dropout(x·W_in + b_in)).
	in := &r.in
	be.GELUGrad(dh, dh, in.pre)
	if mask, ok := m.resDropout(r.pass, 0); ok {
		be.Dropout(dh, mask, false)
	}
	be.ColSums(in.gb, dh)
	if in.xs != nil {
		be.SpMMT(in.gw, in.xs, dh, in.fout)
	} else {
		be.Gemm(true, false, in.fin, in.fout, r.nIn, 1, in.x, dh, 0, in.gw)
	}
}

// inferBlocks is infer for the residual architecture: the input map for
// all vertices, then each block's normalisation for all vertices and its
// conv, GELU, W2 and residual sum by row chunks, then the output layer by
// row chunks.
func (m *Model) inferBlocks(ctx context.Context, adj *spgemm.CSR, x Input, chunkRows int, emit func(lo, hi int, logits Buf)) error {
	be := m.be
	n, hid := adj.Rows, m.opt.Hidden
	r := m.blocks
	full, self := m.inferAdj(adj)
	var selfUp, inUp Buf
	selfB := hostView(be, self, &selfUp)
	var h, z, next, agg, u, a, zc, out Buf
	defer func() { freeBufs(be, &selfUp, &inUp, &h, &z, &next, &agg, &u, &a, &zc, &out) }()
	noTrain := Pass{}
	// The input map of every vertex.
	in := r.in
	h = be.Alloc(n * hid)
	if x.Sparse != nil {
		be.SpMM(h, x.Sparse, in.w, hid)
	} else {
		be.Gemm(false, false, n, hid, in.fin, 1, hostView(be, x.Dense, &inUp), in.w, 0, h)
	}
	be.AddBias(h, in.b)
	be.(NormBackend).GELU(h, h)
	chunk := inferChunk(chunkRows, hid, hid)
	var aPtr []int64
	var norms layerNorm
	for i := range m.layers {
		l, b := &m.layers[i], &r.blk[i]
		norms.gamma, norms.beta = b.norm.gamma, b.norm.beta
		zAll := h
		if m.opt.Norm == NormLayer {
			z = growBuf(be, z, n*hid)
			be.(NormBackend).LayerNorm(z, Buf{}, Buf{}, h, norms.gamma, norms.beta, hid)
			zAll = z
		}
		next = growBuf(be, next, n*hid)
		for lo := 0; lo < n; lo += chunk {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("gnn: inference: %w", err)
			}
			hi := min(lo+chunk, n)
			rows := hi - lo
			var part spgemm.CSR
			part, aPtr = rowsOf(&full, lo, hi, aPtr)
			agg = growBuf(be, agg, rows*hid)
			u = growBuf(be, u, rows*hid)
			a = growBuf(be, a, rows*hid)
			io := layerIO{rows: rows, adj: &part, in: zAll, inDst: zAll.Slice(lo*hid, hi*hid), agg: agg, out: u}
			if m.opt.Arch == GCN {
				io.self = selfB.Slice(lo, hi)
			}
			forwardDense(be, m.opt.Arch, &l.w, hid, hid, &io)
			m.blockTail(b, u, a, next.Slice(lo*hid, hi*hid), h.Slice(lo*hid, hi*hid), rows, noTrain, i)
		}
		h, next = next, h
	}
	c := r.head.fout
	for lo := 0; lo < n; lo += chunk {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("gnn: inference: %w", err)
		}
		hi := min(lo+chunk, n)
		rows := hi - lo
		hc := h.Slice(lo*hid, hi*hid)
		if m.opt.Norm == NormLayer {
			zc = growBuf(be, zc, rows*hid)
			be.(NormBackend).LayerNorm(zc, Buf{}, Buf{}, hc, r.headNorm.gamma, r.headNorm.beta, hid)
			hc = zc
		}
		out = growBuf(be, out, rows*c)
		be.Gemm(false, false, rows, c, hid, 1, hc, r.head.w, 0, out)
		be.AddBias(out, r.head.b)
		emit(lo, hi, out)
	}
	return nil
}
