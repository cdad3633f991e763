package backendtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// Tolerances of the comparisons with the float64 references: float32
// rounding of sums of up to a few hundred terms.
const (
	absTol = 1e-4
	relTol = 1e-4
)

func near(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= absTol+relTol*math.Abs(want)
}

// up returns x as a new buffer of be.
func up(be gnn.Backend, x []float32) gnn.Buf {
	b := be.Alloc(len(x))
	be.Upload(b, x)
	return b
}

// down returns the values of b.
func down(be gnn.Backend, b gnn.Buf) []float32 {
	x := make([]float32, b.Len())
	be.Download(x, b)
	return x
}

// Run checks every operation of be against the float64 references, on
// seeded random operands of several shapes, empty ones included.
func Run(t *testing.T, be gnn.Backend) {
	t.Run("memory", func(t *testing.T) { checkMemory(t, be) })
	t.Run("Gemm", func(t *testing.T) { checkGemm(t, be) })
	t.Run("SpMM", func(t *testing.T) { checkSpMM(t, be) })
	t.Run("elementwise", func(t *testing.T) { checkElementwise(t, be) })
	t.Run("Dropout", func(t *testing.T) { checkDropout(t, be) })
	t.Run("loss", func(t *testing.T) { checkLoss(t, be) })
	t.Run("Adam", func(t *testing.T) { checkAdam(t, be) })
	t.Run("norm", func(t *testing.T) { checkNorm(t, be) })
}

// normBackend returns be as a gnn.NormBackend, skipping t (saying why)
// when it has none: the residual architecture is then refused on it.
func normBackend(t *testing.T, be gnn.Backend) gnn.NormBackend {
	t.Helper()
	nb, ok := be.(gnn.NormBackend)
	if !ok {
		t.Skipf("the %s backend has no gnn.NormBackend (layer normalisation, GELU): NewModel refuses the residual architecture on it", be.Name())
	}
	return nb
}

