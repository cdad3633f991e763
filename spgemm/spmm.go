package spgemm

// Sparse times dense (SpMM). MulDense is parallel over ranges of rows of A
// of equal nonzero count; row i of the output is Σ_k A(i,k)·X(k,:) added in
// the order of A's row.
//
// MulDense on Transpose(A) computes Aᵀ·X with MulDenseT's bits (the
// transpose keeps A's row order within each column, and both kernels add a
// row's products in that order from +0: TestMulDenseOfTranspose) and, on
// the blocks of a GNN's backward pass, about 2x faster than MulDenseT's
// scatter once the transpose is built into reused arrays: gnn's CPU
// backend does that.
//
// MulDenseT (Aᵀ·X, the backward pass of an aggregation) is parallel over
// ranges of OUTPUT rows, columns of A, of equal term count: each goroutine
// walks every row i of A, finds the row's columns in its range by binary
// search (rows are sorted) and adds A(i,j)·X(i,:) to row j. Each output row
// is thus owned by one goroutine and gets its terms in row order of A, as in
// a serial scatter, so the result has the same bits for any thread count.
// This needs no transpose of A (an earlier version built one on every call,
// ~1.8x slower at f = 128) and no per-thread partial outputs (whose
// reduction would change the order of the sums); it costs one counting pass
// over A's column ids and a binary search per row and range.
//
// MulDense sums a destination row in registers across its neighbours with
// sumRows (AVX2 assembly on amd64 CPUs that have it; the first f &^ 7
// columns, 64, 32 and 8 at a time), instead of loading and storing the row
// once per neighbour: each product is rounded to float32 (VMULPS) and added
// in row order (VADDPS, no FMA), the arithmetic of axpy, so the bits do not
// depend on which runs (about 2.2x faster than axpy at f = 128 on one
// thread, R-MAT 16). The other columns, and MulDenseT, add f-wide rows with
// axpy, which runs AVX2 assembly (axpyAVX2, 8 values per instruction, the
// same arithmetic) where sumRows runs. Otherwise, where gonum's SSE assembly is built (amd64 without the noasm, safe
// or gccgo tags) rows of 16 or more values use it, about 2.5x faster than
// the Go loop at f = 128; it computes y + float32(αx) element by element
// exactly as the Go loop does. Elsewhere the Go loop is unrolled by four
// (the compiler does not vectorise; the unrolling removes the bounds checks
// and keeps four independent multiply-adds in flight); unrolling by eight
// measured no faster. The Go loop rounds each product to float32 before
// adding, so that no FMA fusion can change the bits on other architectures.

import (
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/bulksample/bulksample/internal/par"
)

// MulDense computes dst = A·X, where X is a.Cols x f and dst a.Rows x f, both
// row-major. dst is overwritten; it must not overlap x. It costs
// O(nnz(a)·f + a.Rows·f) and panics with a ShapeError if the lengths do not
// match.
func MulDense(dst []float32, a *CSR, x []float32, f int, threads int) {
	if f < 0 || len(x) != a.Cols*f || len(dst) != a.Rows*f {
		panic(ShapeError{Op: "MulDense", ARows: a.Rows, ACols: a.Cols, BRows: len(x) / max(f, 1), BCols: f})
	}
	if a.Rows == 0 || f == 0 {
		return
	}
	par.ForWork(a.Indptr, par.Threads(threads), func(_, lo, hi int) {
		mulDenseRows(dst, a, x, f, lo, hi)
	})
}

// mulDenseRows computes rows [lo, hi) of dst = A·X.
func mulDenseRows(dst []float32, a *CSR, x []float32, f int, lo, hi int) {
	// The first f &^ 7 columns of a row by sumRows where it runs: the
	// row's sums stay in registers across its neighbours instead of being
	// loaded and stored once per neighbour by axpy, with the same bits.
	f8 := 0
	if f >= sumRowsMin && haveSumRows {
		f8 = f &^ 7
	}
	lines := (4*f + 63) / 64 // cache lines per row of x, about
	for i := lo; i < hi; i++ {
		// Start from +0 and add every term, as MulDenseT does, so that
		// both agree on the sign of zero.
		out := dst[i*f : (i+1)*f]
		s, e := a.Indptr[i], a.Indptr[i+1]
		var next []int32 // the neighbours of a later row, to prefetch
		if i+prefetchRows < hi {
			ps, pe := a.Indptr[i+prefetchRows], a.Indptr[i+prefetchRows+1]
			if int(pe-ps)*lines <= prefetchMaxLines {
				next = a.Indices[ps:pe]
			}
		}
		done := 0
		if f8 > 0 && sumRows(out, x, f, a.Indices[s:e], a.Data[s:e], a.Cols, next) {
			done = f8
		}
		if done == f {
			continue
		}
		rest := out[done:]
		clear(rest)
		for p := s; p < e; p++ {
			k := int(a.Indices[p])
			axpy(rest, x[k*f+done:(k+1)*f], a.Data[p])
		}
	}
}

// prefetchRows is how many rows ahead mulDenseRows has sumRows prefetch
// the neighbours' rows of x.
const prefetchRows = 2

// prefetchMaxLines is the most cache lines mulDenseRows prefetches for a
// row. The hint pays where a row has few neighbours (the first layer of the
// products-like workload of benchmarks/torchpeer: about 5 neighbours of 7
// lines, 25% faster on one thread) and costs where it has many (10
// neighbours of 16 lines: 15% slower), whose loads already keep the memory
// system busy.
const prefetchMaxLines = 48

