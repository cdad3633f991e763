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
// .11): in the folder $BULKSAMPLE_CUDA_LIB when set, then on the loader's
// search path, then in /usr/local/cuda/lib64. A function that only newer
// versions export (cusparseSpGEMM_estimateMemory, CUDA 12) is optional: a
// call to it on an older library returns an error naming it.
//
// # Threads
//
// A CUDA context is current on one OS thread. Open starts one goroutine
// locked to its OS thread, makes the device's primary context current on
// it (the context cuSPARSE and cuBLAS use too) and runs every call there:
// Do(fn) runs fn on that goroutine with a *Thread, whose methods are the
// device operations. Work is issued on the legacy default stream, so every
// operation is ordered after the previous one.
//
// # Errors and memory
//
// Every failing call returns an *Error naming the library, the call (with
// its sizes where they help) and the library's status name, e.g.
// "cuda: cuMemAlloc_v2(68719476736 bytes): CUDA_ERROR_OUT_OF_MEMORY (2)".
// Device memory is explicit: Alloc and Free, no managed memory. Close
// releases the handles and the context.
package cuda
