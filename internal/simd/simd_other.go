//go:build !(amd64 && !noasm && !gccgo && !safe)

package simd

const (
	haveAVX2   = false
	haveAVX512 = false
)

func reluGradColSumsAVX2(d, h *float32, stride, rows int, scale float32, sums *float32, w int) {
	panic("simd: no AVX2 kernel in this build")
}

func dropoutAVX2(dst, src *float32, n int, draws *uint64, thrX uint32, scaleBits uint32, relu bool, b *float32, f int) {
	panic("simd: no AVX2 kernel in this build")
}

func mix64SeqAVX512(dst *uint64, n int, lanes *[8]uint64, step8 uint64) {
	panic("simd: no AVX-512 kernel in this build")
}
