package gnn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// Arch is a model architecture.
type Arch int

const (
	// SAGE is GraphSAGE with the mean aggregator:
	// h' = act(h_dst·W_self + row-normalise(block)·H_src·W_neigh + b).
	SAGE Arch = iota
	// GCN is the graph convolution h' = act(Â·H_src·W + b); see the package
	// documentation for how Â is formed from a block.
	GCN
	// Linear is softmax (logistic) regression on the seeds' own features,
	// the features-only baseline: logits = x·W + b. It reads no block.
	Linear
)

var archNames = [...]string{SAGE: "sage", GCN: "gcn", Linear: "linear"}

// String returns the architecture's command-line name.
func (a Arch) String() string {
	if a >= 0 && int(a) < len(archNames) {
		return archNames[a]
	}
	return fmt.Sprintf("Arch(%d)", int(a))
}

// ParseArch returns the architecture named s ("sage", "gcn" or "linear").
func ParseArch(s string) (Arch, error) {
	for a, name := range archNames {
		if s == name {
			return Arch(a), nil
		}
	}
	return 0, fmt.Errorf("gnn: unknown model %q (want sage, gcn or linear)", s)
}

// Defaults of ModelOptions' zero fields.
const (
	DefaultLayers = 2
	DefaultHidden = 64
)

// ModelOptions describe a model. The zero value of each optional field means
// the documented default.
type ModelOptions struct {
	Arch Arch
	// Layers is the number of graph layers L (one block each); 0 means
	// DefaultLayers. Linear has no graph layer and ignores it.
	Layers int
	// Hidden is the width of the hidden layers; 0 means DefaultHidden.
	Hidden int
	// InFeatures and Classes are the input width and the number of classes;
	// both are required.
	InFeatures, Classes int
	// Dropout is the probability, in [0, 1), that a training pass zeroes an
	// element of a layer's input (every layer's, the features included);
	// kept elements are scaled by 1/(1-Dropout). 0 means no dropout.
	Dropout float32
	// Seed determines the initial weights and the dropout masks.
	Seed uint64
	// Threads is the number of goroutines of the sparse products; 0 means
	// GOMAXPROCS. It never changes the result.
	Threads int
	// PureGoBLAS selects gonum's pure-Go BLAS even in builds that have
	// OpenBLAS.
	PureGoBLAS bool
	// GCNNorm selects the degrees GCN normalises node-wise blocks with;
	// the default is the graph's (GCNGraphNorm).
	GCNNorm GCNNorm
}

// GCNNorm says which degrees GCN's D^-1/2 (A+I) D^-1/2 uses for a block
// (see the package documentation and gcnNormalize).
type GCNNorm int

const (
	// GCNGraphNorm, the default, uses the graph's degrees, which node-wise
	// blocks carry (sampling.Block.Deg): a full-neighbour minibatch then
	// computes exactly what full-batch GCN computes, and inference uses the
	// same operator as training (Kipf and Welling's GCN).
	GCNGraphNorm GCNNorm = iota
	// GCNBlockNorm uses the block's own degrees: the row sums and column
	// sums of the sampled block plus self loops (DGL's GraphConv with
	// norm="both" applied to a block). A source vertex's column sum counts
	// only its edges to the block's destinations, so this operator differs
	// from full-batch GCN even with every neighbour sampled; it is kept to
	// compare with DGL's block training.
	GCNBlockNorm
)

var gcnNormNames = [...]string{GCNGraphNorm: "graph", GCNBlockNorm: "block"}

// String returns the normalisation's command-line name.
func (g GCNNorm) String() string {
	if g >= 0 && int(g) < len(gcnNormNames) {
		return gcnNormNames[g]
	}
	return fmt.Sprintf("GCNNorm(%d)", int(g))
}

// ParseGCNNorm returns the normalisation named s ("graph" or "block").
func ParseGCNNorm(s string) (GCNNorm, error) {
	for g, name := range gcnNormNames {
		if s == name {
			return GCNNorm(g), nil
		}
	}
	return 0, fmt.Errorf("gnn: unknown GCN normalisation %q (want graph or block)", s)
}

