//go:build cgo

package kernels

/*
#cgo CFLAGS: -O2 -std=gnu11 -fno-fast-math -Wall -Wno-unused-function
#cgo LDFLAGS: -lm
// No contraction of a*b+c into a fused multiply-add (cgo does not accept
// -ffp-contract=off as a flag): Go rounds both operations on amd64.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#include <stdlib.h>
#include <string.h>
#include "bs_kernels.h"

// Kernel ids: the per-thread kernels (BS_KERNELS), then the block kernels
// (BS_BLOCK_KERNELS).
#define BS_ENUM(name, P) BS_KID_##name,
enum { BS_KERNELS(BS_ENUM) BS_NKERNELS };
#define BS_BENUM(name, P, S, L) BS_BKID_##name,
enum { BS_BLOCK_KERNELS(BS_BENUM) BS_NBLOCK };

#define BS_NAME(name, P) #name,
#define BS_BNAME(name, P, S, L) #name,
static const char *bs_kernel_names[] = { BS_KERNELS(BS_NAME) BS_BLOCK_KERNELS(BS_BNAME) };

#define BS_NPARAMS(name, P) (int)(sizeof(P) / 8),
#define BS_BNPARAMS(name, P, S, L) (int)(sizeof(P) / 8),
static const int bs_kernel_nparams[] = { BS_KERNELS(BS_NPARAMS) BS_BLOCK_KERNELS(BS_BNPARAMS) };

#define BS_SIZECHECK(name, P) BS_STATIC_ASSERT(sizeof(P) % 8 == 0 && offsetof(P, n) == 0, #P " must hold 8-byte members, n first");
#define BS_BSIZECHECK(name, P, S, L) BS_SIZECHECK(name, P)
#include <stddef.h>
BS_KERNELS(BS_SIZECHECK)
BS_BLOCK_KERNELS(BS_BSIZECHECK)

#define BS_ONE(name, P) +1
static int bs_num_kernels(void) { return BS_NKERNELS; }
static int bs_num_block(void) { return BS_NBLOCK; }
static int bs_num_counted(void) { return 0 BS_COUNTED_KERNELS(BS_ONE); }
static int bs_block_threads(void) { return BS_T; }
static const char *bs_kernel_name(int id) { return bs_kernel_names[id]; }
static int bs_kernel_params(int id) { return bs_kernel_nparams[id]; }

// bs_host_launch runs kernel id's threads t = (offset + i*stride) mod n,
// i = 0..n-1 (stride < n, coprime to n).
#define BS_CASE(name, P)                                           \
	case BS_KID_##name: {                                          \
		const P *p = (const P *)params;                            \
		for (int64_t i = 0, t = offset; i < n; i++) {              \
			int64_t before = bs_tr.rd + bs_tr.wr;                  \
			bs_##name##_thread(p, t);                              \
			bs_thread_done(before);                                \
			t += stride;                                           \
			if (t >= n) t -= n;                                    \
		}                                                          \
		return 0;                                                  \
	}

// bs_thread_done notes the bytes a thread moved since before (bs_tr.max).
static void bs_thread_done(int64_t before) {
	int64_t d = bs_tr.rd + bs_tr.wr - before;
	if (d > bs_tr.max) bs_tr.max = d;
}
static int bs_host_launch(int id, const uint64_t *params, int64_t n, int64_t stride, int64_t offset) {
	switch (id) {
	BS_KERNELS(BS_CASE)
	}
	return -1;
}

// bs_host_run runs a launch with this thread's traffic counters from zero
// and returns its bytes in rd and wr.
static int bs_host_run(int id, const uint64_t *params, int64_t n, int64_t stride, int64_t offset, int64_t *tr) {
	memset(&bs_tr, 0, sizeof bs_tr);
	int rc = bs_host_launch(id, params, n, stride, offset);
	tr[0] = bs_tr.rd, tr[1] = bs_tr.wr, tr[2] = bs_tr.max;
	return rc;
}

// The block kernels' phase functions behind one signature, with the sizes
// of their shared memory and registers.
typedef int (*bs_phase_fn)(const void *p, void *sh, void *lo, const bs_thr *th, int ph);
#define BS_BK_FN(name, P, S, L)                                                                \
	static int bs_##name##_phase_any(const void *p, void *sh, void *lo, const bs_thr *th, int ph) { \
		return bs_##name##_phase((const P *)p, (S *)sh, (L *)lo, th, ph);                          \
	}
BS_BLOCK_KERNELS(BS_BK_FN)
typedef struct { bs_phase_fn fn; size_t ssize, lsize; } bs_block_kernel;
#define BS_BK_ENTRY(name, P, S, L) { bs_##name##_phase_any, sizeof(S), sizeof(L) },
static const bs_block_kernel bs_block_kernels[] = { BS_BLOCK_KERNELS(BS_BK_ENTRY) };

static uint64_t bs_lcg(uint64_t *x) {
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 17;
}

// bs_host_blocks runs block kernel b on grid blocks of BS_T threads with
// the scheduling of bs_block.h: seed 0 runs the blocks' phases in turn and
// each block's threads forward; another seed chooses a live block at
// random for each phase and permutes the threads of each. Every block's
// shared memory and every thread's registers are an allocation of their
// own (so that AddressSanitizer sees an access past one), filled with 0xA5.
// It returns 0; 1 when the threads of a block returned different phases
// (err: block, phase, thread, the first thread's answer, its answer); 2
// when 1<<16 steps in a row were waits or their retries (a deadlock: a
// block that progresses does so within a few steps; err: the block and
// phase last run); 3 when out of memory.
static int bs_host_blocks(int b, const uint64_t *params, int64_t grid, uint64_t seed, int64_t *tr, int64_t *err) {
	const bs_block_kernel *k = &bs_block_kernels[b];
	void **sh = calloc(grid, sizeof(void *)), **lo = calloc(grid * BS_T, sizeof(void *));
	int *ph = calloc(grid, sizeof(int)), *waited = calloc(grid, sizeof(int));
	int rc = 0;
	if (!sh || !lo || !ph || !waited) {
		rc = 3;
		goto out;
	}
	for (int64_t g = 0; g < grid; g++) {
		if (!(sh[g] = malloc(k->ssize))) {
			rc = 3;
			goto out;
		}
		memset(sh[g], 0xA5, k->ssize);
		for (int t = 0; t < BS_T; t++) {
			if (!(lo[g * BS_T + t] = malloc(k->lsize))) {
				rc = 3;
				goto out;
			}
			memset(lo[g * BS_T + t], 0xA5, k->lsize);
		}
	}
	memset(&bs_tr, 0, sizeof bs_tr);
	uint64_t x = seed;
	int64_t live = grid, waits = 0, turn = 0;
	while (live > 0) {
		int64_t g = 0, stride = 1, off = 0;
		if (seed == 0) {
			for (g = turn % grid; ph[g] < 0; g = (g + 1) % grid) {
			}
			turn = g + 1;
		} else {
			int64_t r = (int64_t)(bs_lcg(&x) % (uint64_t)live);
			for (g = 0;; g++)
				if (ph[g] >= 0 && r-- == 0) break;
			off = (int64_t)(bs_lcg(&x) % BS_T);
			stride = (int64_t)(bs_lcg(&x) % (BS_T / 2)) * 2 + 1; // odd: coprime to BS_T, a power of two
		}
		int next = 0;
		for (int64_t i = 0; i < BS_T; i++) {
			int tid = (int)((off + i * stride) % BS_T);
			bs_thr th = { tid, g, grid };
			int64_t before = bs_tr.rd + bs_tr.wr;
			int r = k->fn(params, sh[g], lo[g * BS_T + tid], &th, ph[g]);
			bs_thread_done(before);
			if (i == 0) {
				next = r;
			} else if (r != next) {
				err[0] = g, err[1] = ph[g], err[2] = tid, err[3] = next, err[4] = r;
				rc = 1;
				goto out;
			}
		}
		// A wait, and the step after it (the retry), are no progress.
		if (next == BS_DONE) {
			ph[g] = -1;
			live--;
			waits = 0;
		} else if (next < BS_DONE || waited[g]) {
			waited[g] = next < BS_DONE;
			ph[g] = next < BS_DONE ? -2 - next : next;
			if (++waits > (1 << 16)) {
				err[0] = g, err[1] = ph[g];
				rc = 2;
				goto out;
			}
		} else {
			ph[g] = next;
			waits = 0;
		}
	}
out:
	tr[0] = bs_tr.rd, tr[1] = bs_tr.wr, tr[2] = bs_tr.max;
	for (int64_t g = 0; sh && lo && g < grid; g++) {
		free(sh[g]);
		for (int t = 0; t < BS_T; t++) free(lo[g * BS_T + t]);
	}
	free(sh);
	free(lo);
	free(ph);
	free(waited);
	return rc;
}

// Single functions, for the tests of this package.
static double bs_go_log(double x) { return bs_log(x); }
static uint64_t bs_go_layer_key(uint64_t seed, int64_t e, int64_t m, int64_t l) { return bs_layer_key(seed, e, m, l); }
static uint64_t bs_go_row_key(uint64_t lk, int32_t v) { return bs_row_key(lk, v); }
static double bs_go_f64(uint64_t rk, int64_t pos) { return bs_f64(rk, pos); }
static int64_t bs_go_select_row(uint64_t rk, const int32_t *cols, const float *vals, int64_t deg, int64_t s,
	int weighted, int replace, int32_t *pos, int32_t *mult, int32_t *d, double *hk) {
	return bs_select_row(rk, cols, vals, deg, s, weighted, replace, pos, mult, d, hk);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// All returns every kernel, in the order of BS_KERNELS, then the block
// kernels of BS_BLOCK_KERNELS.
func All() []Kernel {
	n, nb, counted := int(C.bs_num_kernels()), int(C.bs_num_block()), int(C.bs_num_counted())
	out := make([]Kernel, n+nb)
	for i := range out {
		out[i] = Kernel{ID: i, Name: C.GoString(C.bs_kernel_name(C.int(i))), Params: int(C.bs_kernel_params(C.int(i))),
			Counted: i < counted || i >= n}
		if i >= n {
			out[i].Threads = int(C.bs_block_threads())
		}
	}
	return out
}

// Alloc returns bytes of zeroed C memory for the emulator (at least one
// byte, so that every buffer has a distinct address), or an error if the
// allocation fails. Free it with Free.
func Alloc(bytes int64) (unsafe.Pointer, error) {
	p := C.calloc(C.size_t(max(bytes, 1)), 1)
	if p == nil {
		return nil, fmt.Errorf("kernels: emulator: cannot allocate %d bytes", bytes)
	}
	return p, nil
}

// Free releases memory from Alloc.
func Free(p unsafe.Pointer) { C.free(p) }

// RunHost runs kernel k on the host for the threads t in [0, n), in the
// order t = (offset + i·stride) mod n; stride must be in [1, n) and
// coprime to n (or n <= 1), offset in [0, n). params[0] must be n. It
// returns the global memory traffic of the launch (zero for a kernel that
// is not Counted).
func RunHost(k Kernel, params []uint64, n, stride, offset int64) (Traffic, error) {
	if len(params) != k.Params {
		return Traffic{}, fmt.Errorf("%w: %s takes %d words, got %d", ErrParams, k.Name, k.Params, len(params))
	}
	if k.Threads > 0 {
		return Traffic{}, fmt.Errorf("kernels: %s is a block kernel: run it with RunHostBlocks", k.Name)
	}
	if n <= 0 {
		return Traffic{}, nil
	}
	if int64(params[0]) != n {
		return Traffic{}, fmt.Errorf("%w: %s: thread count %d, but n = %d", ErrParams, k.Name, n, int64(params[0]))
	}
	if n == 1 {
		stride, offset = 0, 0
	}
	var tr [3]C.int64_t
	if rc := C.bs_host_run(C.int(k.ID), (*C.uint64_t)(unsafe.Pointer(&params[0])), C.int64_t(n), C.int64_t(stride), C.int64_t(offset), &tr[0]); rc != 0 {
		return Traffic{}, fmt.Errorf("kernels: no kernel %d", k.ID)
	}
	return Traffic{Read: int64(tr[0]), Write: int64(tr[1]), MaxThread: int64(tr[2])}, nil
}

// ErrDivergence is returned by RunHostBlocks when the threads of a block
// disagree on the phase after a barrier (a barrier that not all of them
// reach: undefined behaviour on a device).
var ErrDivergence = errors.New("kernels: the threads of a block reach different barriers")

// ErrDeadlock is returned by RunHostBlocks when every block of a launch
// waits for another without end.
var ErrDeadlock = errors.New("kernels: every block of the launch waits (deadlock)")

// RunHostBlocks runs block kernel k (Threads > 0) on the host on grid
// blocks of k.Threads threads (bs_block.h): params[0] is the kernel's n
// (its tiles). seed 0 runs the blocks in turn, phase by phase, and each
// block's threads forward; another seed interleaves the blocks at random
// and permutes the threads of each phase, so that a kernel whose result
// depends on either order gives different results. It returns the
// launch's global memory traffic.
func RunHostBlocks(k Kernel, params []uint64, grid int64, seed uint64) (Traffic, error) {
	if len(params) != k.Params {
		return Traffic{}, fmt.Errorf("%w: %s takes %d words, got %d", ErrParams, k.Name, k.Params, len(params))
	}
	if k.Threads == 0 {
		return Traffic{}, fmt.Errorf("kernels: %s is not a block kernel: run it with RunHost", k.Name)
	}
	if grid < 1 {
		return Traffic{}, fmt.Errorf("kernels: %s on %d blocks", k.Name, grid)
	}
	var tr [3]C.int64_t
	var e [5]C.int64_t
	b := k.ID - int(C.bs_num_kernels())
	switch rc := C.bs_host_blocks(C.int(b), (*C.uint64_t)(unsafe.Pointer(&params[0])), C.int64_t(grid), C.uint64_t(seed), &tr[0], &e[0]); rc {
	case 0:
		return Traffic{Read: int64(tr[0]), Write: int64(tr[1]), MaxThread: int64(tr[2])}, nil
	case 1:
		return Traffic{}, fmt.Errorf("%w: %s, block %d after phase %d: thread %d goes to %d, the others to %d", ErrDivergence, k.Name, e[0], e[1], e[2], e[4], e[3])
	case 2:
		return Traffic{}, fmt.Errorf("%w: %s, block %d at phase %d", ErrDeadlock, k.Name, e[0], e[1])
	default:
		return Traffic{}, fmt.Errorf("kernels: %s: the emulator is out of memory for %d blocks", k.Name, grid)
	}
}

// The single functions below run the headers' definitions on the host for
// the tests of this package, which compare them with package sampling.

func hostLog(x float64) float64 { return float64(C.bs_go_log(C.double(x))) }

func hostLayerKey(seed uint64, epoch, mb, layer int) uint64 {
	return uint64(C.bs_go_layer_key(C.uint64_t(seed), C.int64_t(epoch), C.int64_t(mb), C.int64_t(layer)))
}

func hostRowKey(layerKey uint64, v int32) uint64 {
	return uint64(C.bs_go_row_key(C.uint64_t(layerKey), C.int32_t(v)))
}

func hostFloat64(rowKey uint64, pos int64) float64 {
	return float64(C.bs_go_f64(C.uint64_t(rowKey), C.int64_t(pos)))
}

// hostSelectRow runs bs_select_row on the row (cols, vals) and returns the
// positions and, with replacement, the multiplicities (nil otherwise).
func hostSelectRow(rowKey uint64, cols []int32, vals []float32, s int, weighted, replace bool) (pos, mult []int32) {
	deg := len(cols)
	n := max(deg, s, 1)
	pos, mult = make([]int32, n), make([]int32, n)
	d, hk := make([]int32, max(s, 1)), make([]float64, max(s, 1))
	colsC, valsC := make([]int32, max(deg, 1)), make([]float32, max(deg, 1))
	copy(colsC, cols)
	copy(valsC, vals)
	c := C.bs_go_select_row(C.uint64_t(rowKey), (*C.int32_t)(&colsC[0]), (*C.float)(&valsC[0]), C.int64_t(deg), C.int64_t(s),
		cbool(weighted), cbool(replace), (*C.int32_t)(&pos[0]), (*C.int32_t)(&mult[0]), (*C.int32_t)(&d[0]), (*C.double)(&hk[0]))
	if replace && s >= 0 {
		return pos[:c], mult[:c]
	}
	return pos[:c], nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