// checkNorm compares LayerNorm, LayerNormGrad, GELU, GELUGrad and
// CopyDropout with float64 references: LayerNorm's formula, the analytic
// gradient of LayerNorm checked against a central difference of the
// reference itself (so that the two references cannot share a mistake),
// erf-based GELU and its derivative, and the dropout law.
func checkNorm(t *testing.T, be gnn.Backend) {
	nb := normBackend(t, be)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, sz := range [][2]int{{1, 1}, {7, 5}, {33, 16}, {0, 4}} {
		rows, cols := sz[0], sz[1]
		x := samplingtest.RandomFeatures(rng, rows*cols, 2)
		gamma := samplingtest.RandomFeatures(rng, cols, 1)
		beta := samplingtest.RandomFeatures(rng, cols, 1)
		dz := samplingtest.RandomFeatures(rng, rows*cols, 1)
		z, xhat, rstd := be.Alloc(rows*cols), be.Alloc(rows*cols), be.Alloc(rows)
		xb, gb, bb := up(be, x), up(be, gamma), up(be, beta)
		nb.LayerNorm(z, xhat, rstd, xb, gb, bb, cols)
		gotZ := down(be, z)
		want := refLayerNorm(x, gamma, beta, rows, cols)
		for e := range want {
			if !near(gotZ[e], want[e]) {
				t.Fatalf("LayerNorm %dx%d: z[%d] = %v; want %v", rows, cols, e, gotZ[e], want[e])
			}
		}
		// Without xhat and rstd (inference): the same z.
		z2 := be.Alloc(rows * cols)
		nb.LayerNorm(z2, gnn.Buf{}, gnn.Buf{}, xb, gb, bb, cols)
		if got := down(be, z2); !slices.Equal(got, gotZ) {
			t.Fatalf("LayerNorm %dx%d without xhat and rstd: %v; with them %v", rows, cols, got, gotZ)
		}
		for _, acc := range []bool{false, true} {
			dx0 := samplingtest.RandomFeatures(rng, rows*cols, 1)
			dx, dg, db := up(be, dx0), be.Alloc(cols), be.Alloc(cols)
			nb.LayerNormGrad(dx, up(be, dz), xhat, rstd, gb, dg, db, cols, acc)
			gotDx, gotDg, gotDb := down(be, dx), down(be, dg), down(be, db)
			wantDx, wantDg, wantDb := refLayerNormGrad(x, gamma, beta, dz, rows, cols)
			for e := range wantDx {
				w := wantDx[e]
				if acc {
					w += float64(dx0[e])
				}
				if math.Abs(float64(gotDx[e])-w) > 1e-3+1e-3*math.Abs(w) {
					t.Fatalf("LayerNormGrad %dx%d accumulate %v: dx[%d] = %v; want %v", rows, cols, acc, e, gotDx[e], w)
				}
			}
			for j := range cols {
				if math.Abs(float64(gotDg[j])-wantDg[j]) > 1e-3+1e-3*math.Abs(wantDg[j]) || !near(gotDb[j], wantDb[j]) {
					t.Fatalf("LayerNormGrad %dx%d: dgamma[%d], dbeta[%d] = %v, %v; want %v, %v", rows, cols, j, j, gotDg[j], gotDb[j], wantDg[j], wantDb[j])
				}
			}
		}
	}
	for _, n := range []int{0, 1, 5, 1001} {
		x := samplingtest.RandomFeatures(rng, n, 4)
		dy := samplingtest.RandomFeatures(rng, n, 1)
		d := be.Alloc(n)
		nb.GELU(d, up(be, x))
		got := down(be, d)
		dd := up(be, dy)
		nb.GELUGrad(dd, dd, up(be, x))
		gotGrad := down(be, dd)
		for e, v := range x {
			xv := float64(v)
			cdf := 0.5 * (1 + math.Erf(xv/math.Sqrt2))
			// GELU's Φ is to within 1e-7 (gnn.NormalCDF), so the
			// tolerance is 1e-7·|x| beyond the float32 one.
			if w := xv * cdf; !near(got[e], w) || math.Abs(float64(got[e])-w) > 1e-6*(1+math.Abs(xv)) {
				t.Fatalf("GELU(%v) = %v; want %v", v, got[e], w)
			}
			if w := float64(dy[e]) * (cdf + xv*math.Exp(-xv*xv/2)/math.Sqrt(2*math.Pi)); !near(gotGrad[e], w) {
				t.Fatalf("GELUGrad at %v = %v; want %v", v, gotGrad[e], w)
			}
		}
	}
	key := sampling.NewStream(17).Row(1, 2, 3, 0)
	mask := gnn.DropoutMask{Key: key, Threshold: 19661, Scale: 1 / 0.7}
	x := samplingtest.RandomFeatures(rng, 1001, 1)
	src, dst := up(be, x), be.Alloc(len(x))
	nb.CopyDropout(dst, src, mask)
	ref := up(be, x)
	be.Dropout(ref, mask, false)
	if got, want := down(be, dst), down(be, ref); !slices.Equal(got, want) || !slices.Equal(down(be, src), x) {
		t.Fatal("CopyDropout differs from Dropout of a copy, or changed its source")
	}
}

// refLayerNorm is layer normalisation in float64.
func refLayerNorm(x, gamma, beta []float32, rows, cols int) []float64 {
	out := make([]float64, rows*cols)
	for r := range rows {
		row := x[r*cols : (r+1)*cols]
		var mean, vr float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(cols)
		for _, v := range row {
			vr += (float64(v) - mean) * (float64(v) - mean)
		}
		s := 1 / math.Sqrt(vr/float64(cols)+gnn.LayerNormEps)
		for j, v := range row {
			out[r*cols+j] = (float64(v)-mean)*s*float64(gamma[j]) + float64(beta[j])
		}
	}
	return out
}

