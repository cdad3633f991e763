package gnn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

func TestCrossEntropy(t *testing.T) {
	// Row 0: equal logits, label 0: loss ln 2, gradient (-1/2, 1/2) / 2.
	// Row 1: unlabelled, ignored. Row 2: logits (ln 3, 0), label 0:
	// softmax (3/4, 1/4), loss ln(4/3), gradient (-1/4, 1/4) / 2.
	logits := []float32{0, 0, 5, -5, float32(math.Log(3)), 0}
	labels := []int32{0, -1, 0}
	d := make([]float32, len(logits))
	loss, correct, labelled := CrossEntropy(d, logits, 2, labels)
	wantLoss := (math.Ln2 + math.Log(4.0/3)) / 2
	if math.Abs(loss-wantLoss) > 1e-6 || correct != 2 || labelled != 2 {
		t.Errorf("loss, correct, labelled = %v, %d, %d; want %v, 2, 2", loss, correct, labelled, wantLoss)
	}
	want := []float32{-0.25, 0.25, 0, 0, -0.125, 0.125}
	for i := range want {
		if math.Abs(float64(d[i]-want[i])) > 1e-6 {
			t.Errorf("dLogits = %v; want %v", d, want)
			break
		}
	}
	// Large logits must not overflow.
	loss, _, _ = CrossEntropy(d[:2], []float32{1000, -1000}, 2, []int32{1})
	if math.Abs(loss-2000) > 1e-3 {
		t.Errorf("loss of logits (1000, -1000) with label 1 = %v; want 2000", loss)
	}
	// No labelled row: loss 0 and a zero gradient.
	loss, _, labelled = CrossEntropy(d[:2], []float32{1, 2}, 2, []int32{-1})
	if loss != 0 || labelled != 0 || d[0] != 0 || d[1] != 0 {
		t.Errorf("all unlabelled: loss %v, labelled %d, grad %v; want 0, 0, zero", loss, labelled, d[:2])
	}
}

