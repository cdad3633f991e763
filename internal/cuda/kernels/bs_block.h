/* bs_block.h: kernels whose threads cooperate. A block of BS_T threads
 * shares memory and meets at barriers; such a kernel is written as phases,
 * the code between two barriers (thread-loop fission, as MCUDA and HIP-CPU
 * run CUDA on a CPU):
 *
 *   int bs_NAME_phase(const P *p, S *sh, L *lo, const bs_thr *th, int ph)
 *
 * runs phase ph of thread th->tid of block th->block (of th->grid) and
 * returns the next phase, BS_DONE, or BS_WAIT(q) (a phase that waits for
 * another block, by decoupled look-back: run q next, after letting other
 * blocks run). S is the block's shared memory, L the thread's registers
 * that live across barriers (a phase's other variables die at its end).
 * Every thread of a block must return the same value (the barrier's rule:
 * a barrier all threads reach); the emulator checks it.
 *
 * On the device (kernels.cu) a block runs
 *   for (ph = 0;;) { nx = phase(ph); __syncthreads(); if (nx == BS_DONE) break; ph = next(nx); }
 * On the host (host.go) the emulator keeps each block's S and each
 * thread's L, and runs one block's phase for all of its threads (in a
 * permuted order), then another block's, choosing blocks in turn or at
 * random, so that blocks interleave as they may on a device, and a
 * waiting block lets others progress. Shared memory and registers start
 * as garbage (0xA5 bytes), as on a device.
 *
 * Cooperation is through shared memory only (no warp shuffles or votes),
 * so barriers are the only synchronisation the emulator must model.
 *
 * Work is split into tiles taken by tickets (an atomic counter), one
 * tile per block at a time, so that a tile's look-back waits only for
 * tiles taken earlier, whose blocks are running: the scan of a launch
 * never deadlocks, whatever the number of blocks resident on the device. */
#ifndef BS_BLOCK_CUH
#define BS_BLOCK_CUH

#include "bs_common.h"

#define BS_T 256 /* threads of a block */
#define BS_DONE (-1)
#define BS_WAIT(ph) (-2 - (ph))

/* A thread of a block kernel: its index in the block, its block, the blocks of the grid. */
typedef struct {
	int32_t tid;
	int64_t block, grid;
} bs_thr;

/* ---- atomics: the device's; on the host the emulator runs one thread at
 * a time, so a plain read-modify-write is the atomic. A kernel uses them
 * only for results that do not depend on the order of the threads (a
 * minimum, a table's membership, a count, a ticket whose tile's work does
 * not depend on which block took it): the emulator runs threads and blocks
 * in permuted orders to catch the others. The look-back's loads and
 * stores are volatile on the device: another block's status words must
 * not be read from L1. */
BS_HD uint64_t bs_atomic_add_u64(uint64_t *p, uint64_t v) {
	BS_RD(8);
	BS_WR(8);
#ifdef __CUDA_ARCH__
	return atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
	uint64_t old = *p;
	*p = old + v;
	return old;
#endif
}

BS_HD uint64_t bs_atomic_cas_u64(uint64_t *p, uint64_t cmp, uint64_t val) {
	BS_RD(8);
	BS_WR(8);
#ifdef __CUDA_ARCH__
	return atomicCAS((unsigned long long *)p, (unsigned long long)cmp, (unsigned long long)val);
#else
	uint64_t old = *p;
	if (old == cmp) *p = val;
	return old;
#endif
}

BS_HD void bs_atomic_min_u64(uint64_t *p, uint64_t v) {
	BS_RD(8);
	BS_WR(8);
#ifdef __CUDA_ARCH__
	atomicMin((unsigned long long *)p, (unsigned long long)v);
#else
	if (v < *p) *p = v;
#endif
}

BS_HD uint64_t bs_load_volatile_u64(const uint64_t *p) {
	BS_RD(8);
#ifdef __CUDA_ARCH__
	return *(const volatile uint64_t *)p;
#else
	return *p;
#endif
}

BS_HD void bs_store_volatile_u64(uint64_t *p, uint64_t v) {
	BS_WR(8);
#ifdef __CUDA_ARCH__
	__threadfence();
	*(volatile uint64_t *)p = v;
#else
	*p = v;
#endif
}

