package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDropout checks that Dropout (the AVX2 kernel where it runs, the Go
// loop on the rest) gives the bits of DropOne element by element, for
// thresholds at the edges of the 16-bit range, with and without bias and
// ReLU, lengths around multiples of 16, and values including NaNs,
// infinities and signed zeros.
func TestDropout(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -1}
	for _, n := range []int{0, 5, 16, 31, 48, 256 * 3, 1000} {
		for _, nb := range []int{0, 12, 16, 256} {
			if nb > 0 && n%nb != 0 {
				continue
			}
			for _, thr := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x10000} {
				for _, relu := range []bool{false, true} {
					src, b := make([]float32, n), make([]float32, nb)
					for e := range src {
						src[e] = float32(rng.NormFloat64())
						if rng.IntN(6) == 0 {
							src[e] = special[rng.IntN(len(special))]
						}
					}
					for j := range b {
						b[j] = float32(rng.NormFloat64())
					}
					if nb == 0 {
						b = nil
					}
					draws := make([]uint64, (n+3)/4)
					for q := range draws {
						draws[q] = rng.Uint64()
					}
					want := make([]float32, n)
					for e := range want {
						v := src[e]
						if b != nil {
							v += b[e%nb]
						}
						want[e] = DropOne(v, draws[e/4]>>(16*(e%4)), thr, math.Float32bits(2), relu)
					}
					name := fmt.Sprintf("n=%d bias=%d threshold=%#x relu=%v", n, nb, thr, relu)
					dst := make([]float32, n)
					Dropout(dst, src, draws, thr, 2, relu, b)
					if !bitsEqual(dst, want) {
						t.Fatalf("%s: bits differ from DropOne", name)
					}
					Dropout(src, src, draws, thr, 2, relu, b) // in place
					if !bitsEqual(src, want) {
						t.Fatalf("%s, in place: bits differ from DropOne", name)
					}
				}
			}
		}
	}
}

// TestDropOne checks DropOne's rule on hand-picked cases.
func TestDropOne(t *testing.T) {
	neg0 := float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		v         float32
		r         uint64
		threshold uint32
		relu      bool
		want      float32
	}{
		{3, 0x8000, 0x8000, false, 6},    // draw = threshold: kept
		{3, 0x7fff, 0x8000, false, 0},    // draw < threshold: dropped
		{3, 0x17fff, 0x8000, false, 0},   // only the low 16 bits count
		{-3, 0x9000, 0x8000, false, -6},  // negative kept without relu
		{-3, 0x9000, 0x8000, true, neg0}, // and zeroed (-0) with it
		{3, 0, 0, true, 6},               // threshold 0: never dropped
		{3, 0xffff, 0x10000, false, 0},   // threshold 2^16: always dropped
	} {
		got := DropOne(tc.v, tc.r, tc.threshold, math.Float32bits(2), tc.relu)
		if math.Float32bits(got) != math.Float32bits(tc.want) {
			t.Errorf("DropOne(%v, %#x, %#x, relu %v) = %v; want %v", tc.v, tc.r, tc.threshold, tc.relu, got, tc.want)
		}
	}
}
