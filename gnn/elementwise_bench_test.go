package gnn

import (
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/sampling"
)

// BenchmarkElementwise times the CPU backend's element-wise passes over a
// 90,000 x 256 activation (the first hidden layer of the products-like
// workload of benchmarks/torchpeer), at 1 and 2 threads.
func BenchmarkElementwise(b *testing.B) {
	const rows, cols = 90_000, 256
	rng := rand.New(rand.NewPCG(1, 2))
	h, d := make([]float32, rows*cols), make([]float32, rows*cols)
	for i := range h {
		h[i], d[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	bias, sums := make([]float32, cols), make([]float32, cols)
	mask := DropoutMask{Key: sampling.NewStream(1).Row(0, 0, 1, 0), Threshold: 1 << 15, Scale: 2}
	for _, threads := range []int{1, 2} {
		c := NewCPU(CPUOptions{Threads: threads})
		for _, op := range []struct {
			name string
			fn   func()
		}{
			{"Dropout", func() { c.Dropout(HostBuf(d), mask, true) }},
			{"DropoutNoReLU", func() { c.Dropout(HostBuf(d), mask, false) }},
			{"CopyDropoutSelf", func() { c.CopyDropout(HostBuf(d), HostBuf(d), mask) }},
			{"BiasActivate", func() { c.BiasActivate(HostBuf(d), HostBuf(bias), mask, true) }},
			{"CopyDropout", func() { c.CopyDropout(HostBuf(d), HostBuf(h), mask) }},
			{"ReLUDropoutGrad", func() { c.ReLUDropoutGrad(HostBuf(d), HostBuf(h), 2) }},
			{"ReLUDropoutGradColSums", func() { c.ReLUDropoutGradColSums(HostBuf(d), HostBuf(h), 2, HostBuf(sums)) }},
			{"ColSums", func() { c.ColSums(HostBuf(sums), HostBuf(h)) }},
			{"AddBias", func() { c.AddBias(HostBuf(d), HostBuf(bias)) }},
		} {
			b.Run(op.name+"/threads="+string(rune('0'+threads)), func(b *testing.B) {
				b.SetBytes(4 * rows * cols)
				for b.Loop() {
					op.fn()
				}
			})
		}
	}
}
