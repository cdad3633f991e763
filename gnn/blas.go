package gnn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// PureGoBLAS is the name of gonum's pure-Go BLAS, the backend of builds
// without the openblas tag and of train.TrainerOptions.Runtime.PureGoBLAS.
const PureGoBLAS = "gonum"

// PureGoBLASNote returns a one-line note when buildBLAS (BLAS) is the
// pure-Go fallback and the caller did not choose it (asked: with
// train.TrainerOptions.Runtime.PureGoBLAS, or a Backend of its own), and "" otherwise:
// a program built with plain `go build` or `go run`, without the openblas
// tag, trains about 4x slower without a word otherwise (the README's
// program: 6.8 s against 1.8 s).
func PureGoBLASNote(buildBLAS string, asked bool) string {
	if buildBLAS != PureGoBLAS || asked {
		return ""
	}
	return "note: built without the openblas build tag, training uses pure-Go BLAS, about 4x slower: install OpenBLAS (Debian: libopenblas-dev) " +
		"and build with -tags openblas (`make build` does); choosing pure Go (train.TrainerOptions.Runtime.PureGoBLAS, train --blas gonum) silences this note"
}

// blasFor returns the dense backend: gonum's pure-Go BLAS when pureGo is
// set, otherwise the build's native one (see BLAS).
func blasFor(pureGo bool) (blas.Float32, string) {
	if pureGo {
		return gonum.Implementation{}, PureGoBLAS
	}
	return nativeBLAS(), BLAS
}

// gemm sets c = alpha·op(a)·op(b) + beta·c for row-major matrices, where
// op(a) is m x k and op(b) k x n, with leading dimensions equal to the
// stored row lengths. Unlike the BLAS routine it accepts empty operands:
// with k = 0 it only scales c by beta.
func gemm(impl blas.Float32, tA, tB bool, m, n, k int, alpha float32, a, b []float32, beta float32, c []float32) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		c = c[:m*n]
		if beta == 0 {
			clear(c)
			return
		}
		for i := range c {
			c[i] *= beta
		}
		return
	}
	ta, lda, tb, ldb := gemmOps(tA, tB, m, n, k)
	impl.Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, n)
}

// gemmOps returns the BLAS transpose flags and leading dimensions of the
// row-major operands of gemm: a is m x k, or k x m when tA; b is k x n, or
// n x k when tB.
func gemmOps(tA, tB bool, m, n, k int) (ta blas.Transpose, lda int, tb blas.Transpose, ldb int) {
	ta, lda = blas.NoTrans, k
	if tA {
		ta, lda = blas.Trans, m
	}
	tb, ldb = blas.NoTrans, n
	if tB {
		tb, ldb = blas.Trans, k
	}
	return ta, lda, tb, ldb
}