func (o *ModelOptions) withDefaults() (ModelOptions, error) {
	r := *o
	if r.Arch < SAGE || r.Arch > Linear {
		return r, fmt.Errorf("gnn: ModelOptions.Arch = %d is not an architecture", int(r.Arch))
	}
	if r.Layers < 0 {
		return r, fmt.Errorf("gnn: ModelOptions.Layers = %d, want > 0 (or 0 for %d)", r.Layers, DefaultLayers)
	}
	if r.Layers == 0 {
		r.Layers = DefaultLayers
	}
	if r.Arch == Linear {
		r.Layers = 0
	}
	if r.Hidden < 0 {
		return r, fmt.Errorf("gnn: ModelOptions.Hidden = %d, want > 0 (or 0 for %d)", r.Hidden, DefaultHidden)
	}
	if r.Hidden == 0 {
		r.Hidden = DefaultHidden
	}
	if r.InFeatures <= 0 {
		return r, fmt.Errorf("gnn: ModelOptions.InFeatures = %d, want > 0", r.InFeatures)
	}
	if r.Classes < 2 {
		return r, fmt.Errorf("gnn: ModelOptions.Classes = %d, want >= 2", r.Classes)
	}
	if r.GCNNorm < GCNGraphNorm || r.GCNNorm > GCNBlockNorm {
		return r, fmt.Errorf("gnn: ModelOptions.GCNNorm = %d is not a normalisation", int(r.GCNNorm))
	}
	if !(r.Dropout >= 0 && r.Dropout < 1) {
		return r, fmt.Errorf("gnn: ModelOptions.Dropout = %g, want a probability in [0, 1)", r.Dropout)
	}
	return r, nil
}

// Salts that separate the model's random draws from the samplers' when they
// share a seed.
const (
	initSalt    = 0x6a09e667f3bcc908
	dropoutSalt = 0xbb67ae8584caa73b
)

// Model is a stack of layers with its parameters, their gradients and the
// buffers of one forward and backward pass, which are reused from one
// minibatch to the next. A Model is not safe for concurrent use.
type Model struct {
	opt    ModelOptions
	blas   blas.Float32
	blasID string
	params []float32
	grads  []float32
	layers []layer
	degs   []float64 // scratch of the GCN normalisation
	// sparseDensity is the density under which the first layer takes the
	// sparse-input path: sparseMaxDensity, or 0 in tests of the dense path.
	sparseDensity float64
}

// layer is one layer and its buffers. For SAGE w1 is W_self and w2 W_neigh;
// GCN and Linear use only w1. All of w1, w2, b and the g* gradients are views
// of the model's flat parameter and gradient arrays.
type layer struct {
	fin, fout  int
	w1, w2, b  []float32
	g1, g2, gb []float32

	// State of the last forward pass.
	nSrc, nDst int
	in         []float32  // the input after dropout, nSrc x fin
	inBuf      []float32  // owns in when the pass copies its input
	adj        spgemm.CSR // the block with normalised values
	norm       []float32  // adj's values
	self       []float32  // GCN self-loop weight of each destination row
	agg        []float32  // nDst x fin aggregate
	out        []float32  // nDst x fout pre-activation
	dAgg, dIn  []float32

	// The sparse-input path of the first layer (see forwardSparse).
	sparse bool
	xs     spgemm.CSR // the input after dropout, nSrc x fin
	xsDst  spgemm.CSR // its first nDst rows
	t, dT  []float32  // nSrc x fout
}

// NewModel returns a model with Glorot-uniform weights drawn from
// opt.Seed and zero biases. It returns an error naming the field of opt that
// is invalid.
func NewModel(opt ModelOptions) (*Model, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Model{opt: o, sparseDensity: sparseMaxDensity}
	m.blas, m.blasID = blasFor(o.PureGoBLAS)
	dims := []int{o.InFeatures, o.Classes}
	if o.Arch != Linear {
		dims = make([]int, o.Layers+1)
		dims[0], dims[o.Layers] = o.InFeatures, o.Classes
		for i := 1; i < o.Layers; i++ {
			dims[i] = o.Hidden
		}
	}
	m.layers = make([]layer, len(dims)-1)
	n := 0
	for i := range m.layers {
		n += m.weightCount(dims[i], dims[i+1]) + dims[i+1]
	}
	m.params = make([]float32, n)
	m.grads = make([]float32, n)
	off := 0
	take := func(k int) ([]float32, []float32) {
		p, g := m.params[off:off+k:off+k], m.grads[off:off+k:off+k]
		off += k
		return p, g
	}
	init := sampling.NewStream(o.Seed ^ initSalt)
	for i := range m.layers {
		l := &m.layers[i]
		l.fin, l.fout = dims[i], dims[i+1]
		l.w1, l.g1 = take(l.fin * l.fout)
		glorot(l.w1, l.fin, l.fout, init.Row(0, 0, i, 1))
		if o.Arch == SAGE {
			l.w2, l.g2 = take(l.fin * l.fout)
			glorot(l.w2, l.fin, l.fout, init.Row(0, 0, i, 2))
		}
		l.b, l.gb = take(l.fout)
	}
	return m, nil
}

