/* decl.h: the few declarations of the CUDA driver API, cuSPARSE and cuBLAS
 * that package cuda calls, as function-pointer types filled by dlsym, so
 * that building bulksample needs no CUDA headers and one binary runs on
 * machines with and without a GPU, and with CUDA 11, 12 or 13 libraries.
 *
 * Every type is ABI-equal to the libraries' own (enums are 32-bit ints,
 * handles are pointers, CUdeviceptr is 64 bits). headers_test.go checks
 * these declarations against the toolkit's headers where they are
 * installed (make test installs them): with BS_REAL_HEADERS the bs_ types
 * become the real ones, and each function's pointer type must equal the
 * type of the real function. */
#ifndef BS_CUDA_DECL_H
#define BS_CUDA_DECL_H

#include <stddef.h>
#include <stdint.h>

#ifdef BS_REAL_HEADERS
#include <cuda.h>
#include <cusparse.h>
#include <cublas_v2.h>
typedef CUresult bs_CUresult;
typedef CUdevice bs_CUdevice;
typedef CUdeviceptr bs_CUdeviceptr;
typedef CUcontext bs_CUcontext;
typedef CUmodule bs_CUmodule;
typedef CUfunction bs_CUfunction;
typedef CUstream bs_CUstream;
typedef CUevent bs_CUevent;
typedef CUjit_option bs_CUjit_option;
typedef CUdevice_attribute bs_CUdevice_attribute;
typedef CUfunction_attribute bs_CUfunction_attribute;
typedef cusparseStatus_t bs_cusparseStatus;
typedef cusparseHandle_t bs_cusparseHandle;
typedef cusparseSpMatDescr_t bs_cusparseSpMat;
typedef cusparseSpGEMMDescr_t bs_cusparseSpGEMMDescr;
typedef cusparseOperation_t bs_cusparseOperation;
typedef cusparseIndexType_t bs_cusparseIndexType;
typedef cusparseIndexBase_t bs_cusparseIndexBase;
typedef cusparseSpGEMMAlg_t bs_cusparseSpGEMMAlg;
typedef cusparseDnMatDescr_t bs_cusparseDnMat;
/* CUDA 12's cusparse.h takes the descriptors a call only reads as pointers
 * to const (cusparseConstSpMatDescr_t); CUDA 11's as plain ones. */
#if CUSPARSE_VERSION >= 12000
typedef cusparseConstSpMatDescr_t bs_cusparseConstSpMat;
typedef cusparseConstDnMatDescr_t bs_cusparseConstDnMat;
#else
typedef cusparseSpMatDescr_t bs_cusparseConstSpMat;
typedef cusparseDnMatDescr_t bs_cusparseConstDnMat;
#endif
typedef cusparseOrder_t bs_cusparseOrder;
typedef cusparseSpMMAlg_t bs_cusparseSpMMAlg;
typedef cudaDataType bs_cudaDataType;
typedef cublasStatus_t bs_cublasStatus;
typedef cublasHandle_t bs_cublasHandle;
typedef cublasOperation_t bs_cublasOperation;
#else
typedef int bs_CUresult;
typedef int bs_CUdevice;
typedef uint64_t bs_CUdeviceptr;
typedef struct CUctx_st *bs_CUcontext;
typedef struct CUmod_st *bs_CUmodule;
typedef struct CUfunc_st *bs_CUfunction;
typedef struct CUstream_st *bs_CUstream;
typedef struct CUevent_st *bs_CUevent;
typedef int bs_CUjit_option;
typedef int bs_CUdevice_attribute;
typedef int bs_CUfunction_attribute;
typedef int bs_cusparseStatus;
typedef struct cusparseContext *bs_cusparseHandle;
typedef struct cusparseSpMatDescr *bs_cusparseSpMat;
typedef struct cusparseSpGEMMDescr *bs_cusparseSpGEMMDescr;
typedef int bs_cusparseOperation;
typedef int bs_cusparseIndexType;
typedef int bs_cusparseIndexBase;
typedef int bs_cusparseSpGEMMAlg;
typedef struct cusparseDnMatDescr *bs_cusparseDnMat;
typedef struct cusparseSpMatDescr const *bs_cusparseConstSpMat; /* CUDA 12's form; the same ABI as CUDA 11's */
typedef struct cusparseDnMatDescr const *bs_cusparseConstDnMat;
typedef int bs_cusparseOrder;
typedef int bs_cusparseSpMMAlg;
typedef int bs_cudaDataType;
typedef int bs_cublasStatus;
typedef struct cublasContext *bs_cublasHandle;
typedef int bs_cublasOperation;
#endif

