package costmodel

// GradientBytes returns the bytes of one step's gradient all-reduce in
// data-parallel training (train.DataParallel): params float32 gradients and
// three float32 metrics, in one buffer.
func GradientBytes(params int) float64 { return 4 * float64(params+3) }

// RingAllreduceBytes returns the bytes one rank sends in a ring
// all-reduce of a buffer of bytes over p ranks: a reduce-scatter and an
// all-gather, each p-1 steps of bytes/p, so 2(p-1)/p · bytes (0 on one
// rank).
func RingAllreduceBytes(p int, bytes float64) float64 {
	if p <= 1 {
		return 0
	}
	return 2 * float64(p-1) / float64(p) * bytes
}

// RingAllreduceSeconds returns the time of one ring all-reduce of bytes
// over p ranks with bandwidth bytes per second per rank and latency
// seconds per message: 2(p-1)/p · bytes / bandwidth + 2(p-1) · latency.
func RingAllreduceSeconds(p int, bytes, bandwidth, latency float64) float64 {
	if p <= 1 {
		return 0
	}
	return RingAllreduceBytes(p, bytes)/bandwidth + 2*float64(p-1)*latency
}

// GradientSeconds returns the gradient all-reduce time of one epoch of
// data-parallel training: one ring all-reduce of GradientBytes(params)
// per step, steps = ceil(trainVertices / globalBatch).
func GradientSeconds(p, params, trainVertices, globalBatch int, bandwidth, latency float64) float64 {
	steps := (trainVertices + globalBatch - 1) / globalBatch
	return float64(steps) * RingAllreduceSeconds(p, GradientBytes(params), bandwidth, latency)
}
