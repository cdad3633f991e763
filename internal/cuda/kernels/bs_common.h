/* bs_common.h: what every kernel of bulksample shares, written once for
 * the device (nvcc, to PTX) and for the host (cgo, gcc): the qualifiers,
 * the atomics, the 64-bit multiply-high, the logarithm, and the
 * counter-based random stream of package sampling (stream.go).
 *
 * Bit-for-bit rules. Every function here must return exactly what the Go
 * code it mirrors returns, on the device and on the host:
 *   - no fused multiply-add: nvcc runs with -fmad=false and cgo with
 *     -ffp-contract=off, so that a*b+c rounds twice, as Go does on amd64;
 *   - no flush of subnormals (-ftz=false), IEEE division (-prec-div=true);
 *   - float and double arithmetic as written (no reassociation: no fast
 *     math anywhere);
 *   - the logarithm is our own (bs_log), Go's amd64 algorithm, not the
 *     CUDA or C library's, which round differently in the last bit.
 * The host build of these headers is checked against package sampling on
 * every `make test` (host_test.go), and the device build equals it because
 * the source is the same and the arithmetic is IEEE with these flags. */
#ifndef BS_COMMON_CUH
#define BS_COMMON_CUH

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define BS_HD static __host__ __device__ __forceinline__
#define BS_HDN static __host__ __device__ __noinline__
#else
#define BS_HD static inline
#define BS_HDN static
#endif

#ifdef __cplusplus
#define BS_STATIC_ASSERT(c, msg) static_assert(c, msg)
#else
#define BS_STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#endif

/* ---- global memory. Kernels read and write global memory through
 * BS_LD(a, i) and BS_ST(a, i, v) and the atomics below: on the device they
 * are a[i] and a[i] = v; the host build also counts the bytes each launch
 * moves (bs_tr), which the emulator reports per launch (package gpu's
 * Costs), so that the traffic a pipeline is said to make is the traffic its
 * kernels make. Registers, local arrays and shared memory are plain
 * accesses. The selection's scratch arrays, which one caller keeps in
 * global memory and another in local arrays, go through BS_LDS and BS_STS,
 * counted while the caller has set BS_SCRATCH_GLOBAL(1). An atomic counts
 * a read and a write. */
#ifdef __CUDA_ARCH__
#define BS_RD(n) ((void)0)
#define BS_WR(n) ((void)0)
#define BS_RDS(n) ((void)0)
#define BS_WRS(n) ((void)0)
#define BS_SCRATCH_GLOBAL(on) ((void)0)
#else
typedef struct {
	int64_t rd, wr; /* bytes read and written in global memory */
	int64_t max;    /* the most bytes one thread moved between two barriers */
	int scratch;    /* the selection's scratch arrays are global */
} bs_traffic;
/* Per OS thread (emulators on several goroutines count apart), in the
 * initial-exec model: no __tls_get_addr, so that the binary needs no more
 * of glibc than it did (the GPU bundle's check). */
static __thread bs_traffic bs_tr __attribute__((tls_model("initial-exec")));
/* Functions, not expressions: calls are sequenced, so several counted
 * accesses may share an expression. */
static inline void bs_count(int64_t *c, int64_t n) { *c += n; }
static inline void bs_count_scratch(int64_t *c, int64_t n) {
	if (bs_tr.scratch) *c += n;
}
#define BS_RD(n) bs_count(&bs_tr.rd, (int64_t)(n))
#define BS_WR(n) bs_count(&bs_tr.wr, (int64_t)(n))
#define BS_RDS(n) bs_count_scratch(&bs_tr.rd, (int64_t)(n))
#define BS_WRS(n) bs_count_scratch(&bs_tr.wr, (int64_t)(n))
#define BS_SCRATCH_GLOBAL(on) ((void)(bs_tr.scratch = (on)))
#endif
#define BS_LD(a, i) (BS_RD(sizeof *(a)), (a)[i])
#define BS_ST(a, i, v) ((void)(BS_WR(sizeof *(a)), (a)[i] = (v)))
#define BS_LDS(a, i) (BS_RDS(sizeof *(a)), (a)[i])
#define BS_STS(a, i, v) ((void)(BS_WRS(sizeof *(a)), (a)[i] = (v)))

