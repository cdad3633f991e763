//go:build cgo && openblas

package gnn

// OpenBLAS is reached through gonum's netlib binding, which leaves the link
// flags to its user; this file supplies them.

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// BLAS names the dense backend this build uses by default: "openblas"
// (OpenBLAS through cgo, the openblas build tag) or "gonum" (pure Go).
const BLAS = "openblas"

func nativeBLAS() blas.Float32 { return netlib.Implementation{} }

// setBLASThreads sets the number of threads OpenBLAS uses. OpenBLAS keeps
// this setting per process; n <= 0 leaves it unchanged.
func setBLASThreads(n int) {
	if n > 0 {
		C.openblas_set_num_threads(C.int(n))
	}
}
