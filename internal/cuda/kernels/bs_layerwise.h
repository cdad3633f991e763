/* bs_layerwise.h: layer-wise sampling of one layer of a bulk
 * (sampling/layerwise.go, extract.go): LADIES' probabilities P[m,:] =
 * Q_m·(A∘A) or FastGCN's shared row, each minibatch's weighted selection
 * of its columns, their slots in F_{l+1} and scales, and the extraction of
 * the blocks; every kernel a block kernel (bs_block.h), none of them one
 * thread's pass over a minibatch:
 *
 *  1. lw_sort: each minibatch's frontier sorted by vertex (a block per
 *     minibatch: stable LSD radix sort, 8 bits a pass, histograms in
 *     shared memory, ranks within a warp from shared memory);
 *  2. LADIES: lw_gdeg (the sorted rows' degrees scanned), lw_gather (a
 *     warp per row: the squares A[u,v]^2 in increasing u), lw_sort again
 *     by column (stable: each column's squares stay in increasing u), and
 *     lw_psum (runs of a column summed in float32 in that order:
 *     spgemm.Mul's accumulation, bit for bit, and P's rows offsets);
 *  3. lw_select, a block per minibatch: the row's float64 positive total
 *     in column order (positiveSum), computed in parallel when no partial
 *     sum can round (every positive value is a multiple of the smallest
 *     one's last bit 2^p, and the total is below 2^(53+p), so every
 *     partial sum, in any order, is exact), else by one thread in order;
 *     the weighted choice without replacement of the s smallest
 *     exponential keys -ln(u)/w (ties to the smaller position:
 *     bs_weighted's set) from the keys below a threshold, sorted in shared
 *     memory, or the whole positive row when it has at most s entries;
 *     with replacement (inverse transform on the sequential prefix sums)
 *     one thread draws;
 *  4. lw_cols, a block per minibatch: the chosen columns' slots (their
 *     position in F_m by a binary search of the sorted frontier, else the
 *     next new slot, in column order) and scales, F_{l+1}'s offsets by a
 *     look-back over the minibatches, and F_{l+1} itself;
 *  5. lw_ecount (rows: the entries in chosen columns, scanned), lw_efill
 *     (each row's (slot, A[u,v]·scale) sorted by slot and normalised; the
 *     minibatches' offsets: the one copy of the layer back to the host).
 */
#ifndef BS_LAYERWISE_CUH
#define BS_LAYERWISE_CUH

#include "bs_common.h"
#include "bs_select.h"
#include "bs_block.h"

#define BS_LW_REPLACE 1
#define BS_LW_ROWMEAN 2
#define BS_LW_UNBIASED 4
#define BS_LW_FASTGCN 8

/* ---- lw_sort: per segment m, [start[m], start[m+1]), a stable sort of
 * (uint32 key, uint32 value) pairs by the key's low bits: pass 0 reads
 * keysIn (the values: valsIn, or the pairs' indices when null) and writes
 * A, pass p reads A or B and writes the other; the result is in A after
 * an odd number of passes, else in B. n = k (a block per segment). */
typedef struct {
	int64_t n; const int64_t *start; const uint32_t *keysIn; const uint32_t *valsIn; uint32_t *keysA; uint32_t *valsA;
	uint32_t *keysB; uint32_t *valsB; int64_t passes; bs_lb_ctl *ctl; uint64_t *status;
} bs_lw_sort_p;
typedef struct {
	bs_lb_sh lb;
	int64_t s0, s1;
	int32_t hist[256], base[256], dig[BS_T];
	int32_t wc[BS_T / 32][256]; /* a round's digit counts per warp, then their offsets */
} bs_lw_sort_s;
typedef struct {
	int64_t pass, round, i;
	uint32_t key, val;
	int32_t d, rank;
} bs_lw_sort_l;
BS_STATIC_ASSERT(BS_T == 256, "lw_sort: a thread per digit");

BS_HD void bs_lw_sort_in(const bs_lw_sort_p *p, int64_t pass, const uint32_t **k, const uint32_t **v, uint32_t **ko, uint32_t **vo) {
	*k = pass == 0 ? p->keysIn : pass % 2 ? p->keysA : p->keysB;
	*v = pass == 0 ? p->valsIn : pass % 2 ? p->valsA : p->valsB;
	*ko = pass % 2 ? p->keysB : p->keysA;
	*vo = pass % 2 ? p->valsB : p->valsA;
}

