/* bs_layerwise.h: layer-wise sampling of one layer (sampling/layerwise.go,
 * extract.go): LADIES' probabilities P[m,:] = Q_m·(A∘A), FastGCN's shared
 * row, the weighted selection of each minibatch's columns, their slots in
 * F_{l+1}, the normalisation scales and the extraction of the blocks.
 *
 * LADIES' row of P sums, per column v, the float32 squares A[u,v]^2 over
 * the frontier vertices u in increasing order (probRow, equal to
 * spgemm.Mul's accumulation): the squares are gathered per (minibatch,
 * sorted frontier vertex), sorted stably by (minibatch, column) with the
 * radix sort, and each column's run is summed by one thread in that order.
 * The selection of a minibatch (and its float64 total, summed in column
 * order as positiveSum does) is one thread's sequential pass.
 */
#ifndef BS_LAYERWISE_CUH
#define BS_LAYERWISE_CUH

#include "bs_common.h"
#include "bs_select.h"

#define BS_LW_REPLACE 1
#define BS_LW_ROWMEAN 2
#define BS_LW_UNBIASED 4
#define BS_LW_FASTGCN 8

/* keys[r] = m·nverts + front[r], vals[r] = r: sorting them orders each
 * minibatch's frontier by vertex */
typedef struct {
	int64_t n; const int32_t *front; const int64_t *frontStart; int64_t k; int64_t nverts; uint64_t *keys; uint32_t *vals;
} bs_lw_fkeys_p;
BS_HD void bs_lw_fkeys_thread(const bs_lw_fkeys_p *p, int64_t r) {
	int64_t m = bs_find_segment(p->frontStart, p->k, r);
	p->keys[r] = (uint64_t)m * (uint64_t)p->nverts + (uint64_t)(uint32_t)p->front[r];
	p->vals[r] = (uint32_t)r;
}

/* cnt[r] = the degree of the r-th sorted frontier vertex */
typedef struct { int64_t n; const uint64_t *skeys; int64_t nverts; const int64_t *indptr; int64_t *cnt; } bs_lw_gdeg_p;
BS_HD void bs_lw_gdeg_thread(const bs_lw_gdeg_p *p, int64_t r) {
	int64_t u = (int64_t)(p->skeys[r] % (uint64_t)p->nverts);
	p->cnt[r] = p->indptr[u + 1] - p->indptr[u];
}

/* The squares of row u: gkeys[g] = m·nverts + v, gval[g] = A[u,v]^2 (float32),
 * gidx[g] = g, at goff[r]. */
typedef struct {
	int64_t n; const uint64_t *skeys; int64_t nverts; const int64_t *indptr; const int32_t *indices; const float *data;
	const int64_t *goff; uint64_t *gkeys; uint32_t *gidx; float *gval;
} bs_lw_gather_p;
BS_HD void bs_lw_gather_thread(const bs_lw_gather_p *p, int64_t r) {
	uint64_t key = p->skeys[r];
	uint64_t m = key / (uint64_t)p->nverts;
	int64_t u = (int64_t)(key % (uint64_t)p->nverts);
	int64_t lo = p->indptr[u], deg = p->indptr[u + 1] - lo, g = p->goff[r];
	for (int64_t t = 0; t < deg; t++) {
		float x = p->data[lo + t];
		p->gkeys[g + t] = m * (uint64_t)p->nverts + (uint64_t)(uint32_t)p->indices[lo + t];
		p->gval[g + t] = x * x;
		p->gidx[g + t] = (uint32_t)(g + t);
	}
}

/* flag[i] = 1 where a run of equal keys starts */
typedef struct { int64_t n; const uint64_t *keys; int32_t *flag; } bs_lw_heads_p;
BS_HD void bs_lw_heads_thread(const bs_lw_heads_p *p, int64_t i) {
	p->flag[i] = i == 0 || p->keys[i] != p->keys[i - 1];
}

/* Each run's sum, in the run's (stable) order: P's entry (m, v). */
typedef struct {
	int64_t n; const uint64_t *keys; const uint32_t *idx; const float *gval; const int64_t *hscan; int64_t nverts;
	int32_t *pcol; float *pval;
} bs_lw_psum_p;
BS_HD void bs_lw_psum_thread(const bs_lw_psum_p *p, int64_t i) {
	uint64_t key = p->keys[i];
	if (i > 0 && p->keys[i - 1] == key) return;
	float acc = 0;
	for (int64_t j = i; j < p->n && p->keys[j] == key; j++) acc += p->gval[p->idx[j]];
	int64_t seg = p->hscan[i];
	p->pcol[seg] = (int32_t)(key % (uint64_t)p->nverts);
	p->pval[seg] = acc;
}

