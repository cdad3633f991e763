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

/* ---- generic: fills, gathers, scans ---------------------------------- */

typedef struct { int64_t n; int32_t *p; int64_t v; } bs_fill_i32_p;
BS_HD void bs_fill_i32_thread(const bs_fill_i32_p *p, int64_t t) { p->p[t] = (int32_t)p->v; }

typedef struct { int64_t n; int64_t *p; int64_t v; } bs_fill_i64_p;
BS_HD void bs_fill_i64_thread(const bs_fill_i64_p *p, int64_t t) { p->p[t] = p->v; }

typedef struct { int64_t n; float *p; double v; } bs_fill_f32_p;
BS_HD void bs_fill_f32_thread(const bs_fill_f32_p *p, int64_t t) { p->p[t] = (float)p->v; }

/* out[t] = src[idx[t]] */
typedef struct { int64_t n; const int64_t *src; const int64_t *idx; int64_t *out; } bs_gather_i64_p;
BS_HD void bs_gather_i64_thread(const bs_gather_i64_p *p, int64_t t) { p->out[t] = p->src[p->idx[t]]; }

/* out[t] = start[t+1] - start[t] */
typedef struct { int64_t n; const int64_t *start; int64_t *out; } bs_seg_len_p;
BS_HD void bs_seg_len_thread(const bs_seg_len_p *p, int64_t t) { p->out[t] = p->start[t + 1] - p->start[t]; }

/* Exclusive scan in chunks: scan_partial sums chunk t of in (int32 when
 * wide is 0, int64 otherwise) into partial[t]; scan_apply, given base[t]
 * the exclusive scan of the partial sums, writes out[i] for the chunk and,
 * in the last chunk, out[len] = the total. Integer sums: exact in any
 * order. */
BS_HD int64_t bs_load_int(const void *in, int64_t wide, int64_t i) {
	return wide ? ((const int64_t *)in)[i] : (int64_t)((const int32_t *)in)[i];
}

typedef struct { int64_t n; const void *in; int64_t wide; int64_t len; int64_t chunk; int64_t *partial; } bs_scan_partial_p;
BS_HD void bs_scan_partial_thread(const bs_scan_partial_p *p, int64_t t) {
	int64_t lo = t * p->chunk, hi = lo + p->chunk;
	if (hi > p->len) hi = p->len;
	int64_t s = 0;
	for (int64_t i = lo; i < hi; i++) s += bs_load_int(p->in, p->wide, i);
	p->partial[t] = s;
}

typedef struct {
	int64_t n; const void *in; int64_t wide; int64_t len; int64_t chunk; const int64_t *base; int64_t *out;
} bs_scan_apply_p;
BS_HD void bs_scan_apply_thread(const bs_scan_apply_p *p, int64_t t) {
	int64_t lo = t * p->chunk, hi = lo + p->chunk;
	if (hi > p->len) hi = p->len;
	int64_t run = p->base[t];
	for (int64_t i = lo; i < hi; i++) {
		int64_t x = bs_load_int(p->in, p->wide, i);
		p->out[i] = run;
		run += x;
	}
	if (hi == p->len) p->out[p->len] = run;
}

/* ---- stable LSD radix sort of (uint64 key, uint32 value) pairs, 8 bits a
 * pass: rs_hist counts the digits of each chunk (hist[d*nchunks + t]);
 * after an exclusive scan of hist, rs_scatter moves each chunk's pairs in
 * order to their digit's next slot. Stable, hence deterministic. */
#define BS_RADIX 256

typedef struct { int64_t n; const uint64_t *keys; int64_t len; int64_t chunk; int64_t shift; int32_t *hist; } bs_rs_hist_p;
BS_HD void bs_rs_hist_thread(const bs_rs_hist_p *p, int64_t t) {
	int32_t cnt[BS_RADIX];
	for (int d = 0; d < BS_RADIX; d++) cnt[d] = 0;
	int64_t lo = t * p->chunk, hi = lo + p->chunk;
	if (hi > p->len) hi = p->len;
	for (int64_t i = lo; i < hi; i++) cnt[(p->keys[i] >> p->shift) & (BS_RADIX - 1)]++;
	for (int d = 0; d < BS_RADIX; d++) p->hist[(int64_t)d * p->n + t] = cnt[d];
}