/* The constants we pass or compare (the headers' values; checked). */
#define BS_CUDA_SUCCESS 0
#define BS_CU_JIT_INFO_LOG_BUFFER 3
#define BS_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define BS_CU_JIT_ERROR_LOG_BUFFER 5
#define BS_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define BS_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define BS_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define BS_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define BS_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK 0
#define BS_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1
#define BS_CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES 2
#define BS_CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES 3
#define BS_CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define BS_CU_FUNC_ATTRIBUTE_PTX_VERSION 5
#define BS_CU_FUNC_ATTRIBUTE_BINARY_VERSION 6
#define BS_CU_STREAM_NON_BLOCKING 1
#define BS_CU_EVENT_DISABLE_TIMING 2
#define BS_CU_MEMHOSTALLOC_PORTABLE 1
#define BS_CU_MEMHOSTALLOC_DEVICEMAP 2
#define BS_CU_LAUNCH_PARAM_END ((void *)0x00)
#define BS_CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define BS_CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define BS_CUSPARSE_STATUS_SUCCESS 0
#define BS_CUSPARSE_STATUS_INVALID_VALUE 3
#define BS_CUSPARSE_STATUS_INSUFFICIENT_RESOURCES 11
#define BS_CUSPARSE_OPERATION_NON_TRANSPOSE 0
#define BS_CUSPARSE_OPERATION_TRANSPOSE 1
#define BS_CUSPARSE_ORDER_ROW 2
#define BS_CUSPARSE_SPMM_ALG_DEFAULT 0
#define BS_CUSPARSE_INDEX_32I 2
#define BS_CUSPARSE_INDEX_BASE_ZERO 0
#define BS_CUDA_R_32F 0
#define BS_CUSPARSE_SPGEMM_DEFAULT 0
/* CUDA 12 and later: */
#define BS_CUSPARSE_SPGEMM_ALG1 3
#define BS_CUSPARSE_SPGEMM_ALG2 4
#define BS_CUSPARSE_SPGEMM_ALG3 5
#define BS_CUBLAS_STATUS_SUCCESS 0
#define BS_CUBLAS_OP_N 0
#define BS_CUBLAS_OP_T 1

/* X(name, symbol, return, parameters): the driver functions, dlsym'd by
 * their exported (versioned) symbol. */