func (m *Model) weightCount(fin, fout int) int {
	if m.opt.Arch == SAGE {
		return 2 * fin * fout
	}
	return fin * fout
}

// glorot fills the fin x fout matrix w uniformly on [-a, a] with
// a = sqrt(6/(fin+fout)) (Glorot and Bengio, AISTATS 2010).
func glorot(w []float32, fin, fout int, key sampling.RowKey) {
	a := math.Sqrt(6 / float64(fin+fout))
	for i := range w {
		w[i] = float32((2*key.Float64(int64(i)) - 1) * a)
	}
}

// Options returns the model's options with the defaults filled in.
func (m *Model) Options() ModelOptions { return m.opt }

// NumLayers returns the number of blocks a minibatch must have: the number
// of graph layers, 0 for Linear.
func (m *Model) NumLayers() int {
	if m.opt.Arch == Linear {
		return 0
	}
	return len(m.layers)
}

// BLAS returns the name of the dense backend the model uses.
func (m *Model) BLAS() string { return m.blasID }

// Params returns all parameters as one array: for each layer in input to
// output order, W (SAGE: W_self then W_neigh, each fin x fout row-major) and
// then the bias. The slice is the model's own storage.
func (m *Model) Params() []float32 { return m.params }

// Grads returns the gradients of the last Backward, laid out like Params.
// The slice is the model's own storage.
func (m *Model) Grads() []float32 { return m.grads }

// Pass identifies a forward pass. A training pass applies dropout with masks
// that are a pure function of (model seed, Epoch, Minibatch, layer,
// element), so a pass can be repeated bit for bit (checkpoint and resume).
type Pass struct {
	Train            bool
	Epoch, Minibatch int
}

// Forward computes the logits of the seeds of mb, a len(mb.Seeds) x Classes
// row-major array owned by the model and valid until the next Forward. x
// holds the input features of mb.InputNodes(), row-major, and is not
// modified. mb must have NumLayers() blocks (Linear reads none; the seeds
// are the first rows of x). Forward panics with a spgemm.ShapeError when the
// sizes do not conform.
func (m *Model) Forward(mb *sampling.Minibatch, x []float32, p Pass) []float32 {
	nSeeds := len(mb.Seeds)
	if m.opt.Arch == Linear {
		if len(x) < nSeeds*m.opt.InFeatures || len(x)%m.opt.InFeatures != 0 {
			panic(spgemm.ShapeError{Op: "gnn.Forward input", ARows: len(x) / m.opt.InFeatures, ACols: m.opt.InFeatures, BRows: nSeeds, BCols: m.opt.InFeatures})
		}
		l := &m.layers[0]
		l.nSrc, l.nDst = nSeeds, nSeeds
		l.adj = spgemm.CSR{}
		if m.setInput(l, x[:nSeeds*l.fin], p, 0) {
			m.forwardSparse(l)
			return l.out
		}
		l.out = grow(l.out, nSeeds*l.fout)
		m.dense(l, l.in, l.w1)
		return l.out
	}
	if len(mb.Blocks) != len(m.layers) {
		panic(spgemm.ShapeError{Op: "gnn.Forward blocks", ARows: len(mb.Blocks), ACols: 0, BRows: len(m.layers), BCols: 0})
	}
	in := x
	for i := range m.layers {
		l := &m.layers[i]
		blk := &mb.Blocks[len(m.layers)-1-i]
		l.nSrc, l.nDst = blk.Adj.Cols, blk.Adj.Rows
		if len(in) != l.nSrc*l.fin || l.nDst > l.nSrc {
			panic(spgemm.ShapeError{Op: fmt.Sprintf("gnn.Forward layer %d", i), ARows: l.nDst, ACols: l.nSrc, BRows: len(in) / l.fin, BCols: l.fin})
		}
		sparse := false
		if i == 0 {
			sparse = m.setInput(l, in, p, i)
		} else {
			// The previous layer's output: ReLU and dropout in place.
			l.in = in
			m.reluDropout(l.in, p, i)
		}
		m.normalize(l, &blk.Adj, blk.Deg)
		if sparse {
			m.forwardSparse(l)
		} else {
			m.forwardLayer(l)
		}
		in = l.out
	}
	if last := &m.layers[len(m.layers)-1]; last.nDst != nSeeds {
		panic(spgemm.ShapeError{Op: "gnn.Forward seeds", ARows: last.nDst, ACols: last.fout, BRows: nSeeds, BCols: 0})
	}
	return in
}

