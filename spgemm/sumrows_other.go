//go:build !(amd64 && !noasm && !gccgo && !safe)

package spgemm

// haveSumRows: see sumrows_amd64.go.
const haveSumRows = false

func sumRows(out, x []float32, f int, idx []int32, vals []float32, cols int, next []int32) bool {
	return false
}

func axpyAVX2(y, x *float32, alpha float32, n int) { panic("spgemm: no AVX2 kernel in this build") }
