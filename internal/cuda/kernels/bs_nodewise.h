/* bs_nodewise.h: node-wise sampling of one layer of a bulk in three block
 * kernels (sampling/nodewise.go's laws and order, bit for bit).
 *
 * The rows of the layer are the frontiers of the k minibatches back to
 * back (front, offsets frontStart); row r is position j = r - frontStart[m]
 * of minibatch m's frontier F_m and is expanded unless j < skip[m] (with
 * FrontierNew, skip[m] is m's frontier at the layer before, prevStart).
 *
 *  1. nw_select, a tile of BS_T rows per block: each row counts its picks
 *     (cheaply: the count of a uniform or weighted row without
 *     replacement is known from its degree or its positive weights), a
 *     single-pass scan of the counts (decoupled look-back) gives the
 *     entries' offsets eoff, then the row draws its picks with its row key
 *     (bs_select_row's laws) and enters its frontier vertex and each pick
 *     in minibatch m's hash table, once each: a slot holds (vertex+1) << 32
 *     | position, the smallest position the vertex entered with (one atomic
 *     compare-and-swap, or a minimum when the vertex is there), where the
 *     frontier vertex at j has position j and pick e has rows + e, so
 *     that the minimum is the vertex's first appearance in "F_m, then the
 *     picks in row and column order" whatever the order of the threads.
 *     The pick's slot is recorded (pickslot) and its value written.
 *  2. nw_flag, rows again: a pick reads its slot (no second probe): a
 *     frontier vertex's position is its local column; otherwise the slot
 *     names the pick where the vertex first appears, and that first pick
 *     is a new vertex. A scan of the rows' new vertices numbers them g in
 *     order of first appearance over the whole bulk; the first pick writes
 *     its vertex at frontStart[m+1] + g of the sources (F_{l+1} of m is F_m
 *     followed by its new vertices, and m's new vertices before g number
 *     g - G_m, with G_m those of the minibatches before m, so its place is
 *     srcStart[m] + |F_m| + g - G_m = frontStart[m+1] + g).
 *  3. nw_emit: each row's block row (its offset, its picks' local columns
 *     |F_m| + g - G_m for a new vertex, sorted with their values), the
 *     frontier's part of the sources, each minibatch's offsets (the one
 *     copy the host reads per layer: edgeStart and srcStart), and the
 *     clearing of the hash tables, which nothing reads after nw_flag.
 *
 * The tables are sized from host bounds: minibatch m's table has
 * BS_NW_SLOTS(x_{m+1}) - BS_NW_SLOTS(x_m) slots, x_m = frontStart[m] +
 * B(frontStart[m]), where B(r) = r·s bounds the picks of the rows before
 * r (for s < 0 the scan of the rows' degrees, nw_bound): 3/2 of the
 * entries that can enter it (rounded down: never fewer than the entries,
 * so an insertion always finds its vertex or a free slot; the bound
 * exceeds the distinct vertices, so the load is lower). The bulk's
 * tables, in proportion to the bulk, are cleared by nw_emit's threads in
 * proportion too. */
#ifndef BS_NODEWISE_CUH
#define BS_NODEWISE_CUH

#include "bs_common.h"
#include "bs_select.h"
#include "bs_block.h"

#define BS_NW_WEIGHTED 1
#define BS_NW_REPLACE 2
#define BS_NW_VALUES 4
#define BS_NW_DEGREES 8

/* A row's selection scratch lives in registers (local arrays) up to this
 * fanout, else in global memory at iscratch/fscratch + r·s. */
#define BS_NW_LOCAL 32
/* The slots of the tables before a bound of x entries. */
#define BS_NW_SLOTS(x) (3 * (x) / 2)