#define BS_DRIVER_FUNCS(X)                                                                                     \
	X(cuInit, "cuInit", bs_CUresult, (unsigned int))                                                           \
	X(cuDriverGetVersion, "cuDriverGetVersion", bs_CUresult, (int *))                                          \
	X(cuDeviceGetCount, "cuDeviceGetCount", bs_CUresult, (int *))                                              \
	X(cuDeviceGet, "cuDeviceGet", bs_CUresult, (bs_CUdevice *, int))                                           \
	X(cuDeviceGetName, "cuDeviceGetName", bs_CUresult, (char *, int, bs_CUdevice))                             \
	X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", bs_CUresult, (size_t *, bs_CUdevice))                           \
	X(cuDeviceGetAttribute, "cuDeviceGetAttribute", bs_CUresult, (int *, bs_CUdevice_attribute, bs_CUdevice))  \
	X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", bs_CUresult, (bs_CUcontext *, bs_CUdevice))        \
	X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", bs_CUresult, (bs_CUdevice))                   \
	X(cuCtxSetCurrent, "cuCtxSetCurrent", bs_CUresult, (bs_CUcontext))                                         \
	X(cuCtxSynchronize, "cuCtxSynchronize", bs_CUresult, (void))                                               \
	X(cuMemAlloc, "cuMemAlloc_v2", bs_CUresult, (bs_CUdeviceptr *, size_t))                                    \
	X(cuMemFree, "cuMemFree_v2", bs_CUresult, (bs_CUdeviceptr))                                                \
	X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", bs_CUresult, (bs_CUdeviceptr, const void *, size_t))                    \
	X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", bs_CUresult, (void *, bs_CUdeviceptr, size_t))                          \
	X(cuMemGetInfo, "cuMemGetInfo_v2", bs_CUresult, (size_t *, size_t *))                                      \
	X(cuMemAllocHost, "cuMemAllocHost_v2", bs_CUresult, (void **, size_t))                                     \
	X(cuMemFreeHost, "cuMemFreeHost", bs_CUresult, (void *))                                                   \
	X(cuMemHostAlloc, "cuMemHostAlloc", bs_CUresult, (void **, size_t, unsigned int))                          \
	X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", bs_CUresult,                                  \
	  (bs_CUdeviceptr *, void *, unsigned int))                                                                \
	X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", bs_CUresult,                                                  \
	  (bs_CUdeviceptr, const void *, size_t, bs_CUstream))                                                     \
	X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", bs_CUresult, (void *, bs_CUdeviceptr, size_t, bs_CUstream))   \
	X(cuStreamCreate, "cuStreamCreate", bs_CUresult, (bs_CUstream *, unsigned int))                            \
	X(cuStreamDestroy, "cuStreamDestroy_v2", bs_CUresult, (bs_CUstream))                                       \
	X(cuStreamSynchronize, "cuStreamSynchronize", bs_CUresult, (bs_CUstream))                                  \
	X(cuStreamWaitEvent, "cuStreamWaitEvent", bs_CUresult, (bs_CUstream, bs_CUevent, unsigned int))            \
	X(cuModuleLoadDataEx, "cuModuleLoadDataEx", bs_CUresult,                                                   \
	  (bs_CUmodule *, const void *, unsigned int, bs_CUjit_option *, void **))                                 \
	X(cuModuleGetFunction, "cuModuleGetFunction", bs_CUresult, (bs_CUfunction *, bs_CUmodule, const char *))   \
	X(cuModuleUnload, "cuModuleUnload", bs_CUresult, (bs_CUmodule))                                            \
	X(cuFuncGetAttribute, "cuFuncGetAttribute", bs_CUresult, (int *, bs_CUfunction_attribute, bs_CUfunction))  \
	X(cuLaunchKernel, "cuLaunchKernel", bs_CUresult,                                                           \
	  (bs_CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,      \
	   unsigned int, bs_CUstream, void **, void **))                                                           \
	X(cuEventCreate, "cuEventCreate", bs_CUresult, (bs_CUevent *, unsigned int))                               \
	X(cuEventRecord, "cuEventRecord", bs_CUresult, (bs_CUevent, bs_CUstream))                                  \
	X(cuEventSynchronize, "cuEventSynchronize", bs_CUresult, (bs_CUevent))                                     \
	X(cuEventElapsedTime, "cuEventElapsedTime", bs_CUresult, (float *, bs_CUevent, bs_CUevent))                \
	X(cuEventDestroy, "cuEventDestroy_v2", bs_CUresult, (bs_CUevent))                                          \
	X(cuGetErrorName, "cuGetErrorName", bs_CUresult, (bs_CUresult, const char **))                             \
	X(cuGetErrorString, "cuGetErrorString", bs_CUresult, (bs_CUresult, const char **))

#define BS_CUSPARSE_SPGEMM_ARGS                                                                                 \
	(bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, const void *, bs_cusparseConstSpMat,        \
	 bs_cusparseConstSpMat, const void *, bs_cusparseSpMat, bs_cudaDataType, bs_cusparseSpGEMMAlg,              \
	 bs_cusparseSpGEMMDescr, size_t *, void *)

/* cuSPARSE, in feature groups resolved one by one (sparse.go): a library
 * that lacks a symbol of a group disables that group only, and the calls
 * that need it say which symbol is missing. CORE is needed by every other
 * group. */
