package main

// The gradient phase of the epoch's cost model: one ring all-reduce of the
// model's gradients per step (train.DataParallel; the term itself lives in
// benchmarks/internal/costmodel, which dptrainbench checks against the
// bytes measured under mpirun).

import (
	"fmt"
	"math"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/costmodel"
	"github.com/bulksample/bulksample/gnn"
)

// gradientTraffic is the gradient all-reduce of one rank over an epoch of
// steps steps of a model of params parameters on p ranks: a ring
// all-reduce per step, 2(p-1)/p · B bytes with B = 4·(params + 3), in
// 2(p-1) messages.
func gradientTraffic(p, params int, steps float64) phaseTraffic {
	b := costmodel.RingAllreduceBytes(p, costmodel.GradientBytes(params))
	return phaseTraffic{phase: "gradients", rounds: steps * 2 * float64(p-1), bytes: steps * b}
}

// sageParams returns the parameter count of the GraphSAGE model of w with
// hidden width hidden and classes classes.
func sageParams(w workload, hidden, classes int) (int, error) {
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: len(w.fanouts), Hidden: hidden, InFeatures: w.features, Classes: classes, Seed: 1})
	if err != nil {
		return 0, err
	}
	return len(m.Params()), nil
}

// gradientPrediction returns the paragraph and table of the gradient term
// of the papers100M prediction on cl: each rank trains its own minibatches
// of w.batch seeds (the paper's data parallelism: ceil(train/b)/p steps
// per epoch), with msgLatency seconds per message of the ring.
func gradientPrediction(cl cluster, msgLatency float64) string {
	const hidden, classes = 256, 172 // issue 11's model; ogbn-papers100M's classes
	w := papers100M
	params, err := sageParams(w, hidden, classes)
	if err != nil {
		return fmt.Sprintf("(gradient term: %v)\n", err)
	}
	steps := math.Ceil(float64(w.train)/float64(w.batch)) / float64(cl.p)
	t := gradientTraffic(cl.p, params, steps)
	beta := cl.injection / float64(cl.ranksPerNode)
	bw, lat := t.bytes/beta, t.rounds*msgLatency
	var b strings.Builder
	fmt.Fprintf(&b, "\n**Gradient all-reduce** (benchmarks/internal/costmodel; dptrainbench checks its bytes against the counters): the model, "+
		"3-layer GraphSAGE with hidden %d and %d classes, has %d parameters, so a step all-reduces B = %.2f MB; a ring sends 2(p-1)/p·B "+
		"per rank in 2(p-1) messages. With every rank training its own minibatches of %d, an epoch is %.2f steps: %.1f MB per rank, "+
		"%.4f s at %.2f GB/s per rank plus %.4f s of latency at %.0f µs per message, %.4f s in all, beside the feature exchange above. "+
		"(A global batch of %d split over the ranks would take %d steps: %.2f s, latency-bound.)\n",
		hidden, classes, params, costmodel.GradientBytes(params)/1e6, w.batch, steps, t.bytes/1e6, bw, beta/1e9, lat, 1e6*msgLatency, bw+lat,
		w.batch, int(math.Ceil(float64(w.train)/float64(w.batch))),
		costmodel.GradientSeconds(cl.p, params, int(w.train), w.batch, beta, msgLatency))
	return b.String()
}
