package gnn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/sampling"
)

// fullBatchGCN is a dense 2-layer GCN in float64, written from Kipf and
// Welling's definition and sharing no code with the model: Â = D^-1/2
// (A+I) D^-1/2 is formed as a dense n x n matrix from the whole graph, the
// logits of all vertices are Â·relu(Â·X·W1 + b1)·W2 + b2, and the gradients
// are those of the mean cross-entropy over the vertices ids.
type fullBatchGCN struct {
	n, fin, hid, classes int
	ahat                 []float64 // n x n
	x                    []float64 // n x fin
	w1, b1, w2, b2       []float64
	z1, h1, ah1, z2      []float64 // pre-activation, ReLU, Â·h1, logits
}

func newFullBatchGCN(ds *dataset.Dataset, params []float32, hid int) *fullBatchGCN {
	n, fin, c := ds.NumNodes(), ds.NumFeatures, ds.NumClasses
	r := &fullBatchGCN{n: n, fin: fin, hid: hid, classes: c, ahat: make([]float64, n*n), x: make([]float64, n*fin)}
	a := ds.Adj
	d := make([]float64, n)
	for i := range n {
		d[i] = float64(a.Indptr[i+1]-a.Indptr[i]) + 1 // degree plus the self loop
	}
	for i := range n {
		r.ahat[i*n+i] = 1 / d[i]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			j := int(a.Indices[p])
			r.ahat[i*n+j] = 1 / math.Sqrt(d[i]*d[j])
		}
	}
	for i, v := range ds.Features {
		r.x[i] = float64(v)
	}
	f64 := func(p []float32) []float64 {
		out := make([]float64, len(p))
		for i, v := range p {
			out[i] = float64(v)
		}
		return out
	}
	o := 0
	take := func(k int) []float64 { o += k; return f64(params[o-k : o]) }
	r.w1, r.b1, r.w2, r.b2 = take(fin*hid), take(hid), take(hid*c), take(c)
	return r
}

// matmul returns the m x p product of the m x k matrix a and the k x p
// matrix b (row-major), skipping zeros of a (Â and X are mostly zeros).
func matmul(a, b []float64, m, k, p int) []float64 {
	out := make([]float64, m*p)
	for i := range m {
		row := out[i*p : (i+1)*p]
		for q, v := range a[i*k : (i+1)*k] {
			if v == 0 {
				continue
			}
			for j, w := range b[q*p : (q+1)*p] {
				row[j] += v * w
			}
		}
	}
	return out
}

// transpose returns the p x m transpose of the m x p matrix a.
func transpose(a []float64, m, p int) []float64 {
	out := make([]float64, len(a))
	for i := range m {
		for j := range p {
			out[j*m+i] = a[i*p+j]
		}
	}
	return out
}

func (r *fullBatchGCN) forward() {
	n, hid, c := r.n, r.hid, r.classes
	r.z1 = matmul(r.ahat, matmul(r.x, r.w1, n, r.fin, hid), n, n, hid)
	r.h1 = make([]float64, n*hid)
	for i, v := range r.z1 {
		v += r.b1[i%hid]
		r.z1[i] = v
		r.h1[i] = max(v, 0)
	}
	r.ah1 = matmul(r.ahat, r.h1, n, n, hid)
	r.z2 = matmul(r.ah1, r.w2, n, hid, c)
	for i := range r.z2 {
		r.z2[i] += r.b2[i%c]
	}
}

// backward returns the gradients of the mean cross-entropy over ids, laid
// out like Model.Params.
func (r *fullBatchGCN) backward(ids []int32, labels []int32) []float64 {
	n, hid, c := r.n, r.hid, r.classes
	dz2 := make([]float64, n*c)
	for _, v := range ids {
		z := r.z2[int(v)*c : int(v+1)*c]
		m := z[0]
		for _, x := range z {
			m = max(m, x)
		}
		sum := 0.0
		for _, x := range z {
			sum += math.Exp(x - m)
		}
		for j, x := range z {
			p := math.Exp(x-m) / sum
			if int32(j) == labels[v] {
				p--
			}
			dz2[int(v)*c+j] = p / float64(len(ids))
		}
	}
	gw2 := matmul(transpose(r.ah1, n, hid), dz2, hid, n, c)
	gb2 := make([]float64, c)
	for i, v := range dz2 {
		gb2[i%c] += v
	}
	// Â is symmetric: the gradient through Â·h1 is Â·(dz2·W2ᵀ).
	dh1 := matmul(r.ahat, matmul(dz2, transpose(r.w2, hid, c), n, c, hid), n, n, hid)
	for i, z := range r.z1 {
		if z <= 0 {
			dh1[i] = 0
		}
	}
	gw1 := matmul(transpose(r.x, n, r.fin), matmul(r.ahat, dh1, n, n, hid), r.fin, n, hid)
	gb1 := make([]float64, hid)
	for i, v := range dh1 {
		gb1[i%hid] += v
	}
	return append(append(append(gw1, gb1...), gw2...), gb2...)
}