// refLayerNormGrad returns the gradients of Σ dz·LN(x) with respect to x,
// gamma and beta by central differences of refLayerNorm (step 1e-4 on
// float64 arithmetic: error about 1e-8).
func refLayerNormGrad(x, gamma, beta, dz []float32, rows, cols int) (dx, dgamma, dbeta []float64) {
	f := func(x, gamma, beta []float32) float64 {
		var s float64
		for e, v := range refLayerNorm(x, gamma, beta, rows, cols) {
			s += float64(dz[e]) * v
		}
		return s
	}
	diff := func(p []float32, i int) float64 {
		// Steps in float64 around a float32 value: perturb a float64 copy.
		const h = 1e-3
		v := p[i]
		p[i] = float32(float64(v) + h)
		up := f(x, gamma, beta)
		hi := float64(p[i]) - float64(v)
		p[i] = float32(float64(v) - h)
		down := f(x, gamma, beta)
		lo := float64(v) - float64(p[i])
		p[i] = v
		return (up - down) / (hi + lo)
	}
	dx, dgamma, dbeta = make([]float64, len(x)), make([]float64, cols), make([]float64, cols)
	for i := range x {
		dx[i] = diff(x, i)
	}
	for j := range cols {
		dgamma[j], dbeta[j] = diff(gamma, j), diff(beta, j)
	}
	return dx, dgamma, dbeta
}

func checkMemory(t *testing.T, be gnn.Backend) {
	b := be.Alloc(10)
	if b.Len() != 10 || slices.ContainsFunc(down(be, b), func(v float32) bool { return v != 0 }) {
		t.Fatalf("Alloc(10): %d values %v; want 10 zeros", b.Len(), down(be, b))
	}
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	be.Upload(b, x)
	if got := down(be, b.Slice(3, 7)); !slices.Equal(got, x[3:7]) {
		t.Errorf("Slice(3, 7) of an upload reads %v; want %v", got, x[3:7])
	}
	be.Upload(b.Slice(8, 10), []float32{-1, -2})
	if got := down(be, b); got[7] != 8 || got[8] != -1 || got[9] != -2 {
		t.Errorf("upload into a slice: %v", got)
	}
	if be.HostMemory() {
		h := gnn.HostBuf(x)
		if &h.Host()[0] != &x[0] {
			t.Error("HostBuf of a host-memory backend copies")
		}
	}
}

func checkGemm(t *testing.T, be gnn.Backend) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 33, 65}, {130, 64, 257}, {0, 4, 3}, {4, 3, 0}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			a, b := samplingtest.RandomFeatures(rng, m*k, 1), samplingtest.RandomFeatures(rng, k*n, 1)
			c0 := samplingtest.RandomFeatures(rng, m*n, 1)
			c := up(be, c0)
			be.Gemm(tr[0], tr[1], m, n, k, 0.5, up(be, a), up(be, b), 2, c)
			got := down(be, c)
			for i := range m {
				for j := range n {
					var s float64
					for l := range k {
						av, bv := a[i*k+l], b[l*n+j]
						if tr[0] {
							av = a[l*m+i]
						}
						if tr[1] {
							bv = b[j*k+l]
						}
						s += float64(av) * float64(bv)
					}
					if w := 0.5*s + 2*float64(c0[i*n+j]); !near(got[i*n+j], w) {
						t.Fatalf("%dx%dx%d trans %v: c[%d,%d] = %v; want %v", m, n, k, tr, i, j, got[i*n+j], w)
					}
				}
			}
		}
	}
}

func checkSpMM(t *testing.T, be gnn.Backend) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{1, 1, 1}, {5, 9, 3}, {40, 70, 17}, {0, 5, 4}, {6, 4, 0}} {
		rows, cols, f := sz[0], sz[1], sz[2]
		var a spgemm.CSR
		if rows > 0 && cols > 0 {
			a = samplingtest.RandomBlock(rng, rows, cols, 0.3, true)
		} else {
			a = spgemm.CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}
		}
		b := samplingtest.RandomFeatures(rng, cols*f, 1)
		dst := be.Alloc(rows * f)
		be.SpMM(dst, &a, up(be, b), f)
		got := down(be, dst)
		bt := samplingtest.RandomFeatures(rng, rows*f, 1)
		dstT := up(be, samplingtest.RandomFeatures(rng, cols*f, 1)) // overwritten
		be.SpMMT(dstT, &a, up(be, bt), f)
		gotT := down(be, dstT)
		want, wantT := make([]float64, rows*f), make([]float64, cols*f)
		for i := range rows {
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				j, v := int(a.Indices[p]), float64(a.Data[p])
				for c := range f {
					want[i*f+c] += v * float64(b[j*f+c])
					wantT[j*f+c] += v * float64(bt[i*f+c])
				}
			}
		}
		for e := range want {
			if !near(got[e], want[e]) {
				t.Fatalf("SpMM %dx%d by %d columns: [%d] = %v; want %v", rows, cols, f, e, got[e], want[e])
			}
		}
		for e := range wantT {
			if !near(gotT[e], wantT[e]) {
				t.Fatalf("SpMMT %dx%d by %d columns: [%d] = %v; want %v", rows, cols, f, e, gotT[e], wantT[e])
			}
		}
		if rows > 0 && cols > 0 {
			norm := a
			norm.Data = slices.Clone(a.Data)
			be.NormalizeRows(&norm)
			for i := range rows {
				var s float64
				for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
					s += float64(a.Data[p])
				}
				for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
					if w := float64(a.Data[p]) / s; !near(norm.Data[p], w) {
						t.Fatalf("NormalizeRows: row %d value %v; want %v", i, norm.Data[p], w)
					}
				}
			}
		}
	}
}

