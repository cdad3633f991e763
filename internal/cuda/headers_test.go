//go:build cuda

package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDeclarationsMatchHeaders compiles decl.h against the CUDA toolkit's
// own headers (cuda.h, cusparse.h, cublas_v2.h) and checks that every
// function pointer type of the binding is exactly the type of the real
// function, that the constants equal the headers' and that the stand-in
// types have the real ones' sizes. The functions that only CUDA 12 and
// later declare are checked when the headers are that new. It runs twice:
// with the installed headers, and with testdata/cuda12's stand-in for CUDA
// 12's cusparse.h in front of them (its const descriptor types), so that
// the binding builds against either. It needs a C compiler and the headers
// (make test installs them); without them it says why and skips, except
// under BULKSAMPLE_REQUIRE_CUDA_HEADERS=1.
func TestDeclarationsMatchHeaders(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		skipOrFail(t, "no C compiler ("+cc+")")
	}
	if _, err := os.Stat("decl.h"); err != nil {
		t.Skipf("outside the source tree (a test binary of the GPU bundle): %v", err)
	}
	if _, err := os.Stat("/usr/include/cusparse.h"); err != nil {
		skipOrFail(t, "no CUDA headers in /usr/include (scripts/deps.sh cuda installs Debian's nvidia-cuda-dev)")
	}
	wd, _ := os.Getwd()
	for _, c := range []struct {
		name    string
		include []string
		version string // the cuSPARSE version that must be seen ("" any)
	}{
		{"installed headers", nil, ""},
		{"CUDA 12 cusparse.h (testdata/cuda12)", []string{filepath.Join(wd, "testdata", "cuda12")}, "12603"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := headerCheck
			if c.version != "" {
				src += "_Static_assert(CUSPARSE_VERSION == " + c.version + ", \"not the cusparse.h of the test\");\n"
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "check.c")
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"-std=gnu11", "-fsyntax-only"}
			for _, d := range c.include {
				args = append(args, "-I", d)
			}
			out, err := exec.Command(cc, append(args, "-I", wd, file)...).CombinedOutput()
			if err != nil {
				t.Fatalf("decl.h does not match the CUDA headers:\n%s", out)
			}
		})
	}
	// The stand-in build (no headers) must compile too.
	plain := filepath.Join(t.TempDir(), "plain.c")
	os.WriteFile(plain, []byte("#include \"decl.h\"\n#define F(name, sym, ret, args) typedef ret(*p_##name) args;\nBS_DRIVER_FUNCS(F)\nBS_CUSPARSE_FUNCS(F)\nBS_CUBLAS_FUNCS(F)\n"), 0o644)
	if out, err := exec.Command(cc, "-std=gnu11", "-fsyntax-only", "-I", wd, plain).CombinedOutput(); err != nil {
		t.Fatalf("decl.h without headers:\n%s", out)
	}
}

