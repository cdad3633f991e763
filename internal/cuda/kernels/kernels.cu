/* kernels.cu: the device side of bulksample's kernels. A per-thread
 * kernel is a grid-stride loop over its per-thread function in
 * bs_kernels.h, a block kernel its phases with a barrier after each
 * (bs_block.h); the host emulator (host.go) runs the same functions. `go generate` compiles this file to
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

/* A block kernel: its phases with a barrier after each (bs_block.h). */
#define BS_BLOCK_GLOBAL(name, P, S, L)                                                      \
	extern "C" __global__ void __launch_bounds__(BS_T) bs_##name(const P p) {              \
		__shared__ S sh;                                                                  \
		L lo;                                                                             \
		bs_thr th;                                                                        \
		th.tid = (int32_t)threadIdx.x;                                                    \
		th.block = blockIdx.x;                                                            \
		th.grid = gridDim.x;                                                              \
		for (int ph = 0;;) {                                                              \
			int nx = bs_##name##_phase(&p, &sh, &lo, &th, ph);                            \
			__syncthreads();                                                              \
			if (nx == BS_DONE) return;                                                    \
			ph = nx >= 0 ? nx : -2 - nx;                                                  \
		}                                                                                 \
	}

BS_BLOCK_KERNELS(BS_BLOCK_GLOBAL)
