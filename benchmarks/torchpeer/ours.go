package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/stats"
)

// ours trains bulksample's model on a workload's minibatches, one step per
// minibatch, as train.Trainer's step does (forward and loss, backward, Adam),
// timing each phase.
type ours struct {
	w     *workload
	model *gnn.Model
	adam  *gnn.Adam
	d     []float32 // dLogits
	steps int       // steps taken, for the passes' keys
}

func newOurs(w *workload, seed uint64, threads int) (*ours, error) {
	c := w.cfg
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: c.Layers, Hidden: c.Hidden,
		InFeatures: c.Features, Classes: c.Classes, Dropout: c.Dropout, Seed: seed, Threads: threads})
	if err != nil {
		return nil, err
	}
	adam, err := gnn.NewAdam(len(m.Params()), gnn.AdamOptions{LR: c.LR})
	if err != nil {
		return nil, err
	}
	return &ours{w: w, model: m, adam: adam}, nil
}

// phaseTimes are per-step seconds of the three phases.
type phaseTimes struct {
	Forward  []float64 `json:"forward"`
	Backward []float64 `json:"backward"`
	Update   []float64 `json:"update"`
	// CPU is the CPU time of the whole process (all its threads) in each
	// step: the work done, which the machine's load inflates less than the
	// wall time.
	CPU []float64 `json:"cpu"`
}

func (p *phaseTimes) add(q phaseTimes) {
	p.Forward = append(p.Forward, q.Forward...)
	p.Backward = append(p.Backward, q.Backward...)
	p.Update = append(p.Update, q.Update...)
	p.CPU = append(p.CPU, q.CPU...)
}

// total returns the per-step sums of the phases.
func (p phaseTimes) total() []float64 {
	t := make([]float64, len(p.Forward))
	for i := range t {
		t[i] = p.Forward[i] + p.Backward[i] + p.Update[i]
	}
	return t
}

// run takes n training steps, cycling through the minibatches, and returns
// their times; losses receives each step's loss when not nil.
func (o *ours) run(n int, losses *[]float64) phaseTimes {
	var p phaseTimes
	classes := o.w.cfg.Classes
	for range n {
		i := o.steps % len(o.w.mbs)
		mb := &o.w.mbs[i]
		pass := gnn.Pass{Train: true, Epoch: o.steps / len(o.w.mbs), Minibatch: i}
		o.steps++
		c0 := benchutil.CPUSeconds()
		t0 := time.Now()
		logits := o.model.ForwardInput(mb, o.w.inputs[i], pass)
		if len(o.d) != len(logits) {
			o.d = make([]float32, len(logits))
		}
		loss, _, _ := gnn.CrossEntropy(o.d, logits, classes, o.w.labels[i])
		t1 := time.Now()
		o.model.Backward(o.d)
		t2 := time.Now()
		o.adam.StepOn(o.model.Backend(), gnn.HostBuf(o.model.Params()), gnn.HostBuf(o.model.Grads()))
		t3 := time.Now()
		p.CPU = append(p.CPU, benchutil.CPUSeconds()-c0)
		p.Forward = append(p.Forward, t1.Sub(t0).Seconds())
		p.Backward = append(p.Backward, t2.Sub(t1).Seconds())
		p.Update = append(p.Update, t3.Sub(t2).Seconds())
		if losses != nil {
			*losses = append(*losses, loss)
		}
	}
	return p
}

// digest returns a SHA-256 of the parameters, to show that a change of the
// code left the training results as they were.
func (o *ours) digest() string {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, o.model.Params())
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// reference returns the initial parameters and the logits of minibatch 0
// without dropout: the peer starts from them and checks that it computes
// the same model.
func (o *ours) reference() (params, logits []float32) {
	params = slices.Clone(o.model.Params())
	logits = slices.Clone(o.model.ForwardInput(&o.w.mbs[0], o.w.inputs[0], gnn.Pass{}))
	return params, logits
}

// medianMs returns the median of x (seconds) in milliseconds.
func medianMs(x []float64) float64 { return stats.Median(x) * 1e3 }

func fmtMs(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
