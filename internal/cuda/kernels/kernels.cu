/* kernels.cu: the device side of bulksample's kernels. Every kernel is a
 * grid-stride loop over its per-thread function in bs_kernels.h, which
 * the host emulator (host.go) runs too. `go generate` compiles this file to
 * kernels.ptx (scripts/ptx.sh: nvcc -ptx for compute_80, no FMA
 * contraction, IEEE division and square root, no flush to zero); the PTX is
 * committed and embedded, and `make test` checks that it is up to date. */
#include "bs_kernels.h"

#define BS_GLOBAL(name, P)                                                                  \
	extern "C" __global__ void bs_##name(const P p) {                                      \
		for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < p.n;           \
		     t += (int64_t)gridDim.x * blockDim.x)                                          \
			bs_##name##_thread(&p, t);                                                  \
	}

BS_KERNELS(BS_GLOBAL)
