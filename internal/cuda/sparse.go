//go:build cuda

package cuda

/*
#include <stdlib.h>
#include <string.h>
#include "decl.h"

#define BS_FIELD(name, sym, ret, args) ret(*name) args;
typedef struct { BS_CUSPARSE_FUNCS(BS_FIELD) } bs_cusparse_t;

#define SP_OPS BS_CUSPARSE_OPERATION_NON_TRANSPOSE, BS_CUSPARSE_OPERATION_NON_TRANSPOSE
static const float sp_one = 1.0f, sp_zero = 0.0f;

static const char *sp_name(bs_cusparse_t *s, bs_cusparseStatus r) {
	const char *n = s->cusparseGetErrorName(r);
	return n ? n : "unknown cusparseStatus_t";
}
static bs_cusparseStatus sp_create(bs_cusparse_t *s, bs_cusparseHandle *h) { return s->cusparseCreate(h); }
static bs_cusparseStatus sp_destroy(bs_cusparse_t *s, bs_cusparseHandle h) { return s->cusparseDestroy(h); }
static bs_cusparseStatus sp_version(bs_cusparse_t *s, bs_cusparseHandle h, int *v) { return s->cusparseGetVersion(h, v); }
static bs_cusparseStatus sp_csr(bs_cusparse_t *s, bs_cusparseSpMat *m, int64_t rows, int64_t cols, int64_t nnz,
	uint64_t ptr, uint64_t ind, uint64_t val) {
	return s->cusparseCreateCsr(m, rows, cols, nnz, (void *)ptr, (void *)ind, (void *)val, BS_CUSPARSE_INDEX_32I,
		BS_CUSPARSE_INDEX_32I, BS_CUSPARSE_INDEX_BASE_ZERO, BS_CUDA_R_32F);
}
static bs_cusparseStatus sp_destroymat(bs_cusparse_t *s, bs_cusparseSpMat m) { return s->cusparseDestroySpMat(m); }
static bs_cusparseStatus sp_size(bs_cusparse_t *s, bs_cusparseSpMat m, int64_t *r, int64_t *c, int64_t *n) {
	return s->cusparseSpMatGetSize(m, r, c, n);
}
static bs_cusparseStatus sp_setptrs(bs_cusparse_t *s, bs_cusparseSpMat m, uint64_t ptr, uint64_t ind, uint64_t val) {
	return s->cusparseCsrSetPointers(m, (void *)ptr, (void *)ind, (void *)val);
}
static bs_cusparseStatus sp_gemmdescr(bs_cusparse_t *s, bs_cusparseSpGEMMDescr *d) { return s->cusparseSpGEMM_createDescr(d); }
static bs_cusparseStatus sp_gemmdestroy(bs_cusparse_t *s, bs_cusparseSpGEMMDescr d) { return s->cusparseSpGEMM_destroyDescr(d); }
static bs_cusparseStatus sp_work(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, int alg, bs_cusparseSpGEMMDescr d, size_t *size, uint64_t buf) {
	return s->cusparseSpGEMM_workEstimation(h, SP_OPS, &sp_one, a, b, &sp_zero, c, BS_CUDA_R_32F, alg, d, size, (void *)buf);
}
static bs_cusparseStatus sp_compute(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, int alg, bs_cusparseSpGEMMDescr d, size_t *size, uint64_t buf) {
	return s->cusparseSpGEMM_compute(h, SP_OPS, &sp_one, a, b, &sp_zero, c, BS_CUDA_R_32F, alg, d, size, (void *)buf);
}
static bs_cusparseStatus sp_copy(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, int alg, bs_cusparseSpGEMMDescr d) {
	return s->cusparseSpGEMM_copy(h, SP_OPS, &sp_one, a, b, &sp_zero, c, BS_CUDA_R_32F, alg, d);
}
static bs_cusparseStatus sp_numproducts(bs_cusparse_t *s, bs_cusparseSpGEMMDescr d, int64_t *n) {
	return s->cusparseSpGEMM_getNumProducts(d, n);
}
static bs_cusparseStatus sp_estimate(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, int alg, bs_cusparseSpGEMMDescr d, float chunk, size_t *size3, uint64_t buf3, size_t *size2) {
	return s->cusparseSpGEMM_estimateMemory(h, SP_OPS, &sp_one, a, b, &sp_zero, c, BS_CUDA_R_32F, alg, d, chunk, size3,
		(void *)buf3, size2);
}
static bs_cusparseStatus sp_rwork(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, bs_cusparseSpGEMMDescr d, size_t *size, uint64_t buf) {
	return s->cusparseSpGEMMreuse_workEstimation(h, SP_OPS, a, b, c, BS_CUSPARSE_SPGEMM_DEFAULT, d, size, (void *)buf);
}
static bs_cusparseStatus sp_rnnz(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, bs_cusparseSpGEMMDescr d, size_t *s2, uint64_t b2, size_t *s3, uint64_t b3, size_t *s4, uint64_t b4) {
	return s->cusparseSpGEMMreuse_nnz(h, SP_OPS, a, b, c, BS_CUSPARSE_SPGEMM_DEFAULT, d, s2, (void *)b2, s3, (void *)b3,
		s4, (void *)b4);
}
static bs_cusparseStatus sp_rcopy(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, bs_cusparseSpGEMMDescr d, size_t *size, uint64_t buf) {
	return s->cusparseSpGEMMreuse_copy(h, SP_OPS, a, b, c, BS_CUSPARSE_SPGEMM_DEFAULT, d, size, (void *)buf);
}
static bs_cusparseStatus sp_rcompute(bs_cusparse_t *s, bs_cusparseHandle h, bs_cusparseSpMat a, bs_cusparseSpMat b,
	bs_cusparseSpMat c, bs_cusparseSpGEMMDescr d) {
	return s->cusparseSpGEMMreuse_compute(h, SP_OPS, &sp_one, a, b, &sp_zero, c, BS_CUDA_R_32F, BS_CUSPARSE_SPGEMM_DEFAULT, d);
}
static bs_cusparseStatus sp_dnmat(bs_cusparse_t *s, bs_cusparseDnMat *m, int64_t rows, int64_t cols, int64_t ld, uint64_t data) {
	return s->cusparseCreateDnMat(m, rows, cols, ld, (void *)data, BS_CUDA_R_32F, BS_CUSPARSE_ORDER_ROW);
}
static bs_cusparseStatus sp_destroydn(bs_cusparse_t *s, bs_cusparseDnMat m) { return s->cusparseDestroyDnMat(m); }
static bs_cusparseStatus sp_spmm(bs_cusparse_t *s, bs_cusparseHandle h, int transA, float alpha, bs_cusparseSpMat a,
	bs_cusparseDnMat b, float beta, bs_cusparseDnMat c, size_t *size, uint64_t buf, int query) {
	int op = transA ? BS_CUSPARSE_OPERATION_TRANSPOSE : BS_CUSPARSE_OPERATION_NON_TRANSPOSE;
	if (query)
		return s->cusparseSpMM_bufferSize(h, op, BS_CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, b, &beta, c, BS_CUDA_R_32F,
			BS_CUSPARSE_SPMM_ALG_DEFAULT, size);
	return s->cusparseSpMM(h, op, BS_CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, b, &beta, c, BS_CUDA_R_32F,
		BS_CUSPARSE_SPMM_ALG_DEFAULT, (void *)buf);
}
// sp_resolve fills t from h, and sets missing[g] to the first symbol of
// group g that h lacks (NULL when it has them all): 0 core, 1 SpMM,
// 2 SpGEMM, 3 the estimate, 4 reuse (Feature's values).
#define BS_RESOLVE_GROUP(name, sym, ret, args) \
	t->name = (ret(*) args)dlsym(h, sym); if (!t->name && !*miss) *miss = sym;
#include <dlfcn.h>
static void sp_resolve(void *h, bs_cusparse_t *t, const char **missing) {
	const char **miss;
	miss = &missing[0]; BS_CUSPARSE_CORE(BS_RESOLVE_GROUP)
	miss = &missing[1]; BS_CUSPARSE_SPMM(BS_RESOLVE_GROUP)
	miss = &missing[2]; BS_CUSPARSE_SPGEMM(BS_RESOLVE_GROUP)
	miss = &missing[3]; BS_CUSPARSE_ESTIMATE(BS_RESOLVE_GROUP)
	miss = &missing[4]; BS_CUSPARSE_REUSE(BS_RESOLVE_GROUP)
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// SpGEMMAlg is a cuSPARSE SpGEMM algorithm.
type SpGEMMAlg int

// The algorithms of cusparseSpGEMM: Default is the only one of CUDA 11;
// ALG1 (CUDA 12's default), ALG2 and ALG3 (less memory, ALG3 in chunks)
// need CUDA 12 or later.
const (
	SpGEMMDefault SpGEMMAlg = C.BS_CUSPARSE_SPGEMM_DEFAULT
	SpGEMMAlg1    SpGEMMAlg = C.BS_CUSPARSE_SPGEMM_ALG1
	SpGEMMAlg2    SpGEMMAlg = C.BS_CUSPARSE_SPGEMM_ALG2
	SpGEMMAlg3    SpGEMMAlg = C.BS_CUSPARSE_SPGEMM_ALG3
)

func (a SpGEMMAlg) String() string {
	switch a {
	case SpGEMMDefault:
		return "default"
	case SpGEMMAlg1:
		return "alg1"
	case SpGEMMAlg2:
		return "alg2"
	case SpGEMMAlg3:
		return "alg3"
	}
	return fmt.Sprintf("SpGEMMAlg(%d)", int(a))
}

// Feature is a group of cuSPARSE's functions, which a library has or
// lacks as a whole: a missing one disables what needs it only.
type Feature int

// The features beside the core (handles, CSR descriptors), which every
// one needs.
const (
	FeatureSpMM           Feature = 1 // SpMM: the GNN backend's aggregation
	FeatureSpGEMM         Feature = 2 // SpGEMM: products that are not a row gather
	FeatureSpGEMMEstimate Feature = 3 // ALG2 and ALG3's memory estimate (CUDA 12 and later)
	FeatureSpGEMMReuse    Feature = 4 // SpGEMM with structure reuse
)

func (f Feature) String() string {
	switch f {
	case FeatureSpMM:
		return "SpMM"
	case FeatureSpGEMM:
		return "SpGEMM"
	case FeatureSpGEMMEstimate:
		return "SpGEMM's memory estimate (ALG2, ALG3)"
	case FeatureSpGEMMReuse:
		return "SpGEMM with structure reuse"
	}
	return fmt.Sprintf("Feature(%d)", int(f))
}

// ErrUnavailable is wrapped by the error of a call whose feature the
// loaded library lacks; the error names the missing function.
var ErrUnavailable = errors.New("the loaded library lacks it")

// Sparse is cuSPARSE on a context: the library and a handle on the
// default stream. Its methods are thin wrappers of the library's calls
// for C = A·B in float32 with 32-bit indices (what cusparseSpGEMM
// supports), and must run on the context's thread.
type Sparse struct {
	lib     *C.bs_cusparse_t
	h       C.bs_cusparseHandle
	Path    string   // the library loaded
	Deps    []string // its dependencies loaded first, by path (Library.Deps)
	Version int      // cusparseGetVersion, e.g. 12603
	// missing[f] is the first function of feature f the library lacks.
	missing [5]string
}

// Sparse returns cuSPARSE on t's context, loading it and creating its
// handle on first use. A library without one of the core functions is an
// error; one without a feature's function leaves that feature out
// (Unavailable says which function).
func (t *Thread) Sparse() (*Sparse, error) {
	if t.side {
		return nil, errSideLibrary
	}
	if t.c.sparse != nil {
		return t.c.sparse, nil
	}
	s, err := openSparse([]string{"libcusparse.so.13", "libcusparse.so.12", "libcusparse.so.11"})
	if err != nil {
		return nil, err
	}
	t.c.sparse = s
	return s, nil
}

// openSparse loads the first of names, resolves its functions feature by
// feature and creates a handle.
func openSparse(names []string) (*Sparse, error) {
	h, lib, err := openLib("cuSPARSE", names)
	if err != nil {
		return nil, err
	}
	s := &Sparse{lib: (*C.bs_cusparse_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.bs_cusparse_t{})))), Path: lib.Path, Deps: lib.Deps}
	var miss [5]*C.char
	C.sp_resolve(h, s.lib, &miss[0])
	for i, m := range miss {
		if m != nil {
			s.missing[i] = C.GoString(m)
		}
	}
	if s.missing[0] != "" {
		C.free(unsafe.Pointer(s.lib))
		return nil, fmt.Errorf("cuda: %s lacks %s, which every use of cuSPARSE needs", lib.Path, s.missing[0])
	}
	if err := s.check("cusparseCreate", C.sp_create(s.lib, &s.h)); err != nil {
		return nil, err
	}
	var v C.int
	if err := s.check("cusparseGetVersion", C.sp_version(s.lib, s.h, &v)); err != nil {
		return nil, err
	}
	s.Version = int(v)
	return s, nil
}

// Has reports whether the library has every function of f (and of the
// SpGEMM feature that the estimate and reuse build on).
func (s *Sparse) Has(f Feature) bool { return s.Unavailable(f) == nil }

// Unavailable returns nil if the library has f, or else an error naming
// the function it lacks, wrapping ErrUnavailable.
func (s *Sparse) Unavailable(f Feature) error {
	if f < FeatureSpMM || f > FeatureSpGEMMReuse {
		return fmt.Errorf("cuda: %v: no such cuSPARSE feature", f)
	}
	miss, what := s.missing[f], f
	if miss == "" && (f == FeatureSpGEMMEstimate || f == FeatureSpGEMMReuse) && s.missing[FeatureSpGEMM] != "" {
		miss = s.missing[FeatureSpGEMM]
	}
	if miss == "" {
		return nil
	}
	return fmt.Errorf("cuda: %s lacks %s, so %v is unavailable: %w", s.Path, miss, what, ErrUnavailable)
}

// Features describes which features the library has, naming the first
// missing function of each it lacks.
func (s *Sparse) Features() string {
	var have, lack []string
	for f := FeatureSpMM; f <= FeatureSpGEMMReuse; f++ {
		if s.Has(f) {
			have = append(have, f.String())
		} else {
			miss := s.missing[f]
			if miss == "" {
				miss = s.missing[FeatureSpGEMM]
			}
			lack = append(lack, fmt.Sprintf("%v (no %s)", f, miss))
		}
	}
	out := "has " + strings.Join(have, ", ")
	if len(have) == 0 {
		out = "has none of its features"
	}
	if len(lack) > 0 {
		out += "; lacks " + strings.Join(lack, ", ")
	}
	return out
}

func (s *Sparse) check(call string, r C.bs_cusparseStatus) error {
	if r == C.BS_CUSPARSE_STATUS_SUCCESS {
		return nil
	}
	return &Error{Lib: "cusparse", Call: call, Code: int(r), Name: C.GoString(C.sp_name(s.lib, r))}
}

func (s *Sparse) destroy() error { return s.check("cusparseDestroy", C.sp_destroy(s.lib, s.h)) }

// SpMat is a cuSPARSE sparse matrix descriptor.
type SpMat struct{ m C.bs_cusparseSpMat }

// CreateCSR describes the rows x cols CSR matrix of nnz entries at the
// device arrays indptr (int32, rows+1), indices (int32) and data (float32);
// indices and data may be 0 for an output whose size is not known yet
// (SetPointers gives them later), indptr only when rows is 0.
func (s *Sparse) CreateCSR(rows, cols, nnz int64, indptr, indices, data DevicePtr) (SpMat, error) {
	var m SpMat
	call := fmt.Sprintf("cusparseCreateCsr(%d x %d, %d entries)", rows, cols, nnz)
	if rows > 0 && indptr == 0 {
		// cuSPARSE 12.2 and later refuse it; older ones accept it. Refused
		// here for every version, so that a test on any library catches it.
		return m, &Error{Lib: "cusparse", Call: call, Code: C.BS_CUSPARSE_STATUS_INVALID_VALUE, Name: "CUSPARSE_STATUS_INVALID_VALUE",
			Msg: "NULL row offsets for a matrix with rows (refused by the binding, as by cuSPARSE 12.2 and later): give C's rows+1 offsets at creation"}
	}
	err := s.check(call,
		C.sp_csr(s.lib, &m.m, C.int64_t(rows), C.int64_t(cols), C.int64_t(nnz), C.uint64_t(indptr), C.uint64_t(indices), C.uint64_t(data)))
	return m, err
}

// DestroySpMat destroys a descriptor.
func (s *Sparse) DestroySpMat(m SpMat) error {
	return s.check("cusparseDestroySpMat", C.sp_destroymat(s.lib, m.m))
}

// Size returns the matrix's shape and entries.
func (s *Sparse) Size(m SpMat) (rows, cols, nnz int64, err error) {
	var r, c, n C.int64_t
	err = s.check("cusparseSpMatGetSize", C.sp_size(s.lib, m.m, &r, &c, &n))
	return int64(r), int64(c), int64(n), err
}

// SetPointers sets the matrix's arrays.
func (s *Sparse) SetPointers(m SpMat, indptr, indices, data DevicePtr) error {
	return s.check("cusparseCsrSetPointers", C.sp_setptrs(s.lib, m.m, C.uint64_t(indptr), C.uint64_t(indices), C.uint64_t(data)))
}

// SpGEMM is a cusparseSpGEMMDescr_t: the state of one product C = A·B.
type SpGEMM struct{ d C.bs_cusparseSpGEMMDescr }

// NewSpGEMM creates a product descriptor; destroy it with DestroySpGEMM.
func (s *Sparse) NewSpGEMM() (SpGEMM, error) {
	if err := s.Unavailable(FeatureSpGEMM); err != nil {
		return SpGEMM{}, err
	}
	var d SpGEMM
	return d, s.check("cusparseSpGEMM_createDescr", C.sp_gemmdescr(s.lib, &d.d))
}

// DestroySpGEMM destroys a product descriptor.
func (s *Sparse) DestroySpGEMM(d SpGEMM) error {
	return s.check("cusparseSpGEMM_destroyDescr", C.sp_gemmdestroy(s.lib, d.d))
}

// WorkEstimation is cusparseSpGEMM_workEstimation for C = 1·A·B: with buf
// 0 it returns the buffer size; with buf of that size it runs.
func (s *Sparse) WorkEstimation(alg SpGEMMAlg, a, b, c SpMat, d SpGEMM, size int64, buf DevicePtr) (int64, error) {
	if err := s.Unavailable(FeatureSpGEMM); err != nil {
		return 0, err
	}
	sz := C.size_t(size)
	err := s.check(fmt.Sprintf("cusparseSpGEMM_workEstimation(%v, buffer %d bytes)", alg, size),
		C.sp_work(s.lib, s.h, a.m, b.m, c.m, C.int(alg), d.d, &sz, C.uint64_t(buf)))
	return int64(sz), err
}

// Compute is cusparseSpGEMM_compute, with the same buffer protocol.
func (s *Sparse) Compute(alg SpGEMMAlg, a, b, c SpMat, d SpGEMM, size int64, buf DevicePtr) (int64, error) {
	if err := s.Unavailable(FeatureSpGEMM); err != nil {
		return 0, err
	}
	sz := C.size_t(size)
	err := s.check(fmt.Sprintf("cusparseSpGEMM_compute(%v, buffer %d bytes)", alg, size),
		C.sp_compute(s.lib, s.h, a.m, b.m, c.m, C.int(alg), d.d, &sz, C.uint64_t(buf)))
	return int64(sz), err
}

// Copy is cusparseSpGEMM_copy: C's arrays (set with SetPointers) get the
// product.
func (s *Sparse) Copy(alg SpGEMMAlg, a, b, c SpMat, d SpGEMM) error {
	if err := s.Unavailable(FeatureSpGEMM); err != nil {
		return err
	}
	return s.check(fmt.Sprintf("cusparseSpGEMM_copy(%v)", alg), C.sp_copy(s.lib, s.h, a.m, b.m, c.m, C.int(alg), d.d))
}

// NumProducts is cusparseSpGEMM_getNumProducts (after WorkEstimation).
func (s *Sparse) NumProducts(d SpGEMM) (int64, error) {
	if err := s.Unavailable(FeatureSpGEMMEstimate); err != nil {
		return 0, err
	}
	var n C.int64_t
	err := s.check("cusparseSpGEMM_getNumProducts", C.sp_numproducts(s.lib, d.d, &n))
	return int64(n), err
}

// EstimateMemory is cusparseSpGEMM_estimateMemory (ALG2, ALG3): with buf3 0
// it returns the size of its own buffer; with that buffer, the size of
// Compute's buffer (size2) for the chunk fraction (ALG3).
func (s *Sparse) EstimateMemory(alg SpGEMMAlg, a, b, c SpMat, d SpGEMM, chunk float32, size3 int64, buf3 DevicePtr) (int64, int64, error) {
	if err := s.Unavailable(FeatureSpGEMMEstimate); err != nil {
		return 0, 0, err
	}
	s3, s2 := C.size_t(size3), C.size_t(0)
	err := s.check(fmt.Sprintf("cusparseSpGEMM_estimateMemory(%v, chunk fraction %g)", alg, chunk),
		C.sp_estimate(s.lib, s.h, a.m, b.m, c.m, C.int(alg), d.d, C.float(chunk), &s3, C.uint64_t(buf3), &s2))
	return int64(s3), int64(s2), err
}

// ReuseWorkEstimation is cusparseSpGEMMreuse_workEstimation (default
// algorithm), with WorkEstimation's buffer protocol.
func (s *Sparse) ReuseWorkEstimation(a, b, c SpMat, d SpGEMM, size int64, buf DevicePtr) (int64, error) {
	if err := s.Unavailable(FeatureSpGEMMReuse); err != nil {
		return 0, err
	}
	sz := C.size_t(size)
	err := s.check(fmt.Sprintf("cusparseSpGEMMreuse_workEstimation(buffer %d bytes)", size),
		C.sp_rwork(s.lib, s.h, a.m, b.m, c.m, d.d, &sz, C.uint64_t(buf)))
	return int64(sz), err
}

// ReuseNNZ is cusparseSpGEMMreuse_nnz: with zero buffers it returns their
// three sizes; with them, it computes C's row offsets and size.
func (s *Sparse) ReuseNNZ(a, b, c SpMat, d SpGEMM, sizes [3]int64, bufs [3]DevicePtr) ([3]int64, error) {
	if err := s.Unavailable(FeatureSpGEMMReuse); err != nil {
		return [3]int64{}, err
	}
	s2, s3, s4 := C.size_t(sizes[0]), C.size_t(sizes[1]), C.size_t(sizes[2])
	err := s.check(fmt.Sprintf("cusparseSpGEMMreuse_nnz(buffers %v bytes)", sizes),
		C.sp_rnnz(s.lib, s.h, a.m, b.m, c.m, d.d, &s2, C.uint64_t(bufs[0]), &s3, C.uint64_t(bufs[1]), &s4, C.uint64_t(bufs[2])))
	return [3]int64{int64(s2), int64(s3), int64(s4)}, err
}

// ReuseCopy is cusparseSpGEMMreuse_copy: C's column indices.
func (s *Sparse) ReuseCopy(a, b, c SpMat, d SpGEMM, size int64, buf DevicePtr) (int64, error) {
	if err := s.Unavailable(FeatureSpGEMMReuse); err != nil {
		return 0, err
	}
	sz := C.size_t(size)
	err := s.check(fmt.Sprintf("cusparseSpGEMMreuse_copy(buffer %d bytes)", size),
		C.sp_rcopy(s.lib, s.h, a.m, b.m, c.m, d.d, &sz, C.uint64_t(buf)))
	return int64(sz), err
}

// ReuseCompute is cusparseSpGEMMreuse_compute: C's values, for the
// structure computed before (repeatable while the patterns stay).
func (s *Sparse) ReuseCompute(a, b, c SpMat, d SpGEMM) error {
	if err := s.Unavailable(FeatureSpGEMMReuse); err != nil {
		return err
	}
	return s.check("cusparseSpGEMMreuse_compute", C.sp_rcompute(s.lib, s.h, a.m, b.m, c.m, d.d))
}

// DnMat is a cuSPARSE dense matrix descriptor.
type DnMat struct{ m C.bs_cusparseDnMat }

// CreateDnMat describes the rows x cols row-major float32 matrix at data,
// ld elements between rows.
func (s *Sparse) CreateDnMat(rows, cols, ld int64, data DevicePtr) (DnMat, error) {
	if err := s.Unavailable(FeatureSpMM); err != nil {
		return DnMat{}, err
	}
	var m DnMat
	err := s.check(fmt.Sprintf("cusparseCreateDnMat(%d x %d, ld %d)", rows, cols, ld),
		C.sp_dnmat(s.lib, &m.m, C.int64_t(rows), C.int64_t(cols), C.int64_t(ld), C.uint64_t(data)))
	return m, err
}

// DestroyDnMat destroys a dense descriptor.
func (s *Sparse) DestroyDnMat(m DnMat) error {
	return s.check("cusparseDestroyDnMat", C.sp_destroydn(s.lib, m.m))
}

// SpMMBufferSize is cusparseSpMM_bufferSize for C = alpha·op(A)·B + beta·C.
func (s *Sparse) SpMMBufferSize(transA bool, alpha float32, a SpMat, b DnMat, beta float32, c DnMat) (int64, error) {
	if err := s.Unavailable(FeatureSpMM); err != nil {
		return 0, err
	}
	var sz C.size_t
	err := s.check("cusparseSpMM_bufferSize", C.sp_spmm(s.lib, s.h, cbool(transA), C.float(alpha), a.m, b.m, C.float(beta), c.m, &sz, 0, 1))
	return int64(sz), err
}

// SpMM is cusparseSpMM (the default algorithm): C = alpha·op(A)·B +
// beta·C, op(A) = A or Aᵀ, B and C row-major, with a buffer of the size
// SpMMBufferSize returned (0 when that is 0).
func (s *Sparse) SpMM(transA bool, alpha float32, a SpMat, b DnMat, beta float32, c DnMat, buf DevicePtr) error {
	if err := s.Unavailable(FeatureSpMM); err != nil {
		return err
	}
	return s.check("cusparseSpMM", C.sp_spmm(s.lib, s.h, cbool(transA), C.float(alpha), a.m, b.m, C.float(beta), c.m, nil, C.uint64_t(buf), 0))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
