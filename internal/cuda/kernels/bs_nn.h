/* bs_nn.h: the kernels of the GNN backend (package gpu, Backend): the
 * element-wise passes of the layers, dropout with package gnn's keyed
 * masks, column sums, softmax cross-entropy, arg-max and Adam, plus the
 * stand-ins for cuBLAS's Sgemm and cuSPARSE's SpMM that the host emulator
 * runs (and a GPU runs too when asked to, so that its tests compare the
 * libraries with them).
 *
 * What equals the CPU backend (gnn.CPU) bit for bit, by the rules of
 * bs_common.h (no contraction, IEEE float arithmetic as written):
 *   - add, add_row_scaled, bias (with ReLU), relu, relu_grad: one or two
 *     rounded operations per element, as the Go code writes them;
 *   - dropout: element e takes the 16-bit draw e mod 4 of the row key's
 *     draw e/4 (gnn.DropoutMask), and the kept or dropped value is formed
 *     with the bit operations of simd.DropOne (a dropped negative value is
 *     -0, as on the CPU);
 *   - argmax (the first maximum), and Adam (gnn's adamUpdate: float32
 *     operations in its order; sqrtf is correctly rounded, as
 *     float32(math.Sqrt(float64(v))) is).
 * What does not: column sums are summed in chunks of rows (deterministic,
 * the CPU's order only when a chunk holds every row); softmax
 * cross-entropy uses the device's (or libm's) exp, not Go's, so a
 * gradient may differ in its last bit; the stand-in products sum in their
 * own order. */
#ifndef BS_NN_CUH
#define BS_NN_CUH

#include "bs_common.h"
#ifndef __CUDACC__
#include <math.h>
#endif

BS_HD uint32_t bs_f32_bits(float x) {
#ifdef __CUDA_ARCH__
	return __float_as_uint(x);
#else
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
#endif
}

BS_HD float bs_f32_from_bits(uint32_t u) {
#ifdef __CUDA_ARCH__
	return __uint_as_float(u);
#else
	float x;
	memcpy(&x, &u, 4);
	return x;
#endif
}

BS_HD float bs_sqrtf(float x) {
#ifdef __CUDA_ARCH__
	return __fsqrt_rn(x);
#else
	return sqrtf(x);
#endif
}

/* ---- element-wise passes -------------------------------------------- */

/* d[t] += s[t] */
typedef struct { int64_t n; float *d; const float *s; } bs_nn_add_p;
BS_HD void bs_nn_add_thread(const bs_nn_add_p *p, int64_t t) { p->d[t] += p->s[t]; }

/* d[t] = s[t] */
typedef struct { int64_t n; float *d; const float *s; } bs_nn_copy_p;
BS_HD void bs_nn_copy_thread(const bs_nn_copy_p *p, int64_t t) { p->d[t] = p->s[t]; }

/* d[t] *= v (Gemm with k = 0: c = beta·c) */
typedef struct { int64_t n; float *d; double v; } bs_nn_scale_p;
BS_HD void bs_nn_scale_thread(const bs_nn_scale_p *p, int64_t t) { p->d[t] = (float)p->v * p->d[t]; }

/* AddRowScaled: d[e] += s[i]·src[e] for e in row i (cols values), rows
 * whose s is 0 untouched (the CPU skips them). */
typedef struct { int64_t n; float *d; const float *s; const float *src; int64_t cols; } bs_nn_add_row_scaled_p;
BS_HD void bs_nn_add_row_scaled_thread(const bs_nn_add_row_scaled_p *p, int64_t e) {
	float si = p->s[e / p->cols];
	if (si != 0.0f) p->d[e] += si * p->src[e];
}

/* AddBias (relu 0) and BiasActivate without dropout (relu 1): d[e] += b[e
 * mod f], then with relu a negative result becomes +0. */
typedef struct { int64_t n; float *d; const float *b; int64_t f; int64_t relu; } bs_nn_bias_p;
BS_HD void bs_nn_bias_thread(const bs_nn_bias_p *p, int64_t e) {
	float v = p->d[e] + p->b[e % p->f];
	if (p->relu && v < 0.0f) v = 0.0f;
	p->d[e] = v;
}

/* ReLU: negative values become +0 (-0 and NaN stay). */
typedef struct { int64_t n; float *d; } bs_nn_relu_p;
BS_HD void bs_nn_relu_thread(const bs_nn_relu_p *p, int64_t e) {
	if (p->d[e] < 0.0f) p->d[e] = 0.0f;
}

/* bs_drop_one is simd.DropOne: v·scale kept, v·(+0) dropped (when the
 * 16-bit draw r is under threshold or, with relu, when v's sign bit is
 * set). */
