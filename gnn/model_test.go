package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// randomBlock returns an nDst x nSrc block whose row i holds each source
// with probability density (at least one entry per row), with values 1 or,
// when weighted, random positive weights.
func randomBlock(rng *rand.Rand, nDst, nSrc int, density float64, weighted bool) spgemm.CSR {
	a := spgemm.CSR{Rows: nDst, Cols: nSrc, Indptr: make([]int64, 1, nDst+1)}
	for i := 0; i < nDst; i++ {
		start := len(a.Indices)
		for j := 0; j < nSrc; j++ {
			if rng.Float64() < density {
				a.Indices = append(a.Indices, int32(j))
			}
		}
		if len(a.Indices) == start {
			a.Indices = append(a.Indices, int32(rng.IntN(nSrc)))
		}
		for range len(a.Indices) - start {
			v := float32(1)
			if weighted {
				v = 0.25 + rng.Float32()
			}
			a.Data = append(a.Data, v)
		}
		a.Indptr = append(a.Indptr, int64(len(a.Indices)))
	}
	return a
}

// testMinibatch returns a minibatch of nSeeds seeds with len(widths) blocks,
// block l having widths[l] sources (widths increasing, widths[0] > nSeeds).
func testMinibatch(rng *rand.Rand, nSeeds int, widths []int, weighted bool) *sampling.Minibatch {
	mb := &sampling.Minibatch{Index: 3, Seeds: make([]int32, nSeeds)}
	for i := range mb.Seeds {
		mb.Seeds[i] = int32(100 + i)
	}
	rows := nSeeds
	for _, w := range widths {
		src := make([]int32, w)
		for i := range src {
			src[i] = int32(100 + i)
		}
		mb.Blocks = append(mb.Blocks, sampling.Block{Adj: randomBlock(rng, rows, w, 0.4, weighted), Src: src})
		rows = w
	}
	return mb
}

func randomSlice(rng *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = scale * float32(rng.NormFloat64())
	}
	return x
}

// lossOf runs a forward pass and returns the loss; when backward is set it
// also runs the backward pass.
func lossOf(m *Model, mb *sampling.Minibatch, x []float32, labels []int32, p Pass, backward bool) float64 {
	logits := m.Forward(mb, x, p)
	d := make([]float32, len(logits))
	loss, _, _ := CrossEntropy(d, logits, m.Options().Classes, labels)
	if backward {
		m.Backward(d)
	}
	return loss
}