/* The parameters of every kernel of a layer. n is the launch's tiles. */
typedef struct {
	int64_t n, rows, k, s, flags;
	uint64_t seed;
	int64_t epoch, first, layer;
	const int32_t *front;
	const int64_t *frontStart, *prevStart; /* prevStart: 0 unless FrontierNew after layer 0 */
	const int64_t *indptr;
	const int32_t *indices;
	const float *data;
	int64_t *boff;   /* s < 0: the scan of the rows' bounds (nw_bound); else unused */
	uint64_t *table; /* the bulk's hash tables, zero between layers */
	int64_t tslots;  /* the slots of the layer's tables */
	int32_t *eoff;   /* rows+1 */
	uint32_t *pickslot;
	int32_t *newBefore; /* rows+1: the new vertices of the rows before */
	uint32_t *newidx;   /* at a vertex's first pick: its number g */
	int32_t *iscratch;
	double *fscratch;
	int64_t *outIndptr;
	int32_t *outIndices;
	float *outData;
	int32_t *outSrc;
	int32_t *outDeg;
	int64_t *summary; /* edgeStart (k+1), then srcStart (k+1) */
	bs_lb_ctl *ctl;
	uint64_t *status;
} bs_nw_p;

/* A long row (more than BS_NW_LOCAL picks) that the whole block draws or
 * sorts, published by the thread it belongs to. */
typedef struct {
	int64_t r, v, lo, deg, c, m, e0, base, cap, f, g;
	int32_t whole;
} bs_nw_long;

typedef struct {
	bs_lb_sh lb;
	bs_seg_tile t;
	int32_t nlong, li; /* the tile's long rows; the one the block is on */
	bs_nw_long L;
} bs_nw_s;

/* nw_emit's shared memory: a long row's (local column, position) pairs
 * and values, sorted by the block. */
#define BS_NW_SORT 1024
typedef struct {
	bs_nw_s nw;
	double key[BS_NW_SORT];
	int32_t pos[BS_NW_SORT];
	float val[BS_NW_SORT];
} bs_nw_emit_s;

/* A thread's row across barriers (its minibatch first: bs_seg_row). */
typedef struct {
	bs_seg_row w;
	int64_t j, v, lo, deg, c, e0, base, cap;
	uint64_t firsts; /* nw_flag: the row's picks that are first appearances (rows of at most 64) */
	int32_t li;      /* a long row's index among the tile's, else -1 */
	bs_bitonic b;
} bs_nw_l;

/* B(r): the bound of the picks of the rows before r. */
BS_HD int64_t bs_nw_bound_before(const bs_nw_p *p, int64_t r) { return p->s >= 0 ? r * p->s : BS_LD(p->boff, r); }

/* The skip of minibatch m: its frontier at the layer before (FrontierNew). */
BS_HD int64_t bs_nw_skip(const bs_nw_p *p, int64_t m) {
	return p->prevStart ? BS_LD(p->prevStart, m + 1) - BS_LD(p->prevStart, m) : 0;
}

/* bs_nw_count is bs_select_row's number of picks, without the draws where
 * the laws give it (the whole row, Floyd's s, the positive weights), with
 * them (into scratch) otherwise. */
BS_HD int64_t bs_nw_count(const bs_nw_p *p, uint64_t rk, const int32_t *cols, const float *vals, int64_t deg, int32_t *pos,
                          int32_t *mult, int32_t *d, double *hk) {
	int64_t s = p->s;
	int weighted = (p->flags & BS_NW_WEIGHTED) != 0, replace = (p->flags & BS_NW_REPLACE) != 0;
	if (deg == 0 || s == 0) return 0;
	if (weighted && !(replace && s >= 0)) {
		int64_t npos = bs_count_positive(vals, deg);
		return s < 0 || npos <= s ? npos : s;
	}
	if (!weighted && (s < 0 || (deg <= s && !replace))) return deg;
	if (!weighted && !replace) return s; /* Floyd: s < deg distinct picks */
	return bs_select_row(rk, cols, vals, deg, s, weighted, replace, pos, mult, d, hk);
}

/* bs_nw_key is the row key of row r's vertex v in minibatch m. */
BS_HD uint64_t bs_nw_key(const bs_nw_p *p, int64_t m, int32_t v) {
	return bs_row_key(bs_layer_key(p->seed, p->epoch, p->first + m, p->layer), v);
}

/* bs_ht64_insert enters vertex v with position pos in the table of cap
 * slots at base (slots (v+1) << 32 | position, 0 empty, linear probing from
 * v's hash), keeping v's smallest position, and returns v's slot. A plain
 * load may see a slot late but never wrong: a slot goes from 0 to a vertex
 * for good, and its position only decreases. */