typedef struct {
	int64_t n; const uint64_t *keys; const uint32_t *vals; int64_t len; int64_t chunk; int64_t shift;
	const int64_t *offs; uint64_t *keysOut; uint32_t *valsOut;
} bs_rs_scatter_p;
BS_HD void bs_rs_scatter_thread(const bs_rs_scatter_p *p, int64_t t) {
	int64_t off[BS_RADIX];
	for (int d = 0; d < BS_RADIX; d++) off[d] = p->offs[(int64_t)d * p->n + t];
	int64_t lo = t * p->chunk, hi = lo + p->chunk;
	if (hi > p->len) hi = p->len;
	for (int64_t i = lo; i < hi; i++) {
		uint64_t k = p->keys[i];
		int64_t dst = off[(k >> p->shift) & (BS_RADIX - 1)]++;
		p->keysOut[dst] = k;
		p->valsOut[dst] = p->vals[i];
	}
}

/* ---- per-minibatch hash tables ---------------------------------------- */

/* bs_table_size is the capacity of a table for count keys: a power of two
 * of at least twice count (at least 2), so that probes stay short and
 * always end. */
BS_HD int64_t bs_table_size(int64_t count) {
	int64_t c = 2;
	while (c < 2 * count) c *= 2;
	return c;
}

/* ---- deduplication of the seeds (first occurrences, in order) ---------- */

/* tsize[m] = table capacity for minibatch m's seeds */
typedef struct { int64_t n; const int64_t *start; int64_t *tsize; } bs_sd_table_p;
BS_HD void bs_sd_table_thread(const bs_sd_table_p *p, int64_t t) {
	p->tsize[t] = bs_table_size(p->start[t + 1] - p->start[t]);
}

typedef struct {
	int64_t n; const int32_t *seeds; const int64_t *start; int64_t k; const int64_t *toff; int32_t *keys; int32_t *vals;
} bs_sd_insert_p;
BS_HD void bs_sd_insert_thread(const bs_sd_insert_p *p, int64_t t) {
	int64_t m = bs_find_segment(p->start, p->k, t);
	bs_ht_insert(p->keys, p->vals, p->toff[m], (uint32_t)(p->toff[m + 1] - p->toff[m] - 1), p->seeds[t],
	             (int32_t)(t - p->start[m]));
}

/* flag[t] = 1 where seed t is its minibatch's first occurrence of its vertex */
typedef struct {
	int64_t n; const int32_t *seeds; const int64_t *start; int64_t k; const int64_t *toff; const int32_t *keys;
	const int32_t *vals; int32_t *flag;
} bs_sd_flag_p;
BS_HD void bs_sd_flag_thread(const bs_sd_flag_p *p, int64_t t) {
	int64_t m = bs_find_segment(p->start, p->k, t);
	int32_t q = bs_ht_find(p->keys, p->vals, p->toff[m], (uint32_t)(p->toff[m + 1] - p->toff[m] - 1), p->seeds[t]);
	p->flag[t] = q == (int32_t)(t - p->start[m]);
}

/* out[fscan[t]] = seeds[t] for the first occurrences */
typedef struct { int64_t n; const int32_t *seeds; const int32_t *flag; const int64_t *fscan; int32_t *out; } bs_sd_emit_p;
BS_HD void bs_sd_emit_thread(const bs_sd_emit_p *p, int64_t t) {
	if (p->flag[t]) p->out[p->fscan[t]] = p->seeds[t];
}

/* ---- node-wise sampling of one layer (sampling/nodewise_kernel.go) ------
 * The rows of the layer are the frontiers of the k minibatches back to
 * back (front, offsets frontStart); row r is position j = r - frontStart[m]
 * of minibatch m's frontier F_m and is expanded unless j < skip[m]
 * (FrontierNew: the rows expanded at an earlier layer). */

#define BS_NW_WEIGHTED 1
#define BS_NW_REPLACE 2
#define BS_NW_VALUES 4