func checkElementwise(t *testing.T, be gnn.Backend) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 13, 7
	x, y := samplingtest.RandomFeatures(rng, rows*cols, 1), samplingtest.RandomFeatures(rng, rows*cols, 1)
	s := samplingtest.RandomFeatures(rng, rows, 1)
	s[3] = 0
	bias := samplingtest.RandomFeatures(rng, cols, 1)
	check := func(op string, got []float32, want func(e int) float64) {
		t.Helper()
		for e := range got {
			if w := want(e); !near(got[e], w) {
				t.Fatalf("%s: [%d] = %v; want %v", op, e, got[e], w)
			}
		}
	}
	d := up(be, x)
	be.Add(d, up(be, y))
	check("Add", down(be, d), func(e int) float64 { return float64(x[e]) + float64(y[e]) })
	d = up(be, x)
	be.AddRowScaled(d, up(be, s), up(be, y), cols)
	check("AddRowScaled", down(be, d), func(e int) float64 { return float64(x[e]) + float64(s[e/cols])*float64(y[e]) })
	d = up(be, x)
	be.AddBias(d, up(be, bias))
	check("AddBias", down(be, d), func(e int) float64 { return float64(x[e]) + float64(bias[e%cols]) })
	d = up(be, samplingtest.RandomFeatures(rng, cols, 1))
	be.ColSums(d, up(be, x))
	check("ColSums", down(be, d), func(j int) float64 {
		var sum float64
		for r := range rows {
			sum += float64(x[r*cols+j])
		}
		return sum
	})
	d = up(be, x)
	be.ReLU(d)
	check("ReLU", down(be, d), func(e int) float64 { return max(float64(x[e]), 0) })
	d = up(be, y)
	be.ReLUDropoutGrad(d, up(be, x), 2)
	check("ReLUDropoutGrad", down(be, d), func(e int) float64 {
		if x[e] > 0 {
			return 2 * float64(y[e])
		}
		return 0
	})
	got := make([]int32, rows)
	be.ArgmaxRows(got, up(be, x), cols)
	for r := range rows {
		if w := slices.Index(x[r*cols:(r+1)*cols], slices.Max(x[r*cols:(r+1)*cols])); got[r] != int32(w) {
			t.Fatalf("ArgmaxRows: row %d: %d; want %d", r, got[r], w)
		}
	}
}

// checkDropout compares Dropout with the law of DropoutMask, element by
// element: the masks are the same on every backend.
func checkDropout(t *testing.T, be gnn.Backend) {
	rng := rand.New(rand.NewPCG(7, 8))
	key := sampling.NewStream(11).Row(1, 2, 3, 0)
	mask := gnn.DropoutMask{Key: key, Threshold: 19661, Scale: 1 / 0.7}
	for _, relu := range []bool{false, true} {
		for _, n := range []int{0, 1, 3, 4, 5, 1001} {
			x := samplingtest.RandomFeatures(rng, n, 1)
			d := up(be, x)
			be.Dropout(d, mask, relu)
			got := down(be, d)
			for e, v := range x {
				r := uint32(key.Uint64(int64(e/4))>>(16*(e%4))) & 0xffff
				want := v * mask.Scale
				if r < mask.Threshold || (relu && v < 0) {
					want = 0
				}
				if got[e] != want {
					t.Fatalf("relu %v, n %d: element %d = %v; want %v", relu, n, e, got[e], want)
				}
			}
		}
	}
}