// sparseMaxDensity is the fraction of nonzero inputs under which the first
// layer takes the sparse-input path: bag-of-words features (Cora 1.3%,
// CiteSeer 0.9%) make x·W a sparse product costing nnz(x)·fout instead of
// the dense nSrc·fin·fout.
const sparseMaxDensity = 1.0 / 8

// setInput prepares the first layer's input x: through a dropped-out copy in
// a training pass, as a CSR matrix when x is sparse enough (it then returns
// true and leaves l.in nil), or else as a dense array.
func (m *Model) setInput(l *layer, x []float32, p Pass, i int) bool {
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	drop := p.Train && m.opt.Dropout > 0
	l.sparse = float64(nnz) < m.sparseDensity*float64(len(x))
	if l.sparse {
		xs := &l.xs
		*xs = spgemm.CSR{Rows: l.nSrc, Cols: l.fin, Indptr: growInt64(xs.Indptr, l.nSrc+1),
			Indices: growInt32(xs.Indices, nnz)[:0], Data: grow(xs.Data, nnz)[:0]}
		xs.Indptr[0] = 0
		for r := range l.nSrc {
			for c, v := range x[r*l.fin : (r+1)*l.fin] {
				if v != 0 {
					xs.Indices = append(xs.Indices, int32(c))
					xs.Data = append(xs.Data, v)
				}
			}
			xs.Indptr[r+1] = int64(len(xs.Indices))
		}
		if drop {
			m.dropoutSparse(xs, p, i)
		}
		end := xs.Indptr[l.nDst]
		l.xsDst = spgemm.CSR{Rows: l.nDst, Cols: l.fin, Indptr: xs.Indptr[:l.nDst+1], Indices: xs.Indices[:end:end], Data: xs.Data[:end:end]}
		l.in = nil
		return true
	}
	if !drop {
		l.in = x
		return false
	}
	l.inBuf = grow(l.inBuf, len(x))
	copy(l.inBuf, x)
	l.in = l.inBuf
	m.dropout(l.in, p, i)
	return false
}

// dropoutKey returns the stream row of the dropout masks of a layer in a
// pass, the threshold under which a 16-bit draw drops an element, and the
// scale of kept elements. Element e of the layer's input (row-major) uses
// bits 16·(e mod 4) .. 16·(e mod 4)+15 of draw e/4 of the row, so Dropout is
// applied rounded to a multiple of 2^-16.
func (m *Model) dropoutKey(p Pass, layer int) (sampling.RowKey, uint32, float32) {
	key := sampling.NewStream(m.opt.Seed^dropoutSalt).Row(p.Epoch, p.Minibatch, layer, 0)
	threshold := uint32(math.Round(math.Ldexp(float64(m.opt.Dropout), 16)))
	return key, threshold, 1 / (1 - m.opt.Dropout)
}

// dropout zeroes each element of h with probability Dropout and scales the
// others by 1/(1-Dropout) (inverted dropout), with the masks of dropoutKey.
func (m *Model) dropout(h []float32, p Pass, layer int) {
	if p.Train && m.opt.Dropout > 0 {
		m.maskGroups(h, p, layer, false)
	}
}

// reluDropout applies ReLU and then, in a training pass, dropout to h in
// place, in one pass. Afterwards h[e] > 0 exactly where the pre-activation
// was positive and the element was kept, which is where the gradient passes:
// backward needs no mask.
func (m *Model) reluDropout(h []float32, p Pass, layer int) {
	if p.Train && m.opt.Dropout > 0 {
		m.maskGroups(h, p, layer, true)
		return
	}
	for e, v := range h {
		if v < 0 {
			h[e] = 0
		}
	}
}