BS_HD int bs_lw_sort_phase(const bs_lw_sort_p *p, bs_lw_sort_s *sh, bs_lw_sort_l *lo, const bs_thr *th, int ph) {
	const uint32_t *ki, *vi;
	uint32_t *ko, *vo;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1:
		if (sh->lb.tile >= p->n) return 20;
		if (th->tid == 0) {
			sh->s0 = BS_LD(p->start, sh->lb.tile);
			sh->s1 = BS_LD(p->start, sh->lb.tile + 1);
		}
		lo->pass = 0;
		return 2;
	case 2: /* a pass: the segment's histogram */
		sh->hist[th->tid] = 0;
		return 3;
	case 3:
		bs_lw_sort_in(p, lo->pass, &ki, &vi, &ko, &vo);
		for (int64_t i = sh->s0 + th->tid; i < sh->s1; i += BS_T)
			bs_atomic_add_shared_i32(&sh->hist[(BS_LD(ki, i) >> (8 * lo->pass)) & 255], 1);
		return 4;
	case 4:
		if (th->tid == 0) {
			int32_t run = 0;
			for (int d = 0; d < 256; d++) {
				sh->base[d] = run;
				run += sh->hist[d];
			}
		}
		lo->round = 0;
		return 5;
	case 5: /* a round of BS_T pairs: digits */
		bs_lw_sort_in(p, lo->pass, &ki, &vi, &ko, &vo);
		for (int q = th->tid; q < (BS_T / 32) * 256; q += BS_T) sh->wc[q / 256][q % 256] = 0;
		lo->i = sh->s0 + lo->round * BS_T + th->tid;
		lo->d = -1;
		if (lo->i < sh->s1) {
			lo->key = BS_LD(ki, lo->i);
			lo->val = vi ? BS_LD(vi, lo->i) : (uint32_t)lo->i;
			lo->d = (int32_t)((lo->key >> (8 * lo->pass)) & 255);
		}
		sh->dig[th->tid] = lo->d;
		return 6;
	case 6: /* the rank among the warp's earlier lanes of the same digit */
		if (lo->d >= 0) {
			int w = th->tid / 32, lane = th->tid % 32, tot = 0;
			lo->rank = 0;
			for (int l = 0; l < 32; l++) {
				if (sh->dig[32 * w + l] != lo->d) continue;
				tot++;
				if (l < lane) lo->rank++;
			}
			if (lo->rank == 0) sh->wc[w][lo->d] = tot;
		}
		return 7;
	case 7: { /* thread d: digit d's offsets per warp, in warp order */
		int d = th->tid;
		int32_t off = sh->base[d];
		for (int w = 0; w < BS_T / 32; w++) {
			int32_t c = sh->wc[w][d];
			sh->wc[w][d] = off;
			off += c;
		}
		sh->base[d] = off;
		return 8;
	}
	case 8:
		bs_lw_sort_in(p, lo->pass, &ki, &vi, &ko, &vo);
		if (lo->d >= 0) {
			int64_t at = sh->s0 + sh->wc[th->tid / 32][lo->d] + lo->rank;
			BS_ST(ko, at, lo->key);
			BS_ST(vo, at, lo->val);
		}
		lo->round++;
		if (sh->s0 + lo->round * BS_T < sh->s1) return 5;
		lo->pass++;
		return lo->pass < p->passes ? 2 : 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, 0, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- lw_gdeg: goff = the scan of the sorted frontier rows' degrees
 * (rows+1), gstart[m] = goff at minibatch m's first row (k+1). */
typedef struct {
	int64_t n; int64_t rows; int64_t k; const int64_t *frontStart; const uint32_t *skeys; const int64_t *indptr;
	int64_t *goff; int64_t *gstart; bs_lb_ctl *ctl; uint64_t *status;
} bs_lw_gdeg_p;
typedef struct {
	bs_lb_sh lb;
	bs_seg_tile t;
} bs_lw_rows_s;
typedef struct {
	bs_seg_row w;
	int64_t c, x;
	bs_bitonic b;
} bs_lw_rows_l;

/* bs_lw_firsts writes v at out[m'] for every segment m' that starts at
 * row r (the row's own, empty ones before it) and, for the last row, at
 * out[m'] = vend for the segments after it, up to k. */
BS_HD void bs_lw_firsts(const int64_t *start, int64_t k, int64_t rows, const bs_seg_row *w, int64_t r, int64_t v, int64_t vend,
                        int64_t *out) {
	if (r == w->s0)
		for (int64_t m = w->m; m >= 0 && BS_LD(start, m) == r; m--) BS_ST(out, m, v);
	if (r == rows - 1)
		for (int64_t m = w->m + 1; m <= k; m++) BS_ST(out, m, vend);
}

BS_HD int bs_lw_gdeg_phase(const bs_lw_gdeg_p *p, bs_lw_rows_s *sh, bs_lw_rows_l *lo, const bs_thr *th, int ph) {
	int64_t r;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2:
		bs_seg_tile_fs(&sh->t, p->frontStart, th);
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		lo->c = 0;
		if (r < p->rows) {
			bs_seg_row_of(&sh->t, p->frontStart, p->k, r, &lo->w);
			uint32_t u = BS_LD(p->skeys, r);
			lo->c = BS_LD(p->indptr, u + 1) - BS_LD(p->indptr, u);
		}
		sh->lb.v[th->tid] = lo->c;
		return 4;
	BS_LB_SCAN_PHASES(4, p->status, &sh->lb, th)
	case 8:
		r = sh->t.r0 + th->tid;
		if (r < p->rows) {
			int64_t e = bs_lb_excl(&sh->lb, th->tid);
			bs_lb_offset(p->goff, r, p->rows, e, lo->c);
			bs_lw_firsts(p->frontStart, p->k, p->rows, &lo->w, r, e, e + lo->c, p->gstart);
		}
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- lw_gather: a warp per sorted frontier row u (thread t: row t / 32,
 * lane t % 32): gkeys[g] = v, gval[g] = A[u,v]^2 (float32) at goff[row]. */
typedef struct {
	int64_t n; const uint32_t *skeys; const int64_t *indptr; const int32_t *indices; const float *data; const int64_t *goff;
	uint32_t *gkeys; float *gval;
} bs_lw_gather_p;
BS_HD void bs_lw_gather_thread(const bs_lw_gather_p *p, int64_t t) {
	int64_t r = t / 32, lane = t % 32;
	uint32_t u = BS_LD(p->skeys, r);
	int64_t lo = BS_LD(p->indptr, u), deg = BS_LD(p->indptr, u + 1) - lo, g = BS_LD(p->goff, r);
	for (int64_t q = lane; q < deg; q += 32) {
		float x = BS_LD(p->data, lo + q);
		BS_ST(p->gkeys, g + q, (uint32_t)BS_LD(p->indices, lo + q));
		BS_ST(p->gval, g + q, x * x);
	}
}

/* ---- lw_psum: over the gathered squares sorted by column within each
 * minibatch (segments gstart): each run of a column's squares (a head
 * where the column or the minibatch changes) summed in order into P's
 * entry (pcol, pval) at the run's number, and pStart[m] = the first run of
 * minibatch m (k+1). */
typedef struct {
	int64_t n; int64_t ng; int64_t k; const int64_t *gstart; const uint32_t *keys; const uint32_t *idx; const float *gval;
	int32_t *pcol; float *pval; int64_t *pStart; bs_lb_ctl *ctl; uint64_t *status;
} bs_lw_psum_p;

BS_HD int bs_lw_psum_phase(const bs_lw_psum_p *p, bs_lw_rows_s *sh, bs_lw_rows_l *lo, const bs_thr *th, int ph) {
	int64_t i;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->gstart, p->ng, 20, sh, th)
	case 2:
		bs_seg_tile_fs(&sh->t, p->gstart, th);
		return 3;
	case 3:
		i = sh->t.r0 + th->tid;
		lo->c = 0;
		if (i < p->ng) {
			bs_seg_row_of(&sh->t, p->gstart, p->k, i, &lo->w);
			lo->c = i == lo->w.s0 || BS_LD(p->keys, i) != BS_LD(p->keys, i - 1);
		}
		sh->lb.v[th->tid] = lo->c;
		return 4;
	BS_LB_SCAN_PHASES(4, p->status, &sh->lb, th)
	case 8:
		i = sh->t.r0 + th->tid;
		if (i < p->ng) {
			int64_t seg = bs_lb_excl(&sh->lb, th->tid);
			if (lo->c) {
				uint32_t key = BS_LD(p->keys, i);
				float acc = 0;
				for (int64_t j = i; j < lo->w.s1 && BS_LD(p->keys, j) == key; j++) acc += BS_LD(p->gval, BS_LD(p->idx, j));
				BS_ST(p->pcol, seg, (int32_t)key);
				BS_ST(p->pval, seg, acc);
			}
			bs_lw_firsts(p->gstart, p->k, p->ng, &lo->w, i, seg, seg + lo->c, p->pStart);
		}
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- lw_select: a block per minibatch (see the file comment). */
#define BS_LW_CAP 2048 /* candidates a block sorts in shared memory; larger budgets select by one thread */
#define BS_LW_RETRIES 64

typedef struct {
	int64_t n; const int32_t *pcol; const float *pval; const int64_t *pStart; int64_t fgLen; double fgTotal; int64_t fgNpos;
	const int64_t *frontStart; int64_t s; int64_t flags; uint64_t seed; int64_t epoch; int64_t first; int64_t layer;
	int32_t *chosen; float *cpv; int32_t *mult; int32_t *ccnt; double *total; int32_t *d; double *hk;
	bs_lb_ctl *ctl; uint64_t *status;
} bs_lw_select_p;
typedef struct {
	bs_lb_sh lb;
	double ck[BS_LW_CAP];
	int32_t cp[BS_LW_CAP];
	double psum[BS_T];
	int64_t pnpos[BS_T];
	int32_t plow[BS_T];
	const int32_t *cols;
	const float *vals;
	int64_t len, npos, base, chunk, ncand;
	double total, tau;
	uint64_t rk;
	int32_t mode, cnt, redo, tries;
} bs_lw_select_s;
typedef struct {
	int64_t i;
	int32_t flag;
	bs_bitonic b;
} bs_lw_select_l;

enum { BS_LW_EMPTY, BS_LW_ALL, BS_LW_ONE, BS_LW_FILTER };

/* bs_f32_lowbit returns p with 2^p the value of x's (> 0, float32) last set bit. */
BS_HD int32_t bs_f32_lowbit(float x) {
	double y = (double)x; /* exact, and normal */
	uint64_t u = bs_f64_bits(y);
	int32_t e = (int32_t)((u >> 52) & 0x7FF) - 1075; /* y = mant · 2^e */
	uint64_t mant = (u & 0x000FFFFFFFFFFFFFULL) | (1ULL << 52);
	while (!(mant & 1)) {
		mant >>= 1;
		e++;
	}
	return e;
}

/* bs_pow2d returns 2^e for e in [-1074, 1023]. */
BS_HD double bs_pow2d(int32_t e) {
	if (e < -1022) return bs_f64_from_bits(1ULL << (e + 1074));
	return bs_f64_from_bits((uint64_t)(e + 1023) << 52);
}

BS_HD int bs_lw_select_phase(const bs_lw_select_p *p, bs_lw_select_s *sh, bs_lw_select_l *lo, const bs_thr *th, int ph) {
	int64_t m = sh->lb.tile, s = p->s, i;
	int32_t tid = th->tid;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1:
		if (sh->lb.tile >= p->n) return 60;
		if (tid == 0) {
			int fg = (p->flags & BS_LW_FASTGCN) != 0;
			int64_t lo0 = fg ? 0 : BS_LD(p->pStart, m);
			sh->cols = p->pcol + lo0;
			sh->vals = p->pval + lo0;
			sh->len = fg ? p->fgLen : BS_LD(p->pStart, m + 1) - lo0;
			sh->mode = BS_LD(p->frontStart, m + 1) == BS_LD(p->frontStart, m) ? BS_LW_EMPTY : BS_LW_ALL;
			sh->rk = bs_row_key(bs_layer_key(p->seed, p->epoch, p->first + m, p->layer), -1);
		}
		return 2;
	case 2: /* partial sums, counts and last bits of the positive values */
		sh->psum[tid] = 0;
		sh->pnpos[tid] = 0;
		sh->plow[tid] = 2000;
		if (sh->mode == BS_LW_EMPTY || (p->flags & BS_LW_FASTGCN)) return 3;
		for (i = tid; i < sh->len; i += BS_T) {
			float v = BS_LD(sh->vals, i);
			if (!(v > 0)) continue;
			sh->psum[tid] += (double)v;
			sh->pnpos[tid]++;
			int32_t e = bs_f32_lowbit(v);
			if (e < sh->plow[tid]) sh->plow[tid] = e;
		}
		return 3;
	case 3:
		if (tid == 0) {
			if (sh->mode == BS_LW_EMPTY) {
				sh->total = 0;
				sh->npos = 0;
			} else if (p->flags & BS_LW_FASTGCN) {
				sh->total = p->fgTotal;
				sh->npos = p->fgNpos;
			} else {
				double sum = 0;
				int64_t np = 0;
				int32_t low = 2000;
				for (int t = 0; t < BS_T; t++) {
					sum += sh->psum[t];
					np += sh->pnpos[t];
					if (sh->plow[t] < low) low = sh->plow[t];
				}
				sh->npos = np;
				/* Exact when the sum stays below 2^(53+low) (with room for
				 * the tree sum's own error): else in order, as the CPU adds. */
				if (np > 0 && !(sum * (1 + (double)np * 2.3e-16) < bs_pow2d(low + 53 > 1023 ? 1023 : low + 53))) {
					sum = 0;
					for (int64_t q = 0; q < sh->len; q++) {
						float v = BS_LD(sh->vals, q);
						if (v > 0) sum += (double)v;
					}
				}
				sh->total = sum;
			}
			if (sh->mode != BS_LW_EMPTY) {
				if (sh->npos <= s) {
					sh->mode = BS_LW_ALL;
				} else if ((p->flags & BS_LW_REPLACE) || 2 * s > BS_LW_CAP) {
					sh->mode = BS_LW_ONE;
				} else {
					sh->mode = BS_LW_FILTER;
					/* The law of the keys below tau if the weights were
					 * equal: about 3/2 of s of them. */
					double f = 1.5 * (double)s / (double)sh->npos;
					sh->tau = -bs_log(1 - (f < 0.999 ? f : 0.999)) * (double)sh->npos / sh->total;
					sh->tries = 0;
				}
			}
			BS_ST(p->total, m, sh->total);
			sh->base = sh->chunk = 0;
		}
		return 4;
	case 4:
		switch (sh->mode) {
		case BS_LW_EMPTY:
			if (tid == 0) BS_ST(p->ccnt, m, 0);
			return 0;
		case BS_LW_ALL:
			return 10;
		case BS_LW_ONE:
			return 20;
		}
		return 30;

	/* Every positive entry, in order: a block scan a chunk. */
	case 10:
		i = sh->chunk * BS_T + tid;
		lo->i = i;
		lo->flag = i < sh->len && BS_LD(sh->vals, i) > 0;
		sh->lb.v[tid] = lo->flag;
		return 11;
	case 11:
		bs_lb_scan_chunks(&sh->lb, th);
		return 12;
	case 12:
		bs_blk_scan_parts(&sh->lb, th);
		return 13;
	case 13:
		if (lo->flag) {
			int64_t j = sh->base + bs_blk_excl(&sh->lb, tid);
			BS_ST(p->chosen, s * m + j, BS_LD(sh->cols, lo->i));
			BS_ST(p->cpv, s * m + j, BS_LD(sh->vals, lo->i));
			BS_ST(p->mult, s * m + j, 1);
		}
		return 14;
	case 14:
		if (tid == 0) {
			sh->base += sh->lb.agg;
			sh->chunk++;
		}
		return 15;
	case 15:
		if (sh->chunk * BS_T < sh->len) return 10;
		if (tid == 0) BS_ST(p->ccnt, m, (int32_t)sh->base);
		return 0;

	/* With replacement (the CPU's sequential prefix sums), or a budget
	 * above the block's candidates: one thread, as bs_select_row. */
	case 20:
		if (tid == 0) {
			int replace = (p->flags & BS_LW_REPLACE) != 0;
			int32_t *pos = p->chosen + s * m, *mult = p->mult + s * m;
			BS_SCRATCH_GLOBAL(1);
			int64_t c = bs_select_row(sh->rk, sh->cols, sh->vals, sh->len, s, 1, replace, pos, mult, p->d + s * m, p->hk + s * m);
			for (int64_t j = 0; j < c; j++) {
				int32_t q = BS_LD(pos, j);
				BS_ST(p->cpv, s * m + j, BS_LD(sh->vals, q));
				BS_ST(pos, j, BS_LD(sh->cols, q));
				if (!replace) BS_ST(mult, j, 1);
			}
			BS_ST(p->ccnt, m, (int32_t)c);
		}
		return 0;

	/* The keys below tau, until there are at least s and at most the
	 * block's room; sorted, the s smallest. */
	case 30:
		if (tid == 0) sh->cnt = 0;
		return 31;
	case 31:
		for (i = tid; i < sh->len; i += BS_T) {
			float v = BS_LD(sh->vals, i);
			if (!(v > 0)) continue;
			double key = -bs_log(bs_f64(sh->rk, BS_LD(sh->cols, i))) / (double)v;
			if (!(key < sh->tau)) continue;
			int32_t at = bs_atomic_add_shared_i32(&sh->cnt, 1);
			if (at < BS_LW_CAP) {
				sh->ck[at] = key;
				sh->cp[at] = (int32_t)i;
			}
		}
		return 32;
	case 32:
		if (tid == 0) {
			sh->redo = sh->cnt < s || sh->cnt > BS_LW_CAP;
			if (sh->redo) {
				sh->tau *= sh->cnt < s ? 2.0 : 0.5;
				if (++sh->tries > BS_LW_RETRIES) sh->mode = BS_LW_ONE; /* ties without end: one thread */
			}
			sh->ncand = bs_pow2(sh->cnt);
		}
		return 33;
	case 33:
		if (sh->redo) return sh->mode == BS_LW_ONE ? 20 : 30;
		for (i = sh->cnt + tid; i < sh->ncand; i += BS_T) {
			sh->ck[i] = BS_INF;
			sh->cp[i] = 0x7FFFFFFF;
		}
		bs_bitonic_start(&lo->b);
		return 34;
	case 34:
		return bs_bitonic_step(sh->ck, sh->cp, sh->ncand, &lo->b, tid) ? 34 : 35;
	case 35: /* the s smallest, sorted by position */
		for (i = tid; i < bs_pow2(s); i += BS_T) {
			sh->ck[i] = i < s ? (double)sh->cp[i] : BS_INF;
			if (i >= s) sh->cp[i] = 0x7FFFFFFF;
		}
		bs_bitonic_start(&lo->b);
		return 36;
	case 36:
		return bs_bitonic_step(sh->ck, sh->cp, bs_pow2(s), &lo->b, tid) ? 36 : 37;
	case 37:
		for (i = tid; i < s; i += BS_T) {
			int32_t q = sh->cp[i];
			BS_ST(p->chosen, s * m + i, BS_LD(sh->cols, q));
			BS_ST(p->cpv, s * m + i, BS_LD(sh->vals, q));
			BS_ST(p->mult, s * m + i, 1);
		}
		if (tid == 0) BS_ST(p->ccnt, m, (int32_t)s);
		return 0;
	BS_LB_EXIT_PHASES(60, p->ctl, p->status, 0, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- lw_cols: a block per minibatch: the chosen columns' slots in F_{l+1}
 * = F_m followed by the chosen vertices not in F_m, ascending (appendNew),
 * and scales (chooseChunk: c_j·total/p_j, then divided by the draws Σc_j;
 * 1 with RowMean); F_{l+1}'s offsets (a look-back over the minibatches:
 * srcStart at summary[k+1..]) and F_{l+1}. The sorted frontier (skeys,
 * svals: its rows) answers membership. */
typedef struct {
	int64_t n; int64_t k; const int32_t *chosen; const float *cpv; const int32_t *mult; const int32_t *ccnt; const double *total;
	int64_t s; int64_t flags; const int32_t *front; const int64_t *frontStart; const uint32_t *skeys; const uint32_t *svals;
	int32_t *slot; double *scale; int32_t *src; int64_t *summary; bs_lb_ctl *ctl; uint64_t *status;
} bs_lw_cols_p;
typedef struct {
	bs_lb_sh lb;
	int64_t f0, f, c, base, chunk, draws[BS_T];
	double total, ndraws;
} bs_lw_cols_s;
typedef struct {
	int64_t j, q;
} bs_lw_cols_l;

BS_HD int bs_lw_cols_phase(const bs_lw_cols_p *p, bs_lw_cols_s *sh, bs_lw_cols_l *lo, const bs_thr *th, int ph) {
	int64_t m = sh->lb.tile, s = p->s, i;
	int32_t tid = th->tid;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1:
		if (sh->lb.tile >= p->n) return 60;
		if (tid == 0) {
			sh->f0 = BS_LD(p->frontStart, m);
			sh->f = BS_LD(p->frontStart, m + 1) - sh->f0;
			sh->c = BS_LD(p->ccnt, m);
			sh->total = BS_LD(p->total, m);
			sh->base = sh->chunk = 0;
		}
		return 2;
	case 2: /* the draws: an integer sum, exact in any order */
		sh->draws[tid] = 0;
		for (i = tid; i < sh->c; i += BS_T) sh->draws[tid] += BS_LD(p->mult, s * m + i);
		return 3;
	case 3:
		if (tid == 0) {
			int64_t d = 0;
			for (int t = 0; t < BS_T; t++) d += sh->draws[t];
			sh->ndraws = (double)d;
		}
		return 4;
	case 4: /* a chunk of the chosen columns: in F_m, or new */
		lo->j = sh->chunk * BS_T + tid;
		lo->q = -1;
		sh->lb.v[tid] = 0;
		if (lo->j < sh->c) {
			uint32_t v = (uint32_t)BS_LD(p->chosen, s * m + lo->j);
			int64_t a = sh->f0, b = sh->f0 + sh->f; /* the first sorted frontier vertex >= v */
			while (a < b) {
				int64_t mid = a + (b - a) / 2;
				if (BS_LD(p->skeys, mid) < v) a = mid + 1; else b = mid;
			}
			if (a < sh->f0 + sh->f && BS_LD(p->skeys, a) == v) lo->q = (int64_t)BS_LD(p->svals, a) - sh->f0;
			sh->lb.v[tid] = lo->q < 0;
		}
		return 5;
	case 5:
		bs_lb_scan_chunks(&sh->lb, th);
		return 6;
	case 6:
		bs_blk_scan_parts(&sh->lb, th);
		return 7;
	case 7:
		if (lo->j < sh->c) {
			int64_t at = s * m + lo->j;
			int32_t q = (int32_t)(lo->q >= 0 ? lo->q : sh->f + sh->base + bs_blk_excl(&sh->lb, tid));
			BS_ST(p->slot, at, q);
			double sc = 1.0;
			if (!(p->flags & BS_LW_ROWMEAN)) {
				sc = (double)BS_LD(p->mult, at) * sh->total / (double)BS_LD(p->cpv, at);
				sc = sc / sh->ndraws;
			}
			BS_ST(p->scale, at, sc);
		}
		return 8;
	case 8:
		if (tid == 0) {
			sh->base += sh->lb.agg;
			sh->chunk++;
		}
		return 9;
	case 9:
		if (sh->chunk * BS_T < sh->c) return 4;
		sh->lb.v[tid] = tid == 0 ? sh->f + sh->base : 0; /* |F_{l+1}| of minibatch m */
		return 10;
	BS_LB_SCAN_PHASES(10, p->status, &sh->lb, th)
	case 14: { /* F_{l+1}: the frontier, then the new columns at their slots */
		int64_t at = bs_lb_excl(&sh->lb, 0);
		if (tid == 0) {
			BS_ST(p->summary, p->k + 1 + m, at);
			if (m == p->k - 1) BS_ST(p->summary, 2 * p->k + 1, at + sh->f + sh->base);
		}
		for (i = tid; i < sh->f; i += BS_T) BS_ST(p->src, at + i, BS_LD(p->front, sh->f0 + i));
		for (i = tid; i < sh->c; i += BS_T) {
			int32_t q = BS_LD(p->slot, s * m + i);
			if (q >= sh->f) BS_ST(p->src, at + q, BS_LD(p->chosen, s * m + i));
		}
		return 0;
	}
	BS_LB_EXIT_PHASES(60, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* bs_lw_row_entries visits the entries of row u in minibatch m's c chosen
 * columns (ascending): a row much longer than the chosen list (a hub) is
 * searched for each chosen column (relabelRows), otherwise each entry is
 * searched in the chosen list. With oind non-null it writes (slot, scaled
 * value) pairs (scratch: global or local as the caller set); it returns
 * their number. */
#define BS_HUB_FACTOR 16
BS_HD int64_t bs_lw_search(const int32_t *a, int64_t lo, int64_t hi, int32_t v) {
	while (lo < hi) { /* the first position with a >= v */
		int64_t mid = lo + (hi - lo) / 2;
		if (BS_LD(a, mid) < v) lo = mid + 1; else hi = mid;
	}
	return lo;
}

BS_HD int64_t bs_lw_row_entries(const int64_t *indptr, const int32_t *indices, const float *data, int32_t u, const int32_t *chosen,
                                 const int32_t *slot, const double *scale, int64_t c, int32_t *oind, float *oval) {
	int64_t lo = BS_LD(indptr, u), deg = BS_LD(indptr, u + 1) - lo, e = 0;
	if (deg > BS_HUB_FACTOR * c) {
		for (int64_t j = 0; j < c; j++) {
			int32_t v = BS_LD(chosen, j);
			int64_t a = bs_lw_search(indices, lo, lo + deg, v);
			if (a < lo + deg && BS_LD(indices, a) == v) {
				if (oind) {
					BS_STS(oind, e, BS_LD(slot, j));
					BS_STS(oval, e, (float)((double)BS_LD(data, a) * BS_LD(scale, j)));
				}
				e++;
			}
		}
		return e;
	}
	for (int64_t t = lo; t < lo + deg; t++) {
		int32_t v = BS_LD(indices, t);
		int64_t j = bs_lw_search(chosen, 0, c, v);
		if (j >= c || BS_LD(chosen, j) != v) continue;
		if (oind) {
			BS_STS(oind, e, BS_LD(slot, j));
			BS_STS(oval, e, (float)((double)BS_LD(data, t) * BS_LD(scale, j)));
		}
		e++;
	}
	return e;
}

/* ---- lw_ecount (rows: their entries in the chosen columns, scanned into
 * eoff, rows+1) and lw_efill (each row's entries sorted by slot,
 * normalised unless Unbiased; its offset; the minibatches' entry offsets
 * at summary[0..k] and their blocks' last offsets). */
typedef struct {
	int64_t n; int64_t rows; int64_t k; const int32_t *front; const int64_t *frontStart; const int64_t *indptr; const int32_t *indices;
	const float *data; const int32_t *chosen; const int32_t *slot; const double *scale; const int32_t *ccnt; int64_t s; int64_t flags;
	int64_t *eoff; int64_t *outIndptr; int32_t *outIndices; float *outData; int64_t *summary; bs_lb_ctl *ctl; uint64_t *status;
} bs_lw_extract_p;

BS_HD int bs_lw_ecount_phase(const bs_lw_extract_p *p, bs_lw_rows_s *sh, bs_lw_rows_l *lo, const bs_thr *th, int ph) {
	int64_t r;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2: /* x: each minibatch's chosen columns */
		if (bs_seg_tile_fs(&sh->t, p->frontStart, th) && th->tid < sh->t.nm) sh->t.x[th->tid] = BS_LD(p->ccnt, sh->t.m0 + th->tid);
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		lo->c = 0;
		if (r < p->rows) {
			if (!bs_seg_row_of(&sh->t, p->frontStart, p->k, r, &lo->w)) lo->w.x = BS_LD(p->ccnt, lo->w.m);
			lo->c = bs_lw_row_entries(p->indptr, p->indices, 0, BS_LD(p->front, r), p->chosen + p->s * lo->w.m, 0, 0, lo->w.x, 0, 0);
		}
		sh->lb.v[th->tid] = lo->c;
		return 4;
	BS_LB_SCAN_PHASES(4, p->status, &sh->lb, th)
	case 8:
		r = sh->t.r0 + th->tid;
		if (r < p->rows) {
			bs_lb_offset(p->eoff, r, p->rows, bs_lb_excl(&sh->lb, th->tid), lo->c);
		}
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

#define BS_LW_LOCAL 32 /* rows of up to this many entries sort in registers */

BS_HD int bs_lw_efill_phase(const bs_lw_extract_p *p, bs_lw_rows_s *sh, bs_lw_rows_l *lo, const bs_thr *th, int ph) {
	int64_t r;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2: /* x: each minibatch's chosen columns; y: its first entry */
		if (sh->t.r0 < p->rows && bs_seg_tile_fs(&sh->t, p->frontStart, th)) {
			if (th->tid < sh->t.nm) sh->t.x[th->tid] = BS_LD(p->ccnt, sh->t.m0 + th->tid);
			sh->t.y[th->tid] = BS_LD(p->eoff, sh->t.fs[th->tid]);
		}
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		if (r < p->rows) {
			bs_seg_row *w = &lo->w;
			if (!bs_seg_row_of(&sh->t, p->frontStart, p->k, r, w)) {
				w->x = BS_LD(p->ccnt, w->m);
				w->y = BS_LD(p->eoff, w->s0);
			}
			int64_t e0 = BS_LD(p->eoff, r), c = BS_LD(p->eoff, r + 1) - e0, s = p->s;
			BS_ST(p->outIndptr, r + w->m, e0 - w->y); /* row r - s0 of the block at PtrStart = s0 + m */
			int32_t lind[BS_LW_LOCAL];
			float ldat[BS_LW_LOCAL];
			int local = c <= BS_LW_LOCAL;
			int32_t *ind = local ? lind : p->outIndices + e0;
			float *dat = local ? ldat : p->outData + e0;
			BS_SCRATCH_GLOBAL(!local);
			bs_lw_row_entries(p->indptr, p->indices, p->data, BS_LD(p->front, r), p->chosen + s * w->m, p->slot + s * w->m,
			                  p->scale + s * w->m, w->x, ind, dat);
			bs_sort_pairs(ind, dat, c);
			if (!(p->flags & BS_LW_UNBIASED)) bs_normalize(dat, c);
			for (int64_t i = 0; local && i < c; i++) {
				BS_ST(p->outIndices, e0 + i, lind[i]);
				BS_ST(p->outData, e0 + i, ldat[i]);
			}
		}
		if (r <= p->k) { /* minibatch r's first entry; its block's last row offset */
			int64_t f = BS_LD(p->frontStart, r), e = BS_LD(p->eoff, f);
			BS_ST(p->summary, r, e);
			if (r < p->k) {
				int64_t f1 = BS_LD(p->frontStart, r + 1);
				BS_ST(p->outIndptr, f1 + r, BS_LD(p->eoff, f1) - e);
			}
		}
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, 0, &sh->lb, th)
	}
	return BS_DONE;
}

#define BS_LW_KERNELS(X) X(lw_gather, bs_lw_gather_p)

#define BS_LW_BLOCK_KERNELS(X)                                         \
	X(lw_sort, bs_lw_sort_p, bs_lw_sort_s, bs_lw_sort_l)               \
	X(lw_gdeg, bs_lw_gdeg_p, bs_lw_rows_s, bs_lw_rows_l)               \
	X(lw_psum, bs_lw_psum_p, bs_lw_rows_s, bs_lw_rows_l)               \
	X(lw_select, bs_lw_select_p, bs_lw_select_s, bs_lw_select_l)       \
	X(lw_cols, bs_lw_cols_p, bs_lw_cols_s, bs_lw_cols_l)               \
	X(lw_ecount, bs_lw_extract_p, bs_lw_rows_s, bs_lw_rows_l)          \
	X(lw_efill, bs_lw_extract_p, bs_lw_rows_s, bs_lw_rows_l)

#endif