/* pStart[m] = the first entry of P's row m: the runs before the first key
 * of minibatch m (m = 0..k). */
typedef struct {
	int64_t n; const uint64_t *keys; int64_t len; const int64_t *hscan; int64_t nverts; int64_t *pStart;
} bs_lw_pstart_p;
BS_HD void bs_lw_pstart_thread(const bs_lw_pstart_p *p, int64_t m) {
	uint64_t want = (uint64_t)m * (uint64_t)p->nverts;
	int64_t lo = 0, hi = p->len; /* first i with keys[i] >= want */
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (p->keys[mid] < want) lo = mid + 1; else hi = mid;
	}
	p->pStart[m] = p->hscan[lo];
}

/* out[0] = the float64 sum of the positive values, in order (positiveSum) */
typedef struct { int64_t n; const float *vals; int64_t len; double *out; } bs_lw_total_p;
BS_HD void bs_lw_total_thread(const bs_lw_total_p *p, int64_t t) {
	double total = 0;
	for (int64_t i = 0; i < p->len; i++)
		if (p->vals[i] > 0) total += (double)p->vals[i];
	p->out[t] = total;
}

/* Minibatch m draws its columns from its row of P (LADIES) or the shared
 * row (FastGCN, whose total is fgTotal[0]) with key Row(epoch, first+m,
 * layer, -1), as SelectPerMinibatch: chosen[s·m + j] their column ids,
 * ascending, cpv their values in P, mult their multiplicities (with
 * replacement), ccnt[m] their number, total[m] the row's positive sum. A
 * minibatch with an empty frontier draws nothing. */
typedef struct {
	int64_t n; const int32_t *pcol; const float *pval; const int64_t *pStart; const double *fgTotal; int64_t fgLen;
	const int64_t *frontStart; int64_t s; int64_t flags; uint64_t seed; int64_t epoch; int64_t first; int64_t layer;
	int32_t *chosen; float *cpv; int32_t *mult; int32_t *ccnt; double *total; int32_t *d; double *hk;
} bs_lw_select_p;
BS_HD void bs_lw_select_thread(const bs_lw_select_p *p, int64_t m) {
	int64_t s = p->s;
	p->ccnt[m] = 0;
	p->total[m] = 0;
	if (p->frontStart[m + 1] == p->frontStart[m]) return;
	const int32_t *cols;
	const float *vals;
	int64_t len;
	double total;
	if (p->flags & BS_LW_FASTGCN) {
		cols = p->pcol;
		vals = p->pval;
		len = p->fgLen;
		total = p->fgTotal[0];
	} else {
		int64_t lo = p->pStart[m];
		cols = p->pcol + lo;
		vals = p->pval + lo;
		len = p->pStart[m + 1] - lo;
		total = 0;
		for (int64_t i = 0; i < len; i++)
			if (vals[i] > 0) total += (double)vals[i];
	}
	p->total[m] = total;
	int replace = (p->flags & BS_LW_REPLACE) != 0;
	int32_t *pos = p->chosen + s * m, *mult = p->mult + s * m;
	uint64_t rk = bs_row_key(bs_layer_key(p->seed, p->epoch, p->first + m, p->layer), -1);
	int64_t c = bs_select_row(rk, cols, vals, len, s, 1, replace, pos, mult, p->d + s * m, p->hk + s * m);
	for (int64_t j = 0; j < c; j++) {
		int32_t q = pos[j];
		p->cpv[s * m + j] = vals[q];
		pos[j] = cols[q];
	}
	if (!replace)
		for (int64_t j = 0; j < c; j++) mult[j] = 1;
	p->ccnt[m] = (int32_t)c;
}

/* Minibatch m's chosen columns in F_{l+1} = F_m followed by the chosen
 * vertices not in F_m, ascending (appendNew): slot[s·m + j]; nextLen[m] =
 * |F_{l+1}|; and each chosen column's scale (chooseChunk): c_j·total/p_j
 * divided by the draws Σc_j, or 1 with RowMean. ftoff/fkeys/fvals is the
 * table of F_m (vertex -> position). */
