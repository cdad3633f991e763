package gnn

import (
	"math"

	"github.com/bulksample/bulksample/internal/par"
)

// NormBackend is the capability of a Backend that the residual
// architecture (ModelOptions.Residual and Norm) needs besides Backend's
// operations: layer normalisation and GELU, forward and backward, and a
// dropped-out copy. The CPU backend has it; NewModel refuses the residual
// architecture on a backend without it, naming the backend.
//
// Every operation computes each value with the same float64 arithmetic in
// the same order whatever the thread count, so that the CPU backend's
// results do not depend on it (gnn/backendtest checks a backend against
// the reference kernels of this file).
type NormBackend interface {
	Backend
	// LayerNorm normalises every row of x (rows of cols values) to mean 0
	// and variance 1 (the biased variance, plus LayerNormEps) and sets
	// z = xhat·gamma + beta (gamma and beta: cols values): Ba, Kiros and
	// Hinton's layer normalisation, PyTorch's nn.LayerNorm. It keeps the
	// normalised rows in xhat and each row's 1/sqrt(var+eps) in rstd for
	// LayerNormGrad; either may be empty (inference), and z must not
	// overlap x.
	LayerNorm(z, xhat, rstd, x, gamma, beta Buf, cols int)
	// LayerNormGrad propagates dz, the gradient with respect to z, through
	// LayerNorm: it sets dx (or, with accumulate, adds to it) the gradient
	// with respect to x, and sets dgamma and dbeta to the column sums of
	// dz·xhat and of dz, the gradients of gamma and beta.
	LayerNormGrad(dx, dz, xhat, rstd, gamma, dgamma, dbeta Buf, cols int, accumulate bool)
	// GELU sets dst[e] = x·Φ(x) for x = src[e], Φ the standard normal
	// distribution function (the GELU of Hendrycks and Gimpel, PyTorch's
	// nn.GELU() with its exact erf) with Φ to within 1e-7 (NormalCDF); dst
	// may be src.
	GELU(dst, src Buf)
	// GELUGrad sets dx[e] = dy[e]·(Φ(x) + x·φ(x)) for x = src[e], the
	// gradient through GELU, φ the standard normal density; dx may be dy.
	GELUGrad(dx, dy, src Buf)
	// CopyDropout sets dst to Dropout(src, mask, false) without changing
	// src.
	CopyDropout(dst, src Buf, mask DropoutMask)
}

// LayerNormEps is the ε that LayerNorm adds to the variance: PyTorch's
// nn.LayerNorm default.
const LayerNormEps = 1e-5

var _ NormBackend = (*CPU)(nil)

// LayerNorm normalises the rows of x (see NormBackend).
func (c *CPU) LayerNorm(z, xhat, rstd, x, gamma, beta Buf, cols int) {
	if cols == 0 {
		return
	}
	rows := x.Len() / cols
	c.rowsParallel(rows, cols, func(lo, hi int) {
		layerNormRows(z.host, xhat.host, rstd.host, x.host, gamma.host, beta.host, cols, lo, hi)
	})
}

// rowsParallel runs body on ranges of [0, rows) of rows of cols values,
// on one goroutine when the pass is small.
func (c *CPU) rowsParallel(rows, cols int, body func(lo, hi int)) {
	if k := c.parts(rows * cols); k > 1 && rows >= k {
		par.Ranges(rows, k, 1, func(_, lo, hi int) { body(lo, hi) })
		return
	}
	body(0, rows)
}

// layerNormRows is LayerNorm on rows [lo, hi): the reference kernel.
func layerNormRows(z, xhat, rstd, x, gamma, beta []float32, cols, lo, hi int) {
	for r := lo; r < hi; r++ {
		row := x[r*cols : (r+1)*cols]
		var mean float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(cols)
		var vr float64
		for _, v := range row {
			d := float64(v) - mean
			vr += d * d
		}
		s := 1 / math.Sqrt(vr/float64(cols)+LayerNormEps)
		if rstd != nil {
			rstd[r] = float32(s)
		}
		zr := z[r*cols : (r+1)*cols]
		for j, v := range row {
			h := float32((float64(v) - mean) * s)
			if xhat != nil {
				xhat[r*cols+j] = h
			}
			zr[j] = h*gamma[j] + beta[j]
		}
	}
}

// LayerNormGrad propagates dz through LayerNorm (see NormBackend).
func (c *CPU) LayerNormGrad(dx, dz, xhat, rstd, gamma, dgamma, dbeta Buf, cols int, accumulate bool) {
	if cols == 0 {
		return
	}
	rows := dz.Len() / cols
	c.rowsParallel(rows, cols, func(lo, hi int) {
		layerNormGradRows(dx.host, dz.host, xhat.host, rstd.host, gamma.host, cols, lo, hi, accumulate)
	})
	// The parameters' gradients are column sums, split by columns so that
	// each column is summed in row order (as ColSums).
	if k := min(c.parts(rows*cols), cols/colSumsMinCols); k > 1 {
		par.Ranges(cols, k, 1, func(_, lo, hi int) {
			layerNormParamGrads(dgamma.host, dbeta.host, dz.host, xhat.host, rows, cols, lo, hi)
		})
		return
	}
	layerNormParamGrads(dgamma.host, dbeta.host, dz.host, xhat.host, rows, cols, 0, cols)
}