BS_HD float bs_drop_one(float v, uint64_t r, uint32_t threshold, uint32_t scale_bits, int64_t relu) {
	uint32_t drop = ((uint32_t)(r & 0xffff) - threshold) >> 31;
	uint32_t neg = relu ? bs_f32_bits(v) >> 31 : 0;
	uint32_t keep = ((drop | neg) & 1) - 1;
	return v * bs_f32_from_bits(scale_bits & keep);
}

/* Dropout with package gnn's keyed mask, one thread per draw (4 elements):
 * dst[e] = drop(src[e] + b[e mod f]) for e < len, the bias only when b is
 * not NULL. dst and src are the same array or do not overlap. */
typedef struct {
	int64_t n; float *dst; const float *src; const float *b; int64_t f; int64_t len; uint64_t key;
	int64_t threshold; int64_t scale_bits; int64_t relu;
} bs_nn_dropout_p;
BS_HD void bs_nn_dropout_thread(const bs_nn_dropout_p *p, int64_t t) {
	uint64_t r = bs_u64(p->key, t);
	int64_t e0 = 4 * t;
	for (int i = 0; i < 4 && e0 + i < p->len; i++) {
		int64_t e = e0 + i;
		float v = p->src[e];
		if (p->b) v += p->b[e % p->f];
		p->dst[e] = bs_drop_one(v, r >> (16 * i), (uint32_t)p->threshold, (uint32_t)p->scale_bits, p->relu);
	}
}

/* ReLUDropoutGrad: d[e] = d[e]·scale where h[e] > 0, +0 elsewhere
 * (simd.PassPositive's bit operations). */
typedef struct { int64_t n; float *d; const float *h; double scale; } bs_nn_relu_grad_p;
BS_HD void bs_nn_relu_grad_thread(const bs_nn_relu_grad_p *p, int64_t e) {
	float g = p->d[e] * (float)p->scale;
	uint64_t x = (uint64_t)(uint32_t)(bs_f32_bits(p->h[e]) - 1);
	uint32_t keep = (uint32_t)((x - 0x7f800000ULL) >> 63);
	p->d[e] = bs_f32_from_bits(bs_f32_bits(g) & (0u - keep));
}

/* ---- column sums, in chunks of rows ----------------------------------
 * colsum_part: thread t = c·f + j sums column j over rows
 * [c·chunk, min((c+1)·chunk, rows)) in row order into part[t];
 * colsum_final: thread j sums part[c·f + j] over c in order. The chunk
 * depends only on the number of rows, so the result is deterministic. */
typedef struct { int64_t n; const float *a; int64_t rows; int64_t f; int64_t chunk; float *part; } bs_nn_colsum_part_p;
BS_HD void bs_nn_colsum_part_thread(const bs_nn_colsum_part_p *p, int64_t t) {
	int64_t c = t / p->f, j = t % p->f;
	int64_t lo = c * p->chunk, hi = lo + p->chunk;
	if (hi > p->rows) hi = p->rows;
	float s = 0.0f;
	for (int64_t r = lo; r < hi; r++) s += p->a[r * p->f + j];
	p->part[t] = s;
}

typedef struct { int64_t n; const float *part; int64_t chunks; float *dst; } bs_nn_colsum_final_p;
BS_HD void bs_nn_colsum_final_thread(const bs_nn_colsum_final_p *p, int64_t j) {
	float s = 0.0f;
	for (int64_t c = 0; c < p->chunks; c++) s += p->part[c * p->n + j];
	p->dst[j] = s;
}

/* ---- loss and prediction ---------------------------------------------- */

/* bs_argmax returns the index of the first largest of z[0..n). */
BS_HD int64_t bs_argmax(const float *z, int64_t n) {
	int64_t best = 0;
	for (int64_t j = 1; j < n; j++)
		if (z[j] > z[best]) best = j;
	return best;
}

typedef struct { int64_t n; const float *a; int64_t cols; int32_t *dst; } bs_nn_argmax_p;
BS_HD void bs_nn_argmax_thread(const bs_nn_argmax_p *p, int64_t r) {
	p->dst[r] = (int32_t)bs_argmax(p->a + r * p->cols, p->cols);
}

/* Softmax cross-entropy of row r (gnn.CrossEntropy's per-row terms, in
 * float64): with label y >= 0, loss[r] = log Σ_j exp(z_j - z_max) + z_max
 * - z_y, d_j = exp(z_j - logsum)·inv (minus inv at y), correct[r] = 1 when
 * the first arg-max is y; an unlabelled row (y < 0) gets zeros. The caller
 * sums loss in row order. */