func checkLoss(t *testing.T, be gnn.Backend) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, classes = 9, 5
	logits := samplingtest.RandomFeatures(rng, rows*classes, 3)
	labels := []int32{0, 4, -1, 2, 2, 1, -1, 3, 0}
	wantD := make([]float32, len(logits))
	wantLoss, wantCorrect, wantLabelled := gnn.CrossEntropy(wantD, logits, classes, labels)
	d := be.Alloc(len(logits))
	loss, correct, labelled := be.SoftmaxCrossEntropy(d, up(be, logits), classes, labels)
	if math.Abs(loss-wantLoss) > 1e-5 || correct != wantCorrect || labelled != wantLabelled {
		t.Errorf("loss, correct, labelled = %v, %d, %d; want %v, %d, %d", loss, correct, labelled, wantLoss, wantCorrect, wantLabelled)
	}
	got := down(be, d)
	for e := range got {
		if !near(got[e], float64(wantD[e])) {
			t.Fatalf("gradient [%d] = %v; want %v", e, got[e], wantD[e])
		}
	}
}

func checkAdam(t *testing.T, be gnn.Backend) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 50
	ref, err := gnn.NewAdam(n, gnn.AdamOptions{LR: 0.05, WeightDecay: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	p := samplingtest.RandomFeatures(rng, n, 1)
	pb, m, v := up(be, p), be.Alloc(n), be.Alloc(n)
	beta1, beta2 := 0.9, 0.999
	for step := 1; step <= 3; step++ {
		g := samplingtest.RandomFeatures(rng, n, 1)
		ref.Step(p, g)
		c1, c2 := 1-math.Pow(beta1, float64(step)), 1-math.Pow(beta2, float64(step))
		be.Adam(pb, up(be, g), m, v, gnn.AdamStep{Beta1: float32(beta1), Beta2: float32(beta2), WeightDecay: 0.01,
			StepSize: float32(0.05 / c1), InvSqrtC2: float32(1 / math.Sqrt(c2)), Eps: 1e-8})
		got := down(be, pb)
		for i := range p {
			if !near(got[i], float64(p[i])) {
				t.Fatalf("step %d: param %d = %v; want %v", step, i, got[i], p[i])
			}
		}
	}
}

// Case is a model configuration the model-level checks run.
type Case struct {
	Arch     gnn.Arch
	Layers   int
	Weighted bool    // blocks with weights (used as given by GCN)
	Dropout  float32 // training pass dropout
	Sparse   bool    // features 95% zeros: the first layer's sparse path
	Degrees  bool    // blocks carry graph degrees (GCN's graph normalisation)
	// Residual and Norm select the residual architecture (skip connections,
	// layer normalisation); a backend without gnn.NormBackend skips them.
	Residual bool
	Norm     gnn.Norm
}

func (c Case) String() string {
	s := fmt.Sprintf("%v-L%d-w%v-p%g-sparse%v-deg%v", c.Arch, c.Layers, c.Weighted, c.Dropout, c.Sparse, c.Degrees)
	if c.Residual || c.Norm != gnn.NormNone {
		s += fmt.Sprintf("-res%v-norm%v", c.Residual, c.Norm)
	}
	return s
}

// Cases are the configurations of CheckGradients and CheckAgainst: each
// architecture, with and without dropout, weighted and unweighted blocks,
// dense and sparse features.
var Cases = []Case{
	{gnn.Linear, 0, false, 0, false, false, false, gnn.NormNone},
	{gnn.Linear, 0, false, 0.3, false, false, false, gnn.NormNone},
	{gnn.SAGE, 1, false, 0, false, false, false, gnn.NormNone},
	{gnn.SAGE, 2, false, 0.3, false, false, false, gnn.NormNone},
	{gnn.SAGE, 3, true, 0.2, false, false, false, gnn.NormNone},
	{gnn.GCN, 1, false, 0, false, false, false, gnn.NormNone},
	{gnn.GCN, 2, false, 0.3, false, false, false, gnn.NormNone},
	{gnn.GCN, 2, true, 0.2, false, false, false, gnn.NormNone},
	{gnn.Linear, 0, false, 0.3, true, false, false, gnn.NormNone},
	{gnn.SAGE, 2, false, 0.3, true, false, false, gnn.NormNone},
	{gnn.SAGE, 1, true, 0, true, false, false, gnn.NormNone},
	{gnn.GCN, 2, false, 0.3, true, false, false, gnn.NormNone},
	{gnn.GCN, 1, true, 0.2, true, false, false, gnn.NormNone},
	{gnn.GCN, 2, false, 0.3, false, true, false, gnn.NormNone},
	{gnn.GCN, 2, true, 0.2, true, true, false, gnn.NormNone},
	// The residual architecture: with and without skip connections and
	// layer normalisation, dense and sparse features, dropout.
	{gnn.SAGE, 2, false, 0, false, false, true, gnn.NormLayer},
	{gnn.SAGE, 2, false, 0.3, false, false, true, gnn.NormLayer},
	{gnn.SAGE, 1, true, 0.2, true, false, true, gnn.NormNone},
	{gnn.SAGE, 3, false, 0.2, false, false, false, gnn.NormLayer},
	{gnn.GCN, 2, false, 0.3, false, true, true, gnn.NormLayer},
	{gnn.GCN, 2, true, 0.2, true, false, true, gnn.NormLayer},
}

// fixture is the minibatch, features, labels and model of a Case.
func fixture(t *testing.T, be gnn.Backend, ci int, c Case) (*gnn.Model, *sampling.Minibatch, []float32, []int32) {
	if c.Residual || c.Norm != gnn.NormNone {
		normBackend(t, be)
	}
	rng := rand.New(rand.NewPCG(uint64(ci), 7))
	const fin, classes, nSeeds = 9, 3, 4
	widths := []int{7, 11, 16}[:c.Layers]
	mb := samplingtest.RandomMinibatch(rng, nSeeds, widths, c.Weighted)
	if c.Degrees {
		// Graph degrees at least the sampled rows' lengths.
		for l := range mb.Blocks {
			blk := &mb.Blocks[l]
			blk.Deg = make([]int32, len(blk.Src))
			for j := range blk.Deg {
				blk.Deg[j] = int32(rng.IntN(6))
				if j < blk.Adj.Rows {
					blk.Deg[j] += int32(blk.Adj.Indptr[j+1] - blk.Adj.Indptr[j])
				}
			}
		}
	}
	nIn := nSeeds
	if c.Layers > 0 {
		nIn = widths[c.Layers-1]
	}
	x := samplingtest.RandomFeatures(rng, nIn*fin, 1)
	if c.Sparse {
		samplingtest.Sparsify(rng, x, 0.05)
	}
	labels := []int32{2, -1, 0, 1}
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: c.Arch, Layers: max(c.Layers, 1), Hidden: 6,
		InFeatures: fin, Classes: classes, Dropout: c.Dropout, Seed: 42, Backend: be, Residual: c.Residual, Norm: c.Norm})
	if err != nil {
		t.Fatal(err)
	}
	// Random biases, so that ReLU inputs are not all of one sign.
	params := slices.Clone(m.Params())
	for i := range params {
		params[i] += 0.1 * float32(rng.NormFloat64())
	}
	m.SetParams(params)
	return m, mb, x, labels
}