BS_HD uint32_t bs_ht64_insert(uint64_t *t, int64_t base, int64_t cap, int32_t v, uint32_t pos) {
	uint64_t key = (uint64_t)(uint32_t)(v + 1), want = key << 32 | pos;
	int64_t h = (int64_t)(((uint64_t)bs_hash32(v) * (uint64_t)cap) >> 32);
	for (;;) {
		uint64_t cur = BS_LD(t, base + h);
		if (cur == 0) {
			cur = bs_atomic_cas_u64(&t[base + h], 0, want);
			if (cur == 0) return (uint32_t)(base + h);
		}
		if (cur >> 32 == key) {
			if ((uint32_t)cur > pos) bs_atomic_min_u64(&t[base + h], want);
			return (uint32_t)(base + h);
		}
		if (++h == cap) h = 0;
	}
}

/* bs_nw_pick enters pick i of row r (global vertex col, value w) at entry e. */
BS_HD void bs_nw_pick(const bs_nw_p *p, int64_t base, int64_t cap, int64_t e, int32_t col, float w) {
	BS_ST(p->pickslot, e, bs_ht64_insert(p->table, base, cap, col, (uint32_t)(p->rows + e)));
	BS_ST(p->outData, e, w);
}

/* bs_nw_draw draws row lo's c picks into entries e0.. and the table. */
BS_HD void bs_nw_draw(const bs_nw_p *p, const bs_nw_l *lo, int64_t r, int64_t e0, int64_t base, int64_t cap) {
	int64_t s = p->s, deg = lo->deg, c = lo->c;
	int weighted = (p->flags & BS_NW_WEIGHTED) != 0, replace = (p->flags & BS_NW_REPLACE) != 0;
	const int32_t *cols = p->indices + lo->lo;
	const float *vals = weighted ? p->data + lo->lo : 0;
	if (c == deg && (!replace || s < 0)) { /* the whole row (weighted: every entry is positive) */
		for (int64_t q = 0; q < deg; q++) bs_nw_pick(p, base, cap, e0 + q, BS_LD(cols, q), weighted ? BS_LD(vals, q) : 1.0f);
	} else if (weighted && !(replace && s >= 0) && (s < 0 || c < s)) { /* every positive entry */
		int64_t i = 0;
		for (int64_t q = 0; q < deg; q++) {
			float w = BS_LD(vals, q);
			if (w > 0) bs_nw_pick(p, base, cap, e0 + i++, BS_LD(cols, q), w);
		}
	} else {
		int32_t lpos[BS_NW_LOCAL], lmult[BS_NW_LOCAL], ld[BS_NW_LOCAL];
		double lhk[BS_NW_LOCAL];
		int32_t *pos = lpos, *mult = lmult, *d = ld;
		double *hk = lhk;
		if (s > BS_NW_LOCAL) {
			pos = p->iscratch + 3 * s * r;
			mult = pos + s;
			d = mult + s;
			hk = p->fscratch + s * r;
		}
		BS_SCRATCH_GLOBAL(s > BS_NW_LOCAL);
		uint64_t rk = bs_nw_key(p, lo->w.m, (int32_t)lo->v);
		bs_select_row(rk, cols, vals, deg, s, weighted, replace, pos, mult, d, hk);
		for (int64_t i = 0; i < c; i++) {
			int32_t q = BS_LDS(pos, i);
			float w = weighted ? BS_LD(vals, q) : 1.0f;
			if (replace && s >= 0) w = (float)BS_LDS(mult, i) * w;
			bs_nw_pick(p, base, cap, e0 + i, BS_LD(cols, q), w);
		}
	}
	if (weighted) {
		BS_SCRATCH_GLOBAL(1);
		bs_normalize(p->outData + e0, c);
	}
}

/* bs_nw_block_row says how the block draws row lo's picks (more than
 * BS_NW_LOCAL): 1 for the whole row (every entry, positive when
 * weighted), 0 from positions the row's thread selects into the global
 * scratch (fanouts above BS_NW_LOCAL), -1 when its own thread must (the
 * positive entries of a weighted row with every neighbour). */
BS_HD int bs_nw_block_row(const bs_nw_p *p, const bs_nw_l *lo) {
	if (lo->c == lo->deg && (!(p->flags & BS_NW_REPLACE) || p->s < 0)) return 1;
	return p->s > BS_NW_LOCAL ? 0 : -1;
}

