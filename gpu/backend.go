package gpu

// The GNN compute backend on a Device (gnn.Backend): dense products by
// cuBLAS's Sgemm (row-major through the transposition of
// cuda.BLAS.SgemmRowMajor), aggregation by cuSPARSE's SpMM on the block's
// CSR (A·B, and Aᵀ·B with cuSPARSE's transpose), everything else by the
// kernels of bs_nn.h. On the host emulator, and with
// BackendOptions.OwnKernels, the products run on bulksample's own kernels
// (nn_gemm, nn_spmm, nn_spmmt) instead.
//
// Work is queued, not run at once: an operation that returns nothing to
// the host appends a closure to the queue, and the queue runs, in order,
// in one call on the device's thread when a result is needed (Download,
// SoftmaxCrossEntropy, ArgmaxRows), when a host array must be read at
// once (a large Upload, the sparse operand of SpMM), or when it is long.
// A training step thus costs a handful of hand-offs to the context's
// thread instead of one per operation.

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/spgemm"
)

// BackendOptions configure NewBackend. The zero value means the defaults.
type BackendOptions struct {
	// OwnKernels computes Gemm, SpMM and SpMMT with bulksample's kernels
	// instead of cuBLAS and cuSPARSE (slower; their sums in another
	// order), so that a GPU's tests can compare the libraries with them.
	// The emulator has no libraries and always does.
	OwnKernels bool
	// Threads is the number of goroutines of the host's share of the work
	// (NormalizeRows); 0 means GOMAXPROCS.
	Threads int
	// Features says where ResidentFeatures keeps a trainer's feature
	// matrix; the zero value is PlaceAuto (device memory when it fits,
	// else host memory the device reads in place).
	Features FeaturesOptions
}

// Backend is gnn.Backend on a Device: the model's parameters, gradients,
// Adam's moments and activations live in device memory, and host data
// moves only through Upload, Download, the sparse operands of SpMM and
// SpMMT (copied once per Hold) and the labels of SoftmaxCrossEntropy.
//
// # Errors
//
// gnn.Backend's operations return no error. The first failure of a device
// call is kept (Err) and every later operation does nothing, as
// bufio.Writer does; a trainer checks Err after each step (gnn's Trainer
// does). SoftmaxCrossEntropy then returns a NaN loss.
//
// # Exactness
//
// Equal to gnn.CPU bit for bit: Upload, Download, Add, AddRowScaled,
// AddBias, ReLU, Dropout (the masks and the values), ReLUDropoutGrad,
// their fused forms, ArgmaxRows, Adam, NormalizeRows (on the host).
// Not: Gemm and SpMM (cuBLAS and cuSPARSE sum in their own order; SpMMT,
// cuSPARSE's transpose, may even differ from run to run), ColSums (sums
// in chunks of rows), SoftmaxCrossEntropy (the device's exp). Those agree
// with the CPU to float32 rounding of their sums: gnn/backendtest's
// tolerance, 1e-4 absolute plus 1e-4 relative.
//
// A Backend is used by one goroutine at a time; Close frees its memory.
type Backend struct {
	dev  *Device
	opt  BackendOptions
	lib  bool // cuBLAS and cuSPARSE (a GPU without OwnKernels)
	name string

	q     []func(p *pipe)
	err   error
	arena arena // scratch of the operations
	live  map[*devMem]struct{}
	held  map[*spgemm.CSR]*heldCSR
	// fb records the library calls replaced by the own kernels.
	fb fallbacks
	// Host scratch of SoftmaxCrossEntropy.
	lossRows []float64
	correct  []int32
	closed   bool
}

var (
	_ gnn.Backend     = (*Backend)(nil)
	_ gnn.Freer       = (*Backend)(nil)
	_ gnn.Holder      = (*Backend)(nil)
	_ gnn.BlockFormer = (*Backend)(nil)
	_ gnn.ErrBackend  = (*Backend)(nil)
	_ gnn.Syncer      = (*Backend)(nil)
)

// devMem is an allocation of a Backend: n float32 values.
type devMem struct {
	m mem
	n int
}

// Len returns the number of float32 values of the allocation.
func (d *devMem) Len() int { return d.n }

