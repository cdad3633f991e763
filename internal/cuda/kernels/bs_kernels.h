/* bs_kernels.h: every kernel of bulksample as a per-thread function
 * (bs_NAME_thread(params, t) for thread t of n) and its parameter struct,
 * compiled twice: into PTX by kernels.cu, where each becomes the
 * __global__ function bs_NAME over a grid-stride loop, and for the host by
 * package kernels' cgo, where the emulator calls it for t = 0..n-1 in a
 * permuted order. A kernel's result must not depend on the order of its
 * threads (atomics only for order-free results: minima, set membership).
 *
 * Parameter structs hold only 8-byte members (pointers, int64_t, double),
 * n first, so that their layout is the same on host and device and the Go
 * side passes them as arrays of uint64 (BS_KERNELS lists each kernel with
 * its struct; the emulator and the device launcher both check the count).
 */
#ifndef BS_KERNELS_CUH
#define BS_KERNELS_CUH

#include "bs_common.h"
#include "bs_select.h"
#include "bs_block.h"

/* ---- generic: fills, gathers, scans ---------------------------------- */

typedef struct { int64_t n; int32_t *p; int64_t v; } bs_fill_i32_p;
BS_HD void bs_fill_i32_thread(const bs_fill_i32_p *p, int64_t t) { BS_ST(p->p, t, (int32_t)p->v); }

typedef struct { int64_t n; int64_t *p; int64_t v; } bs_fill_i64_p;
BS_HD void bs_fill_i64_thread(const bs_fill_i64_p *p, int64_t t) { BS_ST(p->p, t, p->v); }

typedef struct { int64_t n; float *p; double v; } bs_fill_f32_p;
BS_HD void bs_fill_f32_thread(const bs_fill_f32_p *p, int64_t t) { BS_ST(p->p, t, (float)p->v); }

#include "bs_nodewise.h"
#include "bs_layerwise.h"
#include "bs_gather.h"
#include "bs_nn.h"

/* Every kernel: X(name, parameter struct); first those whose global
 * memory accesses the host build counts (BS_LD, BS_ST), then the GNN
 * backend's, which it does not. */
#define BS_KERNELS(X) BS_COUNTED_KERNELS(X) BS_NN_KERNELS(X)

/* Every block kernel (bs_block.h): X(name, parameters, shared memory,
 * registers); all counted. */
#define BS_BLOCK_KERNELS(X) \
	BS_BLOCK_GENERIC(X)     \
	BS_NODEWISE_KERNELS(X)  \
	BS_LW_BLOCK_KERNELS(X)  \
	BS_GATHER_BLOCK_KERNELS(X) \
	BS_BLOCK_SELFTEST(X)
#define BS_COUNTED_KERNELS(X)            \
	X(fill_i32, bs_fill_i32_p)         \
	X(fill_i64, bs_fill_i64_p)         \
	X(fill_f32, bs_fill_f32_p)         \
	BS_LW_KERNELS(X)                   \
	BS_GATHER_KERNELS(X)

#endif
