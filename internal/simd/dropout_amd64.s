//go:build amd64 && !noasm && !gccgo && !safe

#include "textflag.h"

DATA signw<>+0(SB)/8, $0x8000800080008000
DATA signw<>+8(SB)/8, $0x8000800080008000
DATA signw<>+16(SB)/8, $0x8000800080008000
DATA signw<>+24(SB)/8, $0x8000800080008000
GLOBL signw<>(SB), RODATA|NOPTR, $32

// func dropoutAVX2(dst, src *float32, n int, draws *uint64, thrX uint32, scaleBits uint32, relu bool, b *float32, f int)
//
// 16 values (four draws) at a time: the draws' 16-bit words, which are in
// element order, are compared with the threshold as unsigned numbers (both
// with bit 15 flipped, then VPCMPGTW), widened to 32-bit masks, or'ed with
// the values' sign masks under relu, and the factor is scale where no mask
// bit is set and +0 elsewhere: v·factor, as DropOne computes. The bias is
// added first as v + b[j].
TEXT ·dropoutAVX2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R9
	MOVQ draws+24(FP), R8
	MOVWLZX thrX+32(FP), AX
	MOVD AX, X12
	VPBROADCASTW X12, Y12
	VBROADCASTSS scaleBits+36(FP), Y13
	MOVBLZX relu+40(FP), R11
	MOVQ b+48(FP), R10
	MOVQ f+56(FP), R12
	VMOVDQU signw<>(SB), Y11
	XORQ CX, CX // element
	XORQ BX, BX // bias column

loop:
	CMPQ CX, R9
	JGE  end
	VMOVDQU (R8), Y0
	VPXOR   Y11, Y0, Y0
	VPCMPGTW Y0, Y12, Y1 // words: threshold > draw, i.e. dropped
	VPMOVSXWD X1, Y2
	VEXTRACTI128 $1, Y1, X3
	VPMOVSXWD X3, Y3
	VMOVUPS (SI)(CX*4), Y4
	VMOVUPS 32(SI)(CX*4), Y5
	TESTQ R12, R12
	JZ    nobias
	VADDPS (R10)(BX*4), Y4, Y4
	VADDPS 32(R10)(BX*4), Y5, Y5
	ADDQ  $16, BX
	CMPQ  BX, R12
	JLT   nobias
	XORQ  BX, BX

nobias:
	TESTQ R11, R11
	JZ    norelu
	VPSRAD $31, Y4, Y6
	VPSRAD $31, Y5, Y7
	VPOR   Y6, Y2, Y2
	VPOR   Y7, Y3, Y3

norelu:
	VANDNPS Y13, Y2, Y2 // scale where kept, +0 where dropped
	VANDNPS Y13, Y3, Y3
	VMULPS  Y2, Y4, Y4
	VMULPS  Y3, Y5, Y5
	VMOVUPS Y4, (DI)(CX*4)
	VMOVUPS Y5, 32(DI)(CX*4)
	ADDQ    $32, R8
	ADDQ    $16, CX
	JMP     loop

end:
	VZEROUPPER
	RET