/* bs_nw_publish (the row's thread): the long row into shared memory, its
 * positions drawn into the scratch unless whole. */
BS_HD void bs_nw_publish(const bs_nw_p *p, const bs_nw_l *lo, int64_t r, bs_nw_long *L) {
	L->r = r, L->v = lo->v, L->lo = lo->lo, L->deg = lo->deg, L->c = lo->c, L->m = lo->w.m;
	L->e0 = lo->e0, L->base = lo->base, L->cap = lo->cap;
	L->whole = bs_nw_block_row(p, lo);
	if (L->whole) return;
	int64_t s = p->s;
	int32_t *pos = p->iscratch + 3 * s * r, *mult = pos + s, *d = mult + s;
	int weighted = (p->flags & BS_NW_WEIGHTED) != 0;
	BS_SCRATCH_GLOBAL(1);
	bs_select_row(bs_nw_key(p, lo->w.m, (int32_t)lo->v), p->indices + lo->lo, weighted ? p->data + lo->lo : 0, lo->deg, s, weighted,
	              (p->flags & BS_NW_REPLACE) != 0, pos, mult, d, weighted ? p->fscratch + s * r : 0);
}

/* ---- nw_bound (s < 0): boff = the scan of the rows' degrees (0 for the
 * rows not expanded), boff[rows] their total. */