/* ---- tiles and the single-pass scan (decoupled look-back, Merrill and
 * Garland 2016). Each tile's block scans one value per thread in shared
 * memory, publishes its total (status A) and looks back at the tiles
 * before it: their inclusive prefixes (status P) end the look-back, their
 * totals add to it, and a tile that has published nothing yet (status X)
 * makes the block wait. Then it publishes its own inclusive prefix. One
 * launch thus computes every tile's exclusive prefix over the launch.
 *
 * A status word is the flag in its top two bits and a value of 62 bits
 * (sums of nonnegative int64 below 2^62). The launch's control words and
 * status words are zero when it starts: the last block to finish resets
 * them for the next launch (buffers are zeroed when allocated). */
#define BS_LB_A (1ULL << 62)
#define BS_LB_P (2ULL << 62)
#define BS_LB_VALUE(w) ((int64_t)((w) & ((1ULL << 62) - 1)))

/* The control words of a launch: the next tile's ticket, the blocks done. */
typedef struct {
	uint64_t ticket, exits;
} bs_lb_ctl;

#define BS_LB_CHUNK 16 /* values a thread of the block scan sums in order */

/* The block's share of the scan. */
typedef struct {
	int64_t v[BS_T];                 /* the threads' values; then their exclusive scan in their chunk */
	int64_t part[BS_T / BS_LB_CHUNK]; /* the chunks' sums; then their exclusive scan */
	int64_t tile;                    /* this block's tile */
	int64_t agg;                     /* the tile's total */
	int64_t excl;                    /* the total of the tiles before it */
	int64_t lbj, lbacc;              /* look-back: the tile to read next, the sum read so far */
	int32_t wait, last;
} bs_lb_sh;

/* bs_lb_take (thread 0): the block takes the next tile. */
BS_HD void bs_lb_take(bs_lb_ctl *ctl, bs_lb_sh *sh, const bs_thr *th) {
	if (th->tid == 0) sh->tile = (int64_t)bs_atomic_add_u64(&ctl->ticket, 1);
}

/* bs_lb_scan_chunks: threads 0..BS_T/16-1 scan their chunk of sh->v. */
BS_HD void bs_lb_scan_chunks(bs_lb_sh *sh, const bs_thr *th) {
	if (th->tid >= BS_T / BS_LB_CHUNK) return;
	int64_t run = 0;
	for (int i = th->tid * BS_LB_CHUNK; i < (th->tid + 1) * BS_LB_CHUNK; i++) {
		int64_t x = sh->v[i];
		sh->v[i] = run;
		run += x;
	}
	sh->part[th->tid] = run;
}

/* bs_lb_step (thread 0): reads the statuses from sh->lbj down until an
 * inclusive prefix or a tile that has published nothing (sh->wait). */
BS_HD void bs_lb_step(uint64_t *status, bs_lb_sh *sh) {
	sh->wait = 0;
	while (sh->lbj >= 0) {
		uint64_t w = bs_load_volatile_u64(&status[sh->lbj]);
		if ((w & (3ULL << 62)) == 0) {
			sh->wait = 1;
			return;
		}
		sh->lbacc += BS_LB_VALUE(w);
		sh->lbj--;
		if (w & BS_LB_P) break;
	}
	sh->excl = sh->lbacc;
	bs_store_volatile_u64(&status[sh->tile], BS_LB_P | (uint64_t)(sh->lbacc + sh->agg));
}

/* bs_lb_publish (thread 0): the chunks' scan, the tile's total published,
 * and the first look-back step. */
BS_HD void bs_lb_publish(uint64_t *status, bs_lb_sh *sh, const bs_thr *th) {
	if (th->tid != 0) return;
	int64_t run = 0;
	for (int c = 0; c < BS_T / BS_LB_CHUNK; c++) {
		int64_t x = sh->part[c];
		sh->part[c] = run;
		run += x;
	}
	sh->agg = run;
	sh->lbacc = 0;
	sh->lbj = sh->tile - 1;
	if (sh->tile > 0) bs_store_volatile_u64(&status[sh->tile], BS_LB_A | (uint64_t)run);
	bs_lb_step(status, sh);
}

/* bs_lb_lookback (thread 0): another look-back step after a wait. */
BS_HD void bs_lb_lookback(uint64_t *status, bs_lb_sh *sh, const bs_thr *th) {
	if (th->tid == 0) bs_lb_step(status, sh);
}

/* bs_lb_excl: thread tid's exclusive prefix over the launch. */
BS_HD int64_t bs_lb_excl(const bs_lb_sh *sh, int32_t tid) { return sh->excl + sh->part[tid / BS_LB_CHUNK] + sh->v[tid]; }

