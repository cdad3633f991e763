/* bs_select.h: per-row selection, the device's single definition of
 * package sampling's laws (select.go: rowSelector.choose and what it
 * calls). One thread selects one row; the result is the same set of
 * positions, with the same multiplicities, as the Go code returns:
 *
 *   - uniform without replacement: rows with deg <= s whole, otherwise
 *     Floyd's algorithm drawing its j-th number at stream position j;
 *   - uniform with replacement: s draws mulhi(bits_j, deg), merged;
 *   - weighted without replacement: the s smallest exponential keys
 *     -ln(u_c)/w_c (u at the position of the column id c), ties to the
 *     smaller position, kept in a max-heap exactly as topKeys does (with
 *     its bound that skips a logarithm); the key-bound pass of
 *     select_bound.go chooses the same set;
 *   - weighted with replacement: inverse transform on the float64 prefix
 *     sums of the positive weights, in order (the draws' thresholds are
 *     sorted first so that one pass over the row answers all of them).
 */
#ifndef BS_SELECT_CUH
#define BS_SELECT_CUH

#include "bs_common.h"

/* 1+1e-9 as Go's constant arithmetic rounds it (topKeys' margin). */
#define BS_BOUND_MARGIN bs_f64_from_bits(0x3ff000000044b830ULL)

/* bs_select_bound is selectBound: the most entries a row of deg entries
 * yields with fanout s. */
BS_HD int64_t bs_select_bound(int64_t deg, int64_t s) {
	if (s < 0) return deg;
	return s < deg ? s : deg;
}

/* bs_merge turns the sorted draws d[0..n) into distinct positions and
 * their counts (rowSelector.merge). */
BS_HD int64_t bs_merge(const int32_t *d, int64_t n, int32_t *pos, int32_t *mult) {
	int64_t c = 0;
	for (int64_t j = 0; j < n; j++) {
		int32_t dj = BS_LDS(d, j);
		if (j > 0 && dj == BS_LDS(d, j - 1)) {
			BS_STS(mult, c - 1, BS_LDS(mult, c - 1) + 1);
			continue;
		}
		BS_STS(pos, c, dj);
		BS_STS(mult, c, 1);
		c++;
	}
	return c;
}

/* bs_floyd draws a uniform s-subset of 0..deg-1 (0 < s < deg) into pos,
 * ascending (rowSelector.floyd: every branch of it yields this set). */
BS_HD int64_t bs_floyd(uint64_t rk, int64_t deg, int64_t s, int32_t *pos) {
	int64_t c = 0;
	for (int64_t j = deg - s; j < deg; j++) {
		int32_t t = (int32_t)bs_mulhi64(bs_u64(rk, j), (uint64_t)j + 1);
		for (int64_t q = 0; q < c; q++) {
			if (BS_LDS(pos, q) == t) {
				t = (int32_t)j;
				break;
			}
		}
		BS_STS(pos, c, t);
		c++;
	}
	bs_sort_i32(pos, c);
	return c;
}

/* bs_heap_less orders heap entries by key, then position (heapLess). */
BS_HD int bs_heap_less(const double *k, const int32_t *p, int64_t i, int64_t j) {
	double ki = BS_LDS(k, i), kj = BS_LDS(k, j);
	return ki < kj || (ki == kj && BS_LDS(p, i) < BS_LDS(p, j));
}

/* bs_heap_swap swaps heap entries i and j. */
BS_HD void bs_heap_swap(double *k, int32_t *p, int64_t i, int64_t j) {
	BS_SWAP_T(double, k, i, j);
	BS_SWAP_T(int32_t, p, i, j);
}

BS_HD void bs_sift_up(double *k, int32_t *p, int64_t i) {
	while (i > 0) {
		int64_t parent = (i - 1) / 2;
		if (!bs_heap_less(k, p, parent, i)) return;
		bs_heap_swap(k, p, i, parent);
		i = parent;
	}
}

BS_HD void bs_sift_down(double *k, int32_t *p, int64_t n, int64_t i) {
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= n) return;
		if (c + 1 < n && bs_heap_less(k, p, c, c + 1)) c++;
		if (!bs_heap_less(k, p, i, c)) return;
		bs_heap_swap(k, p, i, c);
		i = c;
	}
}

/* bs_count_positive returns the entries of vals[0..n) above 0. */
BS_HD int64_t bs_count_positive(const float *vals, int64_t n) {
	int64_t c = 0;
	for (int64_t i = 0; i < n; i++)
		if (BS_LD(vals, i) > 0) c++;
	return c;
}

