/* bs_gather.h: the row-gather product C = Q·B for a Q with at most one
 * entry per row (spgemm.Mul's gatherScaled: row i of C is q_i·B(k_i,:),
 * a copy when q_i is 1, ones when structure-only), and the conversions
 * between spgemm's int64 row offsets and cuSPARSE's int32 ones. */
#ifndef BS_GATHER_CUH
#define BS_GATHER_CUH

#include "bs_common.h"

typedef struct {
	int64_t n; const int64_t *qindptr; const int32_t *qindices; const int64_t *bindptr; int64_t *cnt;
} bs_gq_count_p;
BS_HD void bs_gq_count_thread(const bs_gq_count_p *p, int64_t i) {
	int64_t q = p->qindptr[i];
	if (p->qindptr[i + 1] == q) {
		p->cnt[i] = 0;
		return;
	}
	int32_t k = p->qindices[q];
	p->cnt[i] = p->bindptr[k + 1] - p->bindptr[k];
}

typedef struct {
	int64_t n; const int64_t *qindptr; const int32_t *qindices; const float *qdata; const int64_t *bindptr;
	const int32_t *bindices; const float *bdata; const int64_t *coff; int64_t structure; int32_t *cindices; float *cdata;
} bs_gq_fill_p;
BS_HD void bs_gq_fill_thread(const bs_gq_fill_p *p, int64_t i) {
	int64_t q = p->qindptr[i];
	if (p->qindptr[i + 1] == q) return;
	int32_t k = p->qindices[q];
	float a = p->qdata[q];
	int64_t lo = p->bindptr[k], deg = p->bindptr[k + 1] - lo, o = p->coff[i];
	for (int64_t t = 0; t < deg; t++) {
		p->cindices[o + t] = p->bindices[lo + t];
		float b = p->bdata[lo + t];
		p->cdata[o + t] = p->structure ? 1.0f : (a == 1.0f ? b : a * b);
	}
}

typedef struct { int64_t n; const int64_t *in; int32_t *out; } bs_cvt_i64_i32_p;
BS_HD void bs_cvt_i64_i32_thread(const bs_cvt_i64_i32_p *p, int64_t t) { p->out[t] = (int32_t)p->in[t]; }

typedef struct { int64_t n; const int32_t *in; int64_t *out; } bs_cvt_i32_i64_p;
BS_HD void bs_cvt_i32_i64_thread(const bs_cvt_i32_i64_p *p, int64_t t) { p->out[t] = (int64_t)p->in[t]; }

#define BS_GATHER_KERNELS(X)           \
	X(gq_count, bs_gq_count_p)           \
	X(gq_fill, bs_gq_fill_p)             \
	X(cvt_i64_i32, bs_cvt_i64_i32_p)     \
	X(cvt_i32_i64, bs_cvt_i32_i64_p)

#endif