typedef struct {
	int64_t n; const int32_t *chosen; const float *cpv; const int32_t *mult; const int32_t *ccnt; const double *total;
	int64_t s; int64_t flags; const int64_t *frontStart; const int64_t *ftoff; const int32_t *fkeys; const int32_t *fvals;
	int32_t *slot; double *scale; int64_t *nextLen;
} bs_lw_cols_p;
BS_HD void bs_lw_cols_thread(const bs_lw_cols_p *p, int64_t m) {
	int64_t s = p->s, c = p->ccnt[m];
	int64_t f = p->frontStart[m + 1] - p->frontStart[m];
	int64_t base = p->ftoff[m];
	uint32_t mask = (uint32_t)(p->ftoff[m + 1] - base - 1);
	int64_t next = f;
	double draws = 0;
	for (int64_t j = 0; j < c; j++) {
		int32_t q = bs_ht_find(p->fkeys, p->fvals, base, mask, p->chosen[s * m + j]);
		p->slot[s * m + j] = q >= 0 ? q : (int32_t)next++;
		double cj = (double)p->mult[s * m + j];
		draws += cj;
		p->scale[s * m + j] = (p->flags & BS_LW_ROWMEAN) ? 1.0 : cj * p->total[m] / (double)p->cpv[s * m + j];
	}
	if (!(p->flags & BS_LW_ROWMEAN))
		for (int64_t j = 0; j < c; j++) p->scale[s * m + j] /= draws;
	p->nextLen[m] = next;
}

/* F_{l+1}: the frontier copied (thread per frontier row) ... */
typedef struct {
	int64_t n; const int32_t *front; const int64_t *frontStart; int64_t k; const int64_t *srcStart; int32_t *out;
} bs_lw_srcfront_p;
BS_HD void bs_lw_srcfront_thread(const bs_lw_srcfront_p *p, int64_t r) {
	int64_t m = bs_find_segment(p->frontStart, p->k, r);
	p->out[p->srcStart[m] + r - p->frontStart[m]] = p->front[r];
}

/* ... and the new vertices (thread per minibatch); tsize[m] = the capacity
 * of the table of its chosen columns. */
typedef struct {
	int64_t n; const int32_t *chosen; const int32_t *slot; const int32_t *ccnt; int64_t s; const int64_t *frontStart;
	const int64_t *srcStart; int32_t *out; int64_t *tsize;
} bs_lw_srcnew_p;
BS_HD void bs_lw_srcnew_thread(const bs_lw_srcnew_p *p, int64_t m) {
	int64_t s = p->s, f = p->frontStart[m + 1] - p->frontStart[m];
	for (int64_t j = 0; j < p->ccnt[m]; j++)
		if (p->slot[s * m + j] >= f) p->out[p->srcStart[m] + p->slot[s * m + j]] = p->chosen[s * m + j];
	p->tsize[m] = bs_table_size(p->ccnt[m]);
}

/* the table of minibatch m's chosen columns: vertex -> j (thread per (m, j)) */
typedef struct {
	int64_t n; const int32_t *chosen; const int32_t *ccnt; int64_t s; const int64_t *ctoff; int32_t *ckeys; int32_t *cvals;
} bs_lw_cinsert_p;
BS_HD void bs_lw_cinsert_thread(const bs_lw_cinsert_p *p, int64_t t) {
	int64_t m = t / p->s, j = t % p->s;
	if (j >= p->ccnt[m]) return;
	int64_t base = p->ctoff[m];
	bs_ht_insert(p->ckeys, p->cvals, base, (uint32_t)(p->ctoff[m + 1] - base - 1), p->chosen[t], (int32_t)j);
}

/* bs_lw_row_entries visits the entries of row u restricted to minibatch
 * m's chosen columns: a row much longer than the chosen list (a hub) is
 * searched for each chosen column (relabelRows), otherwise scanned. With
 * out non-null it writes (slot, scaled value) pairs; it returns their
 * number. */