// maskGroups multiplies each element of h by 0 when dropout drops it (or,
// with relu, when it is negative) and by the dropout scale otherwise,
// four elements per random draw. The choice is made without branches (an
// index into a two-entry table): the drops are random, so branches would be
// mispredicted half the time. Negative elements become -0, which compares
// as not > 0.
func (m *Model) maskGroups(h []float32, p Pass, layer int, relu bool) {
	key, threshold, scale := m.dropoutKey(p, layer)
	factor := [2]float32{scale, 0}
	var signShift uint32 = 31
	if !relu {
		signShift = 32 // shifts the sign bit out: never zero for sign
	}
	one := func(v float32, r uint64) float32 {
		drop := (uint32(r&0xffff) - threshold) >> 31 // 1 iff r16 < threshold
		neg := uint32(uint64(math.Float32bits(v)) >> signShift)
		return v * factor[(drop|neg)&1]
	}
	e := 0
	for ; e+4 <= len(h); e += 4 {
		r := key.Uint64(int64(e / 4))
		h4 := h[e : e+4 : e+4]
		h4[0] = one(h4[0], r)
		h4[1] = one(h4[1], r>>16)
		h4[2] = one(h4[2], r>>32)
		h4[3] = one(h4[3], r>>48)
	}
	if e < len(h) {
		r := key.Uint64(int64(e / 4))
		for ; e < len(h); e++ {
			h[e] = one(h[e], r)
			r >>= 16
		}
	}
}

// dropoutSparse applies to the entries of xs the dropout that dropout
// applies to the dense matrix xs represents (zeros stay zero either way);
// dropped entries are stored as explicit zeros.
func (m *Model) dropoutSparse(xs *spgemm.CSR, p Pass, layer int) {
	key, threshold, scale := m.dropoutKey(p, layer)
	for r := range xs.Rows {
		for q := xs.Indptr[r]; q < xs.Indptr[r+1]; q++ {
			e := r*xs.Cols + int(xs.Indices[q])
			if uint32(key.Uint64(int64(e/4))>>(16*(e%4))&0xffff) < threshold {
				xs.Data[q] = 0
			} else {
				xs.Data[q] *= scale
			}
		}
	}
}

// dense sets l.out = in·w + b for in with l.nDst rows.
func (m *Model) dense(l *layer, in, w []float32) {
	gemm(m.blas, false, false, l.nDst, l.fout, l.fin, 1, in, w, 0, l.out)
	addBias(l.out, l.b)
}

func addBias(out, b []float32) {
	f := len(b)
	for r := 0; r+f <= len(out); r += f {
		row := out[r : r+f]
		for j, v := range b {
			row[j] += v
		}
	}
}

// forwardLayer computes l.out from l.in and l.adj. It aggregates before it
// transforms: a sampled block has many more sources than destinations, so
// multiplying the nDst x fin aggregate by W costs less than multiplying all
// nSrc inputs (DGL's lin_before_mp rule assumes nSrc = nDst).
func (m *Model) forwardLayer(l *layer) {
	l.agg = grow(l.agg, l.nDst*l.fin)
	spgemm.MulDense(l.agg, &l.adj, l.in, l.fin, m.opt.Threads)
	l.out = grow(l.out, l.nDst*l.fout)
	switch m.opt.Arch {
	case SAGE:
		gemm(m.blas, false, false, l.nDst, l.fout, l.fin, 1, l.in[:l.nDst*l.fin], l.w1, 0, l.out)
		gemm(m.blas, false, false, l.nDst, l.fout, l.fin, 1, l.agg, l.w2, 1, l.out)
	case GCN:
		addSelf(l.agg, l.self, l.in, l.fin)
		gemm(m.blas, false, false, l.nDst, l.fout, l.fin, 1, l.agg, l.w1, 0, l.out)
	}
	addBias(l.out, l.b)
}