/* bs_weighted selects without replacement by exponential keys
 * (rowSelector.weighted): every positive entry when s < 0 or there are at
 * most s of them, else the s smallest keys. pos gets the positions,
 * ascending; hk (s doubles) is scratch. */
BS_HD int64_t bs_weighted(uint64_t rk, const int32_t *cols, const float *vals, int64_t deg, int64_t s,
                          int32_t *pos, double *hk) {
	int64_t npos = bs_count_positive(vals, deg);
	if (s < 0 || npos <= s) {
		int64_t c = 0;
		for (int64_t i = 0; i < deg; i++)
			if (BS_LD(vals, i) > 0) BS_STS(pos, c++, (int32_t)i);
		return c;
	}
	int64_t n = 0;
	for (int64_t i = 0; i < deg; i++) {
		float v = BS_LD(vals, i);
		if (!(v > 0)) continue;
		double u = bs_f64(rk, BS_LD(cols, i));
		if (n < s) {
			BS_STS(pos, n, (int32_t)i);
			BS_STS(hk, n, -bs_log(u) / (double)v);
			bs_sift_up(hk, pos, n);
			n++;
			continue;
		}
		double top = BS_LDS(hk, 0);
		if (1 - u >= top * (double)v * BS_BOUND_MARGIN) continue;
		double k = -bs_log(u) / (double)v;
		if (k < top) {
			BS_STS(hk, 0, k);
			BS_STS(pos, 0, (int32_t)i);
			bs_sift_down(hk, pos, n, 0);
		}
	}
	bs_sort_i32(pos, n);
	return n;
}

/* bs_weighted_replace makes s draws proportional to vals by inverse
 * transform (rowSelector.weightedReplace) and merges them. thr (s
 * doubles) and d (s int32) are scratch. */
BS_HD int64_t bs_weighted_replace(uint64_t rk, const float *vals, int64_t deg, int64_t s,
                                  int32_t *pos, int32_t *mult, double *thr, int32_t *d) {
	double total = 0;
	int64_t last = -1;
	for (int64_t i = 0; i < deg; i++) {
		float v = BS_LD(vals, i);
		if (v > 0) {
			total += (double)v;
			last = i;
		}
	}
	if (last < 0) return 0;
	for (int64_t j = 0; j < s; j++) BS_STS(thr, j, bs_f64(rk, j) * total);
	bs_sort_f64(thr, s);
	/* The first position whose inclusive prefix sum exceeds a threshold is
	 * nondecreasing in the threshold: one pass serves the sorted draws. */
	int64_t i = 0;
	double prefix = 0;
	float v0 = BS_LD(vals, 0);
	if (v0 > 0) prefix += (double)v0;
	for (int64_t j = 0; j < s; j++) {
		double tj = BS_LDS(thr, j);
		while (i < deg && !(prefix > tj)) {
			i++;
			if (i < deg) {
				float vi = BS_LD(vals, i);
				if (vi > 0) prefix += (double)vi;
			}
		}
		BS_STS(d, j, (int32_t)(i > last ? last : i)); /* none exceeds: u rounded up to the total */
	}
	return bs_merge(d, s, pos, mult);
}

/* bs_select_row is rowSelector.choose: the positions (ascending) that the
 * row (cols, vals) of deg entries draws with row key rk and fanout s, and,
 * with replacement, their multiplicities in mult. It returns their number.
 * Scratch: d (s int32) with replacement, hk (s doubles) when weighted. */
BS_HD int64_t bs_select_row(uint64_t rk, const int32_t *cols, const float *vals, int64_t deg, int64_t s,
                            int weighted, int replace, int32_t *pos, int32_t *mult, int32_t *d, double *hk) {
	if (deg == 0 || s == 0) return 0;
	if (weighted) {
		if (replace && s >= 0) return bs_weighted_replace(rk, vals, deg, s, pos, mult, hk, d);
		return bs_weighted(rk, cols, vals, deg, s, pos, hk);
	}
	if (s < 0 || (deg <= s && !replace)) {
		for (int64_t i = 0; i < deg; i++) BS_STS(pos, i, (int32_t)i);
		return deg;
	}
	if (replace) {
		for (int64_t j = 0; j < s; j++) BS_STS(d, j, (int32_t)bs_mulhi64(bs_u64(rk, j), (uint64_t)deg));
		bs_sort_i32(d, s);
		return bs_merge(d, s, pos, mult);
	}
	return bs_floyd(rk, deg, s, pos);
}

#endif
