package sampling

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// lwHandGraph is a small weighted symmetric graph whose sampling laws are
// worked out by hand in the tests below.
func lwHandGraph() *spgemm.CSR {
	return lwFromDense([][]float32{
		{0, 1, 2, 0},
		{1, 0, 0, 3},
		{2, 0, 0, 1},
		{0, 3, 1, 0},
	})
}

func lwNew(t *testing.T, a *spgemm.CSR, opt LayerWiseOptions) *LayerWise {
	t.Helper()
	s, err := NewLayerWise(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func lwClose(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestLayerWiseProbabilities checks P[m, v] / Σ_v P[m, v] against hand
// computations: Σ_{u in frontier} A[u,v]² for LADIES (a repeated frontier
// vertex counts once), the squared column norms of A for FastGCN.
func TestLayerWiseProbabilities(t *testing.T) {
	a := lwHandGraph()
	frontiers := [][]int32{{0, 1}, {2}, {3, 0}, {1, 1}}
	cases := []struct {
		method LayerWiseMethod
		want   [][]float64
	}{
		{LADIES, [][]float64{
			{1.0 / 15, 1.0 / 15, 4.0 / 15, 9.0 / 15}, // rows 0, 1: [0 1 4 0] + [1 0 0 9]
			{4.0 / 5, 0, 0, 1.0 / 5},                 // row 2: [4 0 0 1]
			{0, 10.0 / 15, 5.0 / 15, 0},              // rows 3, 0: [0 9 1 0] + [0 1 4 0]
			{1.0 / 10, 0, 0, 9.0 / 10},               // row 1 once
		}},
		{FastGCN, [][]float64{
			{5.0 / 30, 10.0 / 30, 5.0 / 30, 10.0 / 30}, // column sums of A∘A
		}},
	}
	for _, c := range cases {
		s := lwNew(t, a, LayerWiseOptions{Method: c.method, Budgets: []int{1}})
		p := s.probabilities(frontiers)
		sums := spgemm.RowSums(p, 1)
		d := lwDense(p)
		if len(d) != len(c.want) {
			t.Fatalf("%v: P has %d rows, want %d", c.method, len(d), len(c.want))
		}
		for m := range c.want {
			for v, w := range c.want[m] {
				if got := float64(d[m][v]) / sums[m]; !lwClose(got, w) {
					t.Errorf("%v: P[%d, %d] / row sum = %v, want %v", c.method, m, v, got, w)
				}
			}
		}
	}
}

// TestLayerWiseProbabilitiesMatchMul: the dense-accumulator rows of P
// that the sampler draws from equal the general product
// spgemm.Mul(QPerMinibatch(frontiers), A∘A) bit for bit, on a weighted
// graph with non-integer weights, repeated and empty frontiers.
func TestLayerWiseProbabilitiesMatchMul(t *testing.T) {
	a := lwRandomGraph(400, 30, true, 12)
	for i := range a.Data { // non-integer weights
		a.Data[i] *= 0.7 + 0.13*float32(i%5)
	}
	frontiers := lwSeeds(400, 6, 40, 13)
	frontiers = append(frontiers, nil, []int32{5}, []int32{7, 7})
	want := spgemm.Mul(QPerMinibatch(frontiers, a.Rows), lwSquared(a), nil)
	for _, hashed := range []bool{false, true} {
		s := lwNew(t, a, LayerWiseOptions{Budgets: []int{3}})
		if hashed {
			s.setDenseMapMax(0) // the accumulator of a graph above denseVertexMapMax
		}
		got := s.probabilities(frontiers)
		if !reflect.DeepEqual(got.Indptr, want.Indptr) || !reflect.DeepEqual(got.Indices, want.Indices) ||
			!reflect.DeepEqual(got.Data, want.Data) {
			t.Errorf("hashed=%v: P differs from Q·(A∘A): %d entries, want %d", hashed, got.NNZ(), want.NNZ())
		}
		// By column ranges, as probRowSplit computes a row on threads.
		w := s.getWorker()
		for m, f := range frontiers {
			lo, hi := want.Indptr[m], want.Indptr[m+1]
			var cols []int32
			var vals []float32
			for _, c := range [][2]int32{{0, 64}, {64, 192}, {192, 200}, {200, 400}} {
				cols, vals = s.probRange(w, slices.Compact(slices.Sorted(slices.Values(f))), c[0], c[1], cols, vals)
			}
			if !slices.Equal(cols, want.Indices[lo:hi]) || !slices.Equal(vals, want.Data[lo:hi]) {
				t.Errorf("hashed=%v: row %d by column ranges differs from Q·(A∘A)", hashed, m)
			}
		}
	}
}

// lwSquared returns A∘A.
func lwSquared(a *spgemm.CSR) *spgemm.CSR {
	a2 := a.Clone()
	for i, x := range a2.Data {
		a2.Data[i] = x * x
	}
	return a2
}

// TestFastGCNColumnSquaresMatchMul: FastGCN's row 1ᵀ·(A∘A), accumulated
// by AddColumnSquares in one pass or in row blocks (as distributed ranks
// do), equals spgemm.Mul(ones, A∘A) bit for bit on a weighted graph.
func TestFastGCNColumnSquaresMatchMul(t *testing.T) {
	a := lwRandomGraph(500, 30, true, 21)
	n := a.Rows
	ones := &spgemm.CSR{Rows: 1, Cols: n, Indptr: []int64{0, int64(n)}, Indices: make([]int32, n), Data: make([]float32, n)}
	for v := range ones.Indices {
		ones.Indices[v], ones.Data[v] = int32(v), 1
	}
	want := spgemm.Mul(ones, lwSquared(a), nil)
	for _, blocks := range []int{1, 3, 7} {
		acc, touched := make([]float32, n), make([]bool, n)
		for b := range blocks {
			AddColumnSquares(CSRRows{A: a}, b*n/blocks, (b+1)*n/blocks, acc, touched)
		}
		got := ColumnSquaresRow(acc, touched)
		if !reflect.DeepEqual(got.Indptr, want.Indptr) || !reflect.DeepEqual(got.Indices, want.Indices) || !reflect.DeepEqual(got.Data, want.Data) {
			t.Errorf("%d blocks: column squares differ from Mul(ones, A∘A)", blocks)
		}
	}
}

// TestLayerWiseHand checks two layers of LADIES on the hand graph with
// budgets that take every column, so the blocks are fixed: layer 0 from
// frontier [0] has P ∝ [0 1 4 0], A[0,1]/p_1 = 5 and A[0,2]/p_2 = 2.5, row
// normalised to [2/3 1/3]; layer 1 from [0 1 2] has P ∝ [5 1 4 10].
func TestLayerWiseHand(t *testing.T) {
	a := lwHandGraph()
	cases := []struct {
		name    string
		opt     LayerWiseOptions
		blocks  [][][]float32
		sources [][]int32
	}{
		{"ladies", LayerWiseOptions{Budgets: []int{4, 4}},
			[][][]float32{
				{{0, 2.0 / 3, 1.0 / 3}},
				{{0, 2.0 / 3, 1.0 / 3, 0}, {0.4, 0, 0, 0.6}, {0.8, 0, 0, 0.2}},
			},
			[][]int32{{0, 1, 2}, {0, 1, 2, 3}}},
		{"fastgcn", LayerWiseOptions{Method: FastGCN, Budgets: []int{4}},
			// Column norms [5 10 5 10]/30: A[0,1]/p_1 = 3, A[0,2]/p_2 = 12.
			// Vertex 3 is drawn too although it has no edge from 0.
			[][][]float32{{{0, 0.2, 0.8, 0}}},
			[][]int32{{0, 1, 2, 3}}},
		{"rowmean", LayerWiseOptions{Budgets: []int{4}, RowMean: true},
			[][][]float32{{{0, 1.0 / 3, 2.0 / 3}}},
			[][]int32{{0, 1, 2}}},
		{"unbiased", LayerWiseOptions{Budgets: []int{4}, Unbiased: true},
			// c/(s·p_v)·A[u,v] with s = 2 columns taken: 1/(2·0.2), 2/(2·0.8).
			[][][]float32{{{0, 2.5, 1.25}}},
			[][]int32{{0, 1, 2}}},
	}
	for _, c := range cases {
		s := lwNew(t, a, c.opt)
		bulk, err := s.SampleBulk(context.Background(), 0, 0, [][]int32{{0}})
		if err != nil {
			t.Fatal(err)
		}
		mb := bulk.Minibatch(0)
		for l, want := range c.blocks {
			b := mb.Blocks[l]
			if err := b.Adj.Validate(); err != nil {
				t.Fatalf("%s layer %d: %v", c.name, l, err)
			}
			if !slices.Equal(b.Src, c.sources[l]) {
				t.Errorf("%s layer %d: Src %v, want %v", c.name, l, b.Src, c.sources[l])
			}
			got := lwDense(&b.Adj)
			for i := range want {
				for j := range want[i] {
					if !lwClose(float64(got[i][j]), float64(want[i][j])) {
						t.Errorf("%s layer %d: block = %v, want %v", c.name, l, got, want)
						break
					}
				}
			}
		}
	}
}

// lwCheckLADIES checks every block of bulk against an independent dense
// computation: rows are the frontier, sources the frontier followed by the
// new chosen vertices in increasing order, entries only in chosen columns
// C, |C| = min(budget, support of P) (a chosen frontier vertex has a
// nonzero block column, since p_v > 0 needs an edge from the frontier), and
// values the LADIES normalisation A[u,v]/p_v row-normalised.
func lwCheckLADIES(t *testing.T, ad [][]float32, bulk *Bulk, budgets []int) {
	t.Helper()
	n := len(ad)
	for m := range bulk.Len() {
		mb := bulk.Minibatch(m)
		frontier := mb.Seeds
		for l, b := range mb.Blocks {
			if err := b.Adj.Validate(); err != nil {
				t.Fatalf("minibatch %d layer %d: %v", m, l, err)
			}
			if !slices.Equal(b.Dst(), frontier) {
				t.Fatalf("minibatch %d layer %d: Dst %v, want the frontier %v", m, l, b.Dst(), frontier)
			}
			inF := make([]bool, n)
			for _, u := range frontier {
				inF[u] = true
			}
			p := make([]float64, n)
			for u := range n {
				for v := range n {
					if inF[u] {
						p[v] += float64(ad[u][v]) * float64(ad[u][v])
					}
				}
			}
			total, support := 0.0, 0
			for _, x := range p {
				total += x
				if x > 0 {
					support++
				}
			}
			newV := b.Src[len(frontier):]
			if !slices.IsSorted(newV) {
				t.Fatalf("minibatch %d layer %d: new sources %v not sorted", m, l, newV)
			}
			got := lwDense(&b.Adj)
			chosen := map[int]int32{} // local column -> vertex
			for j, v := range newV {
				if inF[v] || p[v] == 0 {
					t.Fatalf("minibatch %d layer %d: new source %d is in the frontier or has p = 0", m, l, v)
				}
				chosen[len(frontier)+j] = v
			}
			for _, row := range got {
				for c, x := range row[:len(frontier)] {
					if x != 0 {
						chosen[c] = frontier[c]
					}
				}
			}
			if want := min(budgets[l], support); len(chosen) != want {
				t.Fatalf("minibatch %d layer %d: %d chosen columns, want %d", m, l, len(chosen), want)
			}
			for r, u := range frontier {
				sum := 0.0
				for _, v := range chosen {
					sum += float64(ad[u][v]) / (p[v] / total)
				}
				for c, x := range got[r] {
					v, ok := chosen[c]
					if !ok {
						if x != 0 {
							t.Fatalf("minibatch %d layer %d: entry (%d, %d) in an unchosen column", m, l, r, c)
						}
						continue
					}
					want := 0.0
					if sum > 0 {
						want = float64(ad[u][v]) / (p[v] / total) / sum
					}
					if !lwClose(float64(x), want) {
						t.Fatalf("minibatch %d layer %d: block[%d, %d] (vertices %d, %d) = %v, want %v", m, l, r, c, u, v, x, want)
					}
				}
			}
			frontier = b.Src
		}
	}
}

// lwSeeds returns k minibatches of b distinct random seeds in [0, n).
func lwSeeds(n, k, b int, seed uint64) [][]int32 {
	r := rand.New(rand.NewPCG(seed, 3))
	seeds := make([][]int32, k)
	for m := range seeds {
		for _, v := range r.Perm(n)[:b] {
			seeds[m] = append(seeds[m], int32(v))
		}
	}
	return seeds
}

// TestLADIESBlocks checks the blocks of several bulks on random graphs
// against the dense reference, with and without weights.
func TestLADIESBlocks(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		a := lwRandomGraph(80, 4, weighted, 11)
		budgets := []int{6, 10, 3}
		s := lwNew(t, a, LayerWiseOptions{Budgets: budgets, Seed: 5})
		seeds := lwSeeds(80, 9, 4, 1)
		seeds = append(seeds, []int32{}) // an empty minibatch
		bulk, err := s.SampleBulk(context.Background(), 2, 30, seeds)
		if err != nil {
			t.Fatal(err)
		}
		if bulk.Len() != len(seeds) || bulk.First != 30 || len(bulk.Layers) != 3 {
			t.Fatalf("bulk of %d minibatches from %d, %d layers", bulk.Len(), bulk.First, len(bulk.Layers))
		}
		lwCheckLADIES(t, lwDense(a), bulk, budgets)
	}
}

// TestLayerWiseDeterminism checks that a minibatch's sample depends only on
// (seed, epoch, global index, seeds): the same for bulks of 1, 3 or all
// minibatches, any thread count and semibulk 1, 3 or k, dense or hashed
// accumulators and column maps (those of a graph above
// denseVertexMapMax), and different for another epoch.
func TestLayerWiseDeterminism(t *testing.T) {
	a := lwRandomGraph(200, 6, true, 3)
	seeds := lwSeeds(200, 8, 10, 2)
	for _, method := range []LayerWiseMethod{LADIES, FastGCN} {
		for _, replace := range []bool{false, true} {
			base := LayerWiseOptions{Method: method, Budgets: []int{12, 20}, Replace: replace, Seed: 9}
			sample := func(opt LayerWiseOptions, k int, hashed bool) []Minibatch {
				s := lwNew(t, a, opt)
				if hashed {
					s.setDenseMapMax(0)
				}
				var out []Minibatch
				for lo := 0; lo < len(seeds); lo += k {
					hi := min(lo+k, len(seeds))
					b, err := s.SampleBulk(context.Background(), 1, 100+lo, seeds[lo:hi])
					if err != nil {
						t.Fatal(err)
					}
					for m := range b.Len() {
						out = append(out, b.Minibatch(m))
					}
				}
				return out
			}
			one := base
			one.Threads = 1
			ref := sample(one, 1, false)
			// Fewer minibatches than threads split rows of P and blocks
			// over the threads (k = 1, 3 at 5 threads).
			for _, k := range []int{1, 3, len(seeds)} {
				for _, sb := range []int{1, 3, k} {
					for _, th := range []int{1, 2, 5} {
						for _, hashed := range []bool{false, true} {
							opt := base
							opt.Semibulk, opt.Threads = sb, th
							if got := sample(opt, k, hashed); !reflect.DeepEqual(got, ref) {
								t.Errorf("%v replace=%v: k %d semibulk %d threads %d hashed %v differs from k 1", method, replace, k, sb, th, hashed)
							}
						}
					}
				}
			}
			s := lwNew(t, a, base)
			other, err := s.SampleBulk(context.Background(), 2, 100, seeds[:1])
			if err != nil {
				t.Fatal(err)
			}
			if mb := other.Minibatch(0); reflect.DeepEqual(mb.Blocks, ref[0].Blocks) {
				t.Errorf("%v replace=%v: epoch 2 repeats epoch 1's sample", method, replace)
			}
		}
	}
}

// TestLayerWiseUnbiased checks the importance weighting: with Replace and
// Unbiased, the aggregation block·H[Src] estimates A[B,:]·H without bias.
// Over many minibatches (independent draws) the mean must match the exact
// product within 5 standard errors, and the same samples must fail the
// bound without the 1/s factor and with row-mean weights.
func TestLayerWiseUnbiased(t *testing.T) {
	const n, f, s = 12, 3, 3
	a := lwRandomGraph(n, 4, true, 21)
	ad := lwDense(a)
	r := rand.New(rand.NewPCG(5, 5))
	h := make([][]float64, n)
	for v := range h {
		h[v] = []float64{r.Float64(), r.Float64() - 0.5, 2 * r.Float64()}
	}
	batch := []int32{0, 3, 5, 7}
	truth := make([][]float64, len(batch))
	for i, u := range batch {
		truth[i] = make([]float64, f)
		for v := range n {
			for c := range f {
				truth[i][c] += float64(ad[u][v]) * h[v][c]
			}
		}
	}
	trials := 20000
	if testing.Short() {
		trials = 5000
	}
	seeds := make([][]int32, trials)
	for m := range seeds {
		seeds[m] = batch
	}
	// estimates returns, per (row, feature), the mean and standard error of
	// the aggregation over the trials.
	estimates := func(opt LayerWiseOptions) (mean, se [][]float64) {
		bulk, err := lwNew(t, a, opt).SampleBulk(context.Background(), 0, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		sum := make([][]float64, len(batch))
		sq := make([][]float64, len(batch))
		for i := range batch {
			sum[i], sq[i] = make([]float64, f), make([]float64, f)
		}
		for m := range trials {
			b := bulk.Minibatch(m).Blocks[0]
			for i := range batch {
				idx, val := b.Adj.Row(i)
				for c := range f {
					e := 0.0
					for p, j := range idx {
						e += float64(val[p]) * h[b.Src[j]][c]
					}
					sum[i][c] += e
					sq[i][c] += e * e
				}
			}
		}
		mean, se = make([][]float64, len(batch)), make([][]float64, len(batch))
		for i := range batch {
			mean[i], se[i] = make([]float64, f), make([]float64, f)
			for c := range f {
				mu := sum[i][c] / float64(trials)
				mean[i][c] = mu
				se[i][c] = math.Sqrt(math.Max(sq[i][c]/float64(trials)-mu*mu, 0) / float64(trials))
			}
		}
		return mean, se
	}
	within := func(mean, se [][]float64, scale float64) bool {
		for i := range batch {
			for c := range f {
				if math.Abs(scale*mean[i][c]-truth[i][c]) > 5*scale*se[i][c]+1e-9 {
					return false
				}
			}
		}
		return true
	}
	for _, method := range []LayerWiseMethod{LADIES, FastGCN} {
		opt := LayerWiseOptions{Method: method, Budgets: []int{s}, Replace: true, Unbiased: true, Seed: 3}
		mean, se := estimates(opt)
		if !within(mean, se, 1) {
			t.Errorf("%v: Monte-Carlo mean %v, want %v within 5 standard errors %v", method, mean, truth, se)
		}
		if within(mean, se, s) {
			t.Errorf("%v: the estimate without the 1/s factor is also within the bound: the test has no power", method)
		}
		opt.Unbiased, opt.RowMean = false, true
		if mean, se := estimates(opt); within(mean, se, 1) {
			t.Errorf("%v: row-mean weights pass the unbiasedness bound: the test has no power", method)
		}
	}
}

func TestLayerWiseOptionsValidate(t *testing.T) {
	cases := []struct {
		opt   LayerWiseOptions
		field string // "" for valid options
	}{
		{LayerWiseOptions{Budgets: []int{512, 512}}, ""},
		{LayerWiseOptions{Method: FastGCN, Budgets: []int{1}, Semibulk: 4, Threads: 2, Unbiased: true}, ""},
		{LayerWiseOptions{}, ""}, // DefaultBudgets
		{LayerWiseOptions{Budgets: []int{3, 0}}, "Budgets[1]"},
		{LayerWiseOptions{Method: 7, Budgets: []int{1}}, "Method"},
		{LayerWiseOptions{Budgets: []int{1}, Semibulk: -1}, "Semibulk"},
		{LayerWiseOptions{Budgets: []int{1}, Threads: -2}, "Threads"},
		{LayerWiseOptions{Budgets: []int{1}, RowMean: true, Unbiased: true}, "RowMean"},
	}
	for _, c := range cases {
		err := c.opt.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.opt, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), c.field)):
			t.Errorf("%+v: error %v, want one naming %s", c.opt, err, c.field)
		}
	}
	if _, err := NewLayerWise(&spgemm.CSR{Rows: 2, Cols: 3, Indptr: make([]int64, 3)}, LayerWiseOptions{Budgets: []int{1}}); err == nil {
		t.Error("NewLayerWise accepted a 2 x 3 adjacency")
	}
	if _, err := NewLayerWise(nil, LayerWiseOptions{Budgets: []int{1}}); err == nil {
		t.Error("NewLayerWise accepted a nil adjacency")
	}
	// No budgets: the layer-wise default, 512 columns on 2 layers, not
	// an error (nor, through the CLI, the node-wise fanouts).
	if s, err := NewLayerWise(lwHandGraph(), LayerWiseOptions{}); err != nil || !slices.Equal(s.Options().Budgets, []int{DefaultBudget, DefaultBudget}) || s.NumLayers() != 2 {
		t.Errorf("NewLayerWise without budgets: %v; want budgets %v", err, DefaultBudgets())
	}
	bad := lwHandGraph()
	bad.Indices[0] = 9
	if _, err := NewLayerWise(bad, LayerWiseOptions{Budgets: []int{1}}); !errors.Is(err, spgemm.ErrInvalid) {
		t.Errorf("NewLayerWise on an invalid CSR: %v, want ErrInvalid", err)
	}
}

