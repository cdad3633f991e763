package gnn

import (
	"math"

	"gonum.org/v1/gonum/blas"

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
}

var _ Backend = (*CPU)(nil)

// NewCPU returns the CPU backend.
func NewCPU(opt CPUOptions) *CPU {
	impl, name := blasFor(opt.PureGoBLAS)
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

// Gemm calls the BLAS's Sgemm (see Backend).
func (c *CPU) Gemm(tA, tB bool, m, n, k int, alpha float32, a, b Buf, beta float32, cc Buf) {
	gemm(c.impl, tA, tB, m, n, k, alpha, a.host, b.host, beta, cc.host)
}

// SpMM calls spgemm.MulDense.
func (c *CPU) SpMM(dst Buf, a *spgemm.CSR, b Buf, cols int) {
	spgemm.MulDense(dst.host, a, b.host, cols, c.threads)
}

// SpMMT calls spgemm.MulDenseT.
func (c *CPU) SpMMT(dst Buf, a *spgemm.CSR, b Buf, cols int) {
	spgemm.MulDenseT(dst.host, a, b.host, cols, c.threads)
}

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

// AddBias adds b to every row of dst.
func (c *CPU) AddBias(dst, b Buf) {
	out, f := dst.host, len(b.host)
	for r := 0; r+f <= len(out); r += f {
		row := out[r : r+f]
		for j, v := range b.host {
			row[j] += v
		}
	}
}

// ColSums sets dst to the column sums of a.
func (c *CPU) ColSums(dst, a Buf) {
	d := dst.host
	clear(d)
	f := len(d)
	for r := 0; r+f <= len(a.host); r += f {
		for j, v := range a.host[r : r+f] {
			d[j] += v
		}
	}
}

// ReLU zeroes the negative values of h.
func (c *CPU) ReLU(h Buf) {
	for e, v := range h.host {
		if v < 0 {
			h.host[e] = 0
		}
	}
}

// Dropout applies mask (and, with relu, ReLU) to h, four elements per
// random draw. The choice is made without branches (an index into a
// two-entry table): the drops are random, so branches would be mispredicted
// half the time. Negative elements become -0, which compares as not > 0.
func (c *CPU) Dropout(hb Buf, mask DropoutMask, relu bool) {
	h := hb.host
	key, threshold := mask.Key, mask.Threshold
	factor := [2]float32{mask.Scale, 0}
	var signShift uint32 = 31
	if !relu {
		signShift = 32 // shifts the sign bit out: never zero for sign
	}
	one := func(v float32, r uint64) float32 {
		drop := (uint32(r&0xffff) - threshold) >> 31 // 1 iff r16 < threshold
		neg := uint32(uint64(math.Float32bits(v)) >> signShift)
		return v * factor[(drop|neg)&1]
	}
	e := 0
	for ; e+4 <= len(h); e += 4 {
		r := key.Uint64(int64(e / 4))
		h4 := h[e : e+4 : e+4]
		h4[0] = one(h4[0], r)
		h4[1] = one(h4[1], r>>16)
		h4[2] = one(h4[2], r>>32)
		h4[3] = one(h4[3], r>>48)
	}
	if e < len(h) {
		r := key.Uint64(int64(e / 4))
		for ; e < len(h); e++ {
			h[e] = one(h[e], r)
			r >>= 16
		}
	}
}

// ReLUDropoutGrad scales dh where h > 0 and zeroes it elsewhere.
func (c *CPU) ReLUDropoutGrad(dh, h Buf, scale float32) {
	d := dh.host[:len(h.host)]
	for e, v := range h.host {
		if v > 0 {
			d[e] *= scale
		} else {
			d[e] = 0
		}
	}
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
	adamUpdate(params.host, grads.host, m.host, v.host, s)
}