typedef struct {
	int64_t n; const float *logits; float *d; const int32_t *labels; int64_t classes; double inv; double *loss;
	int32_t *correct;
} bs_nn_xent_p;
BS_HD void bs_nn_xent_thread(const bs_nn_xent_p *p, int64_t r) {
	int64_t c = p->classes;
	const float *z = p->logits + r * c;
	float *d = p->d + r * c;
	int32_t y = p->labels[r];
	if (y < 0) {
		for (int64_t j = 0; j < c; j++) d[j] = 0.0f;
		p->loss[r] = 0;
		p->correct[r] = 0;
		return;
	}
	int64_t best = bs_argmax(z, c);
	p->correct[r] = best == y;
	double zmax = (double)z[best], sum = 0;
	for (int64_t j = 0; j < c; j++) sum += exp((double)z[j] - zmax);
	double logsum = zmax + bs_log(sum);
	p->loss[r] = logsum - (double)z[y];
	for (int64_t j = 0; j < c; j++) d[j] = (float)(exp((double)z[j] - logsum) * p->inv);
	d[y] -= (float)p->inv;
}

/* ---- Adam ------------------------------------------------------------- */

/* gnn's adamUpdate for element i, float32 operations in its order. The
 * coefficients come as doubles holding float32 values. */
typedef struct {
	int64_t n; float *params; const float *grads; float *m; float *v; double b1; double b2; double wd; double step;
	double inv_sqrt_c2; double eps;
} bs_nn_adam_p;
BS_HD void bs_nn_adam_thread(const bs_nn_adam_p *p, int64_t i) {
	float b1 = (float)p->b1, b2 = (float)p->b2, wd = (float)p->wd, step = (float)p->step;
	float isc = (float)p->inv_sqrt_c2, eps = (float)p->eps;
	float pi = p->params[i], g = p->grads[i];
	g += wd * pi;
	float mi = b1 * p->m[i] + (1.0f - b1) * g;
	float vi = b2 * p->v[i] + (1.0f - b2) * g * g;
	p->m[i] = mi;
	p->v[i] = vi;
	p->params[i] = pi - step * mi / (bs_sqrtf(vi) * isc + eps);
}

/* ---- rows of a matrix by id (device-resident features) --------------- */

/* out[r·f + j] = x[ids[r]·f + j] */
typedef struct { int64_t n; const float *x; const int32_t *ids; int64_t f; float *out; } bs_nn_gather_rows_p;
BS_HD void bs_nn_gather_rows_thread(const bs_nn_gather_rows_p *p, int64_t e) {
	int64_t r = e / p->f, j = e % p->f;
	p->out[e] = p->x[(int64_t)p->ids[r] * p->f + j];
}

/* ---- a device block's aggregation operator (gnn's normalize) --------- */

/* The block's rows [0, n) with int64 offsets indptr (from 0) into data:
 * out gets the values (SAGE, gcn 0: each row divided by its float64 sum,
 * bs_normalize, which is spgemm.NormalizeVec) and ptr32 the offsets as
 * int32, for cuSPARSE. */
typedef struct { int64_t n; const int64_t *indptr; const float *data; float *out; int32_t *ptr32; } bs_nn_row_norm_p;
BS_HD void bs_nn_row_norm_thread(const bs_nn_row_norm_p *p, int64_t r) {
	int64_t lo = p->indptr[r], hi = p->indptr[r + 1];
	for (int64_t q = lo; q < hi; q++) p->out[q] = p->data[q];
	bs_normalize(p->out + lo, hi - lo);
	p->ptr32[r] = (int32_t)lo;
	if (r == p->n - 1) p->ptr32[p->n] = (int32_t)hi;
}

/* GCN's Â with the graph's degrees (gnn's gcnNormalize with deg): with
 * d_v = deg[v]+1 and c_i = deg[i]/Σ_j a[i,j] (1 for a row summing to 0),
 * out[q] = a[i,j]·c_i/sqrt(d_i)·1/sqrt(d_j) and self[i] = 1/d_i, in
 * float64 and in gcnNormalize's order (IEEE division and square root on
 * the device: the same bits). ptr32 as for row_norm. */
typedef struct {
	int64_t n; const int64_t *indptr; const int32_t *indices; const float *data; const int32_t *deg; float *out;
	float *self; int32_t *ptr32;
} bs_nn_gcn_norm_p;
BS_HD double bs_gcn_col_scale(int32_t d) {
#ifdef __CUDA_ARCH__
	return 1.0 / __dsqrt_rn((double)d + 1.0);
#else
	return 1.0 / sqrt((double)d + 1.0);
#endif
}
BS_HD void bs_nn_gcn_norm_thread(const bs_nn_gcn_norm_p *p, int64_t i) {
	int64_t lo = p->indptr[i], hi = p->indptr[i + 1];
	double sum = 0;
	for (int64_t q = lo; q < hi; q++) sum += (double)p->data[q];
	double c = 1.0;
	if (sum != 0) c = (double)p->deg[i] / sum;
	double ci = bs_gcn_col_scale(p->deg[i]);
	double ri = c * ci;
	p->self[i] = (float)(ci * ci);
	for (int64_t q = lo; q < hi; q++) p->out[q] = (float)((double)p->data[q] * ri * bs_gcn_col_scale(p->deg[p->indices[q]]));
	p->ptr32[i] = (int32_t)lo;
	if (i == p->n - 1) p->ptr32[p->n] = (int32_t)hi;
}

