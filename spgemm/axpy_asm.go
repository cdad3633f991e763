//go:build amd64 && !noasm && !gccgo && !safe

package spgemm

// haveAsmAxpy reports that gonum's Saxpy runs its SSE assembly here (the
// build constraint above is gonum's own for it), which computes
// y + float32(alpha·x) exactly like axpy's Go loop. Elsewhere gonum's Go
// fallback might be fused into FMAs and change the bits, so axpy keeps its
// own loop.
const haveAsmAxpy = true