// lossOf runs a forward pass and returns the loss; when backward is set it
// also runs the backward pass.
func lossOf(m *gnn.Model, mb *sampling.Minibatch, x []float32, labels []int32, p gnn.Pass, backward bool) float64 {
	logits := m.Forward(mb, x, p)
	d := make([]float32, len(logits))
	loss, _, _ := gnn.CrossEntropy(d, logits, m.Options().Classes, labels)
	if backward {
		m.Backward(d)
	}
	return loss
}

// CheckGradients checks every parameter's gradient of a model on be against
// a central finite difference of the loss, for each of Cases. The forward
// pass is float32, so the step is 1e-3 and the tolerance allows float32
// rounding; a missing term, a wrong transpose or a wrong scale gives errors
// of the order of the gradient itself, far above it.
func CheckGradients(t *testing.T, be gnn.Backend) {
	for ci, c := range Cases {
		t.Run(c.String(), func(t *testing.T) {
			m, mb, x, labels := fixture(t, be, ci, c)
			pass := gnn.Pass{Train: true, Epoch: 1, Minibatch: 2}
			lossOf(m, mb, x, labels, pass, true)
			grads := slices.Clone(m.Grads())
			params := slices.Clone(m.Params())
			const h = 1e-3
			l0 := lossOf(m, mb, x, labels, pass, false)
			var worst float64
			kinks := 0
			at := func(i int, v float32) float64 {
				params[i] = v
				m.SetParams(params)
				return lossOf(m, mb, x, labels, pass, false)
			}
			for i := range params {
				p0 := params[i]
				up, down := p0+h, p0-h
				lp, lm := at(i, up), at(i, down)
				at(i, p0)
				// A step across a ReLU kink makes the one-sided slopes
				// disagree; the central difference is then meaningless.
				right, left := (lp-l0)/float64(up-p0), (l0-lm)/float64(p0-down)
				if math.Abs(right-left) > 5e-3+2e-2*math.Abs(right) {
					kinks++
					continue
				}
				num := (lp - lm) / float64(up-down)
				diff := math.Abs(num - float64(grads[i]))
				worst = max(worst, diff)
				if diff > 2e-3+2e-2*math.Abs(num) {
					t.Errorf("param %d: backward %g; finite difference %g", i, grads[i], num)
				}
			}
			if kinks > len(params)/10 {
				t.Errorf("%d of %d parameters sit at a ReLU kink; the check is too weak", kinks, len(params))
			}
			t.Logf("%d params (%d at a kink, skipped), worst |difference| %.2g", len(params), kinks, worst)
		})
	}
}

