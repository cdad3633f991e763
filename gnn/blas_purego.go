//go:build !(cgo && openblas)

package gnn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS names the dense backend this build uses by default: "openblas"
// (OpenBLAS through cgo, the openblas build tag) or "gonum" (pure Go).
const BLAS = PureGoBLAS

func nativeBLAS() blas.Float32 { return gonum.Implementation{} }

// setBLASThreads does nothing: gonum's BLAS uses GOMAXPROCS goroutines.
func setBLASThreads(int) {}
