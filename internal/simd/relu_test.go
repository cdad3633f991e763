package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReLUGradColSums checks that ReLUGradColSums (the AVX2 kernel where it
// runs, with the Go loop on the columns past the last multiple of 8) gives
// the bits of the plain Go loop, for block widths around 8, strides wider
// than the block, and values including NaNs, infinities, denormals and
// signed zeros in both d and h.
func TestReLUGradColSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)),
		float32(math.Inf(-1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1, -1}
	for _, tc := range []struct{ w, stride, rows int }{
		{1, 1, 5}, {7, 9, 4}, {8, 8, 7}, {9, 16, 6}, {16, 16, 9}, {23, 40, 5}, {64, 64, 3}, {100, 256, 11}, {128, 256, 20},
	} {
		n := (tc.rows-1)*tc.stride + tc.w
		d, h := make([]float32, n), make([]float32, n)
		for e := range d {
			d[e], h[e] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			if rng.IntN(8) == 0 {
				h[e] = special[rng.IntN(len(special))]
			}
			if rng.IntN(8) == 0 {
				d[e] = special[rng.IntN(len(special))]
			}
		}
		scale := float32(2)
		wantD, wantS := slices.Clone(d), make([]float32, tc.w)
		reluGradColSums(wantD, h, tc.stride, tc.rows, scale, wantS, 0)
		sums := make([]float32, tc.w)
		ReLUGradColSums(d, h, tc.stride, tc.rows, scale, sums)
		if !bitsEqual(d, wantD) || !bitsEqual(sums, wantS) {
			t.Errorf("w=%d stride=%d rows=%d: bits differ from the Go loop", tc.w, tc.stride, tc.rows)
		}
	}
}

// TestPassPositive checks the branch-free ReLU gradient test against v > 0
// on the values where it can go wrong.
func TestPassPositive(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, v := range []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, inf, -inf, float32(math.NaN())} {
		got := PassPositive(3, v)
		want := float32(0)
		if v > 0 {
			want = 3
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("PassPositive(3, %v) = %v; want %v", v, got, want)
		}
	}
}

func TestReLUGradColSumsShort(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a d shorter than its rows")
		}
	}()
	ReLUGradColSums(make([]float32, 15), make([]float32, 16), 8, 2, 1, make([]float32, 8))
}

func bitsEqual(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}
