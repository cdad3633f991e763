//go:build amd64 && !noasm && !gccgo && !safe

#include "textflag.h"

// func sumRowsAVX2(out, x []float32, f int, idx []int32, vals []float32, cols int, next []int32) bool
//
// Sets out[c] = Σ_p vals[p]·x[idx[p]·f + c] for c < f &^ 7, the terms added
// in the order of p to an accumulator that starts at +0, each product
// rounded to float32 before it is added (VMULPS, then VADDPS: no FMA), so
// that every value has the bits of axpy's. The accumulators stay in
// registers across a destination row's neighbours: 64, then 32, then 8
// columns at a time. Returns false, having written nothing, when an index
// is outside [0, cols).
//
// First it prefetches the rows of x that next names (a later destination
// row's neighbours; PREFETCHT0 never faults, so next needs no check): the
// rows are at random places the hardware prefetchers cannot foresee, and
// without the hint a gather waits for one row's misses after another.
TEXT ·sumRowsAVX2(SB), NOSPLIT, $0-137
	MOVQ out_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ f+48(FP), DX
	MOVQ idx_base+56(FP), R8
	MOVQ idx_len+64(FP), R9
	MOVQ vals_base+80(FP), R10
	MOVQ cols+104(FP), R14

	// Check every index first: the loads below are not bounds checked.
	XORQ CX, CX
check:
	CMPQ CX, R9
	JGE  checked
	MOVLQSX (R8)(CX*4), AX
	CMPQ AX, R14
	JAE  bad // unsigned: negative indices too
	INCQ CX
	JMP  check

checked:
	MOVQ DX, R11
	SHLQ $2, R11   // the row stride of x in bytes

	// Prefetch every cache line of the rows next names.
	MOVQ next_base+112(FP), R13
	MOVQ next_len+120(FP), BX
	XORQ CX, CX

prefetch:
	CMPQ CX, BX
	JGE  prefetched
	MOVLQSX (R13)(CX*4), AX
	IMULQ R11, AX
	ADDQ SI, AX
	XORQ R12, R12

prefetchLine:
	PREFETCHT0 (AX)(R12*1)
	ADDQ $64, R12
	CMPQ R12, R11
	JLT  prefetchLine
	PREFETCHT0 -4(AX)(R11*1) // the last line, when the row is not aligned
	INCQ CX
	JMP  prefetch

prefetched:
	MOVQ DX, R12
	ANDQ $-8, R12  // the columns done here
	XORQ BX, BX    // the first column of the current chunk

loop64:
	MOVQ R12, AX
	SUBQ BX, AX
	CMPQ AX, $64
	JLT  loop32
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LEAQ (SI)(BX*4), R13
	XORQ CX, CX

inner64:
	CMPQ CX, R9
	JGE  done64
	MOVLQSX (R8)(CX*4), AX
	IMULQ R11, AX
	ADDQ R13, AX
	VBROADCASTSS (R10)(CX*4), Y15
	VMULPS (AX), Y15, Y8
	VMULPS 32(AX), Y15, Y9
	VMULPS 64(AX), Y15, Y10
	VMULPS 96(AX), Y15, Y11
	VADDPS Y8, Y0, Y0
	VADDPS Y9, Y1, Y1
	VADDPS Y10, Y2, Y2
	VADDPS Y11, Y3, Y3
	VMULPS 128(AX), Y15, Y12
	VMULPS 160(AX), Y15, Y13
	VMULPS 192(AX), Y15, Y14
	VMULPS 224(AX), Y15, Y8
	VADDPS Y12, Y4, Y4
	VADDPS Y13, Y5, Y5
	VADDPS Y14, Y6, Y6
	VADDPS Y8, Y7, Y7
	INCQ CX
	JMP  inner64

done64:
	LEAQ (DI)(BX*4), AX
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 64(AX)
	VMOVUPS Y3, 96(AX)
	VMOVUPS Y4, 128(AX)
	VMOVUPS Y5, 160(AX)
	VMOVUPS Y6, 192(AX)
	VMOVUPS Y7, 224(AX)
	ADDQ $64, BX
	JMP  loop64

loop32:
	MOVQ R12, AX
	SUBQ BX, AX
	CMPQ AX, $32
	JLT  loop8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ (SI)(BX*4), R13
	XORQ CX, CX

inner32:
	CMPQ CX, R9
	JGE  done32
	MOVLQSX (R8)(CX*4), AX
	IMULQ R11, AX
	ADDQ R13, AX
	VBROADCASTSS (R10)(CX*4), Y15
	VMULPS (AX), Y15, Y8
	VMULPS 32(AX), Y15, Y9
	VMULPS 64(AX), Y15, Y10
	VMULPS 96(AX), Y15, Y11
	VADDPS Y8, Y0, Y0
	VADDPS Y9, Y1, Y1
	VADDPS Y10, Y2, Y2
	VADDPS Y11, Y3, Y3
	INCQ CX
	JMP  inner32

done32:
	LEAQ (DI)(BX*4), AX
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 64(AX)
	VMOVUPS Y3, 96(AX)
	ADDQ $32, BX
	JMP  loop32

loop8:
	CMPQ BX, R12
	JGE  end
	VXORPS Y0, Y0, Y0
	LEAQ (SI)(BX*4), R13
	XORQ CX, CX

inner8:
	CMPQ CX, R9
	JGE  done8
	MOVLQSX (R8)(CX*4), AX
	IMULQ R11, AX
	ADDQ R13, AX
	VBROADCASTSS (R10)(CX*4), Y15
	VMULPS (AX), Y15, Y8
	VADDPS Y8, Y0, Y0
	INCQ CX
	JMP  inner8

done8:
	VMOVUPS Y0, (DI)(BX*4)
	ADDQ $8, BX
	JMP  loop8

end:
	VZEROUPPER
	MOVB $1, ret+136(FP)
	RET

bad:
	MOVB $0, ret+136(FP)
	RET

// func axpyAVX2(y, x *float32, alpha float32, n int)
//
// Sets y[i] += float32(alpha·x[i]) for i < n, n a multiple of 8: VMULPS
// then VADDPS (y + product), 32 and then 8 values at a time.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	VBROADCASTSS alpha+16(FP), Y15
	MOVQ n+24(FP), R9
	XORQ CX, CX

loop32:
	MOVQ R9, AX
	SUBQ CX, AX
	CMPQ AX, $32
	JLT  loop8
	VMULPS (SI)(CX*4), Y15, Y0
	VMULPS 32(SI)(CX*4), Y15, Y1
	VMULPS 64(SI)(CX*4), Y15, Y2
	VMULPS 96(SI)(CX*4), Y15, Y3
	VMOVUPS (DI)(CX*4), Y4
	VMOVUPS 32(DI)(CX*4), Y5
	VMOVUPS 64(DI)(CX*4), Y6
	VMOVUPS 96(DI)(CX*4), Y7
	VADDPS Y0, Y4, Y4
	VADDPS Y1, Y5, Y5
	VADDPS Y2, Y6, Y6
	VADDPS Y3, Y7, Y7
	VMOVUPS Y4, (DI)(CX*4)
	VMOVUPS Y5, 32(DI)(CX*4)
	VMOVUPS Y6, 64(DI)(CX*4)
	VMOVUPS Y7, 96(DI)(CX*4)
	ADDQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, R9
	JGE  end
	VMULPS (SI)(CX*4), Y15, Y0
	VMOVUPS (DI)(CX*4), Y4
	VADDPS Y0, Y4, Y4
	VMOVUPS Y4, (DI)(CX*4)
	ADDQ $8, CX
	JMP  loop8

end:
	VZEROUPPER
	RET
