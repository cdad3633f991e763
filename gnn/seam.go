package gnn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/hash"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// This file is the seam between the model and the training orchestration
// of package train (its Trainer, checkpoints and evaluators): what a
// trainer needs from a model, its optimiser and its backend beyond
// Forward, Backward and Predict, and nothing of their internals. The
// trainer drives a step as
//
//	logits := m.ForwardBuf(mb, x, pass)
//	dLogits = GrowBuf(be, dLogits, logits.Len())
//	loss, correct, labelled := be.SoftmaxCrossEntropy(dLogits, logits, classes, labels)
//	m.BackwardBuf(dLogits)
//	SyncBackend(be)
//	// the gradient all-reduce: m.Grads(), then m.SetGrads
//	adam.StepOn(be, m.ParamsBuf(), m.GradsBuf())
//	SyncBackend(be)

// SetGrads replaces the model's gradients with g (laid out like Params):
// the all-reduced gradients of a data-parallel step. It panics when len(g)
// is not the number of parameters.
func (m *Model) SetGrads(g []float32) { m.setGrads(g) }

// FirstLayerParams returns the number of parameters of the model's first
// layer (its weights and bias, or the residual architecture's input map),
// which come first in Params: the AdamOptions.DecayedParams that decay only
// the first layer, as Kipf and Welling's GCN does.
func (m *Model) FirstLayerParams() int { return m.firstLayerParams() }

// ParamHash returns a 64-bit hash of the bits of the model's parameters:
// equal on every rank of a data-parallel run after every step, and
// different, with overwhelming probability, when any bit differs.
func (m *Model) ParamHash() uint64 {
	h := uint64(len(m.Params()))
	for _, v := range m.Params() {
		h = hash.Mix64(h ^ uint64(math.Float32bits(v)))
	}
	return h
}

// CheckTrainingMemory returns an error naming field (the option that sets
// the width, for the message) when training a model of o would not fit in
// the machine's memory: four float32 values per parameter (the parameter,
// its gradient and Adam's two moments). It is checked before the model
// exists, since allocating it would end the process with the runtime's
// fatal out-of-memory error. Options that NewModel refuses are not checked
// here.
func (o ModelOptions) CheckTrainingMemory(field string) error {
	full, err := o.withDefaults()
	if err != nil {
		return nil
	}
	return checkMemory(4*int64(full.paramCount()), field, full.Hidden, "the parameters, their gradients and Adam's moments")
}

// Validate returns an error naming the first invalid field of o (an
// *option.Error of package option, whose path is the field: LR).
func (o AdamOptions) Validate() error {
	_, err := o.withDefaults()
	return err
}

// SetMoments sets the moments M and V (a checkpoint's; T is set directly),
// which a later step on a device backend copies to its memory. It panics
// when their lengths are not the optimiser's.
func (a *Adam) SetMoments(m, v []float32) {
	if len(m) != len(a.M) || len(v) != len(a.V) {
		panic(fmt.Sprintf("gnn: Adam.SetMoments: %d and %d moments for %d parameters", len(m), len(v), len(a.M)))
	}
	a.setMoments(m, v)
}

// GrowBuf returns b resized to n values, reusing its memory when it is big
// enough and allocating n+n/4 values from be otherwise, so that a buffer
// kept from one minibatch to the next grows only when a minibatch is larger
// than every earlier one. The contents are not cleared. A Freer backend
// frees the allocation b outgrew.
func GrowBuf(be Backend, b Buf, n int) Buf { return growBuf(be, b, n) }

// SyncBackend waits for be's work when it is a Syncer and returns its
// error (ErrBackend's, for a backend whose operations report none).
func SyncBackend(be Backend) error { return syncBackend(be) }

// PredictScored is PredictInput that also returns, for two classes, the
// class-1 score of every vertex (the difference of its two logits, for a
// ROC AUC; nil otherwise).
func (m *Model) PredictScored(ctx context.Context, adj *spgemm.CSR, x Input, chunkRows int) ([]int32, []float64, error) {
	return m.predictScored(ctx, adj, x, chunkRows, true)
}

// RowBlock is a block of rows of the graph for layer-wise full-neighbour
// inference on one rank of a distributed run (train.BlockEvaluator): the
// rows' aggregation operator over their sources, and where every layer's
// input rows of the sources come from.
type RowBlock struct {
	// Adj is the Rows x len(Src) operator, its values normalised by
	// NormalizeRowBlock; Src lists the vertices of its columns, the
	// block's own rows first (a prefix, as in a sampled block).
	Adj *spgemm.CSR
	Src []int32
	// Self holds GCN's self-loop weights of the rows (NormalizeRowBlock's).
	Self []float32
	// Features gives the input features of every vertex of Src.
	Features featurex.Store
	// Hidden returns, for the output of hidden layer li of width f, the
	// host array (Rows x f) the block's rows are written to and the store
	// that then gives every source's rows of it, the next layer's input:
	// collective when the store exchanges rows.
	Hidden func(ctx context.Context, li, f int) (rows []float32, store featurex.Store, err error)
	// Scratch, when not nil, holds the sources' gathered input rows and
	// their chunks' row offsets, kept from one inference to the next.
	Scratch *RowBlockScratch
}

