package gnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// TestCrossEntropyGradient checks CrossEntropy's gradient against central
// finite differences of its loss, computed in float64 from logits of a few
// magnitudes, with an unlabelled row.
func TestCrossEntropyGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const rows, classes = 5, 4
	labels := []int32{3, -1, 0, 2, 2}
	for _, scale := range []float32{0.1, 1, 10} {
		logits := samplingtest.RandomFeatures(rng, rows*classes, scale)
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
		for _, w := range [][]float32{l.w.w1.Host(), l.w.w2.Host()} {
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
		for _, b := range l.w.b.Host() {
			if b != 0 {
				t.Fatalf("layer %d: bias %v; want 0", i, b)
			}
		}
	}
}