/* bs_lb_offset stores row r's exclusive offset e in out, and, for the
 * last of rows rows, the total e + c at out[rows] (a scan's offsets). */
BS_HD void bs_lb_offset(int64_t *out, int64_t r, int64_t rows, int64_t e, int64_t c) {
	BS_ST(out, r, e);
	if (r == rows - 1) BS_ST(out, rows, e + c);
}

/* bs_lb_offset32 is bs_lb_offset for int32 offsets (below 2^31). */
BS_HD void bs_lb_offset32(int32_t *out, int64_t r, int64_t rows, int64_t e, int64_t c) {
	BS_ST(out, r, (int32_t)e);
	if (r == rows - 1) BS_ST(out, rows, (int32_t)(e + c));
}

/* bs_lb_exit (thread 0): counts the block done; the last resets the control words. */
BS_HD void bs_lb_exit(bs_lb_ctl *ctl, bs_lb_sh *sh, const bs_thr *th) {
	if (th->tid != 0) return;
	sh->last = bs_atomic_add_u64(&ctl->exits, 1) == (uint64_t)th->grid - 1;
	if (sh->last) {
		BS_ST(&ctl->ticket, 0, 0);
		BS_ST(&ctl->exits, 0, 0);
	}
}

/* bs_lb_clear: the last block clears the ntiles status words. */
BS_HD void bs_lb_clear(uint64_t *status, int64_t ntiles, const bs_lb_sh *sh, const bs_thr *th) {
	if (!sh->last) return;
	for (int64_t i = th->tid; i < ntiles; i += BS_T) BS_ST(status, i, 0);
}

/* The phases of the scan from ph0: the phase before stores each thread's
 * value in sh->v[tid] and returns ph0; phase ph0 + 4 reads the thread's
 * exclusive prefix with bs_lb_excl. */
#define BS_LB_SCAN_PHASES(ph0, status, sh, th)             \
	case (ph0):                                            \
		bs_lb_scan_chunks(sh, th);                         \
		return (ph0) + 1;                                  \
	case (ph0) + 1:                                        \
		bs_lb_publish(status, sh, th);                     \
		return (ph0) + 2;                                  \
	case (ph0) + 2:                                        \
		return (sh)->wait ? BS_WAIT((ph0) + 3) : (ph0) + 4; \
	case (ph0) + 3:                                        \
		bs_lb_lookback(status, sh, th);                    \
		return (ph0) + 2;

/* The first phase of a tiled kernel: the block takes its next tile. */
#define BS_LB_TAKE_PHASE(ctl, sh, th) \
	case 0:                           \
		bs_lb_take(ctl, sh, th);      \
		return 1;

/* The last two phases of a tiled kernel, from phx: the block counts
 * itself done and the last one resets the launch's words. */
#define BS_LB_EXIT_PHASES(phx, ctl, status, ntiles, sh, th) \
	case (phx):                                         \
		bs_lb_exit(ctl, sh, th);                        \
		return (phx) + 1;                               \
	case (phx) + 1:                                     \
		bs_lb_clear(status, ntiles, sh, th);            \
		return BS_DONE;

/* bs_blk_scan_parts (thread 0): the block-only end of a scan (no
 * look-back): the chunks' sums scanned, their total in sh->agg; a thread's
 * exclusive prefix in the block is then sh->part[tid / 16] + sh->v[tid]. */
BS_HD void bs_blk_scan_parts(bs_lb_sh *sh, const bs_thr *th) {
	if (th->tid != 0) return;
	int64_t run = 0;
	for (int c = 0; c < BS_T / BS_LB_CHUNK; c++) {
		int64_t x = sh->part[c];
		sh->part[c] = run;
		run += x;
	}
	sh->agg = run;
}

BS_HD int64_t bs_blk_excl(const bs_lb_sh *sh, int32_t tid) { return sh->part[tid / BS_LB_CHUNK] + sh->v[tid]; }

/* An atomic add on shared memory (not global traffic): order-free results only. */
BS_HD int32_t bs_atomic_add_shared_i32(int32_t *p, int32_t v) {
#ifdef __CUDA_ARCH__
	return atomicAdd((int *)p, v);
#else
	int32_t old = *p;
	*p = old + v;
	return old;
#endif
}

