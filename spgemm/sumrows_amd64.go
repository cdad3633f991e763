//go:build amd64 && !noasm && !gccgo && !safe

package spgemm

import "golang.org/x/sys/cpu"

// haveSumRows reports that sumRows runs the AVX2 kernel.
var haveSumRows = cpu.X86.HasAVX2

// sumRowsAVX2 is in sumrows_amd64.s.
//
//go:noescape
func sumRowsAVX2(out, x []float32, f int, idx []int32, vals []float32, cols int, next []int32) bool

// sumRows sets out[:f&^7] to Σ_p vals[p]·x[idx[p]·f:][:f&^7] (see
// sumRowsAVX2) and returns true, or returns false without writing when the
// kernel is not available or an index is outside [0, cols). It first asks
// the hardware to fetch the rows of x that next names (any values: a
// prefetch never faults), for the caller's next call.
func sumRows(out, x []float32, f int, idx []int32, vals []float32, cols int, next []int32) bool {
	if !haveSumRows || len(out) < f || len(x) < cols*f || len(vals) < len(idx) {
		return false
	}
	return sumRowsAVX2(out, x, f, idx, vals, cols, next)
}

// axpyAVX2 sets y[i] += float32(alpha·x[i]) for i < n, n a multiple of 8
// (sumrows_amd64.s).
//
//go:noescape
func axpyAVX2(y, x *float32, alpha float32, n int)