/* ---- stand-ins for the libraries' products ---------------------------- */

/* C = alpha·op(A)·op(B) + beta·C, row-major, one thread per element of C
 * (m x n); op(A) is m x k (A stored k x m when ta), op(B) k x n. With beta
 * 0, C is not read (BLAS's convention). */
typedef struct {
	int64_t n; int64_t ta; int64_t tb; int64_t m; int64_t cols; int64_t k; double alpha; const float *a; const float *b;
	double beta; float *c;
} bs_nn_gemm_p;
BS_HD void bs_nn_gemm_thread(const bs_nn_gemm_p *p, int64_t e) {
	int64_t i = e / p->cols, j = e % p->cols;
	float s = 0.0f;
	for (int64_t l = 0; l < p->k; l++) {
		float av = p->ta ? p->a[l * p->m + i] : p->a[i * p->k + l];
		float bv = p->tb ? p->b[j * p->k + l] : p->b[l * p->cols + j];
		s += av * bv;
	}
	float r = (float)p->alpha * s;
	if (p->beta != 0) r += (float)p->beta * p->c[e];
	p->c[e] = r;
}

/* dst = A·B for the CSR A (int32 offsets) and B of f columns: one thread
 * per element of dst, summing the row's entries in order. */
typedef struct {
	int64_t n; const int32_t *indptr; const int32_t *indices; const float *data; const float *b; int64_t f; float *dst;
} bs_nn_spmm_p;
BS_HD void bs_nn_spmm_thread(const bs_nn_spmm_p *p, int64_t e) {
	int64_t i = e / p->f, c = e % p->f;
	float s = 0.0f;
	for (int32_t q = p->indptr[i]; q < p->indptr[i + 1]; q++) s += p->data[q] * p->b[(int64_t)p->indices[q] * p->f + c];
	p->dst[e] = s;
}

/* dst = Aᵀ·B for the rows x cols CSR A and B of rows x f: one thread per
 * column c of dst, which it clears and then scatters into, row by row
 * (spgemm.MulDenseT's order); slow, for the emulator and checks. */
typedef struct {
	int64_t n; const int32_t *indptr; const int32_t *indices; const float *data; int64_t rows; int64_t cols;
	const float *b; float *dst;
} bs_nn_spmmt_p;
BS_HD void bs_nn_spmmt_thread(const bs_nn_spmmt_p *p, int64_t c) {
	int64_t f = p->n;
	for (int64_t j = 0; j < p->cols; j++) p->dst[j * f + c] = 0.0f;
	for (int64_t i = 0; i < p->rows; i++) {
		float bv = p->b[i * f + c];
		for (int32_t q = p->indptr[i]; q < p->indptr[i + 1]; q++) p->dst[(int64_t)p->indices[q] * f + c] += p->data[q] * bv;
	}
}

#define BS_NN_KERNELS(X)                      \
	X(nn_add, bs_nn_add_p)                    \
	X(nn_copy, bs_nn_copy_p)                  \
	X(nn_scale, bs_nn_scale_p)                \
	X(nn_add_row_scaled, bs_nn_add_row_scaled_p) \
	X(nn_bias, bs_nn_bias_p)                  \
	X(nn_relu, bs_nn_relu_p)                  \
	X(nn_dropout, bs_nn_dropout_p)            \
	X(nn_relu_grad, bs_nn_relu_grad_p)        \
	X(nn_colsum_part, bs_nn_colsum_part_p)    \
	X(nn_colsum_final, bs_nn_colsum_final_p)  \
	X(nn_argmax, bs_nn_argmax_p)              \
	X(nn_xent, bs_nn_xent_p)                  \
	X(nn_adam, bs_nn_adam_p)                  \
	X(nn_gather_rows, bs_nn_gather_rows_p)    \
	X(nn_row_norm, bs_nn_row_norm_p)          \
	X(nn_gcn_norm, bs_nn_gcn_norm_p)          \
	X(nn_gemm, bs_nn_gemm_p)                  \
	X(nn_spmm, bs_nn_spmm_p)                  \
	X(nn_spmmt, bs_nn_spmmt_p)

#endif