/* bound[r] = the selection bound of row r (0 if not expanded); rowmb[r] = m */
typedef struct {
	int64_t n; const int32_t *front; const int64_t *frontStart; int64_t k; const int32_t *skip; const int64_t *indptr;
	int64_t s; int64_t *bound; int32_t *rowmb;
} bs_nw_bound_p;
BS_HD void bs_nw_bound_thread(const bs_nw_bound_p *p, int64_t r) {
	int64_t m = bs_find_segment(p->frontStart, p->k, r);
	p->rowmb[r] = (int32_t)m;
	int64_t j = r - p->frontStart[m];
	if (j < p->skip[m]) {
		p->bound[r] = 0;
		return;
	}
	int32_t v = p->front[r];
	p->bound[r] = bs_select_bound(p->indptr[v + 1] - p->indptr[v], p->s);
}

/* Row r draws its picks with key Row(epoch, first+m, layer, v): their global
 * ids at picks[boff[r]...], their values (pickValue) at pvals[boff[r]...]
 * when BS_NW_VALUES, their number in cnt[r]. Scratch: 2s int32 at
 * iscratch[2sr] with replacement, s doubles at fscratch[sr] when weighted. */
typedef struct {
	int64_t n; const int32_t *front; const int32_t *rowmb; const int64_t *frontStart; const int32_t *skip;
	const int64_t *indptr; const int32_t *indices; const float *data; int64_t s; int64_t flags;
	uint64_t seed; int64_t epoch; int64_t first; int64_t layer; const int64_t *boff;
	int32_t *picks; float *pvals; int32_t *cnt; int32_t *iscratch; double *fscratch;
} bs_nw_select_p;
BS_HD void bs_nw_select_thread(const bs_nw_select_p *p, int64_t r) {
	int64_t m = p->rowmb[r];
	p->cnt[r] = 0;
	if (r - p->frontStart[m] < p->skip[m]) return;
	int32_t v = p->front[r];
	int64_t lo = p->indptr[v], deg = p->indptr[v + 1] - lo;
	int weighted = (p->flags & BS_NW_WEIGHTED) != 0, replace = (p->flags & BS_NW_REPLACE) != 0;
	int64_t s = p->s, o = p->boff[r];
	int32_t *pos = p->picks + o;
	int32_t *d = 0, *mult = 0;
	double *hk = 0;
	if (replace && s > 0) {
		d = p->iscratch + 2 * s * r;
		mult = d + s;
	}
	if (weighted && s > 0) hk = p->fscratch + s * r;
	const float *vals = weighted ? p->data + lo : 0;
	uint64_t rk = bs_row_key(bs_layer_key(p->seed, p->epoch, p->first + m, p->layer), v);
	int64_t c = bs_select_row(rk, p->indices + lo, vals, deg, s, weighted, replace, pos, mult, d, hk);
	for (int64_t j = 0; j < c; j++) {
		int32_t q = pos[j];
		if (p->flags & BS_NW_VALUES) {
			float w = weighted ? vals[q] : 1.0f;
			p->pvals[o + j] = (replace && s >= 0) ? (float)mult[j] * w : w;
		}
		pos[j] = p->indices[lo + q];
	}
	p->cnt[r] = (int32_t)c;
}

/* Per minibatch: where its entries start (edgeStart, k+1 entries) and the
 * capacity of its dedup table (its frontier plus its picks). */
typedef struct {
	int64_t n; const int64_t *frontStart; const int64_t *eoff; int64_t *edgeStart; int64_t *tsize;
} bs_nw_mbinfo_p;
BS_HD void bs_nw_mbinfo_thread(const bs_nw_mbinfo_p *p, int64_t m) {
	int64_t e0 = p->eoff[p->frontStart[m]], e1 = p->eoff[p->frontStart[m + 1]];
	p->edgeStart[m] = e0;
	if (m == p->n - 1) p->edgeStart[m + 1] = e1;
	p->tsize[m] = bs_table_size(p->frontStart[m + 1] - p->frontStart[m] + e1 - e0);
}

/* The minibatch m of row r, |F_m| and m's dedup table (base, mask). */
typedef struct {
	int64_t m, f, base;
	uint32_t mask;
} bs_nw_row;
BS_HD bs_nw_row bs_nw_row_of(const int32_t *rowmb, const int64_t *frontStart, const int64_t *toff, int64_t r) {
	bs_nw_row w;
	w.m = rowmb[r];
	w.f = frontStart[w.m + 1] - frontStart[w.m];
	w.base = toff[w.m];
	w.mask = (uint32_t)(toff[w.m + 1] - w.base - 1);
	return w;
}