// sumRowsMin is the least row length handed to sumRows.
const sumRowsMin = 16

// axpyAsmMin is the least row length handed to the assembly axpy, below
// which its call and checks cost more than they save.
const axpyAsmMin = 16

// axpy sets y += alpha·x; len(x) >= len(y).
func axpy(y, x []float32, alpha float32) {
	n := len(y)
	x = x[:n]
	i := 0
	if haveSumRows && n >= axpyAsmMin {
		// AVX2: 8 values per instruction, the same arithmetic (and every
		// term added, alpha = 0 included).
		i = n &^ 7
		axpyAVX2(&y[0], &x[0], alpha, i)
	} else if haveAsmAxpy && n >= axpyAsmMin && alpha != 0 {
		// Gonum's Saxpy returns early when alpha == 0, which would skip
		// 0·Inf = NaN; the Go loop adds every term.
		gonum.Implementation{}.Saxpy(n, alpha, x, 1, y, 1)
		return
	}
	for ; i+4 <= n; i += 4 {
		y4, x4 := y[i:i+4:i+4], x[i:i+4:i+4]
		y4[0] += float32(alpha * x4[0])
		y4[1] += float32(alpha * x4[1])
		y4[2] += float32(alpha * x4[2])
		y4[3] += float32(alpha * x4[3])
	}
	for ; i < n; i++ {
		y[i] += float32(alpha * x[i])
	}
}

// MulDenseT computes dst = Aᵀ·X, where X is a.Rows x f and dst a.Cols x f,
// both row-major. dst is overwritten; it must not overlap x. It costs
// O(nnz(a)·f + a.Cols·f + ranges·a.Rows·log(row length)) with up to
// mulDenseTRangesPerThread ranges per thread, and panics with a ShapeError if
// the lengths do not match.
func MulDenseT(dst []float32, a *CSR, x []float32, f int, threads int) {
	if f < 0 || len(x) != a.Rows*f || len(dst) != a.Cols*f {
		panic(ShapeError{Op: "MulDenseT", ARows: a.Cols, ACols: a.Rows, BRows: len(x) / max(f, 1), BCols: f})
	}
	if a.Cols == 0 || f == 0 {
		return
	}
	threads = par.Threads(threads)
	if threads == 1 || a.NNZ()*int64(f) < mulDenseTMinWork {
		mulDenseTColumns(dst, a, x, f, 0, a.Cols)
		return
	}
	// The cost of output row j is its number of terms, the count of column
	// j in A, plus one. Counting into at most mulDenseTBuckets buckets of
	// consecutive columns rather than per column keeps the counts on the
	// stack (a.Cols+1 counts were allocated on every call); the ranges then
	// start on bucket edges, which with a few ranges per thread costs little
	// balance.
	shift := max(bits.Len(uint(a.Cols-1))-mulDenseTBucketBits, 0)
	var hist [mulDenseTBuckets + 1]int64
	for _, j := range a.Indices {
		hist[j>>shift+1]++
	}
	nb := (a.Cols-1)>>shift + 1
	for b := range nb {
		width := min((b+1)<<shift, a.Cols) - b<<shift
		hist[b+1] += hist[b] + int64(width)
	}
	parts := threads * mulDenseTRangesPerThread
	bounds := make([]int, 1, parts+1)
	for k := 1; k < parts; k++ {
		b, _ := slices.BinarySearch(hist[:nb+1], hist[nb]*int64(k)/int64(parts))
		if j := min(b<<shift, a.Cols); j > bounds[len(bounds)-1] && j < a.Cols {
			bounds = append(bounds, j)
		}
	}
	bounds = append(bounds, a.Cols)
	par.For(len(bounds)-1, threads, func(_, c int) {
		mulDenseTColumns(dst, a, x, f, bounds[c], bounds[c+1])
	})
}

// mulDenseTBucketBits is the log2 of the most column buckets MulDenseT counts
// terms in to split its work.
const (
	mulDenseTBucketBits = 10
	mulDenseTBuckets    = 1 << mulDenseTBucketBits
)

// mulDenseTMinWork is the least nnz·f worth running MulDenseT in parallel.
const mulDenseTMinWork = 1 << 16

// mulDenseTRangesPerThread is how many output row ranges MulDenseT makes per
// thread, for load balance; each costs a binary search in every row of A,
// so fewer than par.ChunksPerThread.
const mulDenseTRangesPerThread = 2

// mulDenseTColumns computes rows [lo, hi) of dst = Aᵀ·X (see the top of the
// file).
func mulDenseTColumns(dst []float32, a *CSR, x []float32, f int, lo, hi int) {
	clear(dst[lo*f : hi*f])
	lo32, hi32 := int32(lo), int32(hi)
	for i := range a.Rows {
		start, end := a.Indptr[i], a.Indptr[i+1]
		row := a.Indices[start:end]
		if lo > 0 && len(row) > 0 && row[0] < lo32 {
			k, _ := slices.BinarySearch(row, lo32)
			row, start = row[k:], start+int64(k)
		}
		vals := a.Data[start:end]
		vals = vals[:len(row)]
		xi := x[i*f : (i+1)*f]
		for p, j := range row {
			if j >= hi32 {
				break
			}
			axpy(dst[int(j)*f:(int(j)+1)*f], xi, vals[p])
		}
	}
}
