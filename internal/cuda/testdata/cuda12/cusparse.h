/* A stand-in for CUDA 12's cusparse.h, written for TestDeclarationsMatchHeaders
 * (the machines this project is built on have CUDA 11.8's headers only): the
 * types, constants and declarations of the functions decl.h binds, in the
 * form CUDA 12 gives them. What differs from CUDA 11 is that a descriptor a
 * call only reads is a pointer to const (cusparseConstSpMatDescr_t,
 * cusparseConstDnMatDescr_t), and that SpGEMM's ALG1-ALG3 and its memory
 * estimate exist. The signatures follow NVIDIA's cuSPARSE documentation and
 * its Python bindings (cuda-python), which restate the 12.x headers. */
#ifndef BS_TEST_CUSPARSE12_H
#define BS_TEST_CUSPARSE12_H

#include <library_types.h>
#include <stdint.h>
#include <stddef.h>

#define CUSPARSE_VER_MAJOR 12
#define CUSPARSE_VER_MINOR 6
#define CUSPARSE_VER_PATCH 3
#define CUSPARSE_VER_BUILD 3
#define CUSPARSE_VERSION (CUSPARSE_VER_MAJOR * 1000 + CUSPARSE_VER_MINOR * 100 + CUSPARSE_VER_PATCH)

typedef enum {
	CUSPARSE_STATUS_SUCCESS = 0,
	CUSPARSE_STATUS_NOT_INITIALIZED = 1,
	CUSPARSE_STATUS_ALLOC_FAILED = 2,
	CUSPARSE_STATUS_INVALID_VALUE = 3,
	CUSPARSE_STATUS_ARCH_MISMATCH = 4,
	CUSPARSE_STATUS_MAPPING_ERROR = 5,
	CUSPARSE_STATUS_EXECUTION_FAILED = 6,
	CUSPARSE_STATUS_INTERNAL_ERROR = 7,
	CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
	CUSPARSE_STATUS_ZERO_PIVOT = 9,
	CUSPARSE_STATUS_NOT_SUPPORTED = 10,
	CUSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11
} cusparseStatus_t;

struct cusparseContext;
typedef struct cusparseContext *cusparseHandle_t;
struct cusparseSpMatDescr;
struct cusparseDnMatDescr;
typedef struct cusparseSpMatDescr *cusparseSpMatDescr_t;
typedef struct cusparseSpMatDescr const *cusparseConstSpMatDescr_t;
typedef struct cusparseDnMatDescr *cusparseDnMatDescr_t;
typedef struct cusparseDnMatDescr const *cusparseConstDnMatDescr_t;
struct cusparseSpGEMMDescr;
typedef struct cusparseSpGEMMDescr *cusparseSpGEMMDescr_t;

typedef enum { CUSPARSE_OPERATION_NON_TRANSPOSE = 0, CUSPARSE_OPERATION_TRANSPOSE = 1, CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE = 2 } cusparseOperation_t;
typedef enum { CUSPARSE_INDEX_16U = 1, CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 } cusparseIndexBase_t;
typedef enum { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 } cusparseOrder_t;
typedef enum { CUSPARSE_SPMM_ALG_DEFAULT = 0, CUSPARSE_SPMM_CSR_ALG1 = 4, CUSPARSE_SPMM_CSR_ALG2 = 6, CUSPARSE_SPMM_CSR_ALG3 = 12 } cusparseSpMMAlg_t;
typedef enum {
	CUSPARSE_SPGEMM_DEFAULT = 0,
	CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC = 1,
	CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC = 2,
	CUSPARSE_SPGEMM_ALG1 = 3,
	CUSPARSE_SPGEMM_ALG2 = 4,
	CUSPARSE_SPGEMM_ALG3 = 5
} cusparseSpGEMMAlg_t;

cusparseStatus_t cusparseCreate(cusparseHandle_t *handle);
cusparseStatus_t cusparseDestroy(cusparseHandle_t handle);
cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int *version);
const char *cusparseGetErrorName(cusparseStatus_t status);

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols, int64_t nnz, void *csrRowOffsets,
	void *csrColInd, void *csrValues, cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
	cusparseIndexBase_t idxBase, cudaDataType valueType);
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr);
cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols, int64_t *nnz);
cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t spMatDescr, void *csrRowOffsets, void *csrColInd, void *csrValues);

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *dnMatDescr, int64_t rows, int64_t cols, int64_t ld, void *values,
	cudaDataType valueType, cusparseOrder_t order);
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr);
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
	cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, const void *beta, cusparseDnMatDescr_t matC,
	cudaDataType computeType, cusparseSpMMAlg_t alg, size_t *bufferSize);
cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
	cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, const void *beta, cusparseDnMatDescr_t matC,
	cudaDataType computeType, cusparseSpMMAlg_t alg, void *externalBuffer);

cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *descr);
cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr);
cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
	const void *alpha, cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta, cusparseSpMatDescr_t matC,
	cudaDataType computeType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize1, void *externalBuffer1);
cusparseStatus_t cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t spgemmDescr, int64_t *num_prods);
cusparseStatus_t cusparseSpGEMM_estimateMemory(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
	const void *alpha, cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta, cusparseSpMatDescr_t matC,
	cudaDataType computeType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr, float chunk_fraction,
	size_t *bufferSize3, void *externalBuffer3, size_t *bufferSize2);
cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
	cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta, cusparseSpMatDescr_t matC,
	cudaDataType computeType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize2, void *externalBuffer2);
cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
	cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta, cusparseSpMatDescr_t matC,
	cudaDataType computeType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr);

cusparseStatus_t cusparseSpGEMMreuse_workEstimation(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
	cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC, cusparseSpGEMMAlg_t alg,
	cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize1, void *externalBuffer1);
cusparseStatus_t cusparseSpGEMMreuse_nnz(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
	cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC, cusparseSpGEMMAlg_t alg,
	cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize2, void *externalBuffer2, size_t *bufferSize3, void *externalBuffer3,
	size_t *bufferSize4, void *externalBuffer4);
cusparseStatus_t cusparseSpGEMMreuse_copy(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
	cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC, cusparseSpGEMMAlg_t alg,
	cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize5, void *externalBuffer5);
cusparseStatus_t cusparseSpGEMMreuse_compute(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
	const void *alpha, cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta, cusparseSpMatDescr_t matC,
	cudaDataType computeType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr);

#endif
