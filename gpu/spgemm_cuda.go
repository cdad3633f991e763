//go:build cuda

package gpu

import (
	"errors"
	"fmt"

	"github.com/bulksample/bulksample/internal/cuda"
)

// cusparseProduct is C = A·B by cuSPARSE (see spgemm.go's comment).
type cusparseProduct struct {
	a, b    devCSR
	reuse   bool
	matA    cuda.SpMat
	matB    cuda.SpMat
	alg     string
	reused  bool // the structure is computed (reuse)
	noReuse bool // the reuse path ran out of resources: one-shot runs
	// reuse state: C's descriptor and the product's, while made
	rc, rdesc bool
	rcMat     cuda.SpMat
	rdescGEMM cuda.SpGEMM
	rbuf4     mem
	c         devCSR
}

func newSpProduct(p *pipe, a, b devCSR, reuse bool) (spProduct, error) {
	ce, ok := p.ex.(*cudaExec)
	if !ok {
		return nil, ErrNoLibrary
	}
	sp, err := ce.t.Sparse()
	if err != nil {
		return nil, err
	}
	pr := &cusparseProduct{a: a, b: b, reuse: reuse}
	if pr.matA, err = sp.CreateCSR(int64(a.rows), int64(a.cols), a.nnz, cuda.DevicePtr(a.indptr.addr), cuda.DevicePtr(a.indices.addr), cuda.DevicePtr(a.values.addr)); err != nil {
		return nil, err
	}
	if pr.matB, err = sp.CreateCSR(int64(b.rows), int64(b.cols), b.nnz, cuda.DevicePtr(b.indptr.addr), cuda.DevicePtr(b.indices.addr), cuda.DevicePtr(b.values.addr)); err != nil {
		sp.DestroySpMat(pr.matA)
		return nil, err
	}
	return pr, nil
}

func (pr *cusparseProduct) method() string {
	if pr.alg == "" {
		return "cusparse"
	}
	return "cusparse " + pr.alg
}

// sparse returns cuSPARSE of p's device.
func sparseOf(p *pipe) (*cuda.Sparse, error) { return p.ex.(*cudaExec).t.Sparse() }

func (pr *cusparseProduct) run(p *pipe) (devCSR, error) {
	sp, err := sparseOf(p)
	if err != nil {
		return devCSR{}, err
	}
	if pr.reuse && !pr.noReuse {
		if !pr.reused {
			err := pr.reuseStructure(p, sp)
			if cuda.IsInsufficientResources(err) || cuda.IsOutOfMemory(err) {
				pr.noReuse = true
				return pr.oneShot(p, sp)
			}
			if err != nil {
				return devCSR{}, err
			}
			pr.reused = true
		}
		if err := sp.ReuseCompute(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM); err != nil {
			return devCSR{}, err
		}
		pr.alg = "reuse"
		return pr.c, nil
	}
	return pr.oneShot(p, sp)
}

// reuseStructure runs the structure phases of cusparseSpGEMMreuse and
// allocates C.
func (pr *cusparseProduct) reuseStructure(p *pipe, sp *cuda.Sparse) error {
	var err error
	if pr.rcMat, err = sp.CreateCSR(int64(pr.a.rows), int64(pr.b.cols), 0, 0, 0, 0); err != nil {
		return err
	}
	pr.rc = true
	if pr.rdescGEMM, err = sp.NewSpGEMM(); err != nil {
		return err
	}
	pr.rdesc = true
	s1, err := sp.ReuseWorkEstimation(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, 0, 0)
	if err != nil {
		return err
	}
	b1 := p.buf("sp.buf1", s1)
	if _, err = sp.ReuseWorkEstimation(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, s1, dp(b1)); err != nil || p.err != nil {
		return errors.Join(err, p.err)
	}
	sizes, err := sp.ReuseNNZ(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, [3]int64{}, [3]cuda.DevicePtr{})
	if err != nil {
		return err
	}
	b2, b3 := p.buf("sp.buf2", sizes[0]), p.buf("sp.buf3", sizes[1])
	pr.rbuf4 = p.buf("sp.buf4", sizes[2]) // kept for the computes
	if p.err != nil {
		return p.err
	}
	if _, err = sp.ReuseNNZ(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, sizes, [3]cuda.DevicePtr{dp(b2), dp(b3), dp(pr.rbuf4)}); err != nil {
		return err
	}
	c, err := pr.allocC(p, sp, pr.rcMat, "c.reuse")
	if err != nil {
		return err
	}
	s5, err := sp.ReuseCopy(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, 0, 0)
	if err != nil {
		return err
	}
	b5 := p.buf("sp.buf5", s5)
	if _, err = sp.ReuseCopy(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, s5, dp(b5)); err != nil || p.err != nil {
		return errors.Join(err, p.err)
	}
	pr.c = c
	return nil
}