#define BS_CUSPARSE_CORE(X)                                                                                    \
	X(cusparseCreate, "cusparseCreate", bs_cusparseStatus, (bs_cusparseHandle *))                              \
	X(cusparseDestroy, "cusparseDestroy", bs_cusparseStatus, (bs_cusparseHandle))                              \
	X(cusparseGetVersion, "cusparseGetVersion", bs_cusparseStatus, (bs_cusparseHandle, int *))                 \
	X(cusparseGetErrorName, "cusparseGetErrorName", const char *, (bs_cusparseStatus))                         \
	X(cusparseCreateCsr, "cusparseCreateCsr", bs_cusparseStatus,                                               \
	  (bs_cusparseSpMat *, int64_t, int64_t, int64_t, void *, void *, void *, bs_cusparseIndexType,            \
	   bs_cusparseIndexType, bs_cusparseIndexBase, bs_cudaDataType))                                            \
	X(cusparseDestroySpMat, "cusparseDestroySpMat", bs_cusparseStatus, (bs_cusparseConstSpMat))                \
	X(cusparseSpMatGetSize, "cusparseSpMatGetSize", bs_cusparseStatus,                                         \
	  (bs_cusparseConstSpMat, int64_t *, int64_t *, int64_t *))                                                \
	X(cusparseCsrSetPointers, "cusparseCsrSetPointers", bs_cusparseStatus,                                     \
	  (bs_cusparseSpMat, void *, void *, void *))

/* SpMM: the GNN backend's aggregation (A·H, Aᵀ·G). */
#define BS_CUSPARSE_SPMM(X)                                                                                    \
	X(cusparseCreateDnMat, "cusparseCreateDnMat", bs_cusparseStatus,                                           \
	  (bs_cusparseDnMat *, int64_t, int64_t, int64_t, void *, bs_cudaDataType, bs_cusparseOrder))              \
	X(cusparseDestroyDnMat, "cusparseDestroyDnMat", bs_cusparseStatus, (bs_cusparseConstDnMat))                \
	X(cusparseSpMM_bufferSize, "cusparseSpMM_bufferSize", bs_cusparseStatus,                                   \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, const void *, bs_cusparseConstSpMat,     \
	   bs_cusparseConstDnMat, const void *, bs_cusparseDnMat, bs_cudaDataType, bs_cusparseSpMMAlg, size_t *))  \
	X(cusparseSpMM, "cusparseSpMM", bs_cusparseStatus,                                                         \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, const void *, bs_cusparseConstSpMat,     \
	   bs_cusparseConstDnMat, const void *, bs_cusparseDnMat, bs_cudaDataType, bs_cusparseSpMMAlg, void *))

/* SpGEMM: C = A·B for products that are not a row gather. */
#define BS_CUSPARSE_SPGEMM(X)                                                                                  \
	X(cusparseSpGEMM_createDescr, "cusparseSpGEMM_createDescr", bs_cusparseStatus, (bs_cusparseSpGEMMDescr *)) \
	X(cusparseSpGEMM_destroyDescr, "cusparseSpGEMM_destroyDescr", bs_cusparseStatus, (bs_cusparseSpGEMMDescr)) \
	X(cusparseSpGEMM_workEstimation, "cusparseSpGEMM_workEstimation", bs_cusparseStatus,                       \
	  BS_CUSPARSE_SPGEMM_ARGS)                                                                                 \
	X(cusparseSpGEMM_compute, "cusparseSpGEMM_compute", bs_cusparseStatus, BS_CUSPARSE_SPGEMM_ARGS)            \
	X(cusparseSpGEMM_copy, "cusparseSpGEMM_copy", bs_cusparseStatus,                                           \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, const void *, bs_cusparseConstSpMat,     \
	   bs_cusparseConstSpMat, const void *, bs_cusparseSpMat, bs_cudaDataType, bs_cusparseSpGEMMAlg,           \
	   bs_cusparseSpGEMMDescr))

