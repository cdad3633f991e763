package samplingtest

import (
	"math/rand/v2"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// RandomFeatures returns n values of scale times a standard normal draw:
// the dense features (or hidden states) of tests.
func RandomFeatures(rng *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = scale * float32(rng.NormFloat64())
	}
	return x
}

// RandomBlock returns an nDst x nSrc block whose row i holds each source
// with probability density (at least one entry per row), with values 1 or,
// when weighted, random positive weights.
func RandomBlock(rng *rand.Rand, nDst, nSrc int, density float64, weighted bool) spgemm.CSR {
	a := spgemm.CSR{Rows: nDst, Cols: nSrc, Indptr: make([]int64, 1, nDst+1)}
	for i := 0; i < nDst; i++ {
		start := len(a.Indices)
		for j := 0; j < nSrc; j++ {
			if rng.Float64() < density {
				a.Indices = append(a.Indices, int32(j))
			}
		}
		if len(a.Indices) == start {
			a.Indices = append(a.Indices, int32(rng.IntN(nSrc)))
		}
		for range len(a.Indices) - start {
			v := float32(1)
			if weighted {
				v = 0.25 + rng.Float32()
			}
			a.Data = append(a.Data, v)
		}
		a.Indptr = append(a.Indptr, int64(len(a.Indices)))
	}
	return a
}

// RandomMinibatch returns a minibatch of nSeeds seeds with len(widths)
// blocks, block l having widths[l] sources (widths increasing, widths[0] >
// nSeeds).
func RandomMinibatch(rng *rand.Rand, nSeeds int, widths []int, weighted bool) *sampling.Minibatch {
	mb := &sampling.Minibatch{Index: 3, Seeds: make([]int32, nSeeds)}
	for i := range mb.Seeds {
		mb.Seeds[i] = int32(100 + i)
	}
	rows := nSeeds
	for _, w := range widths {
		src := make([]int32, w)
		for i := range src {
			src[i] = int32(100 + i)
		}
		mb.Blocks = append(mb.Blocks, sampling.Block{Adj: RandomBlock(rng, rows, w, 0.4, weighted), Src: src})
		rows = w
	}
	return mb
}

// Sparsify zeroes each value of x except a fraction keep of them, and sets
// one value to 1 (at least one nonzero).
func Sparsify(rng *rand.Rand, x []float32, keep float64) {
	for i := range x {
		if rng.Float64() >= keep {
			x[i] = 0
		}
	}
	x[rng.IntN(len(x))] = 1
}
