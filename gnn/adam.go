package gnn

import (
	"fmt"
	"math"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/spgemm"
)

// Defaults of AdamOptions' zero fields (those of Kingma and Ba, ICLR 2015,
// and of PyTorch).
const (
	DefaultLR    = 0.01
	DefaultBeta1 = 0.9
	DefaultBeta2 = 0.999
	DefaultEps   = 1e-8
)

// AdamOptions configure Adam. A zero field means its default; WeightDecay 0
// means none.
type AdamOptions struct {
	LR           float64 // learning rate; 0 means DefaultLR
	Beta1, Beta2 float64 // moment decay rates in [0, 1); 0 means the defaults
	Eps          float64 // denominator guard; 0 means DefaultEps
	// WeightDecay is the L2 penalty coefficient λ: λ·p is added to the
	// gradient of every parameter before the moments are updated (PyTorch's
	// Adam, not AdamW).
	WeightDecay float64
	// DecayedParams, when > 0, limits WeightDecay to the first DecayedParams
	// parameters; the others are updated without it. 0 means every
	// parameter is decayed. A train.Trainer sets it from
	// train.TrainerOptions.Optimizer.WeightDecayFirstLayer (the first layer's parameters come
	// first in Model.Params).
	DecayedParams int
}

func (o AdamOptions) withDefaults() (AdamOptions, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.LR, DefaultLR)
	def(&o.Beta1, DefaultBeta1)
	def(&o.Beta2, DefaultBeta2)
	def(&o.Eps, DefaultEps)
	switch {
	case !(o.LR > 0) || math.IsInf(o.LR, 0):
		return o, option.Errorf("gnn", "AdamOptions", "LR", o.LR, "want > 0")
	case !(o.Beta1 > 0 && o.Beta1 < 1):
		return o, option.Errorf("gnn", "AdamOptions", "Beta1", o.Beta1, "want in (0, 1)")
	case !(o.Beta2 > 0 && o.Beta2 < 1):
		return o, option.Errorf("gnn", "AdamOptions", "Beta2", o.Beta2, "want in (0, 1)")
	case !(o.Eps > 0):
		return o, option.Errorf("gnn", "AdamOptions", "Eps", o.Eps, "want > 0")
	case !(o.WeightDecay >= 0) || math.IsInf(o.WeightDecay, 0):
		return o, option.Errorf("gnn", "AdamOptions", "WeightDecay", o.WeightDecay, "want >= 0")
	case o.DecayedParams < 0:
		return o, option.Errorf("gnn", "AdamOptions", "DecayedParams", o.DecayedParams, "want >= 0")
	}
	return o, nil
}

// Adam is the Adam optimiser's state for one parameter array: the first and
// second moment estimates and the step count.
type Adam struct {
	opt AdamOptions
	// M and V are the moment estimates, parallel to the parameters. After
	// StepOn with a backend whose memory is not the host's they live in
	// that backend's memory, and M and V hold them only after Sync.
	M, V []float32
	T    int64 // steps taken

	// The moments in a device backend's memory (dev), and whether they are
	// newer than M and V (devNewer).
	dev      Backend
	dm, dv   Buf
	devNewer bool
}

// NewAdam returns Adam's initial state for n parameters. It returns an error
// naming the invalid field of opt.
func NewAdam(n int, opt AdamOptions) (*Adam, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.DecayedParams > n {
		return nil, fmt.Errorf("gnn: AdamOptions.DecayedParams = %d, more than the %d parameters", o.DecayedParams, n)
	}
	return &Adam{opt: o, M: make([]float32, n), V: make([]float32, n)}, nil
}

// Options returns the optimiser's options with the defaults filled in.
func (a *Adam) Options() AdamOptions { return a.opt }

// Step updates params in place from grads (which it leaves unchanged):
//
//	g = grad + λ·p;  m = β1·m + (1-β1)·g;  v = β2·v + (1-β2)·g²
//	p -= lr · (m/(1-β1^t)) / (sqrt(v/(1-β2^t)) + eps)
//
// with λ = 0 for the parameters from DecayedParams on when it is set. It
// panics with a spgemm.ShapeError if the lengths differ from the state's.
func (a *Adam) Step(params, grads []float32) {
	a.check(len(params), len(grads))
	s := a.next()
	k := a.decayed()
	adamUpdate(params[:k], grads[:k], a.M[:k], a.V[:k], s)
	if k < len(params) {
		s.WeightDecay = 0
		adamUpdate(params[k:], grads[k:], a.M[k:], a.V[k:], s)
	}
}