/* ALG2 and ALG3's memory estimate: CUDA 12 and later only. */
#define BS_CUSPARSE_ESTIMATE(X)                                                                                \
	X(cusparseSpGEMM_getNumProducts, "cusparseSpGEMM_getNumProducts", bs_cusparseStatus,                       \
	  (bs_cusparseSpGEMMDescr, int64_t *))                                                                     \
	X(cusparseSpGEMM_estimateMemory, "cusparseSpGEMM_estimateMemory", bs_cusparseStatus,                       \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, const void *, bs_cusparseConstSpMat,     \
	   bs_cusparseConstSpMat, const void *, bs_cusparseSpMat, bs_cudaDataType, bs_cusparseSpGEMMAlg,           \
	   bs_cusparseSpGEMMDescr, float, size_t *, void *, size_t *))

/* SpGEMM with structure reuse (ProductOptions.Reuse); needs SPGEMM's
 * descriptor functions too. */
#define BS_CUSPARSE_REUSE(X)                                                                                   \
	X(cusparseSpGEMMreuse_workEstimation, "cusparseSpGEMMreuse_workEstimation", bs_cusparseStatus,             \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, bs_cusparseConstSpMat,                   \
	   bs_cusparseConstSpMat, bs_cusparseSpMat, bs_cusparseSpGEMMAlg, bs_cusparseSpGEMMDescr, size_t *, void *)) \
	X(cusparseSpGEMMreuse_nnz, "cusparseSpGEMMreuse_nnz", bs_cusparseStatus,                                   \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, bs_cusparseConstSpMat,                   \
	   bs_cusparseConstSpMat, bs_cusparseSpMat, bs_cusparseSpGEMMAlg, bs_cusparseSpGEMMDescr, size_t *, void *, \
	   size_t *, void *, size_t *, void *))                                                                    \
	X(cusparseSpGEMMreuse_copy, "cusparseSpGEMMreuse_copy", bs_cusparseStatus,                                 \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, bs_cusparseConstSpMat,                   \
	   bs_cusparseConstSpMat, bs_cusparseSpMat, bs_cusparseSpGEMMAlg, bs_cusparseSpGEMMDescr, size_t *, void *)) \
	X(cusparseSpGEMMreuse_compute, "cusparseSpGEMMreuse_compute", bs_cusparseStatus,                           \
	  (bs_cusparseHandle, bs_cusparseOperation, bs_cusparseOperation, const void *, bs_cusparseConstSpMat,     \
	   bs_cusparseConstSpMat, const void *, bs_cusparseSpMat, bs_cudaDataType, bs_cusparseSpGEMMAlg,           \
	   bs_cusparseSpGEMMDescr))

/* Every cuSPARSE function, group after group. */
#define BS_CUSPARSE_FUNCS(X) BS_CUSPARSE_CORE(X) BS_CUSPARSE_SPMM(X) BS_CUSPARSE_SPGEMM(X) BS_CUSPARSE_ESTIMATE(X) BS_CUSPARSE_REUSE(X)

/* cuBLAS (part 2 of the GPU work calls Sgemm). */
#define BS_CUBLAS_FUNCS(X)                                                                                     \
	X(cublasCreate, "cublasCreate_v2", bs_cublasStatus, (bs_cublasHandle *))                                   \
	X(cublasDestroy, "cublasDestroy_v2", bs_cublasStatus, (bs_cublasHandle))                                   \
	X(cublasGetStatusName, "cublasGetStatusName", const char *, (bs_cublasStatus))                             \
	X(cublasGetVersion, "cublasGetVersion_v2", bs_cublasStatus, (bs_cublasHandle, int *))                      \
	X(cublasSgemm, "cublasSgemm_v2", bs_cublasStatus,                                                          \
	  (bs_cublasHandle, bs_cublasOperation, bs_cublasOperation, int, int, int, const float *, const float *,   \
	   int, const float *, int, const float *, float *, int))

#define BS_CUBLAS_OPTIONAL(name) (strcmp(name, "cublasGetStatusName") == 0 || strcmp(name, "cublasGetVersion_v2") == 0)

#endif
