//go:build !(amd64 && !noasm && !gccgo && !safe)

package spgemm

// haveAsmAxpy: see axpy_asm.go.
const haveAsmAxpy = false