// TestFullNeighbourGCNEqualsFullBatch: one minibatch holding every training
// vertex of Cora, sampled with all neighbours (fanouts -1,-1), gives the
// logits and gradients of the dense full-batch GCN of the whole normalised
// adjacency: the blocks carry the graph's degrees, so they are exactly the
// rows of D^-1/2 (A+I) D^-1/2 the seeds reach. Tolerance: float32 against
// float64, max |got - want| <= 1e-5 · max |want| over the logits and over
// the gradients. The block-degree normalisation
// (DGL's norm="both" on a block) must miss: it is another operator.
func TestFullNeighbourGCNEqualsFullBatch(t *testing.T) {
	ds := loadShared(t, "cora")
	const hid = 16
	nw, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{-1, -1}, Degrees: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	bulk, err := nw.SampleBulk(context.Background(), 0, 0, [][]int32{ds.Train})
	if err != nil {
		t.Fatal(err)
	}
	mb := bulk.Minibatch(0)
	in := mb.InputNodes()
	x := make([]float32, len(in)*ds.NumFeatures)
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Gather(context.Background(), x, in); err != nil {
		t.Fatal(err)
	}
	labels := make([]int32, len(mb.Seeds))
	featurex.Labels(labels, ds.Labels, mb.Seeds)

	var ref *fullBatchGCN
	for _, norm := range []GCNNorm{GCNGraphNorm, GCNBlockNorm} {
		m, err := NewModel(ModelOptions{Arch: GCN, Layers: 2, Hidden: hid, InFeatures: ds.NumFeatures, Classes: ds.NumClasses, Seed: 5, GCNNorm: norm})
		if err != nil {
			t.Fatal(err)
		}
		// Nonzero biases, so that the ReLU sees both signs.
		rng := rand.New(rand.NewPCG(1, 2))
		p := m.Params()
		for _, l := range m.layers {
			b := l.w.b.Host()
			for i := range b {
				b[i] = 0.1 * float32(rng.NormFloat64())
			}
		}
		if ref == nil {
			ref = newFullBatchGCN(ds, p, hid)
			ref.forward()
		}
		logits := m.Forward(&mb, x, Pass{Train: true})
		d := make([]float32, len(logits))
		CrossEntropy(d, logits, ds.NumClasses, labels)
		m.Backward(d)
		want := make([]float64, len(logits))
		for k, v := range mb.Seeds {
			copy(want[k*ds.NumClasses:], ref.z2[int(v)*ds.NumClasses:int(v+1)*ds.NumClasses])
		}
		logitErr := relErr(logits, want)
		gradErr := relErr(m.Grads(), ref.backward(mb.Seeds, ds.Labels))
		t.Logf("%v normalisation: %d seeds, %d input vertices: largest logit error %.2g, gradient error %.2g (relative to the largest value)",
			norm, len(mb.Seeds), len(in), logitErr, gradErr)
		const tol = 1e-5
		switch {
		case norm == GCNGraphNorm && (logitErr > tol || gradErr > tol):
			t.Errorf("full-neighbour minibatch differs from full-batch GCN: logit error %.2g, gradient error %.2g; want <= %g", logitErr, gradErr, tol)
		case norm == GCNBlockNorm && logitErr < 100*tol:
			t.Errorf("block normalisation matches full-batch GCN (logit error %.2g): the test cannot tell the operators apart", logitErr)
		}
	}
}

// relErr returns max |got - want| / max |want|.
func relErr(got []float32, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	scale, worst := math.SmallestNonzeroFloat64, 0.0
	for i, w := range want {
		scale = max(scale, math.Abs(w))
		worst = max(worst, math.Abs(float64(got[i])-w))
	}
	return worst / scale
}