func TestAdam(t *testing.T) {
	// The first step moves every parameter by lr against its gradient's
	// sign (m̂ = g, v̂ = g²), whatever the gradient's size.
	a, err := NewAdam(3, AdamOptions{LR: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	p := []float32{1, 1, 1}
	a.Step(p, []float32{2, -0.001, 30})
	for i, want := range []float32{0.9, 1.1, 0.9} {
		if math.Abs(float64(p[i]-want)) > 1e-5 {
			t.Errorf("after one step p = %v; want (0.9, 1.1, 0.9)", p)
			break
		}
	}

	// Several steps with weight decay against a float64 transcription of
	// the update rule.
	opt := AdamOptions{LR: 0.01, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, WeightDecay: 0.1}
	a, _ = NewAdam(2, opt)
	p = []float32{0.5, -2}
	ref, m, v := []float64{0.5, -2}, make([]float64, 2), make([]float64, 2)
	for step := 1; step <= 5; step++ {
		g := []float32{float32(step) * 0.3, -0.7 / float32(step)}
		a.Step(p, g)
		for i := range ref {
			gi := float64(g[i]) + opt.WeightDecay*ref[i]
			m[i] = opt.Beta1*m[i] + (1-opt.Beta1)*gi
			v[i] = opt.Beta2*v[i] + (1-opt.Beta2)*gi*gi
			mh := m[i] / (1 - math.Pow(opt.Beta1, float64(step)))
			vh := v[i] / (1 - math.Pow(opt.Beta2, float64(step)))
			ref[i] -= opt.LR * mh / (math.Sqrt(vh) + opt.Eps)
		}
	}
	for i := range ref {
		if math.Abs(float64(p[i])-ref[i]) > 1e-5 {
			t.Errorf("after 5 steps p = %v; want %v", p, ref)
		}
	}

	for _, bad := range []AdamOptions{{LR: -1}, {Beta1: 1}, {Beta2: -0.5}, {Eps: -1}, {WeightDecay: -1}, {LR: math.NaN()},
		{DecayedParams: -1}, {DecayedParams: 2}} {
		if _, err := NewAdam(1, bad); err == nil {
			t.Errorf("NewAdam(%+v) succeeded; want an error", bad)
		}
	}
}

// TestAdamDecayedParams: with DecayedParams k, the first k parameters take
// the steps of an Adam with the weight decay and the others those of an
// Adam without it, on the CPU backend's path (step) as on Step's.
func TestAdamDecayedParams(t *testing.T) {
	opt := AdamOptions{LR: 0.01, WeightDecay: 0.5}
	p0 := []float32{1, -2, 3, 0.5, -1}
	grads := []float32{0.1, 0.2, -0.3, 0.05, 0}
	const k = 2
	decayed, _ := NewAdam(k, opt)
	plain, _ := NewAdam(len(p0)-k, AdamOptions{LR: opt.LR})
	want := append([]float32(nil), p0...)
	split, _ := NewAdam(len(p0), AdamOptions{LR: opt.LR, WeightDecay: opt.WeightDecay, DecayedParams: k})
	got := append([]float32(nil), p0...)
	onBackend, _ := NewAdam(len(p0), split.Options())
	be := NewCPU(CPUOptions{})
	bp, bg := be.Alloc(len(p0)), be.Alloc(len(p0))
	be.Upload(bp, p0)
	be.Upload(bg, grads)
	for range 3 {
		decayed.Step(want[:k], grads[:k])
		plain.Step(want[k:], grads[k:])
		split.Step(got, grads)
		onBackend.step(be, bp, bg)
	}
	gotBe := make([]float32, len(p0))
	be.Download(gotBe, bp)
	for i := range want {
		if got[i] != want[i] || gotBe[i] != want[i] {
			t.Fatalf("after 3 steps: Step %v, step %v; want %v (decay on the first %d only)", got, gotBe, want, k)
		}
	}
	if want[4] != p0[4] {
		t.Errorf("a parameter with zero gradient and no decay moved: %v -> %v", p0[4], want[4])
	}
}

// TestDropoutLaw checks that dropout zeroes elements with probability p,
// independently of the three other elements drawn from the same 64 random
// bits, scales the kept ones by 1/(1-p), and repeats a pass's mask exactly.
// The bounds are chi-square critical values at p < 1e-6 (1 degree of
// freedom: 23.93; 15: 56.49).
func TestDropoutLaw(t *testing.T) {
	const n, p = 400000, 0.3
	m, err := NewModel(ModelOptions{Arch: Linear, InFeatures: 1, Classes: 2, Dropout: p, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	h := make([]float32, n)
	for i := range h {
		h[i] = 1
	}
	pass := Pass{Train: true, Epoch: 2, Minibatch: 7}
	m.be.Dropout(HostBuf(h), m.dropoutMask(pass, 1), false)
	var counts [16]float64 // patterns of kept elements in aligned groups of 4
	dropped := 0.0
	for i := 0; i < n; i += 4 {
		k := 0
		for j, v := range h[i : i+4] {
			if v == 0 {
				dropped++
				continue
			}
			if math.Abs(float64(v)-1/(1-p)) > 1e-6 {
				t.Fatalf("kept value %v; want %v", v, 1/(1-p))
			}
			k |= 1 << j
		}
		counts[k]++
	}
	e := n * p
	if chi := (dropped-e)*(dropped-e)/e + (dropped-e)*(dropped-e)/(n-e); chi > 23.93 {
		t.Errorf("dropped %v of %d; want about %v (chi-square %.1f)", dropped, n, e, chi)
	}
	chi := 0.0
	for k, c := range counts {
		want := float64(n / 4)
		for j := range 4 {
			if k&(1<<j) != 0 {
				want *= 1 - p
			} else {
				want *= p
			}
		}
		chi += (c - want) * (c - want) / want
	}
	if chi > 56.49 {
		t.Errorf("group patterns %v; chi-square %.1f against independence", counts, chi)
	}
	// The same pass gives the same mask; another minibatch another mask.
	again := make([]float32, n)
	other := make([]float32, n)
	for i := range again {
		again[i], other[i] = 1, 1
	}
	m.be.Dropout(HostBuf(again), m.dropoutMask(pass, 1), false)
	m.be.Dropout(HostBuf(other), m.dropoutMask(Pass{Train: true, Epoch: 2, Minibatch: 8}, 1), false)
	same, diff := true, 0
	for i := range h {
		same = same && again[i] == h[i]
		if other[i] != h[i] {
			diff++
		}
	}
	if !same {
		t.Error("repeating a pass changed its dropout mask")
	}
	if diff < n/4 {
		t.Errorf("the masks of minibatches 7 and 8 differ in %d of %d elements", diff, n)
	}
}

// TestSparsePathMatchesDense: the sparse-input path of the first layer
// (dropout included) computes the same logits and gradients as the dense
// path, up to float32 rounding.
func TestSparsePathMatchesDense(t *testing.T) {
	for _, arch := range []Arch{SAGE, GCN, Linear} {
		rng := rand.New(rand.NewPCG(5, uint64(arch)))
		mb := samplingtest.RandomMinibatch(rng, 6, []int{15, 40}, arch == GCN)
		nIn := 40
		if arch == Linear {
			mb.Blocks, nIn = nil, 6
		}
		x := samplingtest.RandomFeatures(rng, nIn*50, 1)
		samplingtest.Sparsify(rng, x, 0.05)
		labels := []int32{0, 1, 2, 0, 1, 2}
		var logits, grads [2][]float32
		for i, density := range []float64{sparseMaxDensity, 0} {
			m, err := NewModel(ModelOptions{Arch: arch, Hidden: 8, InFeatures: 50, Classes: 3, Dropout: 0.4, Seed: 8})
			if err != nil {
				t.Fatal(err)
			}
			m.sparseDensity = density
			pass := Pass{Train: true, Epoch: 1, Minibatch: 4}
			out := m.Forward(mb, x, pass)
			logits[i] = append([]float32(nil), out...)
			d := make([]float32, len(out))
			CrossEntropy(d, out, 3, labels)
			m.Backward(d)
			if m.layers[0].sparse != (density > 0) {
				t.Fatalf("%v: sparse path %v with density bound %v", arch, m.layers[0].sparse, density)
			}
			grads[i] = append([]float32(nil), m.Grads()...)
		}
		for i := range logits[0] {
			if math.Abs(float64(logits[0][i]-logits[1][i])) > 1e-5 {
				t.Fatalf("%v: logit %d: sparse %v, dense %v", arch, i, logits[0][i], logits[1][i])
			}
		}
		for i := range grads[0] {
			if math.Abs(float64(grads[0][i]-grads[1][i])) > 1e-5 {
				t.Fatalf("%v: gradient %d: sparse %v, dense %v", arch, i, grads[0][i], grads[1][i])
			}
		}
	}
}

// TestPredictMatchesForward: full-neighbour inference in chunks equals a
// forward pass whose blocks are the whole graph (every vertex a seed and a
// source). GCN's blocks carry the row lengths as degrees (the graph
// normalisation, weighted values included) or none (the block
// normalisation, on the pattern: weighted blocks without degrees are used as
// given, which inference does not do).
func TestPredictMatchesForward(t *testing.T) {
	const n, f, classes = 50, 20, 4
	type tc struct {
		arch Arch
		norm GCNNorm
	}
	for _, c := range []tc{{SAGE, 0}, {GCN, GCNGraphNorm}, {GCN, GCNBlockNorm}, {Linear, 0}} {
		arch := c.arch
		for _, weighted := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(3, uint64(arch)))
			adj := samplingtest.RandomBlock(rng, n, n, 0.1, weighted)
			var deg []int32
			if arch == GCN && c.norm == GCNGraphNorm {
				deg = make([]int32, n)
				for v := range deg {
					deg[v] = int32(adj.Indptr[v+1] - adj.Indptr[v])
				}
			}
			if arch == GCN && c.norm == GCNBlockNorm && weighted {
				for i := range adj.Data {
					adj.Data[i] = 1
				}
			}
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = int32(i)
			}
			mb := &sampling.Minibatch{Seeds: ids}
			layers := 0
			if arch != Linear {
				layers = 3
				for range layers {
					mb.Blocks = append(mb.Blocks, sampling.Block{Adj: adj, Src: ids, Deg: deg})
				}
			}
			m, err := NewModel(ModelOptions{Arch: arch, Layers: max(layers, 1), Hidden: 7, InFeatures: f, Classes: classes, Seed: 2, GCNNorm: c.norm})
			if err != nil {
				t.Fatal(err)
			}
			x := samplingtest.RandomFeatures(rng, n*f, 1)
			if weighted {
				samplingtest.Sparsify(rng, x, 0.05) // the sparse-input path
			}
			logits := m.Forward(mb, x, Pass{})
			for _, chunk := range []int{0, 1, 7, n} {
				pred, err := m.Predict(context.Background(), &adj, x, chunk)
				if err != nil {
					t.Fatal(err)
				}
				for v := range n {
					if want := argmax(logits[v*classes : (v+1)*classes]); int(pred[v]) != want {
						t.Errorf("%v/%v weighted=%v chunk %d: vertex %d predicted %d; forward says %d", arch, c.norm, weighted, chunk, v, pred[v], want)
						break
					}
				}
			}
		}
	}
}

func TestModelOptionsErrors(t *testing.T) {
	for _, o := range []ModelOptions{
		{InFeatures: 0, Classes: 2},
		{InFeatures: 3, Classes: 1},
		{InFeatures: 3, Classes: 2, Hidden: -1},
		{InFeatures: 3, Classes: 2, Layers: -2},
		{InFeatures: 3, Classes: 2, Dropout: -0.1},
		{InFeatures: 3, Classes: 2, Arch: Arch(7)},
	} {
		if _, err := NewModel(o); err == nil {
			t.Errorf("NewModel(%+v) succeeded; want an error", o)
		}
	}
	if a, err := ParseArch("gcn"); err != nil || a != GCN {
		t.Errorf("ParseArch(gcn) = %v, %v", a, err)
	}
	if _, err := ParseArch("mlp"); err == nil {
		t.Error("ParseArch(mlp) succeeded")
	}
}

// TestForwardShapePanics: a minibatch that does not fit the model is a
// caller bug and panics with a ShapeError.
func TestForwardShapePanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, _ := NewModel(ModelOptions{Arch: SAGE, Layers: 2, InFeatures: 3, Classes: 2})
	mb := samplingtest.RandomMinibatch(rng, 2, []int{4, 6}, false)
	for name, fn := range map[string]func(){
		"short input": func() { m.Forward(mb, make([]float32, 5*3), Pass{}) },
		"one block":   func() { m.Forward(samplingtest.RandomMinibatch(rng, 2, []int{4}, false), make([]float32, 4*3), Pass{}) },
	} {
		var se spgemm.ShapeError
		if err := spgemm.Maybe(fn); !errors.As(err, &se) {
			t.Errorf("%s: got %v; want a ShapeError panic", name, err)
		}
	}
}