// TestGradients checks every parameter's gradient against a central finite
// difference of the loss, for each architecture, with dropout on, weighted
// and unweighted blocks and an unlabelled seed. The forward pass is float32,
// so the step is 1e-3 and the tolerance allows float32 rounding; a missing
// term, a wrong transpose or a wrong scale gives errors of the order of the
// gradient itself, far above it.
func TestGradients(t *testing.T) {
	tests := []struct {
		arch     Arch
		layers   int
		weighted bool
		dropout  float32
		sparse   bool // features 95% zeros: the sparse-input path
		degrees  bool // blocks carry graph degrees (GCN's graph normalisation)
	}{
		{Linear, 0, false, 0, false, false},
		{Linear, 0, false, 0.3, false, false},
		{SAGE, 1, false, 0, false, false},
		{SAGE, 2, false, 0.3, false, false},
		{SAGE, 3, true, 0.2, false, false},
		{GCN, 1, false, 0, false, false},
		{GCN, 2, false, 0.3, false, false},
		{GCN, 2, true, 0.2, false, false}, // values used as given
		{Linear, 0, false, 0.3, true, false},
		{SAGE, 2, false, 0.3, true, false},
		{SAGE, 1, true, 0, true, false},
		{GCN, 2, false, 0.3, true, false},
		{GCN, 1, true, 0.2, true, false},
		{GCN, 2, false, 0.3, false, true},
		{GCN, 2, true, 0.2, true, true},
	}
	for ti, tc := range tests {
		t.Run(fmt.Sprintf("%v-L%d-w%v-p%g-sparse%v-deg%v", tc.arch, tc.layers, tc.weighted, tc.dropout, tc.sparse, tc.degrees), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ti), 7))
			const fin, classes, nSeeds = 9, 3, 4
			widths := []int{7, 11, 16}[:tc.layers]
			mb := testMinibatch(rng, nSeeds, widths, tc.weighted)
			if tc.degrees {
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
			if tc.layers > 0 {
				nIn = widths[tc.layers-1]
			}
			x := randomSlice(rng, nIn*fin, 1)
			if tc.sparse {
				sparsify(rng, x, 0.05)
			}
			labels := []int32{2, -1, 0, 1}
			m, err := NewModel(ModelOptions{Arch: tc.arch, Layers: max(tc.layers, 1), Hidden: 6,
				InFeatures: fin, Classes: classes, Dropout: tc.dropout, Seed: 42})
			if err != nil {
				t.Fatal(err)
			}
			// Random biases, so that ReLU inputs are not all of one sign.
			params := m.Params()
			for i := range params {
				params[i] += 0.1 * float32(rng.NormFloat64())
			}
			pass := Pass{Train: true, Epoch: 1, Minibatch: 2}
			lossOf(m, mb, x, labels, pass, true)
			if m.layers[0].sparse != tc.sparse {
				t.Fatalf("first layer took the sparse path: %v; want %v", m.layers[0].sparse, tc.sparse)
			}
			grads := append([]float32(nil), m.Grads()...)
			const h = 1e-3
			l0 := lossOf(m, mb, x, labels, pass, false)
			var worst float64
			kinks := 0
			for i := range params {
				p0 := params[i]
				params[i] = p0 + h
				up := float64(params[i])
				lp := lossOf(m, mb, x, labels, pass, false)
				params[i] = p0 - h
				down := float64(params[i])
				lm := lossOf(m, mb, x, labels, pass, false)
				params[i] = p0
				// A step across a ReLU kink makes the one-sided slopes
				// disagree; the central difference is then meaningless.
				right, left := (lp-l0)/(up-float64(p0)), (l0-lm)/(float64(p0)-down)
				if math.Abs(right-left) > 5e-3+2e-2*math.Abs(right) {
					kinks++
					continue
				}
				num := (lp - lm) / (up - down)
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

// sparsify zeroes the elements of x except a fraction keep of them (at least
// one).
func sparsify(rng *rand.Rand, x []float32, keep float64) {
	for i := range x {
		if rng.Float64() >= keep {
			x[i] = 0
		}
	}
	x[rng.IntN(len(x))] = 1
}

// TestCrossEntropyGradient checks CrossEntropy's gradient against central
// finite differences of its loss, computed in float64 from logits of a few
// magnitudes, with an unlabelled row.
func TestCrossEntropyGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const rows, classes = 5, 4
	labels := []int32{3, -1, 0, 2, 2}
	for _, scale := range []float32{0.1, 1, 10} {
		logits := randomSlice(rng, rows*classes, scale)
		d := make([]float32, len(logits))
		CrossEntropy(d, logits, classes, labels)
		// The loss as a float64 function of one logit moved by e.
		lossAt := func(i int, e float64) float64 {
			var loss float64
			n := 0
			for r, y := range labels {
				if y < 0 {
					continue
				}
				n++
				z := make([]float64, classes)
				for j := range z {
					z[j] = float64(logits[r*classes+j])
					if r*classes+j == i {
						z[j] += e
					}
				}
				zmax := slices.Max(z)
				var s float64
				for _, v := range z {
					s += math.Exp(v - zmax)
				}
				loss += zmax + math.Log(s) - z[y]
			}
			return loss / float64(n)
		}
		const h = 1e-5
		for i := range logits {
			num := (lossAt(i, h) - lossAt(i, -h)) / (2 * h)
			if math.Abs(num-float64(d[i])) > 1e-5+1e-4*math.Abs(num) {
				t.Errorf("scale %g: dLogits[%d] = %g; finite difference %g", scale, i, d[i], num)
			}
		}
	}
}

// TestGlorotInit: the initial weights are a pure function of the seed,
// uniform on [-a, a] with a = sqrt(6/(fin+fout)) (mean about 0, variance
// a²/3), the biases 0.
func TestGlorotInit(t *testing.T) {
	opt := ModelOptions{Arch: SAGE, Layers: 2, Hidden: 300, InFeatures: 500, Classes: 7, Seed: 9}
	m1, _ := NewModel(opt)
	m2, _ := NewModel(opt)
	if !slices.Equal(m1.Params(), m2.Params()) {
		t.Error("two models with the same seed differ")
	}
	opt.Seed = 10
	if m3, _ := NewModel(opt); slices.Equal(m1.Params(), m3.Params()) {
		t.Error("seeds 9 and 10 give the same weights")
	}
	for i, l := range m1.layers {
		a := math.Sqrt(6 / float64(l.fin+l.fout))
		for _, w := range [][]float32{l.w1, l.w2} {
			var sum, sq float64
			for _, v := range w {
				if math.Abs(float64(v)) > a {
					t.Fatalf("layer %d: weight %v outside [-%v, %v]", i, v, a, a)
				}
				sum += float64(v)
				sq += float64(v) * float64(v)
			}
			n := float64(len(w))
			mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
			// The mean of n uniforms has standard deviation a/sqrt(3n);
			// 6 of them bound it at p < 1e-8. The variance's relative
			// standard deviation is about sqrt(0.8/n).
			if math.Abs(mean) > 6*a/math.Sqrt(3*n) || math.Abs(variance/(a*a/3)-1) > 6*math.Sqrt(0.8/n) {
				t.Errorf("layer %d (%d x %d): mean %.3g, variance %.4g; want 0 and %.4g", i, l.fin, l.fout, mean, variance, a*a/3)
			}
		}
		for _, b := range l.b {
			if b != 0 {
				t.Fatalf("layer %d: bias %v; want 0", i, b)
			}
		}
	}
}
