package gnn

import (
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// Backend is the compute seam of the layers: the dense and sparse
// operations that SAGE, GCN and Linear are written against, once, for
// training and inference alike. The CPU backend (NewCPU) runs them with
// BLAS and package spgemm on host memory; a GPU backend runs them on device
// memory and moves data only at the edges (Upload, Download).
//
// # Buffers
//
// Dense operands are Bufs: float32 vectors, row-major matrices when a size
// is given, that the backend allocated (Alloc) or, for backends whose memory
// is the host's (HostMemory), host slices wrapped with HostBuf. Slicing a
// Buf (Buf.Slice) gives a view of the same memory; an operation's output
// must not overlap its inputs unless it says so.
//
// Sparse operands are host CSR matrices (a sampled block with its
// normalised values, sparse input features): a device backend uploads them
// when it runs the operation.
//
// # Determinism
//
// An operation's result may depend on the backend and its thread count only
// where the operation says so; the CPU backend's results are the same bit
// for bit for any thread count (gnn/backendtest checks a backend against the
// reference kernels).
//
// A Backend is used by one goroutine at a time.
type Backend interface {
	// Name names the backend and its dense library ("openblas", "gonum",
	// ...), for run summaries.
	Name() string
	// HostMemory reports whether the backend's buffers are host memory, so
	// that HostBuf wraps a host slice as a Buf without a copy and Buf.Host
	// returns its values.
	HostMemory() bool

	// Alloc returns a new buffer of n values, all 0.
	Alloc(n int) Buf
	// Upload copies src into dst (len(src) values); Download copies src into
	// dst (len(dst) values).
	Upload(dst Buf, src []float32)
	Download(dst []float32, src Buf)

	// Gemm sets c = alpha·op(a)·op(b) + beta·c for row-major matrices, where
	// op(a) is m x k and op(b) k x n, op transposing when tA (tB) is set.
	// k may be 0 (c is then only scaled by beta).
	Gemm(tA, tB bool, m, n, k int, alpha float32, a, b Buf, beta float32, c Buf)
	// SpMM sets dst = a·b, for b with a.Cols rows of cols values.
	SpMM(dst Buf, a *spgemm.CSR, b Buf, cols int)
	// SpMMT sets dst = aᵀ·b, for b with a.Rows rows of cols values.
	SpMMT(dst Buf, a *spgemm.CSR, b Buf, cols int)
	// NormalizeRows scales the values of every row of a (host memory, in
	// place) to sum to 1, as spgemm.NormalizeRows does.
	NormalizeRows(a *spgemm.CSR)

	// Add sets dst += src element-wise.
	Add(dst, src Buf)
	// AddRowScaled adds s[i]·src[i,:] to row i of dst for every row i of s:
	// GCN's self loops, which a block does not store. src and dst have
	// len(s) rows of cols values (at least).
	AddRowScaled(dst, s, src Buf, cols int)
	// AddBias adds the vector b to every row of dst.
	AddBias(dst, b Buf)
	// ColSums sets dst[j] to the sum of column j of a, which has rows of
	// dst.Len() values.
	ColSums(dst, a Buf)
	// ReLU sets every negative value of h to +0.
	ReLU(h Buf)
	// Dropout multiplies every element e of h by 0 when mask drops it (or,
	// with relu, when it is negative; it becomes -0) and by mask.Scale
	// otherwise. See DropoutMask for the law of the mask.
	Dropout(h Buf, mask DropoutMask, relu bool)
	// ReLUDropoutGrad propagates the gradient dh through ReLU and dropout in
	// place, from h, their output: dh[e] *= scale where h[e] > 0, and
	// dh[e] = 0 elsewhere.
	ReLUDropoutGrad(dh, h Buf, scale float32)

	// SoftmaxCrossEntropy computes the mean cross-entropy of the
	// log-softmax of logits over the labelled rows, its gradient, the
	// number of labelled rows predicted correctly and the number of
	// labelled rows, as CrossEntropy does (labels are host memory).
	SoftmaxCrossEntropy(dLogits, logits Buf, classes int, labels []int32) (loss float64, correct, labelled int)
	// ArgmaxRows sets dst[r] to the index of the largest value of row r of
	// a (rows of cols values; the first on ties).
	ArgmaxRows(dst []int32, a Buf, cols int)
	// Adam applies one step of Adam to params from grads, updating the
	// moment estimates m and v, with the coefficients of s (see
	// Adam.Step).
	Adam(params, grads, m, v Buf, s AdamStep)
}

// Buf is a vector of float32 values in memory that a Backend owns: a host
// slice for backends whose memory is the host's, or a region of a device
// allocation. A Buf is a small value; copies are views of the same memory.
// The zero Buf is empty.
type Buf struct {
	host []float32
	dev  DeviceMem
	off  int
	n    int
}

// DeviceMem is a device allocation of a Backend that keeps its buffers
// outside host memory. Only that backend interprets it.
type DeviceMem interface {
	// Len returns the number of float32 values of the allocation.
	Len() int
}

// HostBuf returns the Buf of host memory x (not a copy), for backends whose
// HostMemory is true.
func HostBuf(x []float32) Buf { return Buf{host: x, n: len(x)} }

// DeviceBuf returns the Buf of values off..off+n-1 of the device allocation
// mem. It is for the implementations of device backends.
func DeviceBuf(mem DeviceMem, off, n int) Buf { return Buf{dev: mem, off: off, n: n} }

// Len returns the number of values of b.
func (b Buf) Len() int { return b.n }

// Host returns b's values when b is host memory (the slice itself, not a
// copy), and nil otherwise.
func (b Buf) Host() []float32 { return b.host }

// Device returns b's device allocation and offset, or nil when b is host
// memory.
func (b Buf) Device() (DeviceMem, int) { return b.dev, b.off }

// Slice returns the view of values lo..hi-1 of b. It panics with a
// spgemm.IndexError when the range is outside [0, Len].
func (b Buf) Slice(lo, hi int) Buf {
	if lo < 0 || hi < lo || hi > b.n {
		panic(spgemm.IndexError{Op: "gnn.Buf.Slice", Index: hi, Len: b.n})
	}
	if b.dev != nil {
		return Buf{dev: b.dev, off: b.off + lo, n: hi - lo}
	}
	return Buf{host: b.host[lo:hi:hi], n: hi - lo}
}

// capacity returns how many values b's memory holds from its start.
func (b Buf) capacity() int {
	if b.dev != nil {
		return b.dev.Len() - b.off
	}
	return cap(b.host)
}

// resize returns the view of the first n values of b's memory, which must
// hold them.
func (b Buf) resize(n int) Buf {
	if b.dev != nil {
		return Buf{dev: b.dev, off: b.off, n: n}
	}
	return Buf{host: b.host[:n], n: n}
}

// growBuf returns b resized to n values, reusing its memory when it is big
// enough and allocating n+n/4 values from be otherwise. The contents are
// not cleared. A Freer backend frees the allocation b outgrew.
func growBuf(be Backend, b Buf, n int) Buf {
	if (b.host != nil || b.dev != nil) && b.capacity() >= n {
		return b.resize(n)
	}
	if f, ok := be.(Freer); ok && b.dev != nil {
		f.Free(b)
	}
	return be.Alloc(n + n/4).resize(n)
}

// hostView returns x as a Buf of be: x itself for host-memory backends,
// otherwise scratch (grown, returned for reuse) holding a copy of x.
func hostView(be Backend, x []float32, scratch *Buf) Buf {
	if be.HostMemory() {
		return HostBuf(x)
	}
	*scratch = growBuf(be, *scratch, len(x))
	be.Upload(*scratch, x)
	return *scratch
}

// DropoutMask is the keyed mask of a dropout: element e of a layer's input
// (row-major) is dropped when bits 16·(e mod 4) .. 16·(e mod 4)+15 of
// Key.Uint64(e/4) are under Threshold, and kept elements are multiplied by
// Scale. The masks are thus a pure function of (seed, epoch, minibatch,
// layer, element), the same on every backend.
type DropoutMask struct {
	Key       sampling.RowKey
	Threshold uint32
	Scale     float32
}

// AdamStep holds the coefficients of one Adam step (see Adam.Step):
// params -= StepSize·m / (sqrt(v)·InvSqrtC2 + Eps) after the moment
// updates with Beta1 and Beta2, the gradient including WeightDecay·params.
type AdamStep struct {
	Beta1, Beta2, WeightDecay, StepSize, InvSqrtC2, Eps float32
}