// heldCSR is the device copy of a sparse operand (Hold): int32 row
// offsets, as cuSPARSE takes them.
type heldCSR struct {
	// The shape when it was held (the host's view), and whether it is a
	// device block's operator (FormBlock) rather than a host copy.
	rows, cols int
	nnz        int64
	formed     bool
	a          devCSR // set by the queued copy
	arena      arena
	sp         spmmState // the library's descriptors of its products (backend_cuda.go)
}

// fallbacks are the library calls a Backend replaced by its own kernels
// because the library refused them; each says which and why.
type fallbacks struct {
	spmm, spmmT string
}

// Fallbacks returns the library calls the backend replaced by its own
// kernels because the library refused them (each says which and why;
// none is the usual case). The results are the same within the products'
// rounding, the speed is not.
func (b *Backend) Fallbacks() []string {
	var out []string
	for _, f := range []string{b.fb.spmm, b.fb.spmmT} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// queueMax is the most operations queued before they run.
const queueMax = 256

// NewBackend returns the GNN backend on d. On a GPU (a cuda build) it
// loads cuBLAS and cuSPARSE now, so that a missing library is an error
// here, naming what was tried.
func NewBackend(d *Device, opt BackendOptions) (*Backend, error) {
	b := &Backend{dev: d, opt: opt, arena: newArena(), live: map[*devMem]struct{}{},
		held: map[*spgemm.CSR]*heldCSR{}}
	b.name = "gpu kernels on " + d.Name()
	if d.native != nil && !opt.OwnKernels {
		names, err := loadLibs(d)
		if err != nil {
			return nil, fmt.Errorf("gpu: NewBackend: %w", err)
		}
		b.lib, b.name = true, names
	}
	return b, nil
}

// Name describes the backend: the libraries and the device.
func (b *Backend) Name() string { return b.name }

// HostMemory returns false: Bufs are device memory.
func (b *Backend) HostMemory() bool { return false }

// Err returns the first error of a device call, or nil.
func (b *Backend) Err() error { return b.err }

func (b *Backend) setErr(err error) {
	if b.err == nil && err != nil {
		b.err = err
	}
}

// enqueue appends fn to the queue, running the queue when it is long.
func (b *Backend) enqueue(fn func(p *pipe)) {
	if b.err != nil {
		return
	}
	if b.closed {
		b.setErr(fmt.Errorf("gpu: Backend used after Close"))
		return
	}
	b.q = append(b.q, fn)
	if len(b.q) >= queueMax {
		b.flush(nil)
	}
}

// flush runs the queue and then then (when not nil) in one call on the
// device's thread.
func (b *Backend) flush(then func(p *pipe)) {
	if b.err != nil {
		b.q = b.q[:0]
		return
	}
	q := b.q
	err := b.dev.do(func(ex executor) error {
		p := b.dev.newPipe(ex, &b.arena)
		for _, fn := range q {
			fn(p)
			if p.err != nil {
				return p.err
			}
		}
		if then != nil {
			then(p)
		}
		return p.err
	})
	clear(q)
	b.q = q[:0]
	b.setErr(err)
}

// Sync runs the queued work and waits for the device to finish it (a
// timing point); it returns Err. It waits for the backend's stream only,
// not for a sampler's bulk being sampled beside it (SampleOn).
func (b *Backend) Sync() error {
	b.flush(func(p *pipe) { p.setErr(p.ex.syncStream()) })
	return b.err
}

// Alloc returns n zeros of device memory.
func (b *Backend) Alloc(n int) gnn.Buf {
	d := &devMem{n: n}
	if b.err == nil {
		b.setErr(b.dev.do(func(ex executor) error {
			m, err := ex.alloc(int64(max(n, 1)) * 4)
			if err != nil {
				return fmt.Errorf("gpu: Backend.Alloc(%d values): %w", n, err)
			}
			d.m = m
			return nil
		}))
	}
	if b.err != nil {
		return gnn.DeviceBuf(d, 0, n)
	}
	b.live[d] = struct{}{}
	m := d.m
	b.enqueue(func(p *pipe) { p.launch("fill_f32", int64(n), m, float64(0)) })
	return gnn.DeviceBuf(d, 0, n)
}

// Free releases the allocation that x starts at the beginning of (a Buf
// that Alloc returned, or a view of its first values); views that start
// further in are left alone. gnn's buffers call it when they outgrow an
// allocation. x and every view of its allocation must not be used after.
func (b *Backend) Free(x gnn.Buf) {
	dm, off := x.Device()
	d, ok := dm.(*devMem)
	if !ok || off != 0 {
		return
	}
	if _, ok := b.live[d]; !ok {
		return
	}
	delete(b.live, d)
	m := d.m
	b.enqueue(func(p *pipe) { p.setErr(p.ex.free(m)) })
}

// Close runs the queued work and frees every allocation of the backend
// (its Bufs, the held sparse operands and its scratch). It is idempotent;
// the Device stays open.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	b.flush(nil)
	b.closed = true
	err := b.dev.do(func(ex executor) error {
		var errs []error
		for d := range b.live {
			errs = append(errs, ex.free(d.m))
		}
		for _, h := range b.held {
			errs = append(errs, h.sp.free(ex), h.arena.free(ex))
		}
		errs = append(errs, b.arena.free(ex))
		return joinErrs(errs)
	})
	clear(b.live)
	clear(b.held)
	if b.err != nil {
		return b.err
	}
	return err
}

