//go:build amd64 && !noasm && !gccgo && !safe

package simd

import "golang.org/x/sys/cpu"

// haveAVX2 reports that the assembly kernels run.
var haveAVX2 = cpu.X86.HasAVX2

// haveAVX512 reports that the AVX-512 kernels (64-bit lane multiplies:
// AVX-512DQ) run.
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// reluGradColSumsAVX2 is ReLUGradColSums on the first w columns, w a
// multiple of 8 (relu_amd64.s).
//
//go:noescape
func reluGradColSumsAVX2(d, h *float32, stride, rows int, scale float32, sums *float32, w int)

// dropoutAVX2 is Dropout on the first n values, n a multiple of 16, f
// (the length of b, 0 for none) a multiple of 16, and thrX the threshold
// with its bit 15 flipped (dropout_amd64.s).
//
//go:noescape
func dropoutAVX2(dst, src *float32, n int, draws *uint64, thrX uint32, scaleBits uint32, relu bool, b *float32, f int)

// mix64SeqAVX512 is Mix64Seq on the first n values, n a multiple of 8, from
// the first eight counters lanes, each advanced by step8 (mix_amd64.s).
//
//go:noescape
func mix64SeqAVX512(dst *uint64, n int, lanes *[8]uint64, step8 uint64)