// forwardSparse computes l.out from the sparse input l.xs, transforming
// before it aggregates: SAGE's out = x_dst·W_self + Â·(x·W_neigh) + b, GCN's
// out = Â·(x·W) + self·(x·W)_dst + b, Linear's out = x·W + b. With sparse x
// the products x·W cost nnz(x)·fout and the aggregation nnz(Â)·fout,
// instead of nnz(Â)·fin and nDst·fin·fout for dense inputs.
func (m *Model) forwardSparse(l *layer) {
	th := m.opt.Threads
	l.out = grow(l.out, l.nDst*l.fout)
	switch m.opt.Arch {
	case Linear:
		spgemm.MulDense(l.out, &l.xsDst, l.w1, l.fout, th)
	case SAGE:
		l.t = grow(l.t, l.nSrc*l.fout)
		spgemm.MulDense(l.t, &l.xs, l.w2, l.fout, th)
		spgemm.MulDense(l.out, &l.adj, l.t, l.fout, th)
		l.dT = grow(l.dT, l.nDst*l.fout) // scratch for x_dst·W_self
		spgemm.MulDense(l.dT, &l.xsDst, l.w1, l.fout, th)
		for e, v := range l.dT {
			l.out[e] += v
		}
	case GCN:
		l.t = grow(l.t, l.nSrc*l.fout)
		spgemm.MulDense(l.t, &l.xs, l.w1, l.fout, th)
		spgemm.MulDense(l.out, &l.adj, l.t, l.fout, th)
		addSelf(l.out, l.self, l.t, l.fout)
	}
	addBias(l.out, l.b)
}

// backwardSparse sets the gradients of a layer that took the sparse-input
// path (it has no input gradient: it is the first layer).
func (m *Model) backwardSparse(l *layer, dOut []float32) {
	th := m.opt.Threads
	colSums(l.gb, dOut)
	switch m.opt.Arch {
	case Linear:
		spgemm.MulDenseT(l.g1, &l.xsDst, dOut, l.fout, th)
	case SAGE:
		spgemm.MulDenseT(l.g1, &l.xsDst, dOut, l.fout, th)
		l.dT = grow(l.dT, l.nSrc*l.fout)
		spgemm.MulDenseT(l.dT, &l.adj, dOut, l.fout, th)
		spgemm.MulDenseT(l.g2, &l.xs, l.dT, l.fout, th)
	case GCN:
		l.dT = grow(l.dT, l.nSrc*l.fout)
		spgemm.MulDenseT(l.dT, &l.adj, dOut, l.fout, th)
		addSelf(l.dT, l.self, dOut, l.fout)
		spgemm.MulDenseT(l.g1, &l.xs, l.dT, l.fout, th)
	}
}

// addSelf adds self[i]·h[i] to row i of agg for every destination row i: the
// self loops of Â, which are not stored in the block.
func addSelf(agg, self, h []float32, f int) {
	for i, s := range self {
		if s == 0 {
			continue
		}
		dst, src := agg[i*f:(i+1)*f], h[i*f:(i+1)*f]
		for j, v := range src {
			dst[j] += s * v
		}
	}
}

func growInt64(buf []int64, n int) []int64 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]int64, n, n+n/4)
}

// grow returns buf resized to n, reusing its storage when it is big enough.
// The contents are not cleared.
func grow(buf []float32, n int) []float32 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]float32, n, n+n/4)
}

// Backward computes the gradients of the loss with respect to all
// parameters into Grads, given dLogits, the gradient with respect to the
// logits of the last Forward (same shape). It must follow a Forward on the
// same minibatch; it overwrites Grads (no accumulation) and clobbers
// dLogits.
func (m *Model) Backward(dLogits []float32) {
	last := &m.layers[len(m.layers)-1]
	if len(dLogits) != last.nDst*last.fout {
		panic(spgemm.ShapeError{Op: "gnn.Backward", ARows: len(dLogits) / last.fout, ACols: last.fout, BRows: last.nDst, BCols: last.fout})
	}
	dOut := dLogits
	for i := len(m.layers) - 1; i >= 0; i-- {
		l := &m.layers[i]
		needIn := i > 0
		if l.sparse {
			m.backwardSparse(l, dOut)
			continue
		}
		m.backwardLayer(l, dOut, needIn)
		if needIn {
			// Through the ReLU and dropout of this layer's input: l.in > 0
			// marks where both let the gradient pass, scaled as in forward.
			scale := float32(1)
			if m.opt.Dropout > 0 {
				scale = 1 / (1 - m.opt.Dropout)
			}
			for e, v := range l.in {
				if v > 0 {
					l.dIn[e] *= scale
				} else {
					l.dIn[e] = 0
				}
			}
			dOut = l.dIn
		}
	}
}

