//go:build amd64 && !noasm && !gccgo && !safe

#include "textflag.h"

// func reluGradColSumsAVX2(d, h *float32, stride, rows int, scale float32, sums *float32, w int)
//
// For each row in order and each column j < w (8 at a time):
// g = d·scale (VMULPS), kept where h > 0 (VCMPPS GT_OQ: false for NaN and
// both zeros) and +0 elsewhere (VANDPS), stored to d and added to sums[j]
// as sums[j] + g: the arithmetic of the Go loop, element by element.
TEXT ·reluGradColSumsAVX2(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ rows+24(FP), R9
	VBROADCASTSS scale+32(FP), Y15
	MOVQ sums+40(FP), R8
	MOVQ w+48(FP), R10
	VXORPS Y14, Y14, Y14

rowloop:
	TESTQ R9, R9
	JZ    end
	XORQ  CX, CX

colloop:
	CMPQ    CX, R10
	JGE     nextrow
	VMULPS  (DI)(CX*4), Y15, Y0
	VMOVUPS (SI)(CX*4), Y1
	VCMPPS  $0x1e, Y14, Y1, Y2
	VANDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DI)(CX*4)
	VMOVUPS (R8)(CX*4), Y3
	VADDPS  Y0, Y3, Y3
	VMOVUPS Y3, (R8)(CX*4)
	ADDQ    $8, CX
	JMP     colloop

nextrow:
	ADDQ DX, DI
	ADDQ DX, SI
	DECQ R9
	JMP  rowloop

end:
	VZEROUPPER
	RET
