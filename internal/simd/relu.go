package simd

import (
	"fmt"
	"math"
)

// ReLUGradColSums applies the gradient of ReLU (and of a dropout whose
// dropped elements are 0 in h) to rows x len(sums) values of a row-major
// matrix with rows of stride values, and sums its columns: for every row r
// and column j < len(sums), with e = r·stride + j,
//
//	d[e] = d[e]·scale if h[e] > 0, else +0 (h negative, zero or NaN)
//	sums[j] += d[e], the rows added in order.
//
// d and h start at the first column of the block (callers pass slices of a
// wider matrix to split its columns over goroutines). It panics when d or h
// is too short.
func ReLUGradColSums(d, h []float32, stride, rows int, scale float32, sums []float32) {
	w := len(sums)
	if rows == 0 || w == 0 {
		return
	}
	if w > stride || len(d) < (rows-1)*stride+w || len(h) < (rows-1)*stride+w {
		panic(fmt.Sprintf("simd.ReLUGradColSums: %d rows of %d of stride %d with %d and %d values", rows, w, stride, len(d), len(h)))
	}
	done := 0
	if haveAVX2 && w >= 8 {
		done = w &^ 7
		reluGradColSumsAVX2(&d[0], &h[0], stride, rows, scale, &sums[0], done)
		if done == w {
			return
		}
	}
	reluGradColSums(d, h, stride, rows, scale, sums, done)
}

// reluGradColSums is ReLUGradColSums in Go on columns [lo, len(sums)).
func reluGradColSums(d, h []float32, stride, rows int, scale float32, sums []float32, lo int) {
	hi := len(sums)
	s := sums[lo:hi:hi]
	for r := range rows {
		dr, hr := d[r*stride+lo:r*stride+hi:r*stride+hi], h[r*stride+lo:r*stride+hi:r*stride+hi]
		for j, v := range hr {
			g := PassPositive(dr[j]*scale, v)
			dr[j] = g
			s[j] += g
		}
	}
}

// PassPositive returns g where v > 0 and +0 elsewhere (v negative, zero or
// NaN), without a branch: the signs of v are random, so a branch would be
// mispredicted half the time.
func PassPositive(g, v float32) float32 {
	// v > 0 iff its bits u are in [1, +Inf] = [1, 0x7f800000], that is
	// iff u-1 (wrapping at 0) is under 0x7f800000: the 64-bit difference
	// below is then negative, which its top bit tells.
	x := uint64(math.Float32bits(v) - 1)
	keep := uint32((x - 0x7f800000) >> 63)
	return math.Float32frombits(math.Float32bits(g) & -keep)
}