/* ---- bitonic sort of n (a power of two) pairs (key double, pos int32)
 * ascending by (key, pos), in shared memory, one compare-exchange step a
 * phase: a thread's step state (size, stride) is in its registers, the
 * same in every thread. bs_bitonic_start sets it; bs_bitonic_step runs a
 * step and returns 1 while steps remain. Distinct (key, pos) pairs sort
 * to one order: the algorithm does not matter for the result. */
typedef struct {
	int64_t size, stride;
} bs_bitonic;

BS_HD void bs_bitonic_start(bs_bitonic *b) {
	b->size = 2;
	b->stride = 1;
}

BS_HD int bs_pair_less(double ka, int32_t pa, double kb, int32_t pb) { return ka < kb || (ka == kb && pa < pb); }

BS_HD int bs_bitonic_step(double *key, int32_t *pos, int64_t n, bs_bitonic *b, int32_t tid) {
	if (b->size > n) return 0;
	for (int64_t i = tid; i < n / 2; i += BS_T) {
		int64_t a = 2 * b->stride * (i / b->stride) + i % b->stride, c = a + b->stride;
		int up = (a & b->size) == 0;
		if (bs_pair_less(key[c], pos[c], key[a], pos[a]) == up) {
			double tk = key[a];
			key[a] = key[c];
			key[c] = tk;
			int32_t tp = pos[a];
			pos[a] = pos[c];
			pos[c] = tp;
		}
	}
	if (b->stride > 1) {
		b->stride /= 2;
	} else {
		b->size *= 2;
		b->stride = b->size / 2;
	}
	return b->size <= n;
}

/* bs_pow2 returns the least power of two >= x (1 for x <= 1). */
BS_HD int64_t bs_pow2(int64_t x) {
	int64_t p = 1;
	while (p < x) p *= 2;
	return p;
}

/* ---- rows in segments (a layer's rows, minibatch by minibatch: the
 * segment m of rows is [start[m], start[m+1])). A tile of BS_T rows spans
 * few segments; its block keeps their offsets, and two values of each that
 * its kernel reads, in shared memory. */
#define BS_SEG_CACHE 32 /* the segments of a tile whose offsets its block keeps */

typedef struct {
	int64_t r0, m0, nm; /* the tile's first row, first segment, segments spanned */
	/* i <= min(nm, BS_SEG_CACHE): start[m0 + i] and a kernel's two values
	 * of segment m0 + i */
	int64_t fs[BS_SEG_CACHE + 1], x[BS_SEG_CACHE + 1], y[BS_SEG_CACHE + 1];
} bs_seg_tile;

/* A row's segment m, the segment's offsets s0, s1, and its kernel's
 * values x, y. */
typedef struct {
	int64_t m, s0, s1, x, y;
} bs_seg_row;

/* bs_seg_tile_begin (thread 0): tile's first row and its segments. */
BS_HD void bs_seg_tile_begin(bs_seg_tile *t, const int64_t *start, int64_t k, int64_t rows, int64_t tile, const bs_thr *th) {
	if (th->tid != 0) return;
	t->r0 = tile * BS_T;
	t->m0 = t->nm = 0;
	if (t->r0 >= rows) return;
	int64_t r1 = (t->r0 + BS_T < rows ? t->r0 + BS_T : rows) - 1;
	t->m0 = bs_find_segment(start, k, t->r0);
	t->nm = bs_find_segment(start, k, r1) - t->m0 + 1;
}

/* bs_seg_tile_fs: threads 0..min(nm, BS_SEG_CACHE) read the tile's
 * offsets; it returns whether thread th keeps segment m0 + th->tid's. */
BS_HD int bs_seg_tile_fs(bs_seg_tile *t, const int64_t *start, const bs_thr *th) {
	int64_t i = th->tid;
	if (t->nm > BS_SEG_CACHE || i > t->nm) return 0;
	t->fs[i] = BS_LD(start, t->m0 + i);
	return 1;
}

/* bs_seg_row_of sets w to row r's segment, its offsets and the kernel's
 * cached values, and returns 1; when the tile spans too many segments
 * for its cache, it reads the offsets from start and returns 0 (the
 * kernel computes x and y). */