// headerCheck is the C source of TestDeclarationsMatchHeaders.
const headerCheck = `#define BS_REAL_HEADERS
#include "decl.h"
#define SAME(name, sym, ret, args) _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) args), #name " (" sym ") differs from the header");
BS_DRIVER_FUNCS(SAME)
BS_CUBLAS_FUNCS(SAME)
BS_CUSPARSE_CORE(SAME)
BS_CUSPARSE_SPMM(SAME)
BS_CUSPARSE_SPGEMM(SAME)
BS_CUSPARSE_REUSE(SAME)
#if CUSPARSE_VERSION >= 12000
BS_CUSPARSE_ESTIMATE(SAME)
#endif
#define EQ(a, b) _Static_assert((a) == (b), #a " != " #b);
EQ(CUDA_SUCCESS, BS_CUDA_SUCCESS)
EQ(CU_JIT_ERROR_LOG_BUFFER, BS_CU_JIT_ERROR_LOG_BUFFER)
EQ(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, BS_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
EQ(CU_JIT_INFO_LOG_BUFFER, BS_CU_JIT_INFO_LOG_BUFFER)
EQ(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, BS_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
EQ(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, BS_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
EQ(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, BS_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
EQ(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, BS_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
EQ(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, BS_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
EQ(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, BS_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
EQ(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, BS_CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
EQ(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, BS_CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
EQ(CU_FUNC_ATTRIBUTE_NUM_REGS, BS_CU_FUNC_ATTRIBUTE_NUM_REGS)
EQ(CU_FUNC_ATTRIBUTE_PTX_VERSION, BS_CU_FUNC_ATTRIBUTE_PTX_VERSION)
EQ(CU_FUNC_ATTRIBUTE_BINARY_VERSION, BS_CU_FUNC_ATTRIBUTE_BINARY_VERSION)
EQ(CU_STREAM_NON_BLOCKING, BS_CU_STREAM_NON_BLOCKING)
EQ(CU_EVENT_DISABLE_TIMING, BS_CU_EVENT_DISABLE_TIMING)
EQ(CU_MEMHOSTALLOC_PORTABLE, BS_CU_MEMHOSTALLOC_PORTABLE)
EQ(CU_MEMHOSTALLOC_DEVICEMAP, BS_CU_MEMHOSTALLOC_DEVICEMAP)
EQ(CU_LAUNCH_PARAM_END, BS_CU_LAUNCH_PARAM_END)
EQ(CU_LAUNCH_PARAM_BUFFER_POINTER, BS_CU_LAUNCH_PARAM_BUFFER_POINTER)
EQ(CU_LAUNCH_PARAM_BUFFER_SIZE, BS_CU_LAUNCH_PARAM_BUFFER_SIZE)
EQ(CUDA_ERROR_NO_DEVICE, 100)
EQ(CUDA_ERROR_OUT_OF_MEMORY, 2)
EQ(CUSPARSE_STATUS_SUCCESS, BS_CUSPARSE_STATUS_SUCCESS)
EQ(CUSPARSE_STATUS_INVALID_VALUE, BS_CUSPARSE_STATUS_INVALID_VALUE)
EQ(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES, BS_CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
EQ(CUSPARSE_STATUS_NOT_SUPPORTED, 10)
EQ(CUSPARSE_OPERATION_NON_TRANSPOSE, BS_CUSPARSE_OPERATION_NON_TRANSPOSE)
EQ(CUSPARSE_OPERATION_TRANSPOSE, BS_CUSPARSE_OPERATION_TRANSPOSE)
EQ(CUSPARSE_ORDER_ROW, BS_CUSPARSE_ORDER_ROW)
EQ(CUSPARSE_SPMM_ALG_DEFAULT, BS_CUSPARSE_SPMM_ALG_DEFAULT)
EQ(CUSPARSE_INDEX_32I, BS_CUSPARSE_INDEX_32I)
EQ(CUSPARSE_INDEX_BASE_ZERO, BS_CUSPARSE_INDEX_BASE_ZERO)
EQ(CUDA_R_32F, BS_CUDA_R_32F)
EQ(CUSPARSE_SPGEMM_DEFAULT, BS_CUSPARSE_SPGEMM_DEFAULT)
#if CUSPARSE_VERSION >= 12000
EQ(CUSPARSE_SPGEMM_ALG1, BS_CUSPARSE_SPGEMM_ALG1)
EQ(CUSPARSE_SPGEMM_ALG2, BS_CUSPARSE_SPGEMM_ALG2)
EQ(CUSPARSE_SPGEMM_ALG3, BS_CUSPARSE_SPGEMM_ALG3)
#endif
EQ(CUBLAS_STATUS_SUCCESS, BS_CUBLAS_STATUS_SUCCESS)
EQ(CUBLAS_OP_N, BS_CUBLAS_OP_N)
EQ(CUBLAS_OP_T, BS_CUBLAS_OP_T)
EQ(sizeof(CUresult), sizeof(int))
EQ(sizeof(CUdevice), sizeof(int))
EQ(sizeof(CUdeviceptr), 8)
EQ(sizeof(CUjit_option), sizeof(int))
EQ(sizeof(CUdevice_attribute), sizeof(int))
EQ(sizeof(CUfunction_attribute), sizeof(int))
EQ(sizeof(cusparseStatus_t), sizeof(int))
EQ(sizeof(cusparseOperation_t), sizeof(int))
EQ(sizeof(cusparseIndexType_t), sizeof(int))
EQ(sizeof(cusparseIndexBase_t), sizeof(int))
EQ(sizeof(cusparseSpGEMMAlg_t), sizeof(int))
EQ(sizeof(cusparseOrder_t), sizeof(int))
EQ(sizeof(cusparseSpMMAlg_t), sizeof(int))
EQ(sizeof(cudaDataType), sizeof(int))
EQ(sizeof(cublasStatus_t), sizeof(int))
EQ(sizeof(cublasOperation_t), sizeof(int))
`

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("BULKSAMPLE_REQUIRE_CUDA_HEADERS") == "1" {
		t.Fatal(why)
	}
	t.Skip(why)
}