BS_HD int bs_nw_bound_phase(const bs_nw_p *p, bs_nw_s *sh, bs_nw_l *lo, const bs_thr *th, int ph) {
	int64_t r;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2:
		if (bs_seg_tile_fs(&sh->t, p->frontStart, th) && th->tid < sh->t.nm) sh->t.x[th->tid] = bs_nw_skip(p, sh->t.m0 + th->tid);
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		lo->c = 0;
		if (r < p->rows) {
			if (!bs_seg_row_of(&sh->t, p->frontStart, p->k, r, &lo->w)) lo->w.x = bs_nw_skip(p, lo->w.m);
			if (r - lo->w.s0 >= lo->w.x) {
				int32_t v = BS_LD(p->front, r);
				lo->c = BS_LD(p->indptr, v + 1) - BS_LD(p->indptr, v);
			}
		}
		sh->lb.v[th->tid] = lo->c;
		return 4;
	BS_LB_SCAN_PHASES(4, p->status, &sh->lb, th)
	case 8:
		r = sh->t.r0 + th->tid;
		if (r < p->rows) {
			bs_lb_offset(p->boff, r, p->rows, bs_lb_excl(&sh->lb, th->tid), lo->c);
		}
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- nw_select: counts, their scan, the draws and the tables. */
BS_HD int bs_nw_select_phase(const bs_nw_p *p, bs_nw_s *sh, bs_nw_l *lo, const bs_thr *th, int ph) {
	int64_t r;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2:
		/* x: the skip of each minibatch of the tile */
		if (bs_seg_tile_fs(&sh->t, p->frontStart, th) && th->tid < sh->t.nm) sh->t.x[th->tid] = bs_nw_skip(p, sh->t.m0 + th->tid);
		if (th->tid == 0) sh->nlong = 0;
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		lo->c = 0;
		if (r < p->rows) {
			if (!bs_seg_row_of(&sh->t, p->frontStart, p->k, r, &lo->w)) lo->w.x = bs_nw_skip(p, lo->w.m);
			lo->j = r - lo->w.s0;
			lo->v = BS_LD(p->front, r);
			if (lo->j >= lo->w.x) {
				int32_t v = (int32_t)lo->v;
				lo->lo = BS_LD(p->indptr, v);
				lo->deg = BS_LD(p->indptr, v + 1) - lo->lo;
				int32_t lpos[BS_NW_LOCAL], lmult[BS_NW_LOCAL], ld[BS_NW_LOCAL];
				double lhk[BS_NW_LOCAL];
				int32_t *pos = lpos, *mult = lmult, *d = ld;
				double *hk = lhk;
				if (p->s > BS_NW_LOCAL) {
					pos = p->iscratch + 3 * p->s * r;
					mult = pos + p->s;
					d = mult + p->s;
					hk = p->fscratch + p->s * r;
				}
				BS_SCRATCH_GLOBAL(p->s > BS_NW_LOCAL);
				const float *vals = (p->flags & BS_NW_WEIGHTED) ? p->data + lo->lo : 0;
				lo->c = bs_nw_count(p, bs_nw_key(p, lo->w.m, v), p->indices + lo->lo, vals, lo->deg, pos, mult, d, hk);
			}
		}
		sh->lb.v[th->tid] = lo->c;
		return 4;
	BS_LB_SCAN_PHASES(4, p->status, &sh->lb, th)
	case 8:
		r = sh->t.r0 + th->tid;
		lo->li = -1;
		if (r < p->rows) {
			int64_t e0 = bs_lb_excl(&sh->lb, th->tid);
			bs_lb_offset32(p->eoff, r, p->rows, e0, lo->c);
			int64_t base = BS_NW_SLOTS(lo->w.s0 + bs_nw_bound_before(p, lo->w.s0));
			int64_t cap = BS_NW_SLOTS(lo->w.s1 + bs_nw_bound_before(p, lo->w.s1)) - base;
			bs_ht64_insert(p->table, base, cap, (int32_t)lo->v, (uint32_t)lo->j);
			lo->e0 = e0, lo->base = base, lo->cap = cap;
			if (lo->c > BS_NW_LOCAL && bs_nw_block_row(p, lo) >= 0)
				lo->li = bs_atomic_add_shared_i32(&sh->nlong, 1);
			else if (lo->c > 0)
				bs_nw_draw(p, lo, r, e0, base, cap);
		}
		return 9;
	case 9:
		if (th->tid == 0) sh->li = 0;
		return 10;
	case 10: /* the long rows, one at a time, by the block */
		if (sh->li >= sh->nlong) return 0;
		if (lo->li == sh->li) bs_nw_publish(p, lo, sh->t.r0 + th->tid, &sh->L);
		return 11;
	case 11: {
		const bs_nw_long *L = &sh->L;
		int weighted = (p->flags & BS_NW_WEIGHTED) != 0, replace = (p->flags & BS_NW_REPLACE) != 0;
		const int32_t *pos = p->iscratch + 3 * p->s * L->r, *mult = pos + p->s;
		BS_SCRATCH_GLOBAL(1);
		for (int64_t i = th->tid; i < L->c; i += BS_T) {
			int64_t q = L->whole ? i : BS_LDS(pos, i);
			float w = weighted ? BS_LD(p->data, L->lo + q) : 1.0f;
			if (!L->whole && replace && p->s >= 0) w = (float)BS_LDS(mult, i) * w;
			bs_nw_pick(p, L->base, L->cap, L->e0 + i, BS_LD(p->indices, L->lo + q), w);
		}
		return 12;
	}
	case 12:
		if (lo->li == sh->li && (p->flags & BS_NW_WEIGHTED)) { /* in pick order: one thread's sum */
			BS_SCRATCH_GLOBAL(1);
			bs_normalize(p->outData + lo->e0, lo->c);
		}
		return 13;
	case 13:
		if (th->tid == 0) sh->li++;
		return 10;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- nw_flag: first appearances, their numbers and their sources. */
BS_HD int bs_nw_flag_phase(const bs_nw_p *p, bs_nw_s *sh, bs_nw_l *lo, const bs_thr *th, int ph) {
	int64_t r;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2:
		bs_seg_tile_fs(&sh->t, p->frontStart, th);
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		lo->c = 0;
		lo->firsts = 0;
		if (r < p->rows) {
			bs_seg_row_of(&sh->t, p->frontStart, p->k, r, &lo->w);
			lo->lo = BS_LD(p->eoff, r);
			lo->deg = BS_LD(p->eoff, r + 1) - lo->lo; /* the row's picks */
			for (int64_t e = lo->lo; e < lo->lo + lo->deg; e++) {
				uint32_t pos = (uint32_t)BS_LD(p->table, BS_LD(p->pickslot, e));
				if (pos < (uint64_t)p->rows) { /* a frontier vertex: its column */
					BS_ST(p->outIndices, e, (int32_t)pos);
					continue;
				}
				int64_t first = (int64_t)pos - p->rows;
				BS_ST(p->outIndices, e, (int32_t)~first);
				if (first == e) {
					lo->c++;
					if (lo->deg <= 64) lo->firsts |= 1ULL << (e - lo->lo);
				}
			}
		}
		sh->lb.v[th->tid] = lo->c;
		return 4;
	BS_LB_SCAN_PHASES(4, p->status, &sh->lb, th)
	case 8:
		r = sh->t.r0 + th->tid;
		if (r < p->rows) {
			int64_t g = bs_lb_excl(&sh->lb, th->tid);
			bs_lb_offset32(p->newBefore, r, p->rows, g, lo->c);
			for (int64_t e = lo->lo; lo->c > 0 && e < lo->lo + lo->deg; e++) {
				if (lo->deg <= 64 ? !(lo->firsts >> (e - lo->lo) & 1) : BS_LD(p->outIndices, e) != (int32_t)~e) continue;
				int32_t v = (int32_t)(BS_LD(p->table, BS_LD(p->pickslot, e)) >> 32) - 1;
				BS_ST(p->newidx, e, (uint32_t)g);
				BS_ST(p->outSrc, lo->w.s1 + g, v);
				if (p->flags & BS_NW_DEGREES) BS_ST(p->outDeg, lo->w.s1 + g, (int32_t)(BS_LD(p->indptr, v + 1) - BS_LD(p->indptr, v)));
				g++;
				lo->c--;
			}
		}
		return 0;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* bs_nw_local_id is pick e's local column: its frontier position, or, for
 * a new vertex, |F_m| + its number g - G_m (lo->w.y = G_m). */
BS_HD int32_t bs_nw_local_id(const bs_nw_p *p, int64_t f, int64_t gm, int64_t e) {
	int32_t x = BS_LD(p->outIndices, e);
	return x >= 0 ? x : (int32_t)(f + (int64_t)BS_LD(p->newidx, ~x) - gm);
}

/* bs_nw_emit_row writes row r's block row (lo: its minibatch; x = E_m, y =
 * G_m) and its frontier vertex's place in the sources, and returns 0; a
 * row of more than BS_NW_LOCAL entries (and at most BS_NW_SORT) it leaves
 * to the block (its entries' columns unwritten): it returns 1. */
BS_HD int bs_nw_emit_row(const bs_nw_p *p, bs_nw_l *lo, int64_t r) {
	int64_t m = lo->w.m, f = lo->w.s1 - lo->w.s0, j = r - lo->w.s0, srcStart = lo->w.s0 + lo->w.y;
	int64_t e0 = BS_LD(p->eoff, r), c = BS_LD(p->eoff, r + 1) - e0;
	BS_ST(p->outIndptr, lo->w.s0 + m + j, e0 - lo->w.x);
	int32_t v = BS_LD(p->front, r);
	BS_ST(p->outSrc, srcStart + j, v);
	if (p->flags & BS_NW_DEGREES) BS_ST(p->outDeg, srcStart + j, (int32_t)(BS_LD(p->indptr, v + 1) - BS_LD(p->indptr, v)));
	lo->e0 = e0, lo->c = c;
	if (c > BS_NW_LOCAL && c <= BS_NW_SORT) return 1;
	int values = (p->flags & BS_NW_VALUES) != 0;
	int32_t lind[BS_NW_LOCAL];
	float ldat[BS_NW_LOCAL];
	int local = c <= BS_NW_LOCAL;
	int32_t *ind = local ? lind : p->outIndices + e0;
	float *dat = local ? ldat : p->outData + e0;
	BS_SCRATCH_GLOBAL(!local);
	for (int64_t i = 0; i < c; i++) {
		BS_STS(ind, i, bs_nw_local_id(p, f, lo->w.y, e0 + i));
		if (values && local) ldat[i] = BS_LD(p->outData, e0 + i);
	}
	if (values)
		bs_sort_pairs(ind, dat, c);
	else
		bs_sort_i32(ind, c);
	for (int64_t i = 0; local && i < c; i++) {
		BS_ST(p->outIndices, e0 + i, lind[i]);
		if (values) BS_ST(p->outData, e0 + i, ldat[i]);
	}
	return 0;
}

/* ---- nw_emit: the block rows, the frontiers' sources, the minibatches'
 * offsets and the tables' clearing. Its tiles cover max(rows, k+1)
 * threads; thread i also clears the slots i, i + threads, ... Rows of
 * more than BS_NW_LOCAL entries are then relabelled and sorted by the
 * block, one at a time, in shared memory (bitonic: distinct columns). */
BS_HD int bs_nw_emit_phase(const bs_nw_p *p, bs_nw_emit_s *es, bs_nw_l *lo, const bs_thr *th, int ph) {
	bs_nw_s *sh = &es->nw;
	int64_t r, i;
	switch (ph) {
	BS_SEG_TILE_PHASES(p, p->frontStart, p->rows, 20, sh, th)
	case 2:
		/* x: E_m, the entries before minibatch m; y: G_m, its new vertices before */
		if (sh->t.r0 < p->rows && bs_seg_tile_fs(&sh->t, p->frontStart, th)) {
			int64_t f = sh->t.fs[th->tid];
			sh->t.x[th->tid] = BS_LD(p->eoff, f);
			sh->t.y[th->tid] = BS_LD(p->newBefore, f);
		}
		if (th->tid == 0) sh->nlong = 0;
		return 3;
	case 3:
		r = sh->t.r0 + th->tid;
		lo->li = -1;
		if (r < p->rows) {
			if (!bs_seg_row_of(&sh->t, p->frontStart, p->k, r, &lo->w)) {
				lo->w.x = BS_LD(p->eoff, lo->w.s0);
				lo->w.y = BS_LD(p->newBefore, lo->w.s0);
			}
			if (bs_nw_emit_row(p, lo, r)) lo->li = bs_atomic_add_shared_i32(&sh->nlong, 1);
		}
		if (r <= p->k) { /* minibatch r's offsets; its block's last row offset */
			int64_t f = BS_LD(p->frontStart, r), e = BS_LD(p->eoff, f);
			BS_ST(p->summary, r, e);
			BS_ST(p->summary, p->k + 1 + r, f + BS_LD(p->newBefore, f));
			if (r < p->k) {
				int64_t f1 = BS_LD(p->frontStart, r + 1);
				BS_ST(p->outIndptr, f1 + r, BS_LD(p->eoff, f1) - e);
			}
		}
		for (i = r; i < p->tslots; i += p->n * BS_T) BS_ST(p->table, i, 0);
		return 4;
	case 4:
		if (th->tid == 0) sh->li = 0;
		return 5;
	case 5: /* the long rows, one at a time */
		if (sh->li >= sh->nlong) return 0;
		if (lo->li == sh->li) {
			sh->L.e0 = lo->e0, sh->L.c = lo->c, sh->L.f = lo->w.s1 - lo->w.s0, sh->L.g = lo->w.y;
		}
		return 6;
	case 6: {
		const bs_nw_long *L = &sh->L;
		int64_t n2 = bs_pow2(L->c);
		for (i = th->tid; i < n2; i += BS_T) {
			es->key[i] = i < L->c ? (double)bs_nw_local_id(p, L->f, L->g, L->e0 + i) : BS_INF;
			es->pos[i] = i < L->c ? (int32_t)i : 0x7FFFFFFF;
			if (i < L->c && (p->flags & BS_NW_VALUES)) es->val[i] = BS_LD(p->outData, L->e0 + i);
		}
		bs_bitonic_start(&lo->b);
		return 7;
	}
	case 7:
		return bs_bitonic_step(es->key, es->pos, bs_pow2(sh->L.c), &lo->b, th->tid) ? 7 : 8;
	case 8:
		for (i = th->tid; i < sh->L.c; i += BS_T) {
			BS_ST(p->outIndices, sh->L.e0 + i, (int32_t)es->key[i]);
			if (p->flags & BS_NW_VALUES) BS_ST(p->outData, sh->L.e0 + i, es->val[es->pos[i]]);
		}
		return 9;
	case 9:
		if (th->tid == 0) sh->li++;
		return 5;
	BS_LB_EXIT_PHASES(20, p->ctl, p->status, 0, &sh->lb, th)
	}
	return BS_DONE;
}

#define BS_NODEWISE_KERNELS(X)                   \
	X(nw_bound, bs_nw_p, bs_nw_s, bs_nw_l)       \
	X(nw_select, bs_nw_p, bs_nw_s, bs_nw_l)      \
	X(nw_flag, bs_nw_p, bs_nw_s, bs_nw_l)        \
	X(nw_emit, bs_nw_p, bs_nw_emit_s, bs_nw_l)

#endif
