package gnn

import (
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/simd"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// CPUOptions configure the CPU backend. The zero value of each field means
// its documented default.
type CPUOptions struct {
	// Threads is the number of goroutines of the sparse products; 0 means
	// GOMAXPROCS. It never changes the result.
	Threads int
	// PureGoBLAS selects gonum's pure-Go BLAS even in builds with OpenBLAS.
	PureGoBLAS bool
}

// CPU is the Backend of host memory: dense products through BLAS (OpenBLAS
// via cgo in builds with the openblas tag, gonum's pure-Go BLAS otherwise),
// sparse ones through spgemm.MulDense and spgemm.MulDenseT.
type CPU struct {
	impl    blas.Float32
	name    string
	threads int
	// at is SpMMT's transpose of its sparse operand, its arrays reused
	// from call to call.
	at spgemm.CSR
}

var _ Backend = (*CPU)(nil)

// NewCPU returns the CPU backend. With OpenBLAS it sets OpenBLAS's
// process-wide thread count to 1 (see Gemm): nothing else in the project
// changes it, so once per backend is enough and no product pays a cgo call
// for it.
func NewCPU(opt CPUOptions) *CPU {
	impl, name := blasFor(opt.PureGoBLAS)
	if name == BLAS && BLAS != PureGoBLAS {
		setBLASThreads(1)
	}
	return &CPU{impl: impl, name: name, threads: opt.Threads}
}

// Name returns the name of the BLAS: BLAS or PureGoBLAS.
func (c *CPU) Name() string { return c.name }

// HostMemory returns true.
func (c *CPU) HostMemory() bool { return true }

// Alloc returns a zeroed host buffer.
func (c *CPU) Alloc(n int) Buf { return HostBuf(make([]float32, n)) }

// Upload copies src into dst.
func (c *CPU) Upload(dst Buf, src []float32) { copy(dst.host[:len(src)], src) }

// Download copies src into dst.
func (c *CPU) Download(dst []float32, src Buf) { copy(dst, src.host[:len(dst)]) }

// Gemm calls the BLAS's Sgemm (see Backend). With OpenBLAS and more than
// one thread, a large product is split into as many blocks of rows (or of
// columns, when it has few rows) of c as the backend has threads, each a
// single-threaded Sgemm on its own goroutine: OpenBLAS's own worker threads
// spin on sched_yield between calls for up to about 0.1 s, taking a core
// from the goroutines of the passes between products (15% of the CPU time
// of a step in a profile of the products-like workload of
// benchmarks/torchpeer). The blocks of c are computed by the same kernels
// over the same k, so the result does not depend on the split.
//
// Every OpenBLAS call, the small products' included, runs on one OpenBLAS
// thread (NewCPU sets it): OpenBLAS keeps its thread count per process, and a small product
// computed on 2 OpenBLAS threads has other bits than on 1, so a product's
// bits would depend on whether a large product had already pinned the count
// in this process (a run resumed from a checkpoint, which starts a fresh
// process, then drifted from the uninterrupted run from its second epoch).
func (c *CPU) Gemm(tA, tB bool, m, n, k int, alpha float32, a, b Buf, beta float32, cc Buf) {
	t := par.Threads(c.threads)
	openBLAS := c.name == BLAS && BLAS != PureGoBLAS
	if !openBLAS || t <= 1 || m == 0 || n == 0 || k == 0 || m*n*k < gemmSplitMinWork {
		gemm(c.impl, tA, tB, m, n, k, alpha, a.host, b.host, beta, cc.host)
		return
	}
	A, B, C := a.host, b.host, cc.host
	ta, lda, tb, ldb := gemmOps(tA, tB, m, n, k)
	if m >= n {
		// Rows [lo, hi) of c: rows of op(a).
		par.Ranges(m, min(t, m/gemmSplitMinSide), 1, func(_, lo, hi int) {
			aOff := lo * k
			if tA {
				aOff = lo
			}
			c.impl.Sgemm(ta, tb, hi-lo, n, k, alpha, A[aOff:], lda, B, ldb, beta, C[lo*n:], n)
		})
		return
	}
	// Columns [lo, hi) of c: columns of op(b).
	par.Ranges(n, min(t, n/gemmSplitMinSide), 1, func(_, lo, hi int) {
		bOff := lo
		if tB {
			bOff = lo * k
		}
		c.impl.Sgemm(ta, tb, m, hi-lo, k, alpha, A, lda, B[bOff:], ldb, beta, C[lo:], n)
	})
}

// gemmSplitMinWork and gemmSplitMinSide bound the products Gemm splits:
// at least 2^22 multiply-adds, and blocks of at least 64 rows or columns.
const (
	gemmSplitMinWork = 1 << 22
	gemmSplitMinSide = 64
)

// SpMM calls spgemm.MulDense (on one goroutine when it is small).
func (c *CPU) SpMM(dst Buf, a *spgemm.CSR, b Buf, cols int) {
	spgemm.MulDense(dst.host, a, b.host, cols, c.sparseThreads(a, cols))
}

// SpMMT computes aᵀ·b. A large product transposes a (into arrays reused
// from call to call) and gathers each output row with spgemm.MulDense, on
// one goroutine when the product is small. That has the bits of
// spgemm.MulDenseT's scatter (the transpose keeps a's row order within
// each column; spgemm's TestMulDenseOfTranspose pins it) and is faster:
// MulDense sums an output row in registers and writes it once, where the
// scatter loads and stores it once per term (the second layer's backward
// aggregation of benchmarks/torchpeer's products-like model, 139,000
// entries by 256 columns: about 10 ms against 16 ms per step on 2
// threads). A small one (its third layer's, 15,000 entries, about one per
// output row) stays with the scatter, which was faster there (1.1 against
// 1.9 ms).
func (c *CPU) SpMMT(dst Buf, a *spgemm.CSR, b Buf, cols int) {
	t := c.sparseThreads(a, cols)
	if cols == 0 || a.Cols == 0 || a.NNZ() < spmmtGatherMinNNZ {
		spgemm.MulDenseT(dst.host, a, b.host, cols, t)
		return
	}
	spgemm.MulDense(dst.host, c.at.Transpose(a, t), b.host, cols, t)
}

// spmmtGatherMinNNZ is the fewest entries for which SpMMT transposes and
// gathers.
const spmmtGatherMinNNZ = 1 << 16

// NormalizeRows calls spgemm.NormalizeRows.
func (c *CPU) NormalizeRows(a *spgemm.CSR) { spgemm.NormalizeRows(a, c.threads) }

// Add sets dst += src.
func (c *CPU) Add(dst, src Buf) {
	d := dst.host[:len(src.host)]
	for e, v := range src.host {
		d[e] += v
	}
}

// AddRowScaled adds s[i]·src[i,:] to row i of dst.
func (c *CPU) AddRowScaled(dst, s, src Buf, cols int) {
	for i, si := range s.host {
		if si == 0 {
			continue
		}
		d, h := dst.host[i*cols:(i+1)*cols], src.host[i*cols:(i+1)*cols]
		for j, v := range h {
			d[j] += si * v
		}
	}
}

// The element-wise passes below run on up to Threads goroutines when they
// are large. Every element is computed by the same arithmetic whatever the
// split, and column sums add the rows of each column in row order, so the
// results are the same bit for bit for any thread count.

// minParallelValues is the size of an element-wise pass under which it stays
// on one goroutine: below about 1 MiB (a pass of a few hundred
// microseconds) the pass gains less from a second goroutine than a fork and
// join can cost on a loaded machine, where each waits for a core (Cora's
// minibatches, whose passes are a few tens of microseconds, ran 1.4 times
// slower split than a peer that keeps them on one thread).
const minParallelValues = 256 << 10

// minParallelMACs is the size (entries times columns) of a sparse product
// under which SpMM and SpMMT run on one goroutine, for the same reason.
const minParallelMACs = 1 << 19

// sparseThreads returns the threads of a product of a by cols columns.
func (c *CPU) sparseThreads(a *spgemm.CSR, cols int) int {
	if a.NNZ()*int64(cols) < minParallelMACs {
		return 1
	}
	return c.threads
}

// parts returns how many goroutines a pass over n values uses.
func (c *CPU) parts(n int) int {
	return max(1, min(par.Threads(c.threads), n/minParallelValues))
}

// AddBias adds b to every row of dst.
func (c *CPU) AddBias(dst, b Buf) {
	f := len(b.host)
	if f == 0 {
		return
	}
	rows := len(dst.host) / f
	if k := c.parts(rows * f); k > 1 {
		par.Ranges(rows, k, 1, func(_, lo, hi int) { addBiasRows(dst.host, b.host, lo, hi) })
		return
	}
	addBiasRows(dst.host, b.host, 0, rows)
}

// addBiasRows adds b to rows [lo, hi) of out.
func addBiasRows(out, b []float32, lo, hi int) {
	f := len(b)
	for r := lo; r < hi; r++ {
		row := out[r*f : (r+1)*f : (r+1)*f]
		for j, v := range b {
			row[j] += v
		}
	}
}

// ColSums sets dst to the column sums of a.
func (c *CPU) ColSums(dst, a Buf) {
	f := len(dst.host)
	if f == 0 {
		return
	}
	rows := len(a.host) / f
	if k := min(c.parts(rows*f), f/colSumsMinCols); k > 1 {
		par.Ranges(f, k, 1, func(_, lo, hi int) { colSums(dst.host, a.host, rows, lo, hi) })
		return
	}
	colSums(dst.host, a.host, rows, 0, f)
}

// colSumsMinCols is the fewest columns a goroutine of ColSums takes: the
// split is by columns (so that each column is summed in row order), and a
// narrower slice of every row wastes the rest of its cache lines.
const colSumsMinCols = 16

// colSums sets columns [lo, hi) of dst to the column sums of the first rows
// rows of a (rows of len(dst) values).
func colSums(dst, a []float32, rows, lo, hi int) {
	f := len(dst)
	d := dst[lo:hi:hi]
	clear(d)
	for r := range rows {
		for j, v := range a[r*f+lo : r*f+hi : r*f+hi] {
			d[j] += v
		}
	}
}

// ReLU zeroes the negative values of h.
func (c *CPU) ReLU(h Buf) {
	if k := c.parts(len(h.host)); k > 1 {
		par.Ranges(len(h.host), k, 1, func(_, lo, hi int) { biasReLU(h.host[lo:hi], nil, 0) })
		return
	}
	biasReLU(h.host, nil, 0)
}

// biasReLU adds b (when not nil) to h, element e of h getting b[(j0+e) mod
// len(b)], and sets the negative results to +0.
func biasReLU(h, b []float32, j0 int) {
	if b == nil {
		for e, v := range h {
			if v < 0 {
				h[e] = 0
			}
		}
		return
	}
	j := j0
	for e, v := range h {
		v += b[j]
		if v < 0 {
			v = 0
		}
		h[e] = v
		if j++; j == len(b) {
			j = 0
		}
	}
}

// Dropout applies mask (and, with relu, ReLU) to h, four elements per
// random draw (see dropout).
func (c *CPU) Dropout(hb Buf, mask DropoutMask, relu bool) {
	c.dropout(hb.host, hb.host, nil, mask, relu)
}

// dropout sets dst to the dropout (with relu, also ReLU) of src, after
// adding the bias b to every row when b is not nil (rows of len(b) values).
// dst and src have the same length and are either the same slice or do not
// overlap.
func (c *CPU) dropout(dst, src, b []float32, mask DropoutMask, relu bool) {
	d := newDropper(mask, relu)
	n := len(dst)
	align := 4 // whole draws
	if b != nil {
		align = len(b) // whole rows, for the bias index
	}
	if k := c.parts(n); k > 1 && n/align >= k {
		par.Ranges(n, k, align, func(_, lo, hi int) { d.span(dst[lo:hi], src[lo:hi], lo, b) })
		return
	}
	d.span(dst, src, 0, b)
}

// dropper applies a DropoutMask: element e takes the 16-bit draw
// 16·(e mod 4) of the mask key's draw e/4, which simd.Dropout (AVX2 where
// it runs) and simd.DropOne apply without branches.
type dropper struct {
	key       sampling.RowKey
	threshold uint32
	scale     float32
	relu      bool
}

func newDropper(mask DropoutMask, relu bool) dropper {
	return dropper{key: mask.Key, threshold: mask.Threshold, scale: mask.Scale, relu: relu}
}

// dropChunk is the most draws a dropper computes before applying them.
const dropChunk = 256

// span sets dst[i] to the dropout of src[i] (plus b[(e0+i) mod len(b)]
// when b is not nil), element e0+i of the layer's input.
func (d dropper) span(dst, src []float32, e0 int, b []float32) {
	src = src[:len(dst)]
	if f := len(b); f > 0 && f%4 == 0 && e0%f == 0 && len(dst)%f == 0 {
		d.rows(dst, src, e0, b)
		return
	}
	key, thr, sb, relu := d.key, d.threshold, math.Float32bits(d.scale), d.relu
	j, f := 0, len(b)
	if f > 0 {
		j = e0 % f
	}
	at := func(i int) float32 {
		v := src[i]
		if f > 0 {
			v += b[j]
			if j++; j == f {
				j = 0
			}
		}
		return v
	}
	i := 0
	// The head up to a whole draw.
	if e := e0 % 4; e != 0 {
		r := key.Uint64(int64(e0/4)) >> (16 * e)
		for ; i < len(dst) && (e0+i)%4 != 0; i++ {
			dst[i] = simd.DropOne(at(i), r, thr, sb, relu)
			r >>= 16
		}
	}
	draw := int64((e0 + i) / 4)
	if f == 0 {
		var buf [dropChunk]uint64
		for i+4 <= len(dst) {
			m := min(4*dropChunk, (len(dst)-i)&^3)
			q := m / 4
			start, step := key.Seq(draw)
			simd.Mix64Seq(buf[:q], start, step)
			simd.Dropout(dst[i:i+m], src[i:i+m], buf[:q], thr, d.scale, relu, nil)
			i, draw = i+m, draw+int64(q)
		}
	} else {
		for ; i+4 <= len(dst); i += 4 {
			r := key.Uint64(draw)
			draw++
			v0, v1, v2, v3 := at(i), at(i+1), at(i+2), at(i+3)
			d4 := dst[i : i+4 : i+4]
			d4[0] = simd.DropOne(v0, r, thr, sb, relu)
			d4[1] = simd.DropOne(v1, r>>16, thr, sb, relu)
			d4[2] = simd.DropOne(v2, r>>32, thr, sb, relu)
			d4[3] = simd.DropOne(v3, r>>48, thr, sb, relu)
		}
	}
	if i < len(dst) {
		r := key.Uint64(draw)
		for ; i < len(dst); i++ {
			dst[i] = simd.DropOne(at(i), r, thr, sb, relu)
			r >>= 16
		}
	}
}

// rows is span for whole rows of a width that is a multiple of 4, so that
// every row starts a draw and starts the bias.
func (d dropper) rows(dst, src []float32, e0 int, b []float32) {
	f := len(b)
	q := f / 4
	var stack [dropChunk]uint64
	buf := stack[:]
	if q > len(buf) {
		buf = make([]uint64, q)
	}
	buf = buf[:q]
	draw := int64(e0 / 4)
	for r := 0; r+f <= len(dst); r += f {
		start, step := d.key.Seq(draw)
		simd.Mix64Seq(buf, start, step)
		draw += int64(q)
		simd.Dropout(dst[r:r+f:r+f], src[r:r+f:r+f], buf, d.threshold, d.scale, d.relu, b)
	}
}

// ReLUDropoutGrad scales dh where h > 0 and zeroes it elsewhere.
func (c *CPU) ReLUDropoutGrad(dh, h Buf, scale float32) {
	n := len(h.host)
	if k := c.parts(n); k > 1 {
		par.Ranges(n, k, 1, func(_, lo, hi int) { reluDropoutGrad(dh.host[lo:hi], h.host[lo:hi], scale) })
		return
	}
	reluDropoutGrad(dh.host[:n], h.host, scale)
}

func reluDropoutGrad(d, h []float32, scale float32) {
	d = d[:len(h)]
	for e, v := range h {
		d[e] = simd.PassPositive(d[e]*scale, v)
	}
}

// The fused passes of fusedBackend (see layer.go): each computes exactly
// what the sequence of operations it replaces computes, in one pass over
// memory.

// BiasActivate adds b to every row of h and applies ReLU, or with dropout
// set the dropout of mask with ReLU: AddBias then ReLU or Dropout.
func (c *CPU) BiasActivate(h, b Buf, mask DropoutMask, dropout bool) {
	if dropout {
		c.dropout(h.host, h.host, b.host, mask, true)
		return
	}
	f := len(b.host)
	rows := len(h.host) / max(f, 1)
	if k := c.parts(len(h.host)); k > 1 && rows >= k {
		par.Ranges(rows, k, 1, func(_, lo, hi int) { biasReLU(h.host[lo*f:hi*f], b.host, 0) })
		return
	}
	biasReLU(h.host, b.host, 0)
}

// CopyDropout sets dst to the dropout of src (without ReLU): Upload then
// Dropout.
func (c *CPU) CopyDropout(dst, src Buf, mask DropoutMask) {
	c.dropout(dst.host[:len(src.host)], src.host, nil, mask, false)
}

// ReLUDropoutGradColSums is ReLUDropoutGrad(dh, h, scale) followed by
// ColSums(sums, dh).
func (c *CPU) ReLUDropoutGradColSums(dh, h Buf, scale float32, sums Buf) {
	f := len(sums.host)
	if f == 0 {
		c.ReLUDropoutGrad(dh, h, scale)
		return
	}
	rows := len(h.host) / f
	if k := min(c.parts(rows*f), f/colSumsMinCols); k > 1 {
		par.Ranges(f, k, 1, func(_, lo, hi int) { reluDropoutGradColSums(dh.host, h.host, scale, sums.host, rows, lo, hi) })
		return
	}
	reluDropoutGradColSums(dh.host, h.host, scale, sums.host, rows, 0, f)
}

// reluDropoutGradColSums is reluDropoutGrad and colSums on columns [lo, hi)
// of the first rows rows (simd.ReLUGradColSums: AVX2 where it runs).
func reluDropoutGradColSums(dh, h []float32, scale float32, sums []float32, rows, lo, hi int) {
	s := sums[lo:hi:hi]
	clear(s)
	if rows == 0 {
		return
	}
	simd.ReLUGradColSums(dh[lo:], h[lo:], len(sums), rows, scale, s)
}

// SoftmaxCrossEntropy calls CrossEntropy.
func (c *CPU) SoftmaxCrossEntropy(dLogits, logits Buf, classes int, labels []int32) (float64, int, int) {
	return CrossEntropy(dLogits.host, logits.host, classes, labels)
}

// ArgmaxRows sets dst[r] to the arg-max of row r of a.
func (c *CPU) ArgmaxRows(dst []int32, a Buf, cols int) {
	for r := range dst {
		dst[r] = int32(argmax(a.host[r*cols : (r+1)*cols]))
	}
}

// Adam applies one Adam step.
func (c *CPU) Adam(params, grads, m, v Buf, s AdamStep) {
	n := len(grads.host)
	// An element costs a square root and a division, several times a
	// pass's copy: split from a quarter of the size (the 207,000
	// parameters of the products-like model of benchmarks/torchpeer,
	// 0.8 ms on one goroutine).
	if k := c.parts(n * adamCostFactor); k > 1 {
		par.Ranges(n, k, 1, func(_, lo, hi int) {
			adamUpdate(params.host[lo:hi], grads.host[lo:hi], m.host[lo:hi], v.host[lo:hi], s)
		})
		return
	}
	adamUpdate(params.host, grads.host, m.host, v.host, s)
}

// adamCostFactor is the cost of an element of Adam in element-wise passes.
const adamCostFactor = 4
