//go:build amd64 && !noasm && !gccgo && !safe

#include "textflag.h"

// func mix64SeqAVX512(dst *uint64, n int, lanes *[8]uint64, step8 uint64)
//
// For i < n (a multiple of 8), 8 at a time: z = lanes + (i/8)·step8 in
// each lane, then hash.Mix64's steps (z ^= z>>30; z *= c1; z ^= z>>27;
// z *= c2; z ^= z>>31) with 64-bit lane multiplies (VPMULLQ, AVX-512DQ),
// which wrap like Go's.
TEXT ·mix64SeqAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ lanes+16(FP), SI
	MOVQ step8+24(FP), AX
	VMOVDQU64 (SI), Z0
	VPBROADCASTQ AX, Z12
	MOVQ $0xbf58476d1ce4e5b9, AX
	VPBROADCASTQ AX, Z10
	MOVQ $0x94d049bb133111eb, AX
	VPBROADCASTQ AX, Z11

loop:
	TESTQ CX, CX
	JZ    end
	VPSRLQ  $30, Z0, Z1
	VPXORQ  Z0, Z1, Z1
	VPMULLQ Z10, Z1, Z1
	VPSRLQ  $27, Z1, Z2
	VPXORQ  Z2, Z1, Z1
	VPMULLQ Z11, Z1, Z1
	VPSRLQ  $31, Z1, Z2
	VPXORQ  Z2, Z1, Z1
	VMOVDQU64 Z1, (DI)
	VPADDQ  Z12, Z0, Z0
	ADDQ    $64, DI
	SUBQ    $8, CX
	JMP     loop

end:
	VZEROUPPER
	RET