#define BS_HUB_FACTOR 16
BS_HD int64_t bs_lw_row_entries(const int64_t *indptr, const int32_t *indices, const float *data, int32_t u,
                                 const int32_t *chosen, const int32_t *slot, const double *scale, int64_t c,
                                 const int64_t *ctoff, const int32_t *ckeys, const int32_t *cvals, int64_t m,
                                 int32_t *oind, float *oval) {
	int64_t lo = indptr[u], deg = indptr[u + 1] - lo, e = 0;
	if (deg > BS_HUB_FACTOR * c) {
		for (int64_t j = 0; j < c; j++) {
			int32_t v = chosen[j];
			int64_t a = lo, b = lo + deg; /* first position with indices >= v */
			while (a < b) {
				int64_t mid = a + (b - a) / 2;
				if (indices[mid] < v) a = mid + 1; else b = mid;
			}
			if (a < lo + deg && indices[a] == v) {
				if (oind) {
					oind[e] = slot[j];
					oval[e] = (float)((double)data[a] * scale[j]);
				}
				e++;
			}
		}
		return e;
	}
	int64_t base = ctoff[m];
	uint32_t mask = (uint32_t)(ctoff[m + 1] - base - 1);
	for (int64_t t = lo; t < lo + deg; t++) {
		int32_t j = bs_ht_find(ckeys, cvals, base, mask, indices[t]);
		if (j < 0) continue;
		if (oind) {
			oind[e] = slot[j];
			oval[e] = (float)((double)data[t] * scale[j]);
		}
		e++;
	}
	return e;
}

/* ecnt[r] = the entries of frontier row r in its minibatch's block */
typedef struct {
	int64_t n; const int32_t *front; const int64_t *frontStart; int64_t k; const int64_t *indptr; const int32_t *indices;
	const int32_t *chosen; const int32_t *ccnt; int64_t s; const int64_t *ctoff; const int32_t *ckeys; const int32_t *cvals;
	int64_t *ecnt;
} bs_lw_ecount_p;
BS_HD void bs_lw_ecount_thread(const bs_lw_ecount_p *p, int64_t r) {
	int64_t m = bs_find_segment(p->frontStart, p->k, r);
	p->ecnt[r] = bs_lw_row_entries(p->indptr, p->indices, 0, p->front[r], p->chosen + p->s * m, 0, 0, p->ccnt[m],
	                               p->ctoff, p->ckeys, p->cvals, m, 0, 0);
}

/* Row r of its minibatch's block: offset, (slot, A[u,v]·scale) sorted by
 * slot, normalised to sum 1 unless Unbiased (relabelRows, normalizeRows). */
typedef struct {
	int64_t n; const int32_t *front; const int64_t *frontStart; int64_t k; const int64_t *indptr; const int32_t *indices;
	const float *data; const int32_t *chosen; const int32_t *slot; const double *scale; const int32_t *ccnt; int64_t s;
	const int64_t *ctoff; const int32_t *ckeys; const int32_t *cvals; int64_t flags; const int64_t *eoff;
	const int64_t *edgeStart; int64_t *outIndptr; int32_t *outIndices; float *outData;
} bs_lw_efill_p;
BS_HD void bs_lw_efill_thread(const bs_lw_efill_p *p, int64_t r) {
	int64_t m = bs_find_segment(p->frontStart, p->k, r);
	int64_t j = r - p->frontStart[m];
	int64_t e0 = p->eoff[r];
	p->outIndptr[p->frontStart[m] + m + j] = e0 - p->edgeStart[m];
	int64_t s = p->s;
	int64_t c = bs_lw_row_entries(p->indptr, p->indices, p->data, p->front[r], p->chosen + s * m, p->slot + s * m,
	                              p->scale + s * m, p->ccnt[m], p->ctoff, p->ckeys, p->cvals, m, p->outIndices + e0,
	                              p->outData + e0);
	bs_sort_pairs(p->outIndices + e0, p->outData + e0, c);
	if (!(p->flags & BS_LW_UNBIASED)) bs_normalize(p->outData + e0, c);
}

#define BS_LW_KERNELS(X)           \
	X(lw_fkeys, bs_lw_fkeys_p)       \
	X(lw_gdeg, bs_lw_gdeg_p)         \
	X(lw_gather, bs_lw_gather_p)     \
	X(lw_heads, bs_lw_heads_p)       \
	X(lw_psum, bs_lw_psum_p)         \
	X(lw_pstart, bs_lw_pstart_p)     \
	X(lw_total, bs_lw_total_p)       \
	X(lw_select, bs_lw_select_p)     \
	X(lw_cols, bs_lw_cols_p)         \
	X(lw_srcfront, bs_lw_srcfront_p) \
	X(lw_srcnew, bs_lw_srcnew_p)     \
	X(lw_cinsert, bs_lw_cinsert_p)   \
	X(lw_ecount, bs_lw_ecount_p)     \
	X(lw_efill, bs_lw_efill_p)

#endif