func joinErrs(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// memOf returns the device span of x, which must be memory of b, with
// exactly x's values.
func (b *Backend) memOf(x gnn.Buf, op string) mem {
	dm, off := x.Device()
	d, ok := dm.(*devMem)
	if !ok {
		panic(fmt.Sprintf("gpu: Backend.%s: a Buf that is not device memory of a gpu.Backend", op))
	}
	if _, ok := b.live[d]; !ok && b.err == nil {
		panic(fmt.Sprintf("gpu: Backend.%s: a Buf that is not this backend's (or was freed)", op))
	}
	if b.err != nil && d.m.bytes == 0 {
		return mem{}
	}
	m := d.m.at(int64(off) * 4)
	m.bytes = int64(x.Len()) * 4
	return m
}

// hostStaging is the largest Upload copied into the queue; a larger one
// runs the queue and copies from the caller's slice at once.
const hostStaging = 256 << 10

// Upload copies src into dst's first len(src) values.
func (b *Backend) Upload(dst gnn.Buf, src []float32) {
	if len(src) > dst.Len() {
		panic(spgemm.ShapeError{Op: "gpu.Backend.Upload", ARows: len(src), ACols: 1, BRows: dst.Len(), BCols: 1})
	}
	m := b.memOf(dst, "Upload")
	if len(src) == 0 {
		return
	}
	if 4*len(src) <= hostStaging {
		c := slices.Clone(src)
		b.enqueue(func(p *pipe) { upload(p, m, c) })
		return
	}
	b.flush(func(p *pipe) { upload(p, m, src) })
}

// Download copies src's first len(dst) values into dst, after the queued
// work.
func (b *Backend) Download(dst []float32, src gnn.Buf) {
	if len(dst) > src.Len() {
		panic(spgemm.ShapeError{Op: "gpu.Backend.Download", ARows: len(dst), ACols: 1, BRows: src.Len(), BCols: 1})
	}
	m := b.memOf(src, "Download")
	b.flush(func(p *pipe) { download(p, dst, m) })
}

// Gemm sets c = alpha·op(a)·op(b) + beta·c (row-major) by cuBLAS's Sgemm,
// or the nn_gemm kernel.
func (b *Backend) Gemm(tA, tB bool, m, n, k int, alpha float32, a, bb gnn.Buf, beta float32, c gnn.Buf) {
	if m < 0 || n < 0 || k < 0 || a.Len() < m*k || bb.Len() < k*n || c.Len() < m*n {
		panic(spgemm.ShapeError{Op: "gpu.Backend.Gemm", ARows: m, ACols: k, BRows: k, BCols: n})
	}
	if m == 0 || n == 0 {
		return
	}
	cm := b.memOf(c, "Gemm")
	if k == 0 {
		b.enqueue(func(p *pipe) {
			if beta == 0 {
				p.launch("fill_f32", int64(m*n), cm, float64(0))
			} else {
				p.launch("nn_scale", int64(m*n), cm, float64(beta))
			}
		})
		return
	}
	am, bm := b.memOf(a, "Gemm"), b.memOf(bb, "Gemm")
	lib := b.lib
	b.enqueue(func(p *pipe) {
		if lib && libGemm(p, tA, tB, m, n, k, alpha, am, bm, beta, cm) {
			return
		}
		p.launch("nn_gemm", int64(m*n), tA, tB, m, n, k, float64(alpha), am, bm, float64(beta), cm)
	})
}

// Hold copies the sparse matrix a to the device now: SpMM and SpMMT of a
// (the same *spgemm.CSR) use that copy until the next Hold(a), so that a
// block the forward and backward passes both multiply moves once. A
// caller that changes a must Hold it again.
func (b *Backend) Hold(a *spgemm.CSR) {
	if b.err != nil {
		return
	}
	h := b.heldFor(a)
	h.rows, h.cols, h.nnz, h.formed = a.Rows, a.Cols, a.NNZ(), false
	b.flush(func(p *pipe) {
		hp := &pipe{ex: p.ex, kt: p.kt, arena: &h.arena, exact: p.exact}
		h.a = uploadCSR(hp, a)
		p.setErr(hp.err)
	})
}

// heldFor returns the held copy of a, made empty when there is none.
func (b *Backend) heldFor(a *spgemm.CSR) *heldCSR {
	h := b.held[a]
	if h == nil {
		h = &heldCSR{arena: newArena()}
		b.held[a] = h
	}
	return h
}

// heldOf returns the device copy of a when it is held and still has a's
// shape (a device block's always), or nil.
func (b *Backend) heldOf(a *spgemm.CSR) *heldCSR {
	h := b.held[a]
	if h != nil && (h.formed || h.rows == a.Rows && h.cols == a.Cols && h.nnz == a.NNZ()) {
		return h
	}
	return nil
}

// nnzOf returns the entries of a, or of its held copy.
func (b *Backend) nnzOf(a *spgemm.CSR) int64 {
	if h := b.heldOf(a); h != nil {
		return h.nnz
	}
	return a.NNZ()
}

// Release forgets the device copy of a (Hold) and frees it.
func (b *Backend) Release(a *spgemm.CSR) {
	h := b.held[a]
	if h == nil {
		return
	}
	delete(b.held, a)
	b.enqueue(func(p *pipe) { p.setErr(errors.Join(h.sp.free(p.ex), h.arena.free(p.ex))) })
}

// uploadCSR copies a into p's arena as a devCSR with int32 offsets
// (converted on the device).
func uploadCSR(p *pipe, a *spgemm.CSR) devCSR {
	nnz := a.NNZ()
	if nnz > math.MaxInt32 {
		p.setErr(fmt.Errorf("gpu: a sparse operand of %d entries: cuSPARSE's 32-bit offsets hold at most %d", nnz, math.MaxInt32))
		return devCSR{}
	}
	wide := put(p, "indptr64", a.Indptr[:a.Rows+1])
	ptr := p.buf("indptr", int64(a.Rows+1)*4)
	p.launch("cvt_i64_i32", int64(a.Rows+1), wide, ptr)
	return devCSR{rows: a.Rows, cols: a.Cols, nnz: nnz, indptr: ptr,
		indices: put(p, "indices", a.Indices[:nnz]), values: put(p, "data", a.Data[:nnz])}
}

// sparse runs op on the device copy of a: the held one (with its cached
// library state), or else a copy made now in the scratch (after the
// queued work, in the same call; no cached state).
func (b *Backend) sparse(a *spgemm.CSR, op func(p *pipe, d devCSR, st *spmmState)) {
	if h := b.heldOf(a); h != nil {
		b.enqueue(func(p *pipe) { op(p, h.a, &h.sp) })
		return
	}
	b.flush(func(p *pipe) {
		tp := &pipe{ex: p.ex, kt: p.kt, arena: p.arena, exact: p.exact}
		d := uploadCSR(tp, a)
		if tp.err == nil {
			op(tp, d, nil)
		}
		p.setErr(tp.err)
	})
}

// SpMM sets dst = a·x (x of a.Cols rows of cols values) by cuSPARSE's
// SpMM, or the nn_spmm kernel.
func (b *Backend) SpMM(dst gnn.Buf, a *spgemm.CSR, x gnn.Buf, cols int) {
	if cols < 0 || x.Len() != a.Cols*cols || dst.Len() != a.Rows*cols {
		panic(spgemm.ShapeError{Op: "gpu.Backend.SpMM", ARows: a.Rows, ACols: a.Cols, BRows: x.Len() / max(cols, 1), BCols: cols})
	}
	if a.Rows == 0 || cols == 0 {
		return
	}
	dm, xm := b.memOf(dst, "SpMM"), b.memOf(x, "SpMM")
	if b.nnzOf(a) == 0 {
		b.enqueue(func(p *pipe) { p.launch("fill_f32", int64(a.Rows*cols), dm, float64(0)) })
		return
	}
	lib := b.lib
	b.sparse(a, func(p *pipe, d devCSR, st *spmmState) {
		if lib && libSpMM(p, false, d, xm, cols, dm, &b.fb, st) {
			return
		}
		p.launch("nn_spmm", int64(d.rows*cols), d.indptr, d.indices, d.values, xm, cols, dm)
	})
}

// SpMMT sets dst = aᵀ·x (x of a.Rows rows of cols values) by cuSPARSE's
// SpMM with the transpose, or the nn_spmmt kernel.
func (b *Backend) SpMMT(dst gnn.Buf, a *spgemm.CSR, x gnn.Buf, cols int) {
	if cols < 0 || x.Len() != a.Rows*cols || dst.Len() != a.Cols*cols {
		panic(spgemm.ShapeError{Op: "gpu.Backend.SpMMT", ARows: a.Rows, ACols: a.Cols, BRows: x.Len() / max(cols, 1), BCols: cols})
	}
	if a.Cols == 0 || cols == 0 {
		return
	}
	dm, xm := b.memOf(dst, "SpMMT"), b.memOf(x, "SpMMT")
	if b.nnzOf(a) == 0 || a.Rows == 0 {
		b.enqueue(func(p *pipe) { p.launch("fill_f32", int64(a.Cols*cols), dm, float64(0)) })
		return
	}
	lib := b.lib
	b.sparse(a, func(p *pipe, d devCSR, st *spmmState) {
		if lib && libSpMM(p, true, d, xm, cols, dm, &b.fb, st) {
			return
		}
		p.launch("nn_spmmt", int64(cols), d.indptr, d.indices, d.values, d.rows, d.cols, xm, dm)
	})
}

// NormalizeRows normalises a's rows in host memory (spgemm.NormalizeRows).
func (b *Backend) NormalizeRows(a *spgemm.CSR) { spgemm.NormalizeRows(a, b.opt.Threads) }

// checkLen panics unless x has at least n values.
func checkLen(op string, x gnn.Buf, n int) {
	if x.Len() < n {
		panic(spgemm.ShapeError{Op: "gpu.Backend." + op, ARows: x.Len(), ACols: 1, BRows: n, BCols: 1})
	}
}

// Add sets dst += src.
func (b *Backend) Add(dst, src gnn.Buf) {
	n := src.Len()
	checkLen("Add", dst, n)
	dm, sm := b.memOf(dst, "Add"), b.memOf(src, "Add")
	b.enqueue(func(p *pipe) { p.launch("nn_add", int64(n), dm, sm) })
}

// AddRowScaled adds s[i]·src[i,:] to row i of dst for every row i of s.
func (b *Backend) AddRowScaled(dst, s, src gnn.Buf, cols int) {
	n := s.Len() * cols
	checkLen("AddRowScaled", dst, n)
	checkLen("AddRowScaled", src, n)
	if n == 0 {
		return
	}
	dm, sm, xm := b.memOf(dst, "AddRowScaled"), b.memOf(s, "AddRowScaled"), b.memOf(src, "AddRowScaled")
	b.enqueue(func(p *pipe) { p.launch("nn_add_row_scaled", int64(n), dm, sm, xm, cols) })
}

// AddBias adds the vector bias to every row of dst.
func (b *Backend) AddBias(dst, bias gnn.Buf) { b.bias(dst, bias, false) }

func (b *Backend) bias(dst, bias gnn.Buf, relu bool) {
	f := bias.Len()
	if f == 0 {
		return
	}
	n := dst.Len() / f * f
	dm, bm := b.memOf(dst, "AddBias"), b.memOf(bias, "AddBias")
	b.enqueue(func(p *pipe) { p.launch("nn_bias", int64(n), dm, bm, f, relu) })
}

// colSumChunk returns the rows a thread of ColSums sums: at least 64 (so
// that up to 64 rows are summed in the CPU's order), about the square root
// of rows above 4096, so that both passes are short.
func colSumChunk(rows int) int {
	return max(64, int(math.Ceil(math.Sqrt(float64(rows)))))
}

// ColSums sets dst[j] to the sum of column j of a (rows of dst.Len()
// values), in chunks of rows (colSumChunk).
func (b *Backend) ColSums(dst, a gnn.Buf) {
	f := dst.Len()
	if f == 0 {
		return
	}
	rows := a.Len() / f
	dm, am := b.memOf(dst, "ColSums"), b.memOf(a, "ColSums")
	b.enqueue(func(p *pipe) { colSums(p, dm, am, rows, f) })
}

func colSums(p *pipe, dst, a mem, rows, f int) {
	if rows == 0 {
		p.launch("fill_f32", int64(f), dst, float64(0))
		return
	}
	chunk := colSumChunk(rows)
	chunks := (rows + chunk - 1) / chunk
	part := p.buf("colsum.part", int64(chunks*f)*4)
	p.launch("nn_colsum_part", int64(chunks*f), a, rows, f, chunk, part)
	p.launch("nn_colsum_final", int64(f), part, chunks, dst)
}

// ReLU sets the negative values of h to +0.
func (b *Backend) ReLU(h gnn.Buf) {
	n := h.Len()
	hm := b.memOf(h, "ReLU")
	b.enqueue(func(p *pipe) { p.launch("nn_relu", int64(n), hm) })
}

// Dropout applies mask (and, with relu, ReLU) to h in place.
func (b *Backend) Dropout(h gnn.Buf, mask gnn.DropoutMask, relu bool) {
	hm := b.memOf(h, "Dropout")
	b.dropout(hm, hm, mem{}, 0, h.Len(), mask, relu)
}

// dropout enqueues nn_dropout: dst = drop(src + bias) over n values.
func (b *Backend) dropout(dst, src, bias mem, f, n int, mask gnn.DropoutMask, relu bool) {
	if n == 0 {
		return
	}
	scaleBits := int64(math.Float32bits(mask.Scale))
	key, thr := uint64(mask.Key), int64(mask.Threshold)
	b.enqueue(func(p *pipe) {
		p.launch("nn_dropout", int64((n+3)/4), dst, src, bias, f, int64(n), key, thr, scaleBits, relu)
	})
}

// ReLUDropoutGrad sets dh[e] = dh[e]·scale where h[e] > 0, +0 elsewhere.
func (b *Backend) ReLUDropoutGrad(dh, h gnn.Buf, scale float32) {
	n := h.Len()
	checkLen("ReLUDropoutGrad", dh, n)
	dm, hm := b.memOf(dh, "ReLUDropoutGrad"), b.memOf(h, "ReLUDropoutGrad")
	b.enqueue(func(p *pipe) { p.launch("nn_relu_grad", int64(n), dm, hm, float64(scale)) })
}

// BiasActivate is AddBias then ReLU, or with dropout AddBias then
// Dropout(h, mask, true), in one pass (gnn's fused form).
func (b *Backend) BiasActivate(h, bias gnn.Buf, mask gnn.DropoutMask, dropout bool) {
	if !dropout {
		b.bias(h, bias, true)
		return
	}
	f := bias.Len()
	hm := b.memOf(h, "BiasActivate")
	if f == 0 {
		b.dropout(hm, hm, mem{}, 0, h.Len(), mask, true)
		return
	}
	b.dropout(hm, hm, b.memOf(bias, "BiasActivate"), f, h.Len()/f*f, mask, true)
}

// CopyDropout sets dst to the dropout of src without ReLU, leaving src.
func (b *Backend) CopyDropout(dst, src gnn.Buf, mask gnn.DropoutMask) {
	checkLen("CopyDropout", dst, src.Len())
	b.dropout(b.memOf(dst, "CopyDropout"), b.memOf(src, "CopyDropout"), mem{}, 0, src.Len(), mask, false)
}

// ReLUDropoutGradColSums is ReLUDropoutGrad(dh, h, scale) followed by
// ColSums(sums, dh).
func (b *Backend) ReLUDropoutGradColSums(dh, h gnn.Buf, scale float32, sums gnn.Buf) {
	b.ReLUDropoutGrad(dh, h, scale)
	if sums.Len() > 0 {
		b.ColSums(sums, dh.Slice(0, h.Len()))
	}
}

// SoftmaxCrossEntropy computes the mean cross-entropy over the labelled
// rows, its gradient into dLogits, and the counts (as gnn.CrossEntropy
// does; see the type's exactness). It waits for the device.
func (b *Backend) SoftmaxCrossEntropy(dLogits, logits gnn.Buf, classes int, labels []int32) (loss float64, correct, labelled int) {
	n := len(labels)
	if classes <= 0 || logits.Len() != n*classes || dLogits.Len() != logits.Len() {
		panic(spgemm.ShapeError{Op: "gpu.Backend.SoftmaxCrossEntropy", ARows: logits.Len() / max(classes, 1), ACols: classes, BRows: n, BCols: dLogits.Len() / max(classes, 1)})
	}
	for _, y := range labels {
		if y >= int32(classes) {
			panic(spgemm.IndexError{Op: "gpu.Backend.SoftmaxCrossEntropy label", Index: int(y), Len: classes})
		}
		if y >= 0 {
			labelled++
		}
	}
	dm, lm := b.memOf(dLogits, "SoftmaxCrossEntropy"), b.memOf(logits, "SoftmaxCrossEntropy")
	if labelled == 0 {
		b.enqueue(func(p *pipe) { p.launch("fill_f32", int64(n*classes), dm, float64(0)) })
		return 0, 0, 0
	}
	inv := 1 / float64(labelled)
	b.lossRows = slices.Grow(b.lossRows[:0], n)[:n]
	b.correct = slices.Grow(b.correct[:0], n)[:n]
	b.flush(func(p *pipe) {
		lab := put(p, "xent.labels", labels)
		lr, cr := p.buf("xent.loss", int64(n)*8), p.buf("xent.correct", int64(n)*4)
		p.launch("nn_xent", int64(n), lm, dm, lab, classes, inv, lr, cr)
		download(p, b.lossRows, lr)
		download(p, b.correct, cr)
	})
	if b.err != nil {
		return math.NaN(), 0, labelled
	}
	for r, y := range labels {
		if y >= 0 {
			loss += b.lossRows[r]
			correct += int(b.correct[r])
		}
	}
	return loss * inv, correct, labelled
}

// ArgmaxRows sets dst[r] to the index of the first largest value of row r
// of a; it waits for the device.
func (b *Backend) ArgmaxRows(dst []int32, a gnn.Buf, cols int) {
	n := len(dst)
	checkLen("ArgmaxRows", a, n*cols)
	if n == 0 {
		return
	}
	am := b.memOf(a, "ArgmaxRows")
	b.flush(func(p *pipe) {
		out := p.buf("argmax", int64(n)*4)
		p.launch("nn_argmax", int64(n), am, cols, out)
		download(p, dst, out)
	})
}

// Adam applies one Adam step to params from grads with the moments m and
// v, all device memory.
func (b *Backend) Adam(params, grads, m, v gnn.Buf, s gnn.AdamStep) {
	n := grads.Len()
	checkLen("Adam", params, n)
	checkLen("Adam", m, n)
	checkLen("Adam", v, n)
	if n == 0 {
		return
	}
	pm, gm, mm, vm := b.memOf(params, "Adam"), b.memOf(grads, "Adam"), b.memOf(m, "Adam"), b.memOf(v, "Adam")
	b.enqueue(func(p *pipe) {
		p.launch("nn_adam", int64(n), pm, gm, mm, vm, float64(s.Beta1), float64(s.Beta2), float64(s.WeightDecay),
			float64(s.StepSize), float64(s.InvSqrtC2), float64(s.Eps))
	})
}

// Device returns the device the backend runs on.
func (b *Backend) Device() *Device { return b.dev }
