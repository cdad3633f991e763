//go:build graphblas

package graphblas

/*
#cgo CFLAGS: -I/usr/include/suitesparse
#cgo LDFLAGS: -lgraphblas
#include <GraphBLAS.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// GxB_Global_Option_set and _get are variadic, which cgo cannot call.
static GrB_Info bs_set_nthreads(int n) { return GxB_Global_Option_set(GxB_NTHREADS, n); }
static GrB_Info bs_set_burble(int on) { return GxB_Global_Option_set(GxB_BURBLE, (bool) on); }
static GrB_Info bs_library_version(int v[3]) { return GxB_Global_Option_get(GxB_LIBRARY_VERSION, v); }

// bs_import_csr copies a bulksample CSR (int64 offsets, int32 column ids,
// float32 values) into arrays allocated with malloc, the allocator GrB_init
// gives GraphBLAS, and imports them, which hands their ownership to
// GraphBLAS. The caller's arrays are only read during the call. On failure
// the copies are freed and *A is left NULL.
static GrB_Info bs_import_csr(GrB_Matrix *A, GrB_Index nrows, GrB_Index ncols,
		const int64_t *indptr, const int32_t *indices, const float *data, GrB_Index nnz) {
	GrB_Index nz = nnz > 0 ? nnz : 1; // GraphBLAS wants non-NULL arrays even when empty
	GrB_Index *ap = malloc((nrows + 1) * sizeof(GrB_Index));
	GrB_Index *aj = malloc(nz * sizeof(GrB_Index));
	float *ax = malloc(nz * sizeof(float));
	if (ap == NULL || aj == NULL || ax == NULL) {
		free(ap); free(aj); free(ax);
		return GrB_OUT_OF_MEMORY;
	}
	for (GrB_Index i = 0; i <= nrows; i++) ap[i] = (GrB_Index) indptr[i];
	for (GrB_Index p = 0; p < nnz; p++) aj[p] = (GrB_Index) indices[p];
	if (nnz > 0) memcpy(ax, data, nnz * sizeof(float));
	GrB_Info info = GxB_Matrix_import_CSR(A, GrB_FP32, nrows, ncols, &ap, &aj, (void **) &ax,
		(nrows + 1) * sizeof(GrB_Index), nz * sizeof(GrB_Index), nz * sizeof(float),
		false, false, NULL);
	if (info != GrB_SUCCESS) {
		free(ap); free(aj); free(ax);
	}
	return info;
}

// bs_export_csr copies A, of type FP32, into the caller's CSR arrays, which
// must have room for nrows+1 offsets and nvals(A) entries. The caller's
// arrays are only written during the call.
static GrB_Info bs_export_csr(GrB_Matrix A, GrB_Index nrows, int64_t *indptr, int32_t *indices, float *data) {
	GrB_Index aplen, ailen, axlen;
	GrB_Info info = GrB_Matrix_exportSize(&aplen, &ailen, &axlen, GrB_CSR_FORMAT, A);
	if (info != GrB_SUCCESS) return info;
	if (aplen < nrows + 1) aplen = nrows + 1;
	GrB_Index *ap = malloc(aplen * sizeof(GrB_Index));
	GrB_Index *ai = malloc((ailen > 0 ? ailen : 1) * sizeof(GrB_Index));
	float *ax = malloc((axlen > 0 ? axlen : 1) * sizeof(float));
	if (ap == NULL || ai == NULL || ax == NULL) {
		free(ap); free(ai); free(ax);
		return GrB_OUT_OF_MEMORY;
	}
	info = GrB_Matrix_export_FP32(ap, ai, ax, &aplen, &ailen, &axlen, GrB_CSR_FORMAT, A);
	if (info == GrB_SUCCESS) {
		GrB_Index nnz = ap[nrows];
		for (GrB_Index i = 0; i <= nrows; i++) indptr[i] = (int64_t) ap[i];
		for (GrB_Index p = 0; p < nnz; p++) indices[p] = (int32_t) ai[p];
		if (nnz > 0) memcpy(data, ax, nnz * sizeof(float));
	}
	free(ap); free(ai); free(ax);
	return info;
}

// bs_unpack and bs_pack move A's CSR arrays out of A and back in, in O(1)
// when A is already stored as sorted, non-iso CSR (otherwise unpack converts).
static GrB_Info bs_unpack(GrB_Matrix A, GrB_Index **ap, GrB_Index **aj, void **ax,
		GrB_Index *ap_size, GrB_Index *aj_size, GrB_Index *ax_size) {
	return GxB_Matrix_unpack_CSR(A, ap, aj, ax, ap_size, aj_size, ax_size, NULL, NULL, NULL);
}
static GrB_Info bs_pack(GrB_Matrix A, GrB_Index **ap, GrB_Index **aj, void **ax,
		GrB_Index ap_size, GrB_Index aj_size, GrB_Index ax_size) {
	return GxB_Matrix_pack_CSR(A, ap, aj, ax, ap_size, aj_size, ax_size, false, false, NULL);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/bulksample/bulksample/spgemm"
)

// Built reports whether this build links SuiteSparse:GraphBLAS.
const Built = true

// initLibrary calls GrB_init once per process: GraphBLAS's state is global to
// the process and GrB_init may not be called twice.
var initLibrary = sync.OnceValue(func() error {
	if info := C.GrB_init(C.GrB_NONBLOCKING); info != C.GrB_SUCCESS {
		return newError("GrB_init", info, nil)
	}
	if info := C.bs_set_burble(0); info != C.GrB_SUCCESS {
		return newError("GxB_Global_Option_set(GxB_BURBLE)", info, nil)
	}
	return nil
})

// Init initialises GraphBLAS (once per process) and sets the number of
// threads its kernels use from now on; threads <= 0 means
// runtime.GOMAXPROCS(0), the default of bulksample's kernels.
func Init(threads int) error {
	if err := initLibrary(); err != nil {
		return err
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if info := C.bs_set_nthreads(C.int(threads)); info != C.GrB_SUCCESS {
		return newError("GxB_Global_Option_set(GxB_NTHREADS)", info, nil)
	}
	return nil
}

// Version returns the library's name and version, e.g.
// "SuiteSparse:GraphBLAS 7.4.0". Init must have been called.
func Version() (string, error) {
	if err := initLibrary(); err != nil {
		return "", err
	}
	var v [3]C.int
	if info := C.bs_library_version(&v[0]); info != C.GrB_SUCCESS {
		return "", newError("GxB_Global_Option_get(GxB_LIBRARY_VERSION)", info, nil)
	}
	return fmt.Sprintf("SuiteSparse:GraphBLAS %d.%d.%d", v[0], v[1], v[2]), nil
}

// Matrix is a GraphBLAS matrix of float32 values stored by row.
type Matrix struct {
	m          C.GrB_Matrix
	rows, cols int
}

func newMatrix(m C.GrB_Matrix, rows, cols int) *Matrix {
	x := &Matrix{m: m, rows: rows, cols: cols}
	runtime.SetFinalizer(x, (*Matrix).Free)
	return x
}

// FromCSR returns a GraphBLAS copy of a. a is validated first (GraphBLAS
// does not check imported arrays), and the copy shares no memory with a.
// Init must have been called.
func FromCSR(a *spgemm.CSR) (*Matrix, error) {
	if err := initLibrary(); err != nil {
		return nil, err
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("graphblas: FromCSR: %w", err)
	}
	indptr := a.Indptr
	if len(indptr) == 0 { // the 0 x 0 zero value
		indptr = []int64{0}
	}
	var pi *C.int32_t
	var pd *C.float
	if a.NNZ() > 0 {
		pi, pd = (*C.int32_t)(unsafe.Pointer(&a.Indices[0])), (*C.float)(unsafe.Pointer(&a.Data[0]))
	}
	var m C.GrB_Matrix
	info := C.bs_import_csr(&m, C.GrB_Index(a.Rows), C.GrB_Index(a.Cols),
		(*C.int64_t)(unsafe.Pointer(&indptr[0])), pi, pd, C.GrB_Index(a.NNZ()))
	if info != C.GrB_SUCCESS {
		return nil, newError("GxB_Matrix_import_CSR", info, nil)
	}
	return newMatrix(m, a.Rows, a.Cols), nil
}

// Mul returns C = A·B over GrB_PLUS_TIMES_SEMIRING_FP32, computed by GrB_mxm
// and finished with GrB_Matrix_wait(GrB_MATERIALIZE), so that the returned
// matrix has no pending work and sorted rows, like spgemm.Mul's result. It
// panics with a spgemm.ShapeError if a's column count is not b's row count.
func Mul(a, b *Matrix) (*Matrix, error) { return mul(a, b, true) }

// MulUnfinished is Mul without the final GrB_Matrix_wait: GraphBLAS may
// return the rows of C unsorted ("jumbled") and sort them only when C is
// next used. It measures how much of Mul's time that deferred sort takes.
func MulUnfinished(a, b *Matrix) (*Matrix, error) { return mul(a, b, false) }

func mul(a, b *Matrix, finish bool) (*Matrix, error) {
	if a.cols != b.rows {
		panic(spgemm.ShapeError{Op: "graphblas.Mul", ARows: a.rows, ACols: a.cols, BRows: b.rows, BCols: b.cols})
	}
	if a.m == nil || b.m == nil {
		return nil, errFreed("Mul")
	}
	var c C.GrB_Matrix
	if info := C.GrB_Matrix_new(&c, C.GrB_FP32, C.GrB_Index(a.rows), C.GrB_Index(b.cols)); info != C.GrB_SUCCESS {
		return nil, newError("GrB_Matrix_new", info, nil)
	}
	if info := C.GrB_mxm(c, nil, nil, C.GrB_PLUS_TIMES_SEMIRING_FP32, a.m, b.m, nil); info != C.GrB_SUCCESS {
		err := newError("GrB_mxm", info, c)
		C.GrB_Matrix_free(&c)
		return nil, err
	}
	if finish {
		if info := C.GrB_Matrix_wait(c, C.GrB_MATERIALIZE); info != C.GrB_SUCCESS {
			err := newError("GrB_Matrix_wait", info, c)
			C.GrB_Matrix_free(&c)
			return nil, err
		}
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	return newMatrix(c, a.rows, b.cols), nil
}

// Dims returns the number of rows and columns.
func (m *Matrix) Dims() (rows, cols int) { return m.rows, m.cols }

// NVals returns the number of stored entries (GrB_Matrix_nvals).
func (m *Matrix) NVals() (int64, error) {
	if m.m == nil {
		return 0, errFreed("NVals")
	}
	var n C.GrB_Index
	info := C.GrB_Matrix_nvals(&n, m.m)
	runtime.KeepAlive(m)
	if info != C.GrB_SUCCESS {
		return 0, newError("GrB_Matrix_nvals", info, m.m)
	}
	return int64(n), nil
}

// ToCSR returns a copy of m as a spgemm.CSR (GrB_Matrix_export_FP32 in CSR
// format), with the column ids of each row sorted.
func (m *Matrix) ToCSR() (*spgemm.CSR, error) {
	nnz, err := m.NVals()
	if err != nil {
		return nil, err
	}
	c := &spgemm.CSR{Rows: m.rows, Cols: m.cols, Indptr: make([]int64, m.rows+1),
		Indices: make([]int32, nnz), Data: make([]float32, nnz)}
	var pi *C.int32_t
	var pd *C.float
	if nnz > 0 {
		pi, pd = (*C.int32_t)(unsafe.Pointer(&c.Indices[0])), (*C.float)(unsafe.Pointer(&c.Data[0]))
	}
	info := C.bs_export_csr(m.m, C.GrB_Index(m.rows), (*C.int64_t)(unsafe.Pointer(&c.Indptr[0])), pi, pd)
	runtime.KeepAlive(m)
	if info != C.GrB_SUCCESS {
		return nil, newError("GrB_Matrix_export_FP32", info, m.m)
	}
	if c.Indptr[m.rows] != nnz {
		return nil, fmt.Errorf("graphblas: GrB_Matrix_export_FP32 gave %d entries, GrB_Matrix_nvals %d", c.Indptr[m.rows], nnz)
	}
	sortRows(c)
	return c, nil
}

// View calls fn with read-only views of m's own CSR arrays (row offsets,
// sorted column ids and values; nnz = indptr[rows]), without copying them:
// it unpacks them from m (GxB_Matrix_unpack_CSR) and packs them back
// (GxB_Matrix_pack_CSR) when fn returns, both O(1) for a finished product.
// fn must neither modify the slices nor keep them after it returns. View
// returns fn's error, or an error naming the GraphBLAS call that failed; if
// packing back fails, m is left empty.
func (m *Matrix) View(fn func(indptr, indices []uint64, data []float32) error) error {
	nnz, err := m.NVals()
	if err != nil {
		return err
	}
	if nnz == 0 { // GraphBLAS unpacks no arrays of an empty matrix
		return fn(make([]uint64, m.rows+1), nil, nil)
	}
	var ap, aj *C.GrB_Index
	var ax unsafe.Pointer
	var apSize, ajSize, axSize C.GrB_Index
	if info := C.bs_unpack(m.m, &ap, &aj, &ax, &apSize, &ajSize, &axSize); info != C.GrB_SUCCESS {
		return newError("GxB_Matrix_unpack_CSR", info, m.m)
	}
	indptr := unsafe.Slice((*uint64)(unsafe.Pointer(ap)), m.rows+1)
	var fnErr error
	if got := int64(indptr[m.rows]); got != nnz {
		fnErr = fmt.Errorf("graphblas: GxB_Matrix_unpack_CSR gave %d entries, GrB_Matrix_nvals %d", got, nnz)
	} else {
		fnErr = fn(indptr, unsafe.Slice((*uint64)(unsafe.Pointer(aj)), nnz), unsafe.Slice((*float32)(ax), nnz))
	}
	info := C.bs_pack(m.m, &ap, &aj, &ax, apSize, ajSize, axSize)
	runtime.KeepAlive(m)
	if info != C.GrB_SUCCESS {
		// The arrays are still ours: free them rather than leak them.
		C.free(unsafe.Pointer(ap))
		C.free(unsafe.Pointer(aj))
		C.free(ax)
		return newError("GxB_Matrix_pack_CSR", info, m.m)
	}
	return fnErr
}

// Free releases the GraphBLAS object. It is idempotent: freeing a freed
// Matrix does nothing.
func (m *Matrix) Free() error {
	if m.m == nil {
		return nil
	}
	runtime.SetFinalizer(m, nil)
	if info := C.GrB_Matrix_free(&m.m); info != C.GrB_SUCCESS {
		return newError("GrB_Matrix_free", info, nil)
	}
	m.m = nil
	return nil
}

func errFreed(op string) error { return fmt.Errorf("graphblas: %s of a freed Matrix", op) }

// newError turns status info of call into an *Error, with GraphBLAS's
// message about obj when obj is not nil.
func newError(call string, info C.GrB_Info, obj C.GrB_Matrix) error {
	e := &Error{Call: call, Info: int(info), Name: infoName(info)}
	if obj != nil {
		var msg *C.char
		if C.GrB_Matrix_error(&msg, obj) == C.GrB_SUCCESS && msg != nil {
			e.Detail = C.GoString(msg) // owned by GraphBLAS: not freed here
		}
	}
	return e
}

func infoName(info C.GrB_Info) string {
	switch info {
	case C.GrB_SUCCESS:
		return "GrB_SUCCESS"
	case C.GrB_NO_VALUE:
		return "GrB_NO_VALUE"
	case C.GxB_EXHAUSTED:
		return "GxB_EXHAUSTED"
	case C.GrB_UNINITIALIZED_OBJECT:
		return "GrB_UNINITIALIZED_OBJECT"
	case C.GrB_NULL_POINTER:
		return "GrB_NULL_POINTER"
	case C.GrB_INVALID_VALUE:
		return "GrB_INVALID_VALUE"
	case C.GrB_INVALID_INDEX:
		return "GrB_INVALID_INDEX"
	case C.GrB_DOMAIN_MISMATCH:
		return "GrB_DOMAIN_MISMATCH"
	case C.GrB_DIMENSION_MISMATCH:
		return "GrB_DIMENSION_MISMATCH"
	case C.GrB_OUTPUT_NOT_EMPTY:
		return "GrB_OUTPUT_NOT_EMPTY"
	case C.GrB_NOT_IMPLEMENTED:
		return "GrB_NOT_IMPLEMENTED"
	case C.GrB_PANIC:
		return "GrB_PANIC"
	case C.GrB_OUT_OF_MEMORY:
		return "GrB_OUT_OF_MEMORY"
	case C.GrB_INSUFFICIENT_SPACE:
		return "GrB_INSUFFICIENT_SPACE"
	case C.GrB_INVALID_OBJECT:
		return "GrB_INVALID_OBJECT"
	case C.GrB_INDEX_OUT_OF_BOUNDS:
		return "GrB_INDEX_OUT_OF_BOUNDS"
	case C.GrB_EMPTY_OBJECT:
		return "GrB_EMPTY_OBJECT"
	}
	return "unknown GrB_Info"
}

// sortRows sorts the column ids (and values) of every row of c. GraphBLAS
// exports rows sorted in practice; this makes ToCSR's contract independent
// of that and costs one pass when they already are.
func sortRows(c *spgemm.CSR) {
	for i := 0; i < c.Rows; i++ {
		lo, hi := c.Indptr[i], c.Indptr[i+1]
		idx := c.Indices[lo:hi]
		if slices.IsSorted(idx) {
			continue
		}
		perm := make([]int, len(idx))
		for k := range perm {
			perm[k] = k
		}
		slices.SortFunc(perm, func(x, y int) int { return int(idx[x]) - int(idx[y]) })
		vals := c.Data[lo:hi]
		ni, nv := make([]int32, len(idx)), make([]float32, len(idx))
		for k, p := range perm {
			ni[k], nv[k] = idx[p], vals[p]
		}
		copy(idx, ni)
		copy(vals, nv)
	}
}