BS_HD int bs_seg_row_of(const bs_seg_tile *t, const int64_t *start, int64_t k, int64_t r, bs_seg_row *w) {
	if (t->nm <= BS_SEG_CACHE) {
		int64_t i = 0, hi = t->nm; /* the largest i < nm with fs[i] <= r */
		while (hi - i > 1) {
			int64_t mid = i + (hi - i) / 2;
			if (t->fs[mid] <= r) i = mid; else hi = mid;
		}
		w->m = t->m0 + i;
		w->s0 = t->fs[i];
		w->s1 = t->fs[i + 1];
		w->x = t->x[i];
		w->y = t->y[i];
		return 1;
	}
	w->m = bs_find_segment(start, k, r);
	w->s0 = BS_LD(start, w->m);
	w->s1 = BS_LD(start, w->m + 1);
	return 0;
}

/* The first two phases of a kernel tiled over rows in segments (start, k
 * of them, rows in all; p its parameters, with n its tiles and ctl its
 * control words; sh its shared memory, with lb and t): the block takes a
 * tile, then, unless the launch's tiles are done (phase phx, its exit),
 * its rows and their segments; its work starts at phase 2. */
#define BS_SEG_TILE_PHASES(p, start, rows, phx, sh, th)                        \
	BS_LB_TAKE_PHASE((p)->ctl, &(sh)->lb, th)                                  \
	case 1:                                                                    \
		if ((sh)->lb.tile >= (p)->n) return (phx);                             \
		bs_seg_tile_begin(&(sh)->t, start, (p)->k, rows, (sh)->lb.tile, th);   \
		return 2;

/* ---- a scan kernel: out[i] = the exclusive prefix sum of in (int32, or
 * int64 when wide) for i in [0, len], out[len] the total; n = the tiles
 * (ceil(len / BS_T), at least 1). */
typedef struct {
	int64_t n; const void *in; int64_t wide; int64_t len; int64_t *out; bs_lb_ctl *ctl; uint64_t *status;
} bs_scan_p;
typedef struct { bs_lb_sh lb; } bs_scan_s;
typedef struct { int64_t x; } bs_scan_l;

BS_HD int bs_scan_phase(const bs_scan_p *p, bs_scan_s *sh, bs_scan_l *lo, const bs_thr *th, int ph) {
	int64_t i;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1:
		if (sh->lb.tile >= p->n) return 10;
		i = sh->lb.tile * BS_T + th->tid;
		lo->x = 0;
		if (i < p->len) lo->x = p->wide ? BS_LD((const int64_t *)p->in, i) : (int64_t)BS_LD((const int32_t *)p->in, i);
		sh->lb.v[th->tid] = lo->x;
		return 2;
	BS_LB_SCAN_PHASES(2, p->status, &sh->lb, th)
	case 6:
		i = sh->lb.tile * BS_T + th->tid;
		if (i < p->len) {
			bs_lb_offset(p->out, i, p->len, bs_lb_excl(&sh->lb, th->tid), lo->x);
		}
		if (p->len == 0 && i == 0) BS_ST(p->out, 0, 0);
		return 0;
	BS_LB_EXIT_PHASES(10, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

/* ---- the emulator's self-test: a kernel whose thread 3 of block 0
 * returns another phase than the others when p->diverge is set (a
 * barrier not every thread reaches), and otherwise waits once per block
 * for the block before it (out[b] = 1 + out[b-1]). */
typedef struct { int64_t n; int64_t diverge; int64_t *out; bs_lb_ctl *ctl; uint64_t *status; } bs_bktest_p;
typedef struct { bs_lb_sh lb; } bs_bktest_s;
typedef struct { int64_t unused; } bs_bktest_l;

BS_HD int bs_bktest_phase(const bs_bktest_p *p, bs_bktest_s *sh, bs_bktest_l *lo, const bs_thr *th, int ph) {
	(void)lo;
	switch (ph) {
	BS_LB_TAKE_PHASE(p->ctl, &sh->lb, th)
	case 1:
		if (sh->lb.tile >= p->n) return 10;
		if (p->diverge && th->block == 0 && th->tid == 3) return 7;
		sh->lb.v[th->tid] = th->tid == 0;
		return 2;
	BS_LB_SCAN_PHASES(2, p->status, &sh->lb, th)
	case 6:
		if (th->tid == 0) BS_ST(p->out, sh->lb.tile, sh->lb.excl + 1);
		return 0;
	BS_LB_EXIT_PHASES(10, p->ctl, p->status, p->n, &sh->lb, th)
	}
	return BS_DONE;
}

#define BS_BLOCK_SELFTEST(X) X(bktest, bs_bktest_p, bs_bktest_s, bs_bktest_l)
#define BS_BLOCK_GENERIC(X) X(scan, bs_scan_p, bs_scan_s, bs_scan_l)

#endif
