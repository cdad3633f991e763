package gnn

import (
	"errors"
	"fmt"
	"math"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/procstat"
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
	// Backend runs the layers' operations; nil means the CPU backend with
	// Threads and PureGoBLAS (NewCPU), which a non-nil Backend ignores.
	Backend Backend
	// GCNNorm selects the degrees GCN normalises node-wise blocks with;
	// the default is the graph's (GCNGraphNorm).
	GCNNorm GCNNorm
	// Residual and Norm select the residual architecture of Platonov et
	// al. (ICLR 2023; residual.go) for SAGE and GCN: an input linear map
	// to Hidden, then per graph layer a block of Norm, the conv, dropout,
	// GELU, a linear map and dropout, whose output Residual adds to its
	// input (a skip connection), then Norm and the output linear map.
	// With both false (the default) the model is the plain stack. The
	// backend must be a NormBackend (the CPU's is).
	Residual bool
	Norm     Norm
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
	if r.Norm < NormNone || r.Norm > NormLayer {
		return r, fmt.Errorf("gnn: ModelOptions.Norm = %d is not a normalisation", int(r.Norm))
	}
	if r.Arch == Linear && r.blockArch() {
		return r, errors.New("gnn: ModelOptions.Residual and Norm apply to SAGE and GCN (Linear reads no block)")
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
// minibatch to the next. The parameters, the gradients and the buffers are
// memory of the model's Backend. A Model is not safe for concurrent use.
type Model struct {
	opt    ModelOptions
	be     Backend
	params Buf
	grads  Buf
	layers []layer
	degs   []float64 // scratch of the GCN normalisation
	// sparseDensity is the density under which the first layer takes the
	// sparse-input path: sparseMaxDensity, or 0 in tests of the dense path.
	sparseDensity float64
	// Host copies of the parameters and gradients, for backends whose
	// memory is not the host's.
	paramsHost, gradsHost []float32
	// Scratch of uploads of host inputs to such backends.
	dUp Buf
	// blocks is the residual architecture's state (ModelOptions.Residual
	// and Norm); nil for the plain stack, whose layers are all of layers.
	// In the residual architecture layers are the blocks' convs.
	blocks *resNet
}

// weights are a layer's parameters: for SAGE w1 is W_self and w2 W_neigh;
// GCN and Linear use only w1.
type weights struct {
	w1, w2, b Buf
}

// layer is one layer and its buffers. w and the g* gradients are views of
// the model's flat parameter and gradient buffers.
type layer struct {
	fin, fout  int
	w          weights
	g1, g2, gb Buf

	// State of the last forward pass.
	nSrc, nDst int
	in         Buf        // the input after dropout, nSrc x fin
	inBuf      Buf        // owns in when the pass copies its input
	adj        spgemm.CSR // the block with normalised values
	norm       []float32  // adj's values
	self       []float32  // GCN self-loop weight of each destination row
	selfB      Buf        // self on the backend
	selfUp     Buf        // upload scratch of self
	agg        Buf        // nDst x fin aggregate (nDst x fout scratch on the sparse path)
	out        Buf        // nDst x fout pre-activation
	dAgg, dIn  Buf

	// The sparse-input path of the first layer (see forwardSparse).
	sparse bool
	xs     spgemm.CSR // the input after dropout, nSrc x fin
	xsDst  spgemm.CSR // its first nDst rows
	t, dT  Buf        // nSrc x fout
}

// NewModel returns a model with Glorot-uniform weights drawn from
// opt.Seed and zero biases. It returns an error naming the field of opt that
// is invalid.
func NewModel(opt ModelOptions) (*Model, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Model{opt: o, be: o.Backend, sparseDensity: sparseMaxDensity}
	if m.be == nil {
		m.be = NewCPU(CPUOptions{Threads: o.Threads, PureGoBLAS: o.PureGoBLAS})
	}
	if o.blockArch() {
		if _, ok := m.be.(NormBackend); !ok {
			return nil, fmt.Errorf("gnn: ModelOptions.Residual and Norm need layer normalisation and GELU, which the %s backend does not have (NormBackend); train them on the CPU", m.be.Name())
		}
	}
	dims := o.dims()
	m.layers = make([]layer, len(dims)-1)
	n := o.paramCount()
	if err := checkMemory(2*int64(n), "ModelOptions.Hidden", o.Hidden, "its parameters and their gradients"); err != nil {
		return nil, err
	}
	m.params = m.be.Alloc(n)
	m.grads = m.be.Alloc(n)
	init := m.params.Host()
	if init == nil {
		init = make([]float32, n)
	}
	off := 0
	take := func(k int) (Buf, Buf, []float32) {
		p, g, h := m.params.Slice(off, off+k), m.grads.Slice(off, off+k), init[off:off+k]
		off += k
		return p, g, h
	}
	stream := sampling.NewStream(o.Seed ^ initSalt)
	if o.blockArch() {
		if err := m.newResNet(init, stream); err != nil {
			return nil, err
		}
		if !m.be.HostMemory() {
			m.be.Upload(m.params, init)
		}
		return m, nil
	}
	for i := range m.layers {
		l := &m.layers[i]
		l.fin, l.fout = dims[i], dims[i+1]
		var h []float32
		l.w.w1, l.g1, h = take(l.fin * l.fout)
		glorot(h, l.fin, l.fout, stream.Row(0, 0, i, 1))
		if o.Arch == SAGE {
			l.w.w2, l.g2, h = take(l.fin * l.fout)
			glorot(h, l.fin, l.fout, stream.Row(0, 0, i, 2))
		}
		l.w.b, l.gb, _ = take(l.fout)
	}
	if !m.be.HostMemory() {
		m.be.Upload(m.params, init)
	}
	return m, nil
}

func (m *Model) weightCount(fin, fout int) int { return m.opt.weightCount(fin, fout) }

func (o *ModelOptions) weightCount(fin, fout int) int {
	if o.Arch == SAGE {
		return 2 * fin * fout
	}
	return fin * fout
}

// dims returns the widths of the layers' inputs and of the last output,
// for options with their defaults filled in.
func (o *ModelOptions) dims() []int {
	if o.Arch == Linear {
		return []int{o.InFeatures, o.Classes}
	}
	dims := make([]int, o.Layers+1)
	dims[0], dims[o.Layers] = o.InFeatures, o.Classes
	for i := 1; i < o.Layers; i++ {
		dims[i] = o.Hidden
	}
	return dims
}

// paramCount returns the number of parameters of the model, for options
// with their defaults filled in: every layer's weights and biases.
func (o *ModelOptions) paramCount() int {
	if o.blockArch() {
		return o.resParamCount()
	}
	dims, n := o.dims(), 0
	for i := range len(dims) - 1 {
		n += o.weightCount(dims[i], dims[i+1]) + dims[i+1]
	}
	return n
}

// checkMemory returns an error naming the option field = value when floats
// float32 values, what, would not fit in the machine's memory: allocating
// them would end the process with the runtime's fatal out-of-memory error
// (a --hidden with a digit too many), or make it swap.
func checkMemory(floats int64, field string, value int, what string) error {
	total := procstat.TotalMemory()
	if need := 4 * floats; total > 0 && need > total {
		return fmt.Errorf("gnn: %s = %d: %s need %.1f GiB, more than this machine's %.1f GiB of memory",
			field, value, what, float64(need)/(1<<30), float64(total)/(1<<30))
	}
	return nil
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

// BLAS returns the name of the compute backend the model uses (for the CPU
// backend, its BLAS).
func (m *Model) BLAS() string { return m.be.Name() }

// Backend returns the model's compute backend.
func (m *Model) Backend() Backend { return m.be }

// Params returns all parameters as one array: for each layer in input to
// output order, W (SAGE: W_self then W_neigh, each fin x fout row-major) and
// then the bias. With a host-memory backend the slice is the model's own
// storage; otherwise it is a copy, and SetParams writes it back.
func (m *Model) Params() []float32 { return m.toHost(m.params, &m.paramsHost) }

// Grads returns the gradients of the last Backward, laid out like Params,
// under the same terms as Params.
func (m *Model) Grads() []float32 { return m.toHost(m.grads, &m.gradsHost) }

// SetParams copies p (laid out like Params) into the model's parameters.
// It panics with a spgemm.ShapeError if len(p) is not the parameter count.
func (m *Model) SetParams(p []float32) { m.fromHost(m.params, p) }

// setGrads copies g into the gradients.
func (m *Model) setGrads(g []float32) { m.fromHost(m.grads, g) }

func (m *Model) toHost(b Buf, mirror *[]float32) []float32 {
	if h := b.Host(); h != nil || b.Len() == 0 {
		return h
	}
	if len(*mirror) != b.Len() {
		*mirror = make([]float32, b.Len())
	}
	m.be.Download(*mirror, b)
	return *mirror
}

func (m *Model) fromHost(b Buf, x []float32) {
	if len(x) != b.Len() {
		panic(spgemm.ShapeError{Op: "gnn.Model.SetParams", ARows: len(x), ACols: 1, BRows: b.Len(), BCols: 1})
	}
	if h := b.Host(); h != nil {
		if &h[0] != &x[0] {
			copy(h, x)
		}
		return
	}
	m.be.Upload(b, x)
}

// Pass identifies a forward pass. A training pass applies dropout with masks
// that are a pure function of (model seed, Epoch, Minibatch, Part, layer,
// element), so a pass can be repeated bit for bit (checkpoint and resume).
type Pass struct {
	Train            bool
	Epoch, Minibatch int
	// Part is the number of the part of the minibatch this pass trains on
	// in data-parallel training (Sharder), so that the parts' masks are
	// independent; 0 on one process.
	Part int
}

// Input is the input features of a minibatch's input vertices
// (mb.InputNodes(), or its seeds for Linear), row-major: Dense, or Sparse
// when the features are stored sparse (featurex.SparseGatherer), which
// spares the model compressing them, or Buf when they are already in the
// backend's memory (a device feature store's gather). Exactly one is set.
type Input struct {
	Dense  []float32
	Sparse *spgemm.CSR
	// Buf holds dense features in the backend's memory. With dropout the
	// backend must have the fused CopyDropout (package gpu's has); the
	// model never writes into Buf.
	Buf Buf
	// Blocks, when not nil, are the minibatch's blocks in the backend's
	// memory (a device sampler's), in the order of mb.Blocks (Blocks[0]'s
	// rows are the seeds), which the backend, a BlockFormer, turns into
	// the layers' operators; mb's own Blocks are then not read (mb.Seeds
	// still are).
	Blocks []DeviceBlock
}

// hasBuf reports whether the input is in the backend's memory.
func (in Input) hasBuf() bool { return in.Buf.dev != nil || in.Buf.host != nil }

func (in Input) rows(f int) int {
	switch {
	case in.Sparse != nil:
		return in.Sparse.Rows
	case in.hasBuf():
		return in.Buf.Len() / f
	}
	return len(in.Dense) / f
}

// denseLen returns the number of dense values of the input (0 for Sparse).
func (in Input) denseLen() int {
	if in.hasBuf() {
		return in.Buf.Len()
	}
	return len(in.Dense)
}

// Forward computes the logits of the seeds of mb, a len(mb.Seeds) x Classes
// row-major array owned by the model and valid until the next Forward. x
// holds the input features of mb.InputNodes(), row-major, and is not
// modified. mb must have NumLayers() blocks (Linear reads none; the seeds
// are the first rows of x). Forward panics with a spgemm.ShapeError when the
// sizes do not conform.
func (m *Model) Forward(mb *sampling.Minibatch, x []float32, p Pass) []float32 {
	return m.ForwardInput(mb, Input{Dense: x}, p)
}

// ForwardInput is Forward on an Input: with x.Sparse set it takes the
// sparse rows a featurex.SparseGatherer gives, as train.Trainer does, instead
// of compressing dense rows. The logits are valid until the next forward
// pass.
func (m *Model) ForwardInput(mb *sampling.Minibatch, x Input, p Pass) []float32 {
	out := m.forward(mb, x, p)
	if h := out.Host(); h != nil || out.Len() == 0 {
		return h
	}
	h := make([]float32, out.Len())
	m.be.Download(h, out)
	return h
}

// ForwardBuf is ForwardInput leaving the logits in the backend's memory
// (a len(mb.Seeds) x Classes buffer owned by the model, valid until the
// next forward pass), for a caller that computes the loss on the backend
// (Backend.SoftmaxCrossEntropy) and calls BackwardBuf.
func (m *Model) ForwardBuf(mb *sampling.Minibatch, x Input, p Pass) Buf { return m.forward(mb, x, p) }

// BackwardBuf is Backward with dLogits in the backend's memory, which it
// clobbers.
func (m *Model) BackwardBuf(dLogits Buf) { m.backward(dLogits) }

// ParamsBuf and GradsBuf return the parameters and the gradients as the
// backend's buffers (laid out as Params), e.g. for Adam.StepOn.
func (m *Model) ParamsBuf() Buf { return m.params }

// GradsBuf: see ParamsBuf.
func (m *Model) GradsBuf() Buf { return m.grads }

// forward is Forward on an Input, returning the logits on the backend.
func (m *Model) forward(mb *sampling.Minibatch, x Input, p Pass) Buf {
	if m.blocks != nil {
		return m.forwardBlocks(mb, x, p)
	}
	nSeeds := len(mb.Seeds)
	fin := m.opt.InFeatures
	if x.Sparse != nil && x.Sparse.Cols != fin {
		panic(spgemm.ShapeError{Op: "gnn.Forward sparse input", ARows: x.Sparse.Rows, ACols: x.Sparse.Cols, BRows: x.Sparse.Rows, BCols: fin})
	}
	if x.Sparse == nil && x.denseLen()%fin != 0 {
		panic(spgemm.ShapeError{Op: "gnn.Forward input", ARows: x.denseLen() / fin, ACols: fin, BRows: nSeeds, BCols: fin})
	}
	be := m.be
	if m.opt.Arch == Linear {
		if x.rows(fin) < nSeeds {
			panic(spgemm.ShapeError{Op: "gnn.Forward input", ARows: x.rows(fin), ACols: fin, BRows: nSeeds, BCols: fin})
		}
		l := &m.layers[0]
		l.nSrc, l.nDst = nSeeds, nSeeds
		l.adj = spgemm.CSR{}
		l.out = growBuf(be, l.out, nSeeds*l.fout)
		io := layerIO{rows: nSeeds, out: l.out}
		if m.setInput(l, seedRows(x, nSeeds, fin), p, 0) {
			io.xsDst = &l.xsDst
			forwardSparse(be, Linear, &l.w, l.fout, &io)
			return l.out
		}
		io.in, io.inDst = l.in, l.in
		forwardDense(be, Linear, &l.w, l.fin, l.fout, &io)
		return l.out
	}
	if x.Blocks != nil && len(x.Blocks) != len(m.layers) {
		panic(spgemm.ShapeError{Op: "gnn.Forward device blocks", ARows: len(x.Blocks), ACols: 0, BRows: len(m.layers), BCols: 0})
	}
	if x.Blocks == nil && len(mb.Blocks) != len(m.layers) {
		panic(spgemm.ShapeError{Op: "gnn.Forward blocks", ARows: len(mb.Blocks), ACols: 0, BRows: len(m.layers), BCols: 0})
	}
	fused, _ := be.(fusedBackend)
	var in Buf
	for i := range m.layers {
		l := &m.layers[i]
		var blk *sampling.Block
		if x.Blocks != nil {
			db := x.Blocks[len(m.layers)-1-i]
			l.nSrc, l.nDst = db.Cols(), db.Rows()
		} else {
			blk = &mb.Blocks[len(m.layers)-1-i]
			l.nSrc, l.nDst = blk.Adj.Cols, blk.Adj.Rows
		}
		nIn := in.Len()
		if i == 0 {
			nIn = x.rows(fin) * fin
		}
		if nIn != l.nSrc*l.fin || l.nDst > l.nSrc {
			panic(spgemm.ShapeError{Op: fmt.Sprintf("gnn.Forward layer %d", i), ARows: l.nDst, ACols: l.nSrc, BRows: nIn / l.fin, BCols: l.fin})
		}
		sparse := false
		if i == 0 {
			sparse = m.setInput(l, x, p, i)
		} else {
			// The previous layer's output: ReLU and dropout in place (with
			// its bias, when the previous layer left it out).
			l.in = in
			drop := p.Train && m.opt.Dropout > 0
			var mask DropoutMask
			if drop {
				mask = m.dropoutMask(p, i)
			}
			switch {
			case fused != nil:
				fused.BiasActivate(l.in, m.layers[i-1].w.b, mask, drop)
			case drop:
				be.Dropout(l.in, mask, true)
			default:
				be.ReLU(l.in)
			}
		}
		if blk != nil {
			m.normalize(l, &blk.Adj, blk.Deg)
		} else {
			m.formBlock(l, x.Blocks[len(m.layers)-1-i])
		}
		l.out = growBuf(be, l.out, l.nDst*l.fout)
		io := layerIO{rows: l.nDst, adj: &l.adj, self: l.selfB, out: l.out, noBias: fused != nil && i < len(m.layers)-1}
		if sparse {
			l.t = growBuf(be, l.t, l.nSrc*l.fout)
			transformSparse(be, m.opt.Arch, &l.w, l.fout, l.t, &l.xs)
			io.xsDst, io.t, io.tDst = &l.xsDst, l.t, l.t.Slice(0, l.nDst*l.fout)
			if m.opt.Arch == SAGE {
				l.agg = growBuf(be, l.agg, l.nDst*l.fout)
				io.agg = l.agg
			}
			forwardSparse(be, m.opt.Arch, &l.w, l.fout, &io)
		} else {
			l.agg = growBuf(be, l.agg, l.nDst*l.fin)
			io.in, io.inDst, io.agg = l.in, l.in.Slice(0, l.nDst*l.fin), l.agg
			forwardDense(be, m.opt.Arch, &l.w, l.fin, l.fout, &io)
		}
		in = l.out
	}
	if last := &m.layers[len(m.layers)-1]; last.nDst != nSeeds {
		panic(spgemm.ShapeError{Op: "gnn.Forward seeds", ARows: last.nDst, ACols: last.fout, BRows: nSeeds, BCols: 0})
	}
	return in
}

// seedRows returns the first n rows of x.
func seedRows(x Input, n, f int) Input {
	if x.hasBuf() {
		return Input{Buf: x.Buf.Slice(0, n*f)}
	}
	if x.Sparse == nil {
		return Input{Dense: x.Dense[:n*f]}
	}
	a := x.Sparse
	end := a.Indptr[n]
	return Input{Sparse: &spgemm.CSR{Rows: n, Cols: a.Cols, Indptr: a.Indptr[:n+1], Indices: a.Indices[:end:end], Data: a.Data[:end:end]}}
}

// sparseMaxDensity is the fraction of nonzero inputs under which the first
// layer takes the sparse-input path: bag-of-words features (Cora 1.3%,
// CiteSeer 0.9%) make x·W a sparse product costing nnz(x)·fout instead of
// the dense nSrc·fin·fout. It is featurex's, so that a store keeps sparse
// copies of exactly the features the model multiplies sparse.
const sparseMaxDensity = featurex.SparseMaxDensity

// setInput prepares the first layer's input x: as a CSR matrix l.xs (with
// dropout applied in a training pass) when x is sparse enough (it then
// returns true), or else as the dense l.in (through a dropped-out copy in a
// training pass).
func (m *Model) setInput(l *layer, x Input, p Pass, i int) bool {
	drop := p.Train && m.opt.Dropout > 0
	size := l.nSrc * l.fin
	if x.hasBuf() {
		// Features in the backend's memory: dense, never compressed.
		l.sparse = false
		if !drop {
			l.in = x.Buf
			return false
		}
		fused, ok := m.be.(fusedBackend)
		if !ok {
			panic("gnn: an Input.Buf with dropout needs a backend with the fused CopyDropout")
		}
		l.inBuf = growBuf(m.be, l.inBuf, x.Buf.Len())
		l.in = l.inBuf
		fused.CopyDropout(l.in, x.Buf, m.dropoutMask(p, i))
		return false
	}
	if x.Sparse != nil {
		l.sparse = float64(len(x.Sparse.Data)) < m.sparseDensity*float64(size)
		if !l.sparse {
			// Too dense for the sparse path: expand it.
			d := growBuf(m.be, l.inBuf, size)
			l.inBuf = d
			h := d.Host()
			if h == nil {
				h = make([]float32, size)
			}
			expandRows(h, x.Sparse)
			if !m.be.HostMemory() {
				m.be.Upload(d, h)
			}
			l.in = d
			if drop {
				m.be.Dropout(l.in, m.dropoutMask(p, i), false)
			}
			return false
		}
		copyCSR(&l.xs, x.Sparse)
	} else {
		l.sparse = sparserThan(x.Dense, m.sparseDensity)
		if !l.sparse {
			if !drop {
				l.in = hostView(m.be, x.Dense, &l.inBuf)
				return false
			}
			l.inBuf = growBuf(m.be, l.inBuf, len(x.Dense))
			l.in = l.inBuf
			if fused, ok := m.be.(fusedBackend); ok && m.be.HostMemory() {
				fused.CopyDropout(l.in, HostBuf(x.Dense), m.dropoutMask(p, i))
				return false
			}
			m.be.Upload(l.inBuf, x.Dense)
			m.be.Dropout(l.in, m.dropoutMask(p, i), false)
			return false
		}
		featurex.CompressRows(&l.xs, x.Dense, l.nSrc, l.fin)
	}
	xs := &l.xs
	if drop {
		m.dropoutSparse(xs, p, i)
	}
	end := xs.Indptr[l.nDst]
	l.xsDst = spgemm.CSR{Rows: l.nDst, Cols: l.fin, Indptr: xs.Indptr[:l.nDst+1], Indices: xs.Indices[:end:end], Data: xs.Data[:end:end]}
	l.in = Buf{}
	m.hold(xs)
	m.hold(&l.xsDst)
	return true
}

// sparserThan reports whether under density·len(x) values of x are
// nonzero. It stops counting as soon as the answer is known, so that dense
// features cost a small fraction of a pass.
func sparserThan(x []float32, density float64) bool {
	limit := int(density * float64(len(x)))
	if float64(limit) < density*float64(len(x)) {
		limit++ // nnz < density·len(x) iff nnz < ceil(density·len(x))
	}
	nnz := 0
	for _, v := range x {
		if v != 0 {
			if nnz++; nnz >= limit {
				return false
			}
		}
	}
	return nnz < limit
}

// copyCSR sets dst to a copy of a, reusing dst's arrays when they are large
// enough.
func copyCSR(dst, a *spgemm.CSR) {
	dst.Rows, dst.Cols = a.Rows, a.Cols
	dst.Indptr = append(dst.Indptr[:0], a.Indptr...)
	dst.Indices = append(dst.Indices[:0], a.Indices...)
	dst.Data = append(dst.Data[:0], a.Data...)
}

// expandRows writes the CSR matrix a into the row-major dst.
func expandRows(dst []float32, a *spgemm.CSR) {
	clear(dst)
	for r := range a.Rows {
		row := dst[r*a.Cols : (r+1)*a.Cols]
		for q := a.Indptr[r]; q < a.Indptr[r+1]; q++ {
			row[a.Indices[q]] = a.Data[q]
		}
	}
}

// dropoutMask returns the mask of the dropout of a layer's input in a pass:
// the stream row of the pass and layer, the threshold under which a 16-bit
// draw drops an element, and the scale of kept elements. Dropout is thus
// applied rounded to a multiple of 2^-16.
func (m *Model) dropoutMask(p Pass, layer int) DropoutMask {
	return DropoutMask{
		Key:       sampling.NewStream(m.opt.Seed^dropoutSalt).Row(p.Epoch, p.Minibatch, layer, int32(p.Part)),
		Threshold: uint32(math.Round(math.Ldexp(float64(m.opt.Dropout), 16))),
		Scale:     1 / (1 - m.opt.Dropout),
	}
}

// dropoutSparse applies to the entries of xs the dropout that
// Backend.Dropout applies to the dense matrix xs represents (zeros stay zero
// either way), and removes the dropped entries: stored as explicit zeros
// they would cost the sparse products as much as the kept ones, and adding
// their zero terms changes no finite sum (a sum that starts from +0 never
// becomes -0 by adding ±0). xs is host memory: the sparse input is built on
// the host.
func (m *Model) dropoutSparse(xs *spgemm.CSR, p Pass, layer int) {
	mask := m.dropoutMask(p, layer)
	out := int64(0)
	for r := range xs.Rows {
		start := xs.Indptr[r]
		xs.Indptr[r] = out
		for q := start; q < xs.Indptr[r+1]; q++ {
			e := r*xs.Cols + int(xs.Indices[q])
			if uint32(mask.Key.Uint64(int64(e/4))>>(16*(e%4))&0xffff) < mask.Threshold {
				continue
			}
			xs.Indices[out] = xs.Indices[q]
			xs.Data[out] = xs.Data[q] * mask.Scale
			out++
		}
	}
	xs.Indptr[xs.Rows] = out
	xs.Indices, xs.Data = xs.Indices[:out], xs.Data[:out]
}

// Backward computes the gradients of the loss with respect to all
// parameters into Grads, given dLogits, the gradient with respect to the
// logits of the last Forward (same shape). It must follow a Forward on the
// same minibatch; it overwrites Grads (no accumulation) and clobbers
// dLogits.
func (m *Model) Backward(dLogits []float32) {
	b := hostView(m.be, dLogits, &m.dUp)
	m.backward(b)
	if !m.be.HostMemory() {
		m.be.Download(dLogits, b)
	}
}

// backward is Backward on the backend.
func (m *Model) backward(dLogits Buf) {
	if m.blocks != nil {
		m.backwardBlocks(dLogits)
		return
	}
	last := &m.layers[len(m.layers)-1]
	if dLogits.Len() != last.nDst*last.fout {
		panic(spgemm.ShapeError{Op: "gnn.Backward", ARows: dLogits.Len() / last.fout, ACols: last.fout, BRows: last.nDst, BCols: last.fout})
	}
	scale := float32(1)
	if m.opt.Dropout > 0 {
		scale = 1 / (1 - m.opt.Dropout)
	}
	fused, _ := m.be.(fusedBackend)
	dOut := dLogits
	haveGB := false
	for i := len(m.layers) - 1; i >= 0; i-- {
		l := &m.layers[i]
		needIn := i > 0
		if l.sparse {
			m.backwardSparse(l, dOut, haveGB)
			continue
		}
		m.backwardLayer(l, dOut, needIn, haveGB)
		if needIn {
			// Through the ReLU and dropout of this layer's input: l.in > 0
			// marks where both let the gradient pass, scaled as in forward.
			// The fused pass also sums the columns: the bias gradient of
			// the layer below.
			if fused != nil {
				fused.ReLUDropoutGradColSums(l.dIn, l.in, scale, m.layers[i-1].gb)
			} else {
				m.be.ReLUDropoutGrad(l.dIn, l.in, scale)
			}
			haveGB = fused != nil
			dOut = l.dIn
		}
	}
}