/* The dedup tables: minibatch m's table maps each vertex of F_m and of its
 * picks to its first position in the list F_m followed by the picks (rows
 * in order, a row's picks in column order). */
typedef struct {
	int64_t n; const int32_t *front; const int32_t *rowmb; const int64_t *frontStart; const int64_t *eoff;
	const int64_t *boff; const int32_t *picks; const int64_t *edgeStart; const int64_t *toff; int32_t *keys; int32_t *vals;
} bs_nw_insert_p;
BS_HD void bs_nw_insert_thread(const bs_nw_insert_p *p, int64_t r) {
	bs_nw_row w = bs_nw_row_of(p->rowmb, p->frontStart, p->toff, r);
	bs_ht_insert(p->keys, p->vals, w.base, w.mask, p->front[r], (int32_t)(r - p->frontStart[w.m]));
	int64_t e0 = p->eoff[r], c = p->eoff[r + 1] - e0;
	for (int64_t i = 0; i < c; i++)
		bs_ht_insert(p->keys, p->vals, w.base, w.mask, p->picks[p->boff[r] + i], (int32_t)(w.f + e0 + i - p->edgeStart[w.m]));
}

/* flag[e] = 1 where pick e is the first appearance of a vertex new to its
 * minibatch (in no frontier position, at no earlier pick). */
typedef struct {
	int64_t n; const int32_t *rowmb; const int64_t *frontStart; const int64_t *eoff; const int64_t *boff;
	const int32_t *picks; const int64_t *edgeStart; const int64_t *toff; const int32_t *keys; const int32_t *vals;
	int32_t *flag;
} bs_nw_flag_p;
BS_HD void bs_nw_flag_thread(const bs_nw_flag_p *p, int64_t r) {
	bs_nw_row w = bs_nw_row_of(p->rowmb, p->frontStart, p->toff, r);
	int64_t e0 = p->eoff[r], c = p->eoff[r + 1] - e0;
	for (int64_t i = 0; i < c; i++) {
		int32_t q = bs_ht_find(p->keys, p->vals, w.base, w.mask, p->picks[p->boff[r] + i]);
		p->flag[e0 + i] = q == (int32_t)(w.f + e0 + i - p->edgeStart[w.m]);
	}
}

/* srclen[m] = |F_m| + the new vertices of minibatch m */
typedef struct {
	int64_t n; const int64_t *frontStart; const int64_t *edgeStart; const int64_t *fscan; int64_t *srclen;
} bs_nw_srclen_p;
BS_HD void bs_nw_srclen_thread(const bs_nw_srclen_p *p, int64_t m) {
	p->srclen[m] = p->frontStart[m + 1] - p->frontStart[m] + p->fscan[p->edgeStart[m + 1]] - p->fscan[p->edgeStart[m]];
}

/* Row r's part of the block: its row offset (local to the minibatch), its
 * entries renumbered to local columns (frontier positions, then new
 * vertices numbered in order of first appearance), their values (1, the
 * multiplicities, or the weights normalised per row in pick order), sorted
 * by column; its frontier vertex and its picks' new vertices in the
 * minibatch's sources F_{l+1} (outSrc at srcStart[m]). */