// CheckAgainst runs the forward and backward passes of each of Cases and
// full-neighbour inference on be and on the reference backend ref (the CPU
// backend), and compares logits, gradients and predictions. Logits and
// gradients agree within float32 rounding; predictions may differ only on
// near ties.
func CheckAgainst(t *testing.T, be, ref gnn.Backend) {
	for ci, c := range Cases {
		t.Run(c.String(), func(t *testing.T) {
			var logits, grads [2][]float32
			var preds [2][]int32
			for i, b := range []gnn.Backend{be, ref} {
				m, mb, x, labels := fixture(t, b, ci, c)
				pass := gnn.Pass{Train: true, Epoch: 1, Minibatch: 2}
				logits[i] = slices.Clone(m.Forward(mb, x, pass))
				lossOf(m, mb, x, labels, pass, true)
				grads[i] = slices.Clone(m.Grads())
				rng := rand.New(rand.NewPCG(uint64(ci), 8))
				const n = 30
				adj := samplingtest.RandomBlock(rng, n, n, 0.2, c.Weighted)
				feats := samplingtest.RandomFeatures(rng, n*m.Options().InFeatures, 1)
				if c.Sparse {
					samplingtest.Sparsify(rng, feats, 0.05)
				}
				p, err := m.Predict(context.Background(), &adj, feats, 7)
				if err != nil {
					t.Fatal(err)
				}
				preds[i] = p
			}
			for e := range logits[1] {
				if !near(logits[0][e], float64(logits[1][e])) {
					t.Fatalf("logit %d: %v; reference %v", e, logits[0][e], logits[1][e])
				}
			}
			for e := range grads[1] {
				if !near(grads[0][e], float64(grads[1][e])) {
					t.Fatalf("gradient %d: %v; reference %v", e, grads[0][e], grads[1][e])
				}
			}
			diff := 0
			for v := range preds[1] {
				if preds[0][v] != preds[1][v] {
					diff++
				}
			}
			if diff > len(preds[1])/10 {
				t.Errorf("%d of %d predictions differ from the reference's", diff, len(preds[1]))
			}
		})
	}
}
