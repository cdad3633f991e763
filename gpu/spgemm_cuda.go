//go:build cuda

package gpu

// The cuSPARSE product, in the call sequences of NVIDIA's CUDALibrarySamples
// (cuSPARSE/spgemm, spgemm_mem, spgemm_reuse):
//
//   - C's descriptor is created with C's row offsets (rows+1 int32, allocated
//     first), never with NULL: cuSPARSE 12.2 and later refuse NULL offsets
//     for a matrix with rows (CUSPARSE_STATUS_INVALID_VALUE), and the reuse
//     path's cusparseSpGEMMreuse_nnz writes the offsets into the array given
//     at creation;
//   - ALG2 and ALG3's estimate buffer (buffer 3) is freed before the compute
//     buffer (buffer 2) is allocated, as spgemm_mem does, since with ALG3 the
//     two together may not fit where each alone does;
//   - a try that fails for want of resources frees its buffers before the
//     next algorithm's try allocates its own, and a later Run starts from the
//     algorithm that succeeded;
//   - the reuse path frees buffers 1 and 2 after reuse_nnz and 3 after
//     reuse_copy, and keeps 4 and 5, which every reuse_compute reads.

import (
	"errors"
	"fmt"

	"github.com/bulksample/bulksample/internal/cuda"
)

// sparseLib is what a product calls of cuSPARSE: cuda.Sparse on a GPU
// (through cudaSparse), and in the tests a fake that checks cuSPARSE's
// documented preconditions and computes on the emulator's memory. Its
// descriptors (spMat, spDesc) are the library's own values.
type sparseLib interface {
	Has(f cuda.Feature) bool
	Unavailable(f cuda.Feature) error
	CreateCSR(rows, cols, nnz int64, indptr, indices, data cuda.DevicePtr) (spMat, error)
	DestroySpMat(m spMat) error
	Size(m spMat) (rows, cols, nnz int64, err error)
	SetPointers(m spMat, indptr, indices, data cuda.DevicePtr) error
	NewSpGEMM() (spDesc, error)
	DestroySpGEMM(d spDesc) error
	WorkEstimation(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error)
	Compute(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error)
	Copy(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc) error
	EstimateMemory(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc, chunk float32, size3 int64, buf3 cuda.DevicePtr) (int64, int64, error)
	ReuseWorkEstimation(a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error)
	ReuseNNZ(a, b, c spMat, d spDesc, sizes [3]int64, bufs [3]cuda.DevicePtr) ([3]int64, error)
	ReuseCopy(a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error)
	ReuseCompute(a, b, c spMat, d spDesc) error
}

// spMat and spDesc are a sparseLib's matrix and product descriptors.
type (
	spMat  any
	spDesc any
)

// sparser is an executor that has cuSPARSE.
type sparser interface {
	sparse() (sparseLib, error)
}

// sparseOf returns cuSPARSE of p's device, or ErrNoLibrary (the emulator).
func sparseOf(p *pipe) (sparseLib, error) {
	s, ok := p.ex.(sparser)
	if !ok {
		return nil, ErrNoLibrary
	}
	return s.sparse()
}

func (e *cudaExec) sparse() (sparseLib, error) {
	s, err := e.t.Sparse()
	if err != nil {
		return nil, err
	}
	return cudaSparse{s}, nil
}

// cusparseProduct is C = A·B by cuSPARSE (see spgemm.go's comment).
type cusparseProduct struct {
	a, b    devCSR
	reuse   bool
	matA    spMat
	matB    spMat
	alg     string
	first   int    // the try to start a one-shot run from: the last that succeeded
	reused  bool   // the structure is computed (reuse)
	noReuse string // why the reuse path is not taken (one-shot runs), "" while it is
	// reuse state: C's descriptor and the product's, while made
	rc, rdesc bool
	rcMat     spMat
	rdescGEMM spDesc
	c         devCSR
}

func newSpProduct(p *pipe, a, b devCSR, reuse bool) (spProduct, error) {
	sp, err := sparseOf(p)
	if err != nil {
		return nil, err
	}
	if err := sp.Unavailable(cuda.FeatureSpGEMM); err != nil {
		return nil, fmt.Errorf("gpu: C = A·B needs cuSPARSE's SpGEMM: %w", err)
	}
	pr := &cusparseProduct{a: a, b: b, reuse: reuse}
	if reuse && !sp.Has(cuda.FeatureSpGEMMReuse) {
		pr.noReuse = sp.Unavailable(cuda.FeatureSpGEMMReuse).Error()
	}
	if pr.matA, err = sp.CreateCSR(int64(a.rows), int64(a.cols), a.nnz, dp(a.indptr), dp(a.indices), dp(a.values)); err != nil {
		return nil, err
	}
	if pr.matB, err = sp.CreateCSR(int64(b.rows), int64(b.cols), b.nnz, dp(b.indptr), dp(b.indices), dp(b.values)); err != nil {
		sp.DestroySpMat(pr.matA)
		return nil, err
	}
	return pr, nil
}

func (pr *cusparseProduct) method() string {
	m := "cusparse"
	if pr.alg != "" {
		m += " " + pr.alg
	}
	if pr.reuse && pr.noReuse != "" {
		m += " (without reuse: " + pr.noReuse + ")"
	}
	return m
}