typedef struct {
	int64_t n; const int32_t *front; const int32_t *rowmb; const int64_t *frontStart; const int64_t *eoff;
	const int64_t *boff; const int32_t *picks; const float *pvals; const int64_t *edgeStart; const int64_t *toff;
	const int32_t *keys; const int32_t *vals; const int64_t *fscan; const int64_t *srcStart; int64_t flags;
	int64_t *outIndptr; int32_t *outIndices; float *outData; int32_t *outSrc;
} bs_nw_emit_p;
BS_HD void bs_nw_emit_thread(const bs_nw_emit_p *p, int64_t r) {
	bs_nw_row w = bs_nw_row_of(p->rowmb, p->frontStart, p->toff, r);
	int64_t m = w.m, f = w.f;
	int64_t j = r - p->frontStart[m];
	int64_t eb = p->edgeStart[m];
	p->outSrc[p->srcStart[m] + j] = p->front[r];
	p->outIndptr[p->frontStart[m] + m + j] = p->eoff[r] - eb;
	int64_t e0 = p->eoff[r], c = p->eoff[r + 1] - e0;
	int32_t *ind = p->outIndices + e0;
	float *dat = p->outData + e0;
	for (int64_t i = 0; i < c; i++) {
		int32_t v = p->picks[p->boff[r] + i];
		int32_t q = bs_ht_find(p->keys, p->vals, w.base, w.mask, v);
		int32_t id = q;
		if (q >= f) {
			int64_t first = eb + (q - f); /* the pick where v first appears */
			id = (int32_t)(f + p->fscan[first] - p->fscan[eb]);
			if (first == e0 + i) p->outSrc[p->srcStart[m] + id] = v;
		}
		ind[i] = id;
		dat[i] = (p->flags & BS_NW_VALUES) ? p->pvals[p->boff[r] + i] : 1.0f;
	}
	if (p->flags & BS_NW_WEIGHTED) bs_normalize(dat, c);
	if (p->flags & BS_NW_VALUES)
		bs_sort_pairs(ind, dat, c);
	else
		bs_sort_i32(ind, c);
}

/* the last row offset of each minibatch's block: its number of entries */
typedef struct { int64_t n; const int64_t *frontStart; const int64_t *edgeStart; int64_t *outIndptr; } bs_nw_mbend_p;
BS_HD void bs_nw_mbend_thread(const bs_nw_mbend_p *p, int64_t m) {
	p->outIndptr[p->frontStart[m + 1] + m] = p->edgeStart[m + 1] - p->edgeStart[m];
}

/* deg[t] = the degree in A of src[t] (NodeWiseOptions.Degrees) */
typedef struct { int64_t n; const int32_t *src; const int64_t *indptr; int32_t *deg; } bs_nw_deg_p;
BS_HD void bs_nw_deg_thread(const bs_nw_deg_p *p, int64_t t) {
	int32_t v = p->src[t];
	p->deg[t] = (int32_t)(p->indptr[v + 1] - p->indptr[v]);
}

/* skip[m] = |F_m| as int32 (FrontierNew: the rows the next layer skips) */
typedef struct { int64_t n; const int64_t *start; int32_t *skip; } bs_nw_skip_p;
BS_HD void bs_nw_skip_thread(const bs_nw_skip_p *p, int64_t m) { p->skip[m] = (int32_t)(p->start[m + 1] - p->start[m]); }

#include "bs_layerwise.h"
#include "bs_gather.h"
#include "bs_nn.h"

/* Every kernel: X(name, parameter struct). */
#define BS_KERNELS(X)            \
	X(fill_i32, bs_fill_i32_p)         \
	X(fill_i64, bs_fill_i64_p)         \
	X(fill_f32, bs_fill_f32_p)         \
	X(gather_i64, bs_gather_i64_p)     \
	X(seg_len, bs_seg_len_p)           \
	X(scan_partial, bs_scan_partial_p) \
	X(scan_apply, bs_scan_apply_p)     \
	X(rs_hist, bs_rs_hist_p)           \
	X(rs_scatter, bs_rs_scatter_p)     \
	X(sd_table, bs_sd_table_p)         \
	X(sd_insert, bs_sd_insert_p)       \
	X(sd_flag, bs_sd_flag_p)           \
	X(sd_emit, bs_sd_emit_p)           \
	X(nw_bound, bs_nw_bound_p)         \
	X(nw_select, bs_nw_select_p)       \
	X(nw_mbinfo, bs_nw_mbinfo_p)       \
	X(nw_insert, bs_nw_insert_p)       \
	X(nw_flag, bs_nw_flag_p)           \
	X(nw_srclen, bs_nw_srclen_p)       \
	X(nw_emit, bs_nw_emit_p)           \
	X(nw_mbend, bs_nw_mbend_p)         \
	X(nw_deg, bs_nw_deg_p)             \
	X(nw_skip, bs_nw_skip_p)           \
	BS_LW_KERNELS(X)                   \
	BS_GATHER_KERNELS(X)               \
	BS_NN_KERNELS(X)

#endif