func TestLayerWiseSampleBulkErrors(t *testing.T) {
	s := lwNew(t, lwHandGraph(), LayerWiseOptions{Budgets: []int{2}})
	_, err := s.SampleBulk(context.Background(), 0, 4, [][]int32{{0}, {1, 4}})
	if err == nil || !strings.Contains(err.Error(), "minibatch 5 seed 1: vertex 4") {
		t.Errorf("seed out of range: %v, want an error naming minibatch 5 seed 1", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.SampleBulk(ctx, 0, 0, [][]int32{{0}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
}

// TestLayerWiseDuplicateSeeds: a repeated seed is sampled once, as in
// node-wise sampling; Bulk.Seeds holds the first occurrences in order.
func TestLayerWiseDuplicateSeeds(t *testing.T) {
	s := lwNew(t, lwHandGraph(), LayerWiseOptions{Budgets: []int{4}})
	bulk, err := s.SampleBulk(context.Background(), 0, 0, [][]int32{{1, 0, 1}, {2, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range [][]int32{{1, 0}, {2}} {
		mb := bulk.Minibatch(m)
		if !slices.Equal(mb.Seeds, want) || !slices.Equal(mb.Blocks[0].Dst(), want) {
			t.Errorf("minibatch %d: seeds %v, rows %v; want %v", m, mb.Seeds, mb.Blocks[0].Dst(), want)
		}
	}
	lwCheckLADIES(t, lwDense(lwHandGraph()), bulk, []int{4})
}

// TestLayerWiseEmptyMinibatch: an empty minibatch gets empty blocks (0 x 0
// at every layer), so no features are fetched for it, for both methods; the
// other minibatches of the bulk are those sampled without it.
func TestLayerWiseEmptyMinibatch(t *testing.T) {
	a := lwRandomGraph(40, 4, false, 7)
	for _, method := range []LayerWiseMethod{LADIES, FastGCN} {
		s := lwNew(t, a, LayerWiseOptions{Method: method, Budgets: []int{5, 5}, Seed: 3})
		bulk, err := s.SampleBulk(context.Background(), 0, 0, [][]int32{{}, {1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		alone, err := s.SampleBulk(context.Background(), 0, 1, [][]int32{{1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		empty, full, want := bulk.Minibatch(0), bulk.Minibatch(1), alone.Minibatch(0)
		for l, b := range empty.Blocks {
			if b.Adj.Rows != 0 || b.Adj.Cols != 0 || len(b.Src) != 0 || b.Adj.NNZ() != 0 {
				t.Errorf("%v: empty minibatch's block %d is %d x %d with %d sources; want 0 x 0", method, l, b.Adj.Rows, b.Adj.Cols, len(b.Src))
			}
		}
		if n := len(empty.InputNodes()); n != 0 {
			t.Errorf("%v: empty minibatch needs the features of %d vertices; want none", method, n)
		}
		for l := range full.Blocks {
			g, w := full.Blocks[l], want.Blocks[l]
			if !slices.Equal(g.Src, w.Src) || !slices.Equal(g.Adj.Indices, w.Adj.Indices) || !slices.Equal(g.Adj.Data, w.Adj.Data) {
				t.Errorf("%v: layer %d of the minibatch beside the empty one differs from sampling it alone", method, l)
			}
		}
	}
}