// allocC sizes C from its descriptor and gives it arrays.
func (pr *cusparseProduct) allocC(p *pipe, sp *cuda.Sparse, mc cuda.SpMat, name string) (devCSR, error) {
	rows, cols, nnz, err := sp.Size(mc)
	if err != nil {
		return devCSR{}, err
	}
	if nnz > 1<<31-1 {
		return devCSR{}, fmt.Errorf("gpu: C = A·B has %d entries; cuSPARSE's 32-bit indices hold at most %d", nnz, 1<<31-1)
	}
	c := devCSR{rows: int(rows), cols: int(cols), nnz: nnz, indptr: p.buf(name+".indptr", (rows+1)*4),
		indices: p.buf(name+".indices", nnz*4), values: p.buf(name+".data", nnz*4), sortRows: true}
	if p.err != nil {
		return devCSR{}, p.err
	}
	return c, sp.SetPointers(mc, dp(c.indptr), dp(c.indices), dp(c.values))
}

// oneShot computes C with the first algorithm that has the resources:
// ALG1, ALG2, then ALG3 with smaller and smaller chunks (CUDA 12 and
// later), or the default algorithm (CUDA 11).
func (pr *cusparseProduct) oneShot(p *pipe, sp *cuda.Sparse) (devCSR, error) {
	type try struct {
		alg   cuda.SpGEMMAlg
		chunk float32
	}
	tries := []try{{alg: cuda.SpGEMMDefault}}
	if sp.HasEstimateMemory() {
		tries = []try{{alg: cuda.SpGEMMAlg1}, {alg: cuda.SpGEMMAlg2, chunk: 1}}
		for c := float32(0.2); c >= 0.2/64; c /= 2 {
			tries = append(tries, try{alg: cuda.SpGEMMAlg3, chunk: c})
		}
	}
	var errs []error
	for _, tr := range tries {
		c, err := pr.tryAlg(p, sp, tr.alg, tr.chunk)
		if err == nil {
			pr.alg = tr.alg.String()
			if tr.alg == cuda.SpGEMMAlg3 {
				pr.alg += fmt.Sprintf(" (chunk fraction %g)", tr.chunk)
			}
			return c, nil
		}
		errs = append(errs, err)
		if !cuda.IsInsufficientResources(err) && !cuda.IsOutOfMemory(err) {
			break
		}
		p.err = nil // an allocation that failed is not the pipe's error: try the next algorithm
	}
	return devCSR{}, fmt.Errorf("gpu: cusparseSpGEMM of (%d x %d, %d entries)·(%d x %d, %d entries): %w",
		pr.a.rows, pr.a.cols, pr.a.nnz, pr.b.rows, pr.b.cols, pr.b.nnz, errors.Join(errs...))
}

// tryAlg runs one product with alg; its descriptors live for the call.
func (pr *cusparseProduct) tryAlg(p *pipe, sp *cuda.Sparse, alg cuda.SpGEMMAlg, chunk float32) (devCSR, error) {
	mc, err := sp.CreateCSR(int64(pr.a.rows), int64(pr.b.cols), 0, 0, 0, 0)
	if err != nil {
		return devCSR{}, err
	}
	defer sp.DestroySpMat(mc)
	d, err := sp.NewSpGEMM()
	if err != nil {
		return devCSR{}, err
	}
	defer sp.DestroySpGEMM(d)
	s1, err := sp.WorkEstimation(alg, pr.matA, pr.matB, mc, d, 0, 0)
	if err != nil {
		return devCSR{}, err
	}
	b1 := p.buf("sp.buf1", s1)
	if p.err != nil {
		return devCSR{}, p.err
	}
	if _, err = sp.WorkEstimation(alg, pr.matA, pr.matB, mc, d, s1, dp(b1)); err != nil {
		return devCSR{}, err
	}
	var s2 int64
	if alg == cuda.SpGEMMAlg2 || alg == cuda.SpGEMMAlg3 {
		s3, _, err := sp.EstimateMemory(alg, pr.matA, pr.matB, mc, d, chunk, 0, 0)
		if err != nil {
			return devCSR{}, err
		}
		b3 := p.buf("sp.buf3", s3)
		if p.err != nil {
			return devCSR{}, p.err
		}
		if _, s2, err = sp.EstimateMemory(alg, pr.matA, pr.matB, mc, d, chunk, s3, dp(b3)); err != nil {
			return devCSR{}, err
		}
	} else if s2, err = sp.Compute(alg, pr.matA, pr.matB, mc, d, 0, 0); err != nil {
		return devCSR{}, err
	}
	b2 := p.buf("sp.buf2", s2)
	if p.err != nil {
		return devCSR{}, p.err
	}
	if _, err = sp.Compute(alg, pr.matA, pr.matB, mc, d, s2, dp(b2)); err != nil {
		return devCSR{}, err
	}
	c, err := pr.allocC(p, sp, mc, "c")
	if err != nil {
		return devCSR{}, err
	}
	return c, sp.Copy(alg, pr.matA, pr.matB, mc, d)
}

func (pr *cusparseProduct) free(p *pipe) error {
	sp, err := sparseOf(p)
	if err != nil {
		return err
	}
	errs := []error{sp.DestroySpMat(pr.matA), sp.DestroySpMat(pr.matB)}
	if pr.rdesc {
		errs = append(errs, sp.DestroySpGEMM(pr.rdescGEMM))
	}
	if pr.rc {
		errs = append(errs, sp.DestroySpMat(pr.rcMat))
	}
	return errors.Join(errs...)
}

func dp(m mem) cuda.DevicePtr { return cuda.DevicePtr(m.addr) }