// StepOn is Step on be's buffers, with be's Adam (the CPU backend's runs on
// its threads). With a backend whose memory is the host's the moments stay
// in M and V; with another one (a GPU's) they are copied to its memory at
// the first step and stay there: Sync copies them back.
func (a *Adam) StepOn(be Backend, params, grads Buf) { a.step(be, params, grads) }

// Sync copies the moments from the memory of the backend of the last
// StepOn back into M and V, when they are newer there.
func (a *Adam) Sync() {
	if a.devNewer {
		a.dev.Download(a.M, a.dm)
		a.dev.Download(a.V, a.dv)
		a.devNewer = false
	}
}

// setMoments sets M and V (a checkpoint's), which a later step on a device
// backend copies to its memory.
func (a *Adam) setMoments(m, v []float32) {
	copy(a.M, m)
	copy(a.V, v)
	a.dev, a.devNewer = nil, false
}

// moments returns the moments as buffers of be: M and V themselves for a
// host-memory backend, else copies in be's memory, made (from M and V) at
// the first step on be.
func (a *Adam) moments(be Backend) (m, v Buf) {
	if be.HostMemory() {
		a.Sync()
		a.dev = nil
		return HostBuf(a.M), HostBuf(a.V)
	}
	if a.dev != be {
		a.Sync()
		a.dm, a.dv = growBuf(be, Buf{}, len(a.M)), growBuf(be, Buf{}, len(a.V))
		be.Upload(a.dm, a.M)
		be.Upload(a.dv, a.V)
		a.dev = be
	}
	a.devNewer = true
	return a.dm, a.dv
}

// step is StepOn.
func (a *Adam) step(be Backend, params, grads Buf) {
	a.check(params.Len(), grads.Len())
	m, v := a.moments(be)
	s := a.next()
	n, k := params.Len(), a.decayed()
	be.Adam(params.Slice(0, k), grads.Slice(0, k), m.Slice(0, k), v.Slice(0, k), s)
	if k < n {
		// The same step (one t) without the decay.
		s.WeightDecay = 0
		be.Adam(params.Slice(k, n), grads.Slice(k, n), m.Slice(k, n), v.Slice(k, n), s)
	}
}

// decayed returns the number of leading parameters that are decayed.
func (a *Adam) decayed() int {
	if a.opt.DecayedParams > 0 {
		return a.opt.DecayedParams
	}
	return len(a.M)
}

func (a *Adam) check(np, ng int) {
	if np != len(a.M) || ng != len(a.M) {
		panic(spgemm.ShapeError{Op: "gnn.Adam.Step", ARows: np, ACols: ng, BRows: len(a.M), BCols: len(a.M)})
	}
}

// next counts a step and returns its coefficients.
func (a *Adam) next() AdamStep {
	a.T++
	o := a.opt
	c1 := 1 - math.Pow(o.Beta1, float64(a.T))
	c2 := 1 - math.Pow(o.Beta2, float64(a.T))
	return AdamStep{
		Beta1: float32(o.Beta1), Beta2: float32(o.Beta2), WeightDecay: float32(o.WeightDecay),
		StepSize: float32(o.LR / c1), InvSqrtC2: float32(1 / math.Sqrt(c2)), Eps: float32(o.Eps),
	}
}

// adamUpdate is the update of Step with the coefficients s: the CPU
// backend's Adam.
func adamUpdate(params, grads, m, v []float32, s AdamStep) {
	b1, b2, wd, stepSize, invSqrtC2, eps := s.Beta1, s.Beta2, s.WeightDecay, s.StepSize, s.InvSqrtC2, s.Eps
	m, v = m[:len(grads)], v[:len(grads)]
	params = params[:len(grads)]
	for i, g := range grads {
		p := params[i]
		g += wd * p
		mi := b1*m[i] + (1-b1)*g
		vi := b2*v[i] + (1-b2)*g*g
		m[i], v[i] = mi, vi
		params[i] = p - stepSize*mi/(float32(math.Sqrt(float64(vi)))*invSqrtC2+eps)
	}
}

// firstLayerParams returns the number of parameters of m's first layer (its
// weights and bias), which come first in Params: those that
// train.TrainerOptions.Optimizer.WeightDecayFirstLayer decays.
func (m *Model) firstLayerParams() int {
	if r := m.blocks; r != nil {
		return r.in.fin*r.in.fout + r.in.fout // the input map
	}
	l := &m.layers[0]
	return m.weightCount(l.fin, l.fout) + l.fout
}