// RowBlockScratch is the reusable memory of InferRowBlock.
type RowBlockScratch struct {
	inputs []float32
	aPtr   []int64
}

// NormalizeRowBlock writes into norm (len(a.Data)) the values of the
// aggregation operator of the block a, as Predict forms it for the whole
// graph: row-normalised for SAGE, Â's rows for GCN with the graph's
// degrees deg of a's columns (self then receives the rows' self-loop
// weights), and a's own values for Linear. GCN with GCNBlockNorm needs the
// whole graph's column sums and is an error.
func (m *Model) NormalizeRowBlock(norm, self []float32, a *spgemm.CSR, deg []int32) error {
	switch m.opt.Arch {
	case SAGE:
		copy(norm, a.Data)
		b := *a
		b.Data = norm
		m.be.NormalizeRows(&b)
	case GCN:
		if m.opt.GCNNorm != GCNGraphNorm {
			return errors.New("gnn: GCN with GCNBlockNorm needs the whole graph's column sums")
		}
		gcnNormalize(norm, self, a, deg, nil)
	default:
		copy(norm, a.Data)
	}
	return nil
}

// InferRowBlock runs layer-wise full-neighbour inference of the rows of b:
// each layer gathers the input rows of b.Src (b.Features, then each hidden
// layer's store, b.Hidden), aggregates and transforms them chunk by chunk
// with the layer math of Predict, and emit receives the logits of rows
// [lo, hi) of the last layer, in order. The residual architecture is
// refused (it is evaluated on the whole graph).
func (m *Model) InferRowBlock(ctx context.Context, b RowBlock, emit func(lo, hi int, logits Buf)) error {
	if m.blocks != nil {
		return errors.New("gnn: the residual architecture (ModelOptions.Residual, Norm) is inferred on the whole graph")
	}
	be := m.be
	rows := b.Adj.Rows
	var selfUp, inUp Buf
	selfB := hostView(be, b.Self, &selfUp)
	var store featurex.Store = b.Features
	fin := m.opt.InFeatures
	sc := b.Scratch
	if sc == nil {
		sc = new(RowBlockScratch)
	}
	var agg, out Buf
	defer func() { freeBufs(be, &selfUp, &inUp, &agg, &out) }()
	for li := range m.layers {
		l := &m.layers[li]
		last := li == len(m.layers)-1
		// The input rows of every source: the features, or the last
		// layer's output gathered from the blocks that computed it.
		sc.inputs = par.Resize(sc.inputs, len(b.Src)*fin)
		if err := store.Gather(ctx, sc.inputs, b.Src); err != nil {
			return fmt.Errorf("gnn: layer %d inputs: %w", li, err)
		}
		in := hostView(be, sc.inputs, &inUp)
		chunk := max(1, DefaultInferChunkFloats/max(l.fin, l.fout))
		out = growBuf(be, out, rows*l.fout)
		for lo := 0; lo < rows; lo += chunk {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("gnn: inference: %w", err)
			}
			hi := min(lo+chunk, rows)
			io := layerIO{rows: hi - lo, out: out.Slice(lo*l.fout, hi*l.fout), in: in, inDst: in.Slice(lo*l.fin, hi*l.fin)}
			var part spgemm.CSR
			if m.opt.Arch != Linear {
				part, sc.aPtr = rowsOf(b.Adj, lo, hi, sc.aPtr)
				io.adj = &part
				agg = growBuf(be, agg, (hi-lo)*l.fin)
				io.agg = agg
			}
			if m.opt.Arch == GCN {
				io.self = selfB.Slice(lo, hi)
			}
			forwardDense(be, m.opt.Arch, &l.w, l.fin, l.fout, &io)
			if last {
				emit(lo, hi, io.out)
			} else {
				be.ReLU(io.out)
			}
		}
		if last {
			break
		}
		// This block's output, served to the sources' other owners for
		// the next layer.
		dst, next, err := b.Hidden(ctx, li, l.fout)
		if err != nil {
			return fmt.Errorf("gnn: layer %d outputs: %w", li, err)
		}
		if h := out.Host(); h != nil {
			copy(dst, h[:rows*l.fout])
		} else {
			be.Download(dst, out.Slice(0, rows*l.fout))
		}
		store, fin = next, l.fout
	}
	return nil
}