// layerNormGradRows sets (or adds to) rows [lo, hi) of dx the gradient
// through LayerNorm: with g = dz·gamma,
//
//	dx = rstd·(g - mean(g) - xhat·mean(g·xhat))
//
// the means over the row's columns.
func layerNormGradRows(dx, dz, xhat, rstd, gamma []float32, cols, lo, hi int, accumulate bool) {
	for r := lo; r < hi; r++ {
		d, h := dz[r*cols:(r+1)*cols], xhat[r*cols:(r+1)*cols]
		var mg, mgx float64
		for j, v := range d {
			g := float64(v) * float64(gamma[j])
			mg += g
			mgx += g * float64(h[j])
		}
		mg /= float64(cols)
		mgx /= float64(cols)
		s := float64(rstd[r])
		out := dx[r*cols : (r+1)*cols]
		for j, v := range d {
			g := float64(v) * float64(gamma[j])
			w := float32(s * (g - mg - float64(h[j])*mgx))
			if accumulate {
				out[j] += w
			} else {
				out[j] = w
			}
		}
	}
}

// layerNormParamGrads sets columns [lo, hi) of dgamma and dbeta to the
// column sums of dz·xhat and dz over rows rows, in row order, in float64.
// It runs along the rows (each column's sum still in row order), so that
// memory is read in order.
func layerNormParamGrads(dgamma, dbeta, dz, xhat []float32, rows, cols, lo, hi int) {
	var stack [2 * 256]float64
	acc := stack[:]
	if 2*(hi-lo) > len(acc) {
		acc = make([]float64, 2*(hi-lo))
	}
	sg, sb := acc[:hi-lo:hi-lo], acc[hi-lo:2*(hi-lo)]
	clear(sg)
	clear(sb)
	for r := range rows {
		d, h := dz[r*cols+lo:r*cols+hi], xhat[r*cols+lo:r*cols+hi]
		for j, v := range d {
			sg[j] += float64(v) * float64(h[j])
			sb[j] += float64(v)
		}
	}
	for j := range sg {
		dgamma[lo+j], dbeta[lo+j] = float32(sg[j]), float32(sb[j])
	}
}

// GELU applies the exact GELU (see NormBackend).
func (c *CPU) GELU(dst, src Buf) {
	n := src.Len()
	c.rowsParallel(n, 1, func(lo, hi int) { geluSpan(dst.host[lo:hi], src.host[lo:hi]) })
}

// GELUGrad propagates dy through GELU (see NormBackend).
func (c *CPU) GELUGrad(dx, dy, src Buf) {
	n := src.Len()
	c.rowsParallel(n, 1, func(lo, hi int) { geluGradSpan(dx.host[lo:hi], dy.host[lo:hi], src.host[lo:hi]) })
}

// geluSpan and geluGradSpan are the reference kernels of GELU and
// GELUGrad, in float64: gelu(x) = x·Φ(x), gelu'(x) = Φ(x) + x·φ(x), with
// Φ and φ from normalCDF.
func geluSpan(dst, src []float32) {
	dst = dst[:len(src)]
	for e, v := range src {
		x := float64(v)
		cdf, _ := normalCDF(x)
		dst[e] = float32(x * cdf)
	}
}

func geluGradSpan(dx, dy, src []float32) {
	dx, dy = dx[:len(src)], dy[:len(src)]
	for e, v := range src {
		x := float64(v)
		cdf, pdf := normalCDF(x)
		dx[e] = float32(float64(dy[e]) * (cdf + x*pdf))
	}
}

// NormalCDF returns Φ(x), the standard normal distribution function, and
// φ(x), its density, to within 1e-7 (absolute, for Φ): the one
// exponential exp(-x²/2) both need, and erf from Abramowitz and Stegun's
// 7.1.26 (Handbook of Mathematical Functions, 1964; |error| <= 1.5e-7 on
// erf). Forward it is 1.45 times and backward 1.7 times as fast as
// math.Erf (with math.Exp), which took 60% of a training step of the
// residual architecture on Tolokers at hidden 128 (a micro-benchmark of
// both on the 2-core development machine, load average 5-9).
func NormalCDF(x float64) (cdf, pdf float64) { return normalCDF(x) }

func normalCDF(x float64) (cdf, pdf float64) {
	const (
		p  = 0.3275911
		a1 = 0.254829592
		a2 = -0.284496736
		a3 = 1.421413741
		a4 = -1.453152027
		a5 = 1.061405429
	)
	z := math.Abs(x) / math.Sqrt2
	e := math.Exp(-z * z) // exp(-x²/2)
	t := 1 / (1 + p*z)
	tail := 0.5 * t * (a1 + t*(a2+t*(a3+t*(a4+t*a5)))) * e // (1 - erf(z))/2 = Φ(-|x|)
	cdf = tail
	if x > 0 {
		cdf = 1 - tail
	}
	return cdf, e / math.Sqrt(2*math.Pi)
}