func (pr *cusparseProduct) run(p *pipe) (devCSR, error) {
	sp, err := sparseOf(p)
	if err != nil {
		return devCSR{}, err
	}
	if pr.reuse && pr.noReuse == "" {
		if !pr.reused {
			err := pr.reuseStructure(p, sp)
			if cuda.IsInsufficientResources(err) || cuda.IsOutOfMemory(err) {
				pr.noReuse = err.Error()
				p.err = nil // an allocation that failed is not the pipe's error: run without reuse
				p.release(reuseBufs...)
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

// reuseBufs are the reuse path's buffers.
var reuseBufs = []string{"sp.r1", "sp.r2", "sp.r3", "sp.r4", "sp.r5", "c.reuse.indptr", "c.reuse.indices", "c.reuse.data"}

// reuseStructure runs the structure phases of cusparseSpGEMMreuse and
// allocates C.
func (pr *cusparseProduct) reuseStructure(p *pipe, sp sparseLib) error {
	offsets := p.buf("c.reuse.indptr", int64(pr.a.rows+1)*4)
	if p.err != nil {
		return p.err
	}
	var err error
	if pr.rcMat, err = sp.CreateCSR(int64(pr.a.rows), int64(pr.b.cols), 0, dp(offsets), 0, 0); err != nil {
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
	b1 := p.buf("sp.r1", s1)
	if p.err != nil {
		return p.err
	}
	if _, err = sp.ReuseWorkEstimation(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, s1, dp(b1)); err != nil {
		return err
	}
	sizes, err := sp.ReuseNNZ(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, [3]int64{}, [3]cuda.DevicePtr{})
	if err != nil {
		return err
	}
	b2, b3, b4 := p.buf("sp.r2", sizes[0]), p.buf("sp.r3", sizes[1]), p.buf("sp.r4", sizes[2])
	if p.err != nil {
		return p.err
	}
	if _, err = sp.ReuseNNZ(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, sizes, [3]cuda.DevicePtr{dp(b2), dp(b3), dp(b4)}); err != nil {
		return err
	}
	p.release("sp.r1", "sp.r2")
	c, err := pr.allocC(p, sp, pr.rcMat, offsets, "c.reuse")
	if err != nil {
		return err
	}
	s5, err := sp.ReuseCopy(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, 0, 0)
	if err != nil {
		return err
	}
	b5 := p.buf("sp.r5", s5) // kept, with buffer 4, for the computes
	if p.err != nil {
		return p.err
	}
	if _, err = sp.ReuseCopy(pr.matA, pr.matB, pr.rcMat, pr.rdescGEMM, s5, dp(b5)); err != nil {
		return err
	}
	p.release("sp.r3")
	pr.c = c
	return p.err
}

// allocC sizes C from its descriptor and gives it its column and value
// arrays beside the row offsets it was created with.
func (pr *cusparseProduct) allocC(p *pipe, sp sparseLib, mc spMat, offsets mem, name string) (devCSR, error) {
	rows, cols, nnz, err := sp.Size(mc)
	if err != nil {
		return devCSR{}, err
	}
	if nnz > 1<<31-1 {
		return devCSR{}, fmt.Errorf("gpu: C = A·B has %d entries; cuSPARSE's 32-bit indices hold at most %d", nnz, 1<<31-1)
	}
	c := devCSR{rows: int(rows), cols: int(cols), nnz: nnz, indptr: offsets,
		indices: p.buf(name+".indices", nnz*4), values: p.buf(name+".data", nnz*4), sortRows: true}
	if p.err != nil {
		return devCSR{}, p.err
	}
	return c, sp.SetPointers(mc, dp(c.indptr), dp(c.indices), dp(c.values))
}

// spTry is one algorithm a one-shot product tries.
type spTry struct {
	alg   cuda.SpGEMMAlg
	chunk float32 // ALG3's chunk fraction
}

// spTries are the algorithms in the order tried: ALG1, ALG2, then ALG3
// with smaller and smaller chunks (CUDA 12 and later), or the default
// algorithm (CUDA 11, which has no memory estimate).
func spTries(sp sparseLib) []spTry {
	if !sp.Has(cuda.FeatureSpGEMMEstimate) {
		return []spTry{{alg: cuda.SpGEMMDefault}}
	}
	tries := []spTry{{alg: cuda.SpGEMMAlg1}, {alg: cuda.SpGEMMAlg2, chunk: 1}}
	for c := float32(0.2); c >= 0.2/64; c /= 2 {
		tries = append(tries, spTry{alg: cuda.SpGEMMAlg3, chunk: c})
	}
	return tries
}

// oneShotBufs are the buffers of one try of a one-shot product, freed
// when it fails.
var oneShotBufs = []string{"sp.buf1", "sp.buf2", "sp.buf3", "c.indices", "c.data"}

// oneShot computes C with the first algorithm that has the resources,
// starting from the one that succeeded last time.
func (pr *cusparseProduct) oneShot(p *pipe, sp sparseLib) (devCSR, error) {
	tries := spTries(sp)
	var errs []error
	for i := min(pr.first, len(tries)-1); i < len(tries); i++ {
		tr := tries[i]
		c, err := pr.tryAlg(p, sp, tr.alg, tr.chunk)
		if err == nil {
			pr.first = i
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
		// An allocation that failed is not the pipe's error: free this try's
		// buffers and try the next algorithm.
		p.err = nil
		p.release(oneShotBufs...)
		if p.err != nil {
			break
		}
	}
	return devCSR{}, fmt.Errorf("gpu: cusparseSpGEMM of (%d x %d, %d entries)·(%d x %d, %d entries): %w",
		pr.a.rows, pr.a.cols, pr.a.nnz, pr.b.rows, pr.b.cols, pr.b.nnz, errors.Join(errs...))
}

// tryAlg runs one product with alg; its descriptors live for the call.
func (pr *cusparseProduct) tryAlg(p *pipe, sp sparseLib, alg cuda.SpGEMMAlg, chunk float32) (c devCSR, err error) {
	offsets := p.buf("c.indptr", int64(pr.a.rows+1)*4)
	if p.err != nil {
		return devCSR{}, p.err
	}
	mc, err := sp.CreateCSR(int64(pr.a.rows), int64(pr.b.cols), 0, dp(offsets), 0, 0)
	if err != nil {
		return devCSR{}, err
	}
	defer func() { err = errors.Join(err, sp.DestroySpMat(mc)) }()
	d, err := sp.NewSpGEMM()
	if err != nil {
		return devCSR{}, err
	}
	defer func() { err = errors.Join(err, sp.DestroySpGEMM(d)) }()
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
		p.release("sp.buf3") // before buffer 2 (spgemm_mem)
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
	if c, err = pr.allocC(p, sp, mc, offsets, "c"); err != nil {
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

// release frees the arena's buffers of the given names (those it holds),
// so that the allocations that follow do not come on top of them.
func (p *pipe) release(names ...string) {
	for _, name := range names {
		if m, ok := p.arena.bufs[name]; ok {
			p.setErr(p.ex.free(m))
			delete(p.arena.bufs, name)
		}
	}
}

func dp(m mem) cuda.DevicePtr { return cuda.DevicePtr(m.addr) }

// cudaSparse is cuda.Sparse as a sparseLib.
type cudaSparse struct{ s *cuda.Sparse }

func (c cudaSparse) Has(f cuda.Feature) bool          { return c.s.Has(f) }
func (c cudaSparse) Unavailable(f cuda.Feature) error { return c.s.Unavailable(f) }
func (c cudaSparse) CreateCSR(rows, cols, nnz int64, indptr, indices, data cuda.DevicePtr) (spMat, error) {
	return c.s.CreateCSR(rows, cols, nnz, indptr, indices, data)
}
func (c cudaSparse) DestroySpMat(m spMat) error { return c.s.DestroySpMat(m.(cuda.SpMat)) }
func (c cudaSparse) Size(m spMat) (int64, int64, int64, error) {
	return c.s.Size(m.(cuda.SpMat))
}
func (c cudaSparse) SetPointers(m spMat, indptr, indices, data cuda.DevicePtr) error {
	return c.s.SetPointers(m.(cuda.SpMat), indptr, indices, data)
}
func (c cudaSparse) NewSpGEMM() (spDesc, error)   { return c.s.NewSpGEMM() }
func (c cudaSparse) DestroySpGEMM(d spDesc) error { return c.s.DestroySpGEMM(d.(cuda.SpGEMM)) }
func (c cudaSparse) WorkEstimation(alg cuda.SpGEMMAlg, a, b, m spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	return c.s.WorkEstimation(alg, a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM), size, buf)
}
func (c cudaSparse) Compute(alg cuda.SpGEMMAlg, a, b, m spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	return c.s.Compute(alg, a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM), size, buf)
}
func (c cudaSparse) Copy(alg cuda.SpGEMMAlg, a, b, m spMat, d spDesc) error {
	return c.s.Copy(alg, a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM))
}
func (c cudaSparse) EstimateMemory(alg cuda.SpGEMMAlg, a, b, m spMat, d spDesc, chunk float32, size3 int64, buf3 cuda.DevicePtr) (int64, int64, error) {
	return c.s.EstimateMemory(alg, a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM), chunk, size3, buf3)
}
func (c cudaSparse) ReuseWorkEstimation(a, b, m spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	return c.s.ReuseWorkEstimation(a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM), size, buf)
}
func (c cudaSparse) ReuseNNZ(a, b, m spMat, d spDesc, sizes [3]int64, bufs [3]cuda.DevicePtr) ([3]int64, error) {
	return c.s.ReuseNNZ(a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM), sizes, bufs)
}
func (c cudaSparse) ReuseCopy(a, b, m spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	return c.s.ReuseCopy(a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM), size, buf)
}
func (c cudaSparse) ReuseCompute(a, b, m spMat, d spDesc) error {
	return c.s.ReuseCompute(a.(cuda.SpMat), b.(cuda.SpMat), m.(cuda.SpMat), d.(cuda.SpGEMM))
}
