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

// spmmState is a held operand's cuSPARSE state (Backend.Hold,
// FormBlock): its CSR descriptor, repointed when a new block of the same
// shape is formed into it, and the dense descriptors and buffer sizes of
// the products it took part in, keyed by the dense operands' addresses
// and shapes, so that a training step's SpMM calls on its held blocks
// create no descriptor and ask no buffer size after the first step.
type spmmState struct {
	matA          cuda.SpMat
	have          bool
	rows, cols    int
	nnz           int64
	ptr, ind, val uint64
	dense         []spmmDense
}

// spmmDense is one product's dense descriptors and buffer size.
type spmmDense struct {
	trans        bool
	x, dst       uint64
	bRows, cRows int
	cols         int
	matB, matC   cuda.DnMat
	size         int64
	// refusal is cuSPARSE's refusal of the buffer size (cusparseRefusal):
	// the product is the caller's kernel's.
	refusal error
}

// spmmDenseMax is the most dense products a held operand remembers (a
// layer's forward and backward products, with room).
const spmmDenseMax = 8

// free destroys the state's descriptors.
func (s *spmmState) free(ex executor) error {
	ce, ok := ex.(*cudaExec)
	if !ok || (!s.have && len(s.dense) == 0) {
		return nil
	}
	sp, err := ce.t.Sparse()
	if err != nil {
		return err
	}
	var errs []error
	if s.have {
		errs = append(errs, sp.DestroySpMat(s.matA))
	}
	for _, d := range s.dense {
		errs = append(errs, sp.DestroyDnMat(d.matB), sp.DestroyDnMat(d.matC))
	}
	*s = spmmState{}
	return errors.Join(errs...)
}

// csr returns the descriptor of a, made or repointed as needed.
func (s *spmmState) csr(sp *cuda.Sparse, a devCSR) (cuda.SpMat, error) {
	if s.have && (s.rows != a.rows || s.cols != a.cols || s.nnz != a.nnz) {
		err := sp.DestroySpMat(s.matA)
		s.have = false
		if err != nil {
			return cuda.SpMat{}, err
		}
	}
	if !s.have {
		m, err := sp.CreateCSR(int64(a.rows), int64(a.cols), a.nnz, dp(a.indptr), dp(a.indices), dp(a.values))
		if err != nil {
			return cuda.SpMat{}, err
		}
		*s = spmmState{matA: m, have: true, rows: a.rows, cols: a.cols, nnz: a.nnz, ptr: a.indptr.addr, ind: a.indices.addr,
			val: a.values.addr, dense: s.dense}
		return m, nil
	}
	if s.ptr != a.indptr.addr || s.ind != a.indices.addr || s.val != a.values.addr {
		if err := sp.SetPointers(s.matA, dp(a.indptr), dp(a.indices), dp(a.values)); err != nil {
			return cuda.SpMat{}, err
		}
		s.ptr, s.ind, s.val = a.indptr.addr, a.indices.addr, a.values.addr
	}
	return s.matA, nil
}

// product returns the dense descriptors and buffer size of the product
// (made, and remembered, on the first call).
func (s *spmmState) product(sp *cuda.Sparse, trans bool, matA cuda.SpMat, x mem, bRows int, dst mem, cRows, cols int) (*spmmDense, error) {
	for i := range s.dense {
		d := &s.dense[i]
		if d.trans == trans && d.x == x.addr && d.dst == dst.addr && d.bRows == bRows && d.cRows == cRows && d.cols == cols {
			return d, nil
		}
	}
	d := spmmDense{trans: trans, x: x.addr, dst: dst.addr, bRows: bRows, cRows: cRows, cols: cols}
	var err error
	if d.matB, err = sp.CreateDnMat(int64(bRows), int64(cols), int64(cols), dp(x)); err != nil {
		return nil, err
	}
	if d.matC, err = sp.CreateDnMat(int64(cRows), int64(cols), int64(cols), dp(dst)); err != nil {
		return nil, errors.Join(err, sp.DestroyDnMat(d.matB))
	}
	d.size, err = sp.SpMMBufferSize(trans, 1, matA, d.matB, 0, d.matC)
	if cusparseRefusal(err) {
		d.refusal, err = err, nil
	}
	if err != nil {
		return nil, errors.Join(err, sp.DestroyDnMat(d.matB), sp.DestroyDnMat(d.matC))
	}
	if len(s.dense) == spmmDenseMax { // forget the oldest
		old := s.dense[0]
		s.dense = append(s.dense[:0], s.dense[1:]...)
		if err := errors.Join(sp.DestroyDnMat(old.matB), sp.DestroyDnMat(old.matC)); err != nil {
			return nil, err
		}
	}
	s.dense = append(s.dense, d)
	return &s.dense[len(s.dense)-1], nil
}

// libSpMM sets dst = a·x, or aᵀ·x with trans, by cuSPARSE's SpMM (x and
// dst row-major with cols columns) when p is a GPU's, with the held
// operand's cached descriptors and buffer size when st is not nil. The
// transposed product accumulates with atomics (cuSPARSE's documentation:
// its results may differ from run to run); dst is cleared first, so that
// beta = 0 never meets a NaN left in it. A library that refuses the product
// (any cuSPARSE status, e.g. NOT_SUPPORTED for the transpose on row-major
// operands, or a library without SpMM) leaves it, and every later one of
// that direction, to the caller's kernel: libSpMM then returns false and
// records why in fb (fallbacks.refused).
func libSpMM(p *pipe, trans bool, a devCSR, x mem, cols int, dst mem, fb *fallbacks, st *spmmState) bool {
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
	if st == nil { // an operand not held: descriptors for this call only
		var once spmmState
		st = &once
		defer func() { p.setErr(once.free(p.ex)) }()
	}
	bRows, cRows := a.cols, a.rows
	if trans {
		bRows, cRows = a.rows, a.cols
	}
	matA, err := st.csr(sp, a)
	if err != nil {
		p.setErr(err)
		return true
	}
	d, err := st.product(sp, trans, matA, x, bRows, dst, cRows, cols)
	if err != nil {
		p.setErr(err)
		return true
	}
	if fb.refused(trans, d.refusal) {
		return false
	}
	if trans {
		p.launch("fill_f32", int64(cRows*cols), dst, float64(0))
	}
	var buf mem
	if d.size > 0 {
		buf = p.buf("spmm.buf", d.size)
	}
	if p.err != nil {
		return true
	}
	err = sp.SpMM(trans, 1, matA, d.matB, 0, d.matC, dp(buf))
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
	if !cusparseRefusal(err) {
		return false
	}
	if trans {
		fb.spmmT = fmt.Sprintf("SpMMT by the nn_spmmt kernel (%v)", err)
	} else {
		fb.spmm = fmt.Sprintf("SpMM by the nn_spmm kernel (%v)", err)
	}
	return true
}

// cusparseRefusal reports whether err is a status of cuSPARSE or the
// library lacking a function (fallbacks.refused), as opposed to an error
// of the driver.
func cusparseRefusal(err error) bool {
	var e *cuda.Error
	return err != nil && (errors.Is(err, cuda.ErrUnavailable) || errors.As(err, &e) && e.Lib == "cusparse")
}
