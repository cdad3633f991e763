// Package cuda is bulksample's binding of NVIDIA's libraries: the CUDA
// driver API (context, memory, module loading, launches, events), cuSPARSE
// (SpGEMM) and cuBLAS (Sgemm), all loaded at run time with dlopen, so that
// one binary serves machines with and without a GPU (a cluster's login
// node runs `bulksample info` from the same binary as its GPU nodes) and
// needs no CUDA toolkit to build. It is compiled only with the cuda build
// tag; without it the package is empty.
//
// # Why not gorgonia.org/cu
//
// That package links libcuda by soname and its init calls cuInit and exits
// the process when that fails: a cuda build would die at start on every
// machine without a GPU, even for `bulksample info` or `--help`. The driver
// functions bulksample needs are about thirty, declared in decl.h; binding
// them here costs a few hundred lines and makes the missing GPU an error
// that `--device cuda` reports, not a crash.
//
// # Libraries
//
// libcuda.so.1 comes with the driver. cuSPARSE and cuBLAS are tried by
// soname, newest first (libcusparse.so.13, .12, .11; libcublas.so.13, .12,
// .11): in the folders of $BULKSAMPLE_CUDA_LIB (colon-separated) when set,
// then on the loader's search path, then in /usr/local/cuda/lib64. A
// library found in a folder is loaded after those of its dependencies
// (NEEDED entries: libcublasLt beside libcublas, libnvJitLink beside
// libcusparse or, in NVIDIA's Python wheels, in a sibling nvidia/*/lib
// folder) that its folder, a sibling wheel folder or a search folder
// holds, so that it loads without LD_LIBRARY_PATH; Sparse.Deps and
// BLAS.Deps record them, and LoadedLibraries lists what the process holds.
//
// cuSPARSE's functions are resolved by feature (Feature: SpMM, SpGEMM, its
// memory estimate, SpGEMM with reuse): a library that lacks one function
// of a feature disables that feature only, and a call that needs it
// returns an error naming the function (ErrUnavailable). CUDA 11 has no
// memory estimate (cusparseSpGEMM_estimateMemory, CUDA 12).
//
// # Threads
//
// A CUDA context is current on one OS thread. Open starts one goroutine
// locked to its OS thread, makes the device's primary context current on
// it (the context cuSPARSE and cuBLAS use too) and runs every call there:
// Do(fn) runs fn on that goroutine with a *Thread, whose methods are the
// device operations. Work is issued on the legacy default stream, so every
// operation is ordered after the previous one. A function that ends the
// goroutine with runtime.Goexit (t.Fatal inside Do) makes Do return
// ErrGoexit; a new locked thread then takes the context over.
//
// # Errors and memory
//
// Every failing call returns an *Error naming the library, the call (with
// its sizes where they help) and the library's status name, e.g.
// "cuda: cuMemAlloc_v2(68719476736 bytes): CUDA_ERROR_OUT_OF_MEMORY (2)".
// Device memory is explicit: Alloc and Free, no managed memory. Close
// releases the handles and the context.
package cuda
