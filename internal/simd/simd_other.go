//go:build !(amd64 && !noasm && !gccgo && !safe)

package simd

const haveAVX2 = false

func reluGradColSumsAVX2(d, h *float32, stride, rows int, scale float32, sums *float32, w int) {
	panic("simd: no AVX2 kernel in this build")
}