/* ---- 64-bit helpers */
BS_HD uint64_t bs_mulhi64(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

BS_HD uint64_t bs_f64_bits(double x) {
#ifdef __CUDA_ARCH__
	return (uint64_t)__double_as_longlong(x);
#else
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
#endif
}

BS_HD double bs_f64_from_bits(uint64_t u) {
#ifdef __CUDA_ARCH__
	return __longlong_as_double((long long)u);
#else
	double x;
	memcpy(&x, &u, 8);
	return x;
#endif
}

#define BS_INF bs_f64_from_bits(0x7FF0000000000000ULL)

/* bs_log is Go's math.Log as the amd64 build computes it (archLog in
 * math/log_amd64.s, the FreeBSD e_log.c algorithm): the same reduction
 * (including its comparison f1 <= sqrt(2)/2, where the portable Go code
 * has <), the same polynomial and the same order of operations, so the
 * result has the same bits. Like the assembly it does not renormalise
 * subnormal inputs; the stream's uniforms are at least 2^-54. */
BS_HD double bs_log(double x) {
	const double Ln2Hi = 6.93147180369123816490e-01;
	const double Ln2Lo = 1.90821492927058770002e-10;
	const double L1 = 6.666666666666735130e-01;
	const double L2 = 3.999999999940941908e-01;
	const double L3 = 2.857142874366239149e-01;
	const double L4 = 2.222219843214978396e-01;
	const double L5 = 1.818357216161805012e-01;
	const double L6 = 1.531383769920937332e-01;
	const double L7 = 1.479819860511658591e-01;
	const double HSqrt2 = 7.07106781186547524401e-01;
	uint64_t bx = bs_f64_bits(x);
	if ((bx & ~(1ULL << 63)) == 0) return bs_f64_from_bits(0xFFF0000000000000ULL); /* +-0: -Inf */
	if ((int64_t)bx < 0) return bs_f64_from_bits(0x7FF8000000000001ULL);           /* negative: NaN */
	if (bx >= 0x7FF0000000000000ULL) return x;                                      /* +Inf, NaN */
	double f1 = bs_f64_from_bits((bx & 0x000FFFFFFFFFFFFFULL) | 0x3FE0000000000000ULL);
	double k = (double)((int32_t)((bx >> 52) & 0x7FF) - 0x3FE);
	double c = (f1 <= HSqrt2) ? 1.0 : 0.0;
	k = k - c;
	c = c + 1.0;
	f1 = f1 * c;
	double f = f1 - 1.0;
	double s = f / (2.0 + f);
	double s2 = s * s;
	double s4 = s2 * s2;
	double t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
	double t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
	double R = t1 + t2;
	double hfsq = 0.5 * f;
	hfsq = hfsq * f;
	return k * Ln2Hi - ((hfsq - (s * (hfsq + R) + k * Ln2Lo)) - f);
}

/* ---- the counter-based stream (sampling/stream.go, internal/hash) */
#define BS_K_SEED 0x9e3779b97f4a7c15ULL
#define BS_K_EPOCH 0xc2b2ae3d27d4eb4fULL
#define BS_K_MB 0x165667b19e3779f9ULL
#define BS_K_LAYER 0xd6e8feb86659fd93ULL
#define BS_K_VERT 0xa0761d6478bd642fULL
#define BS_K_POS 0xe7037ed1a0b428dbULL

/* bs_mix64 is hash.Mix64, SplitMix64's finaliser. */
BS_HD uint64_t bs_mix64(uint64_t z) {
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ULL;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z;
}

/* bs_layer_key is Stream.layer: the chain over (seed, epoch, minibatch, layer). */
BS_HD uint64_t bs_layer_key(uint64_t seed, int64_t epoch, int64_t mb, int64_t layer) {
	uint64_t h = bs_mix64(seed + BS_K_SEED);
	h = bs_mix64(h + (uint64_t)epoch * BS_K_EPOCH);
	h = bs_mix64(h + (uint64_t)mb * BS_K_MB);
	h = bs_mix64(h + (uint64_t)layer * BS_K_LAYER);
	return h;
}

/* bs_row_key is layerKey.row: the key of one vertex's row (vertex -1 is a
 * minibatch's row, as layer-wise sampling uses). */
BS_HD uint64_t bs_row_key(uint64_t lk, int32_t v) { return bs_mix64(lk + (uint64_t)(int64_t)v * BS_K_VERT); }

/* bs_u64 is RowKey.Uint64. */
BS_HD uint64_t bs_u64(uint64_t rk, int64_t pos) { return bs_mix64(rk + (uint64_t)(pos + 1) * BS_K_POS); }

/* bs_f64 is RowKey.Float64: 53 bits, offset by half a unit, in (0, 1). */
BS_HD double bs_f64(uint64_t rk, int64_t pos) {
	return ((double)(bs_u64(rk, pos) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* bs_exp_key is RowKey.ExpKey's formula, -ln(u)/w, for w as float32. */
BS_HD double bs_exp_key(double u, float w) { return -bs_log(u) / (double)w; }

/* ---- small in-thread sorts (a row's picks: tens to hundreds of entries).
 * Each sorts distinct keys or gives the same result for equal keys, so the
 * algorithm does not matter for the output: insertion sort for short
 * arrays, heap sort beyond. BS_DEFINE_SORT(name, params, LESS, SWAP)
 * defines name(params..., n) from LESS(i, j) and SWAP(i, j) on positions. */
#define BS_INSERTION_MAX 24

#define BS_DEFINE_SORT(name, params, LESS, SWAP)                                         \
	BS_HD void name params {                                                             \
		if (n <= BS_INSERTION_MAX) {                                                     \
			for (int64_t i = 1; i < n; i++)                                              \
				for (int64_t j = i; j > 0 && LESS(j, j - 1); j--) SWAP(j, j - 1);        \
			return;                                                                      \
		}                                                                                \
		for (int64_t start = n / 2 - 1; start >= 0; start--) name##_sift(start, n); \
		for (int64_t end = n - 1; end > 0; end--) {                                      \
			SWAP(0, end);                                                                \
			name##_sift(0, end);                                                    \
		}                                                                                \
	}
/* The sift-down of a max-heap of the first n positions, from r. */
#define BS_SIFT(r, n, LESS, SWAP)                         \
	for (int64_t r_ = (r);;) {                            \
		int64_t c_ = 2 * r_ + 1;                          \
		if (c_ >= (n)) break;                             \
		if (c_ + 1 < (n) && LESS(c_, c_ + 1)) c_++;       \
		if (!LESS(r_, c_)) break;                         \
		SWAP(r_, c_);                                     \
		r_ = c_;                                          \
	}

/* The sorts' arrays are scratch (BS_LDS): global or local as the caller says. */
#define BS_LESS_A(i, j) (BS_LDS(a, i) < BS_LDS(a, j))
#define BS_SWAP_T(T, a, i, j) do { T t_ = BS_LDS(a, i); BS_STS(a, i, BS_LDS(a, j)); BS_STS(a, j, t_); } while (0)
#define BS_SWAP_I32(i, j) BS_SWAP_T(int32_t, a, i, j)
#define BS_SWAP_F64(i, j) BS_SWAP_T(double, a, i, j)
#define BS_LESS_K(i, j) (BS_LDS(k, i) < BS_LDS(k, j))
#define BS_SWAP_KV(i, j) do { BS_SWAP_T(int32_t, k, i, j); BS_SWAP_T(float, v, i, j); } while (0)

/* bs_sort_i32 sorts ints ascending. */
#define bs_sort_i32_sift(r, n) BS_SIFT(r, n, BS_LESS_A, BS_SWAP_I32)
BS_DEFINE_SORT(bs_sort_i32, (int32_t *a, int64_t n), BS_LESS_A, BS_SWAP_I32)

/* bs_sort_f64 sorts doubles (no NaN) ascending. */
#define bs_sort_f64_sift(r, n) BS_SIFT(r, n, BS_LESS_A, BS_SWAP_F64)
BS_DEFINE_SORT(bs_sort_f64, (double *a, int64_t n), BS_LESS_A, BS_SWAP_F64)

/* bs_sort_pairs sorts the distinct keys k ascending, moving v with them
 * (spgemm.SortPairs' result). */
#define bs_sort_pairs_sift(r, n) BS_SIFT(r, n, BS_LESS_K, BS_SWAP_KV)
BS_DEFINE_SORT(bs_sort_pairs, (int32_t *k, float *v, int64_t n), BS_LESS_K, BS_SWAP_KV)

/* bs_normalize is spgemm.NormalizeVec: divide by the float64 sum, in order;
 * a zero sum leaves the values. */
BS_HD void bs_normalize(float *v, int64_t n) {
	double sum = 0;
	for (int64_t i = 0; i < n; i++) sum += (double)BS_LDS(v, i);
	if (sum == 0) return;
	for (int64_t i = 0; i < n; i++) BS_STS(v, i, (float)((double)BS_LDS(v, i) / sum));
}

/* bs_hash32 is a vertex's 32-bit hash (the tables' probe start). */
BS_HD uint32_t bs_hash32(int32_t v) { return (uint32_t)(bs_mix64((uint64_t)(uint32_t)v) >> 32); }

/* bs_find_segment returns the m in [0, k) with start[m] <= r < start[m+1],
 * for nondecreasing start (the largest m with start[m] <= r, which skips
 * empty segments). */
BS_HD int64_t bs_find_segment(const int64_t *start, int64_t k, int64_t r) {
	int64_t lo = 0, hi = k; /* start[lo] <= r; answer in [lo, hi) */
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (BS_LD(start, mid) <= r) lo = mid; else hi = mid;
	}
	return lo;
}

#endif
