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
#include "bs_kernels.h"

#define BS_ENUM(name, P) BS_KID_##name,
enum { BS_KERNELS(BS_ENUM) BS_NKERNELS };

#define BS_NAME(name, P) #name,
static const char *bs_kernel_names[] = { BS_KERNELS(BS_NAME) };

#define BS_NPARAMS(name, P) (int)(sizeof(P) / 8),
static const int bs_kernel_nparams[] = { BS_KERNELS(BS_NPARAMS) };

#define BS_SIZECHECK(name, P) BS_STATIC_ASSERT(sizeof(P) % 8 == 0 && offsetof(P, n) == 0, #P " must hold 8-byte members, n first");
#include <stddef.h>
BS_KERNELS(BS_SIZECHECK)

static int bs_num_kernels(void) { return BS_NKERNELS; }
static const char *bs_kernel_name(int id) { return bs_kernel_names[id]; }
static int bs_kernel_params(int id) { return bs_kernel_nparams[id]; }

// bs_host_launch runs kernel id's threads t = (offset + i*stride) mod n,
// i = 0..n-1 (stride < n, coprime to n).
#define BS_CASE(name, P)                                           \
	case BS_KID_##name: {                                          \
		const P *p = (const P *)params;                            \
		for (int64_t i = 0, t = offset; i < n; i++) {              \
			bs_##name##_thread(p, t);                              \
			t += stride;                                           \
			if (t >= n) t -= n;                                    \
		}                                                          \
		return 0;                                                  \
	}
static int bs_host_launch(int id, const uint64_t *params, int64_t n, int64_t stride, int64_t offset) {
	switch (id) {
	BS_KERNELS(BS_CASE)
	}
	return -1;
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
	"fmt"
	"unsafe"
)

// All returns every kernel, in the order of BS_KERNELS.
func All() []Kernel {
	n := int(C.bs_num_kernels())
	out := make([]Kernel, n)
	for i := range out {
		out[i] = Kernel{ID: i, Name: C.GoString(C.bs_kernel_name(C.int(i))), Params: int(C.bs_kernel_params(C.int(i)))}
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
// coprime to n (or n <= 1), offset in [0, n). params[0] must be n.
func RunHost(k Kernel, params []uint64, n, stride, offset int64) error {
	if len(params) != k.Params {
		return fmt.Errorf("%w: %s takes %d words, got %d", ErrParams, k.Name, k.Params, len(params))
	}
	if n <= 0 {
		return nil
	}
	if int64(params[0]) != n {
		return fmt.Errorf("%w: %s: thread count %d, but n = %d", ErrParams, k.Name, n, int64(params[0]))
	}
	if n == 1 {
		stride, offset = 0, 0
	}
	if rc := C.bs_host_launch(C.int(k.ID), (*C.uint64_t)(unsafe.Pointer(&params[0])), C.int64_t(n), C.int64_t(stride), C.int64_t(offset)); rc != 0 {
		return fmt.Errorf("kernels: no kernel %d", k.ID)
	}
	return nil
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
