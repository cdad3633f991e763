//go:build cuda

package gpu

// The backend's library calls on a GPU: cuBLAS's Sgemm and cuSPARSE's SpMM
// (package internal/cuda), on the device's thread inside a queued
// operation.

import (
	"errors"
	"fmt"

	"github.com/bulksample/bulksample/internal/cuda"
)

// loadLibs loads cuBLAS and cuSPARSE on d and describes them.
func loadLibs(d *Device) (string, error) {
	var name string
	err := d.CUDA().Do(func(t *cuda.Thread) error {
		bl, err := t.BLAS()
		if err != nil {
			return err
		}
		sp, err := t.Sparse()
		if err != nil {
			return err
		}
		name = fmt.Sprintf("cuBLAS (%s) and cuSPARSE %d (%s) on %s", bl.Path, sp.Version, sp.Path, d.Name())
		return nil
	})
	return name, err
}

// libGemm runs the row-major product by cuBLAS when p is a GPU's (it
// returns false on the emulator, for the caller's kernel).
func libGemm(p *pipe, tA, tB bool, m, n, k int, alpha float32, a, b mem, beta float32, c mem) bool {
	ce, ok := p.ex.(*cudaExec)
	if !ok {
		return false
	}
	bl, err := ce.t.BLAS()
	if err != nil {
		p.setErr(err)
		return true
	}
	lda, ldb := k, n
	if tA {
		lda = m
	}
	if tB {
		ldb = k
	}
	p.setErr(bl.SgemmRowMajor(tA, tB, m, n, k, alpha, dp(a), lda, dp(b), ldb, beta, dp(c), n))
	return true
}

// libSpMM sets dst = a·x, or aᵀ·x with trans, by cuSPARSE's SpMM (x and
// dst row-major with cols columns) when p is a GPU's. The transposed
// product accumulates with atomics (cuSPARSE's documentation: its results
// may differ from run to run); dst is cleared first, so that beta = 0 never
// meets a NaN left in it. A library that refuses the product (any cuSPARSE
// status, e.g. NOT_SUPPORTED for the transpose on row-major operands, or a
// library without SpMM) leaves it, and every later one of that direction,
// to the caller's kernel: libSpMM then returns false and records why in fb
// (fallbacks.refused).
func libSpMM(p *pipe, trans bool, a devCSR, x mem, cols int, dst mem, fb *fallbacks) bool {
	ce, ok := p.ex.(*cudaExec)
	if !ok || trans && fb.spmmT != "" || !trans && fb.spmm != "" {
		return false
	}
	sp, err := ce.t.Sparse()
	if err != nil {
		p.setErr(err)
		return true
	}
	if fb.refused(trans, sp.Unavailable(cuda.FeatureSpMM)) {
		return false
	}
	bRows, cRows := a.cols, a.rows
	if trans {
		bRows, cRows = a.rows, a.cols
		p.launch("fill_f32", int64(cRows*cols), dst, float64(0))
	}
	matA, err := sp.CreateCSR(int64(a.rows), int64(a.cols), a.nnz, dp(a.indptr), dp(a.indices), dp(a.values))
	if err != nil {
		p.setErr(err)
		return true
	}
	defer func() { p.setErr(sp.DestroySpMat(matA)) }()
	matB, err := sp.CreateDnMat(int64(bRows), int64(cols), int64(cols), dp(x))
	if err != nil {
		p.setErr(err)
		return true
	}
	defer func() { p.setErr(sp.DestroyDnMat(matB)) }()
	matC, err := sp.CreateDnMat(int64(cRows), int64(cols), int64(cols), dp(dst))
	if err != nil {
		p.setErr(err)
		return true
	}
	defer func() { p.setErr(sp.DestroyDnMat(matC)) }()
	size, err := sp.SpMMBufferSize(trans, 1, matA, matB, 0, matC)
	if fb.refused(trans, err) {
		return false
	}
	if err != nil {
		p.setErr(err)
		return true
	}
	var buf mem
	if size > 0 {
		buf = p.buf("spmm.buf", size)
	}
	if p.err != nil {
		return true
	}
	err = sp.SpMM(trans, 1, matA, matB, 0, matC, dp(buf))
	if fb.refused(trans, err) {
		return false
	}
	p.setErr(err)
	return true
}

// refused reports whether err is cuSPARSE refusing an SpMM of direction
// trans: any status of the library (NOT_SUPPORTED, INVALID_VALUE,
// INSUFFICIENT_RESOURCES, ...) or a library without SpMM. The product is
// then left to bulksample's kernel, which needs nothing of the library,
// and the reason recorded. Errors of the driver (memory, a failed kernel)
// are not refusals: they stay errors.
func (fb *fallbacks) refused(trans bool, err error) bool {
	var e *cuda.Error
	if err == nil || !errors.Is(err, cuda.ErrUnavailable) && !(errors.As(err, &e) && e.Lib == "cusparse") {
		return false
	}
	if trans {
		fb.spmmT = fmt.Sprintf("SpMMT by the nn_spmmt kernel (%v)", err)
	} else {
		fb.spmm = fmt.Sprintf("SpMM by the nn_spmm kernel (%v)", err)
	}
	return true
}
