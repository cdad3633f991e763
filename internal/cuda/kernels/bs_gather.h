/* bs_gather.h: the row-gather product C = Q·B for a Q with at most one
 * entry per row (spgemm.Mul's gatherScaled: row i of C is q_i·B(k_i,:),
 * a copy when q_i is 1, ones when structure-only), and the conversions
 * between spgemm's int64 row offsets and cuSPARSE's int32 ones. */
#ifndef BS_GATHER_CUH
#define BS_GATHER_CUH

#include "bs_common.h"
#include "bs_block.h"

/* The row-gather product in two launches: gq_offsets (C's row offsets: a
 * row's length is its B row's, scanned by decoupled look-back), gq_fill (a
 * warp per row of C: lane 0 reads the row's place into shared memory, the
 * lanes copy the B row in coalesced strides of 32). C's entries are
 * counted once on the host, so that a run reads nothing back. */
typedef struct {
	int64_t n; int64_t rows; const int64_t *qindptr; const int32_t *qindices; const int64_t *bindptr; int64_t *coff;
	bs_lb_ctl *ctl; uint64_t *status;
} bs_gq_offsets_p;
typedef struct { bs_lb_sh lb; } bs_gq_offsets_s;
typedef struct { int64_t c; } bs_gq_offsets_l;

/* bs_gq_len is row i's length in C: its B row's, or 0 when Q's row is empty. */
BS_HD int64_t bs_gq_len(const int64_t *qindptr, const int32_t *qindices, const int64_t *bindptr, int64_t i) {
	int64_t q = BS_LD(qindptr, i);
	if (BS_LD(qindptr, i + 1) == q) return 0;
	int32_t k = BS_LD(qindices, q);
	return BS_LD(bindptr, k + 1) - BS_LD(bindptr, k);
}

BS_HD int bs_gq_offsets_phase(const bs_gq_offsets_p *p, bs_gq_offsets_s *sh, bs_gq_offsets_l *lo, const bs_thr *th, int ph) {
	int64_t i;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1:
		if (sh->lb.tile >= p->n) return 20;
		i = sh->lb.tile * BS_T + th->tid;
		lo->c = i < p->rows ? bs_gq_len(p->qindptr, p->qindices, p->bindptr, i) : 0;
		sh->lb.v[th->tid] = lo->c;
		return 2;
	BS_LB_SCAN_PHASES(2, p->status, &sh->lb, th)
	case 6:
		i = sh->lb.tile * BS_T + th->tid;
		if (i < p->rows) {
			bs_lb_offset(p->coff, i, p->rows, bs_lb_excl(&sh->lb, th->tid), lo->c);
		}
		if (p->rows == 0 && i == 0) BS_ST(p->coff, 0, 0);
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* gq_fill: n = tiles of BS_T / 32 rows, a warp each. C's row i is
 * q_i·B(k_i,:) (spgemm.Mul's gatherScaled: a copy when q_i is 1, ones
 * when structure-only). */
#define BS_GQ_ROWS (BS_T / 32)
typedef struct {
	int64_t n; int64_t rows; const int64_t *qindptr; const int32_t *qindices; const float *qdata; const int64_t *bindptr;
	const int32_t *bindices; const float *bdata; const int64_t *coff; int64_t structure; int32_t *cindices; float *cdata;
	bs_lb_ctl *ctl;
} bs_gq_fill_p;
typedef struct {
	bs_lb_sh lb;
	int64_t lo[BS_GQ_ROWS], len[BS_GQ_ROWS], o[BS_GQ_ROWS];
	float a[BS_GQ_ROWS];
} bs_gq_fill_s;
typedef struct { int64_t unused; } bs_gq_fill_l;

BS_HD int bs_gq_fill_phase(const bs_gq_fill_p *p, bs_gq_fill_s *sh, bs_gq_fill_l *lo, const bs_thr *th, int ph) {
	int w = th->tid / 32, lane = th->tid % 32;
	int64_t i;
	(void)lo;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1: /* lane 0: the row's B row and place in C */
		if (sh->lb.tile >= p->n) return 20;
		i = sh->lb.tile * BS_GQ_ROWS + w;
		if (lane == 0) {
			sh->len[w] = 0;
			if (i < p->rows) {
				int64_t q = BS_LD(p->qindptr, i);
				if (BS_LD(p->qindptr, i + 1) > q) {
					int32_t k = BS_LD(p->qindices, q);
					sh->a[w] = BS_LD(p->qdata, q);
					sh->lo[w] = BS_LD(p->bindptr, k);
					sh->len[w] = BS_LD(p->bindptr, k + 1) - sh->lo[w];
					sh->o[w] = BS_LD(p->coff, i);
				}
			}
		}
		return 2;
	case 2: { /* the lanes: coalesced strides of the row */
		int64_t b = sh->lo[w], o = sh->o[w];
		float a = sh->a[w];
		for (int64_t t = lane; t < sh->len[w]; t += 32) {
			BS_ST(p->cindices, o + t, BS_LD(p->bindices, b + t));
			float x = p->structure ? 1.0f : BS_LD(p->bdata, b + t);
			BS_ST(p->cdata, o + t, p->structure ? 1.0f : (a == 1.0f ? x : a * x));
		}
		return 0;
	}
	BS_LB_EXIT_PHASES(20, p->ctl, 0, 0, &sh->lb, th)
	}
	return BS_DONE;
}

typedef struct { int64_t n; const int64_t *in; int32_t *out; } bs_cvt_i64_i32_p;
BS_HD void bs_cvt_i64_i32_thread(const bs_cvt_i64_i32_p *p, int64_t t) { BS_ST(p->out, t, (int32_t)BS_LD(p->in, t)); }

typedef struct { int64_t n; const int32_t *in; int64_t *out; } bs_cvt_i32_i64_p;
BS_HD void bs_cvt_i32_i64_thread(const bs_cvt_i32_i64_p *p, int64_t t) { BS_ST(p->out, t, (int64_t)BS_LD(p->in, t)); }

#define BS_GATHER_KERNELS(X)           \
	X(cvt_i64_i32, bs_cvt_i64_i32_p)     \
	X(cvt_i32_i64, bs_cvt_i32_i64_p)

#define BS_GATHER_BLOCK_KERNELS(X)                                        \
	X(gq_offsets, bs_gq_offsets_p, bs_gq_offsets_s, bs_gq_offsets_l)      \
	X(gq_fill, bs_gq_fill_p, bs_gq_fill_s, bs_gq_fill_l)

#endif