// backwardLayer sets l's gradients from dOut (nDst x fout) and, when needIn,
// l.dIn (nSrc x fin), the gradient with respect to l.in.
func (m *Model) backwardLayer(l *layer, dOut []float32, needIn bool) {
	colSums(l.gb, dOut)
	switch m.opt.Arch {
	case Linear:
		gemm(m.blas, true, false, l.fin, l.fout, l.nDst, 1, l.in, dOut, 0, l.g1)
	case SAGE:
		gemm(m.blas, true, false, l.fin, l.fout, l.nDst, 1, l.in[:l.nDst*l.fin], dOut, 0, l.g1)
		gemm(m.blas, true, false, l.fin, l.fout, l.nDst, 1, l.agg, dOut, 0, l.g2)
		if needIn {
			l.dAgg = grow(l.dAgg, l.nDst*l.fin)
			gemm(m.blas, false, true, l.nDst, l.fin, l.fout, 1, dOut, l.w2, 0, l.dAgg)
			l.dIn = grow(l.dIn, l.nSrc*l.fin)
			spgemm.MulDenseT(l.dIn, &l.adj, l.dAgg, l.fin, m.opt.Threads)
			gemm(m.blas, false, true, l.nDst, l.fin, l.fout, 1, dOut, l.w1, 1, l.dIn[:l.nDst*l.fin])
		}
	case GCN:
		gemm(m.blas, true, false, l.fin, l.fout, l.nDst, 1, l.agg, dOut, 0, l.g1)
		if needIn {
			l.dAgg = grow(l.dAgg, l.nDst*l.fin)
			gemm(m.blas, false, true, l.nDst, l.fin, l.fout, 1, dOut, l.w1, 0, l.dAgg)
			l.dIn = grow(l.dIn, l.nSrc*l.fin)
			spgemm.MulDenseT(l.dIn, &l.adj, l.dAgg, l.fin, m.opt.Threads)
			addSelf(l.dIn, l.self, l.dAgg, l.fin)
		}
	}
}

// colSums sets dst[j] to the sum of column j of the row-major matrix a.
func colSums(dst, a []float32) {
	clear(dst)
	f := len(dst)
	for r := 0; r+f <= len(a); r += f {
		for j, v := range a[r : r+f] {
			dst[j] += v
		}
	}
}

// normalize sets l.adj to blk with the values the architecture aggregates
// with (see the package documentation), and l.self to GCN's self-loop
// weights. deg is the block's Deg (nil when the sampler gave none).
func (m *Model) normalize(l *layer, blk *spgemm.CSR, deg []int32) {
	l.norm = grow(l.norm, len(blk.Data))
	l.adj = spgemm.CSR{Rows: blk.Rows, Cols: blk.Cols, Indptr: blk.Indptr, Indices: blk.Indices, Data: l.norm}
	switch m.opt.Arch {
	case SAGE:
		copy(l.norm, blk.Data)
		spgemm.NormalizeRows(&l.adj, m.opt.Threads)
		l.self = l.self[:0]
	case GCN:
		l.self = grow(l.self, blk.Rows)
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
// the degrees plus one). Sums are accumulated in float64.
func gcnNormalize(norm, self []float32, a *spgemm.CSR, deg []int32, degs []float64) []float64 {
	if cap(degs) < a.Rows+a.Cols {
		degs = make([]float64, a.Rows+a.Cols)
	}
	degs = degs[:a.Rows+a.Cols]
	// rowScale[i] multiplies row i's values, colScale[j] = 1/sqrt(d_j).
	rowScale, colScale := degs[:a.Rows], degs[a.Rows:]
	if deg != nil {
		if len(deg) != a.Cols {
			panic(spgemm.ShapeError{Op: "gnn: GCN block degrees", ARows: a.Rows, ACols: a.Cols, BRows: len(deg), BCols: 1})
		}
		for j, d := range deg {
			colScale[j] = 1 / math.Sqrt(float64(d)+1)
		}
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
		clear(colScale)
		for i := range a.Rows {
			s := 1.0 // the self loop
			colScale[i]++
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				s += float64(a.Data[p])
				colScale[a.Indices[p]] += float64(a.Data[p])
			}
			rowScale[i] = 1 / math.Sqrt(s)
		}
		for j, d := range colScale {
			colScale[j] = 1 / math.Sqrt(d)
		}
		for i := range a.Rows {
			self[i] = float32(rowScale[i] * colScale[i])
		}
	}
	for i := range a.Rows {
		ri := rowScale[i]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			norm[p] = float32(float64(a.Data[p]) * ri * colScale[a.Indices[p]])
		}
	}
	return degs
}
