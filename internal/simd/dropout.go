package simd

import (
	"fmt"
	"math"
)

// Dropout sets dst[e] = DropOne(v, r, threshold, scale, relu) for every
// element e, with v = src[e] (+ b[e mod len(b)] when b is not nil) and r
// the 16 bits 16·(e mod 4) of draws[e/4]: element e of a dropout whose
// random numbers are drawn four elements per 64-bit draw. dst and src have
// the same length and are the same slice or do not overlap. It panics when
// draws is too short.
func Dropout(dst, src []float32, draws []uint64, threshold uint32, scale float32, relu bool, b []float32) {
	n := len(dst)
	if len(src) != n || len(draws) < (n+3)/4 {
		panic(fmt.Sprintf("simd.Dropout: %d values from %d with %d draws", n, len(src), len(draws)))
	}
	done := 0
	if haveAVX2 && threshold <= 0xffff && n >= 16 && len(b)%16 == 0 {
		done = n &^ 15
		var bp *float32
		if len(b) > 0 {
			bp = &b[0]
		}
		dropoutAVX2(&dst[0], &src[0], done, &draws[0], threshold^0x8000, math.Float32bits(scale), relu, bp, len(b))
	}
	scaleBits := math.Float32bits(scale)
	for e := done; e < n; e++ {
		v := src[e]
		if len(b) > 0 {
			v += b[e%len(b)]
		}
		dst[e] = DropOne(v, draws[e/4]>>(16*(e%4)), threshold, scaleBits, relu)
	}
}

// DropOne returns v kept (v·scale) or dropped (v·+0) by the 16-bit draw r
// (its low bits): dropped when r16 < threshold or, with relu, when v is
// negative (its sign bit set). The choice is made without branches (a mask
// on the bits of the factor): the drops are random, so branches would be
// mispredicted half the time. Negative elements become -0 under relu
// (v·+0), which compares as not > 0.
func DropOne(v float32, r uint64, threshold, scaleBits uint32, relu bool) float32 {
	shift := uint64(32) // shifts the sign bit out: never zero for sign
	if relu {
		shift = 31
	}
	return dropOne(v, r, threshold, scaleBits, shift)
}

// dropOne is DropOne with the sign shift (31 for relu, 32 without) as an
// argument, so that inlined calls keep it in a register.
func dropOne(v float32, r uint64, threshold, scaleBits uint32, signShift uint64) float32 {
	drop := (uint32(r&0xffff) - threshold) >> 31 // 1 iff r16 < threshold
	neg := uint32(uint64(math.Float32bits(v)) >> signShift)
	keep := ((drop | neg) & 1) - 1 // all ones to keep, 0 to drop
	return v * math.Float32frombits(scaleBits&keep)
}
