//go:build cuda

package gpu

// The backend's library calls on a GPU: cuBLAS's Sgemm and cuSPARSE's SpMM
// (package internal/cuda), on the device's thread inside a queued
// operation.

import (
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
// meets a NaN left in it. A library that does not support the transposed
// product on row-major operands (CUSPARSE_STATUS_NOT_SUPPORTED) leaves it
// to the caller's kernel: libSpMM then returns false and records the
// fallback in fb.
func libSpMM(p *pipe, trans bool, a devCSR, x mem, cols int, dst mem, fb *fallbacks) bool {
	ce, ok := p.ex.(*cudaExec)
	if !ok || trans && fb.spmmT != "" {
		return false
	}
	sp, err := ce.t.Sparse()
	if err != nil {
		p.setErr(err)
		return true
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
	if trans && cuda.IsNotSupported(err) {
		fb.spmmT = fmt.Sprintf("SpMMT by the nn_spmmt kernel (%v)", err)
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
	if trans && cuda.IsNotSupported(err) {
		fb.spmmT = fmt.Sprintf("SpMMT by the nn_spmmt kernel (%v)", err)
		return false
	}
	p.setErr(err)
	return true
}
