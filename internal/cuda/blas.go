//go:build cuda

package cuda

/*
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include "decl.h"

#define BS_FIELD(name, sym, ret, args) ret(*name) args;
typedef struct { BS_CUBLAS_FUNCS(BS_FIELD) } bs_cublas_t;
#define BS_RESOLVE_BL2(name, sym, ret, args) \
	t->name = (ret(*) args)dlsym(h, sym); if (!t->name && !BS_CUBLAS_OPTIONAL(sym)) return sym;
static const char *bl_resolve(void *h, bs_cublas_t *t) { BS_CUBLAS_FUNCS(BS_RESOLVE_BL2) return NULL; }
static const char *bl_name(bs_cublas_t *b, bs_cublasStatus r) {
	const char *n = b->cublasGetStatusName ? b->cublasGetStatusName(r) : NULL;
	return n ? n : "cublasStatus_t";
}
static bs_cublasStatus bl_create(bs_cublas_t *b, bs_cublasHandle *h) { return b->cublasCreate(h); }
static bs_cublasStatus bl_destroy(bs_cublas_t *b, bs_cublasHandle h) { return b->cublasDestroy(h); }
static bs_cublasStatus bl_version(bs_cublas_t *b, bs_cublasHandle h, int *v) { return b->cublasGetVersion(h, v); }
static bs_cublasStatus bl_sgemm(bs_cublas_t *b, bs_cublasHandle h, int ta, int tb, int m, int n, int k, float alpha,
	uint64_t A, int lda, uint64_t B, int ldb, float beta, uint64_t C, int ldc) {
	return b->cublasSgemm(h, ta, tb, m, n, k, &alpha, (const float *)A, lda, (const float *)B, ldb, &beta, (float *)C, ldc);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// BLAS is cuBLAS on a context: the library and a handle on the default
// stream; its methods must run on the context's thread.
type BLAS struct {
	lib     *C.bs_cublas_t
	h       C.bs_cublasHandle
	Path    string   // the library loaded
	Deps    []string // its dependencies loaded first, by path (libcublasLt)
	Version int      // cublasGetVersion, e.g. 130100 (0 when the library does not say)
}

// BLAS returns cuBLAS on t's context, loading it on first use.
func (t *Thread) BLAS() (*BLAS, error) {
	if t.side {
		return nil, errSideLibrary
	}
	if t.c.blas != nil {
		return t.c.blas, nil
	}
	h, lib, err := openLib("cuBLAS", []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"})
	if err != nil {
		return nil, err
	}
	b := &BLAS{lib: (*C.bs_cublas_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.bs_cublas_t{})))), Path: lib.Path, Deps: lib.Deps}
	if miss := C.bl_resolve(h, b.lib); miss != nil {
		C.free(unsafe.Pointer(b.lib))
		return nil, fmt.Errorf("cuda: %s lacks %s", lib.Path, C.GoString(miss))
	}
	if err := b.check("cublasCreate_v2", C.bl_create(b.lib, &b.h)); err != nil {
		return nil, err
	}
	if b.lib.cublasGetVersion != nil {
		var v C.int
		if err := b.check("cublasGetVersion_v2", C.bl_version(b.lib, b.h, &v)); err != nil {
			return nil, err
		}
		b.Version = int(v)
	}
	t.c.blas = b
	return b, nil
}

func (b *BLAS) check(call string, r C.bs_cublasStatus) error {
	if r == C.BS_CUBLAS_STATUS_SUCCESS {
		return nil
	}
	return &Error{Lib: "cublas", Call: call, Code: int(r), Name: C.GoString(C.bl_name(b.lib, r))}
}

func (b *BLAS) destroy() error { return b.check("cublasDestroy_v2", C.bl_destroy(b.lib, b.h)) }

// SgemmRowMajor computes C = alpha·op(A)·op(B) + beta·C for row-major
// float32 matrices (C is m x n, op(A) m x k, op(B) k x n; lda, ldb, ldc
// their row strides), through cuBLAS's column-major Sgemm on the
// transposes: Cᵀ = op(B)ᵀ·op(A)ᵀ.
func (b *BLAS) SgemmRowMajor(transA, transB bool, m, n, k int, alpha float32, a DevicePtr, lda int, bm DevicePtr, ldb int, beta float32, c DevicePtr, ldc int) error {
	op := func(t bool) C.int {
		if t {
			return C.BS_CUBLAS_OP_T
		}
		return C.BS_CUBLAS_OP_N
	}
	return b.check(fmt.Sprintf("cublasSgemm_v2(%d x %d x %d)", m, n, k),
		C.bl_sgemm(b.lib, b.h, op(transB), op(transA), C.int(n), C.int(m), C.int(k), C.float(alpha),
			C.uint64_t(bm), C.int(ldb), C.uint64_t(a), C.int(lda), C.float(beta), C.uint64_t(c), C.int(ldc)))
}
