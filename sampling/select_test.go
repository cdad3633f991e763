package sampling

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/bulksample/bulksample/spgemm"
)

// nwChiSquare returns Pearson's statistic of the counts obs against the
// probabilities prob, and its p-value with len(obs)-1 degrees of freedom.
func nwChiSquare(obs []int, prob []float64) (stat, pvalue float64) {
	total := 0
	for _, o := range obs {
		total += o
	}
	for i, o := range obs {
		e := float64(total) * prob[i]
		stat += (float64(o) - e) * (float64(o) - e) / e
	}
	return stat, distuv.ChiSquared{K: float64(len(obs) - 1)}.Survival(stat)
}

// nwDraws is the number of draws of the statistical tests: a wrong law of
// the kind docs/design.md section 7 describes (a shifted pick, a dropped entry)
// moves some probability by >= 0.02, which these counts detect at p < 1e-6.
func nwDraws() int {
	if testing.Short() {
		return 50000
	}
	return 200000
}

// nwOneRow returns a 1-row matrix holding cols and vals, repeated rows
// times (one row per draw).
func nwOneRow(rows, n int, cols []int32, vals []float32) *spgemm.CSR {
	p := &spgemm.CSR{Rows: rows, Cols: n, Indptr: make([]int64, rows+1)}
	for r := range rows {
		p.Indices = append(p.Indices, cols...)
		p.Data = append(p.Data, vals...)
		p.Indptr[r+1] = int64(len(p.Indices))
	}
	return p
}

func nwKeys(seed uint64, rows int) []RowKey {
	st := NewStream(seed)
	keys := make([]RowKey, rows)
	for r := range keys {
		keys[r] = st.Row(0, r, 0, 7)
	}
	return keys
}

// nwSubsetCounts draws with SelectPerRow from one row repeated and counts
// the distinct outcomes (set of columns with multiplicities).
func nwSubsetCounts(t *testing.T, cols []int32, vals []float32, s int, opt SelectOptions, draws int) map[string]int {
	t.Helper()
	p := nwOneRow(draws, 100, cols, vals)
	sel := SelectPerRow(p, nwKeys(42, draws), s, opt)
	if err := sel.Validate(); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for r := range sel.Rows {
		c, v := sel.Row(r)
		key := ""
		for i := range c {
			key += fmt.Sprintf("%d:%g ", c[i], v[i])
		}
		counts[key]++
	}
	return counts
}

func TestSelectPerRowSmall(t *testing.T) {
	cols := []int32{1, 4, 6}
	vals := []float32{2, 0, 5}
	p := nwOneRow(1, 8, cols, vals)
	keys := nwKeys(1, 1)
	for _, tc := range []struct {
		name string
		s    int
		opt  SelectOptions
		want []int32
	}{
		{"all", -1, SelectOptions{}, []int32{1, 4, 6}},
		{"s>=deg takes all", 3, SelectOptions{}, []int32{1, 4, 6}},
		{"none", 0, SelectOptions{}, nil},
		{"weighted all skips zero", -1, SelectOptions{Weighted: true}, []int32{1, 6}},
		{"weighted s=2 of 2 positive", 2, SelectOptions{Weighted: true}, []int32{1, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SelectPerRow(p, keys, tc.s, tc.opt)
			c, v := got.Row(0)
			if !slices.Equal(c, tc.want) {
				t.Fatalf("columns %v, want %v", c, tc.want)
			}
			for i, j := range c {
				if want := vals[slices.Index(cols, j)]; v[i] != want {
					t.Errorf("value of column %d = %v, want %v", j, v[i], want)
				}
			}
		})
	}
	// Without replacement, exactly min(s, deg) distinct entries.
	big := nwOneRow(200, 100, []int32{0, 3, 5, 8, 13, 21, 34, 55, 89}, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1})
	for _, s := range []int{1, 2, 5, 8, 9, 12} {
		got := SelectPerRow(big, nwKeys(3, 200), s, SelectOptions{})
		if err := got.Validate(); err != nil {
			t.Fatal(err)
		}
		for r := range got.Rows {
			if n := got.RowNNZ(r); n != min(s, 9) {
				t.Fatalf("s=%d row %d: %d picks, want %d", s, r, n, min(s, 9))
			}
		}
	}
	// With replacement the multiplicities add up to s.
	got := SelectPerRow(big, nwKeys(4, 200), 6, SelectOptions{Replace: true})
	for r := range got.Rows {
		_, v := got.Row(r)
		sum := float32(0)
		for _, x := range v {
			sum += x
		}
		if sum != 6 {
			t.Fatalf("row %d: multiplicities sum to %v, want 6", r, sum)
		}
	}
}

func TestSelectPerRowPanics(t *testing.T) {
	p := nwOneRow(2, 4, []int32{1}, []float32{1})
	for name, fn := range map[string]func(){
		"keys": func() { SelectPerRow(p, nwKeys(1, 1), 1, SelectOptions{}) },
		"s":    func() { SelectPerRow(p, nwKeys(1, 2), -2, SelectOptions{}) },
	} {
		t.Run(name, func(t *testing.T) {
			err := spgemm.Maybe(fn)
			var se spgemm.ShapeError
			var ae spgemm.ArgError
			switch {
			case err == nil:
				t.Error("no panic")
			case name == "keys" && (!errors.As(err, &se) || se.Op != "SelectPerRow keys" || se.ARows != 2 || se.BRows != 1):
				t.Errorf("panic %v; want a ShapeError of 2 rows and 1 key", err)
			case name == "s" && (!errors.As(err, &ae) || ae.Op != "sampling.SelectPerRow" || !strings.Contains(ae.Msg, "fanout -2")):
				t.Errorf("panic %v; want an ArgError naming fanout -2", err)
			}
		})
	}
}

// TestSelectUniformSubsets: d = 5, s = 2 gives 10 subsets, each of
// probability 1/10; larger rows through each of Floyd's membership tests
// (bit mask up to 256 entries, linear scan for small s, bitset for large
// s) are checked by inclusion counts.
func TestSelectUniformSubsets(t *testing.T) {
	cols := []int32{2, 3, 5, 7, 11}
	ones := []float32{1, 1, 1, 1, 1}
	counts := nwSubsetCounts(t, cols, ones, 2, SelectOptions{}, nwDraws())
	checkTenSubsets(t, "subsets of 2 of 5", slices.Collect(maps.Values(counts)))
	for _, tc := range []struct{ d, s int }{{40, 3}, {70, 40}, {300, 3}, {300, 200}} {
		var c []int32
		for i := range tc.d {
			c = append(c, int32(i))
		}
		w := make([]float32, tc.d)
		draws := nwDraws() / 4 * 40 / max(tc.d, 40) // about 2M entries at most
		p := nwOneRow(draws, tc.d, c, w)
		sel := SelectPerRow(p, nwKeys(9, draws), tc.s, SelectOptions{})
		obs := make([]int, tc.d)
		for _, j := range sel.Indices {
			obs[j]++
		}
		prob := make([]float64, tc.d)
		for i := range prob {
			prob[i] = 1 / float64(tc.d)
		}
		if stat, pv := nwChiSquare(obs, prob); pv < 1e-6 {
			t.Errorf("d=%d s=%d inclusion: chi-square %.1f, p = %.2g", tc.d, tc.s, stat, pv)
		}
	}
}

// TestSelectWeightedLaw checks successive sampling: for s = 1,
// P(i) = w_i/W; for s = 2, P({i, j}) = p_i p_j (1/(1-p_i) + 1/(1-p_j)).
// A zero weight must never be drawn.
func TestSelectWeightedLaw(t *testing.T) {
	cols := []int32{10, 20, 30, 40, 50}
	w := []float32{1, 2, 0, 3, 4}
	W := float32(10)
	draws := nwDraws()
	counts := nwSubsetCounts(t, cols, w, 1, SelectOptions{Weighted: true}, draws)
	var obs []int
	var prob []float64
	for i, c := range cols {
		if w[i] == 0 {
			if n := counts[fmt.Sprintf("%d:%g ", c, w[i])]; n != 0 {
				t.Fatalf("zero-weight column %d drawn %d times", c, n)
			}
			continue
		}
		obs = append(obs, counts[fmt.Sprintf("%d:%g ", c, w[i])])
		prob = append(prob, float64(w[i]/W))
	}
	if stat, pv := nwChiSquare(obs, prob); pv < 1e-6 {
		t.Errorf("s=1: chi-square %.1f, p = %.2g; counts %v", stat, pv, obs)
	}

	counts = nwSubsetCounts(t, cols, w, 2, SelectOptions{Weighted: true}, draws)
	obs, prob = nil, nil
	seen := 0
	for i := range cols {
		for j := i + 1; j < len(cols); j++ {
			if w[i] == 0 || w[j] == 0 {
				continue
			}
			pi, pj := float64(w[i]/W), float64(w[j]/W)
			key := fmt.Sprintf("%d:%g %d:%g ", cols[i], w[i], cols[j], w[j])
			obs = append(obs, counts[key])
			seen += counts[key]
			prob = append(prob, pi*pj*(1/(1-pi)+1/(1-pj)))
		}
	}
	if seen != draws {
		t.Fatalf("%d of %d draws are pairs of positive weights: %v", seen, draws, counts)
	}
	if stat, pv := nwChiSquare(obs, prob); pv < 1e-6 {
		t.Errorf("s=2 pairs: chi-square %.1f, p = %.2g; counts %v", stat, pv, obs)
	}
}

// TestSelectReplaceLaw: two draws with replacement give the multiset
// {i, i} with probability p_i^2 and {i, j} with 2 p_i p_j; uniform and
// weighted (with a zero weight first and last, where an off-by-one prefix
// convention would move mass).
func TestSelectReplaceLaw(t *testing.T) {
	cols := []int32{1, 2, 3, 4, 5}
	for _, tc := range []struct {
		name string
		w    []float32
		opt  SelectOptions
	}{
		{"uniform", []float32{1, 1, 1, 1, 1}, SelectOptions{Replace: true}},
		{"weighted", []float32{0, 1, 3, 2, 0}, SelectOptions{Replace: true, Weighted: true}},
		{"weighted-inner-zero", []float32{2, 0, 1, 0, 1}, SelectOptions{Replace: true, Weighted: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]float64, len(cols))
			W := 0.0
			for i, w := range tc.w {
				if tc.opt.Weighted {
					p[i] = float64(w)
				} else {
					p[i] = 1
				}
				W += p[i]
			}
			for i := range p {
				p[i] /= W
			}
			draws := nwDraws()
			counts := nwSubsetCounts(t, cols, tc.w, 2, tc.opt, draws)
			var obs []int
			var prob []float64
			seen := 0
			for i := range cols {
				for j := i; j < len(cols); j++ {
					var key string
					var pr float64
					val := func(k int, c float32) float32 {
						if tc.opt.Weighted {
							return c * tc.w[k]
						}
						return c
					}
					if i == j {
						key, pr = fmt.Sprintf("%d:%g ", cols[i], val(i, 2)), p[i]*p[i]
					} else {
						key, pr = fmt.Sprintf("%d:%g %d:%g ", cols[i], val(i, 1), cols[j], val(j, 1)), 2*p[i]*p[j]
					}
					if pr == 0 {
						if counts[key] != 0 {
							t.Fatalf("impossible outcome %q drawn %d times", key, counts[key])
						}
						continue
					}
					obs, prob = append(obs, counts[key]), append(prob, pr)
					seen += counts[key]
				}
			}
			if seen != draws {
				t.Fatalf("%d of %d draws matched possible outcomes: %v", seen, draws, counts)
			}
			if stat, pv := nwChiSquare(obs, prob); pv < 1e-6 {
				t.Errorf("chi-square %.1f, p = %.2g; counts %v", stat, pv, counts)
			}
		})
	}
}

// TestSelectOrderIndependentWeighted: exponential keys depend on the
// column, not the position, so a row's pick does not change when other
// columns are added with weight 0.
func TestSelectOrderIndependentWeighted(t *testing.T) {
	keys := nwKeys(5, 500)
	a := SelectPerRow(nwOneRow(500, 100, []int32{3, 50, 70, 90}, []float32{1, 2, 3, 4}), keys, 2, SelectOptions{Weighted: true})
	b := SelectPerRow(nwOneRow(500, 100, []int32{1, 3, 20, 50, 70, 90}, []float32{0, 1, 0, 2, 3, 4}), keys, 2, SelectOptions{Weighted: true})
	if !slices.Equal(a.Indices, b.Indices) {
		t.Error("adding zero-weight columns changed the weighted selection")
	}
	if math.IsNaN(float64(a.Data[0])) {
		t.Error("NaN value")
	}
}

// TestNodeWiseUniformLaw: through the whole sampler, a vertex of degree 5
// with fanout 2 draws each of the 10 subsets with probability 1/10.
func TestNodeWiseUniformLaw(t *testing.T) {
	// Vertex 0's neighbours are 1..5; each minibatch is the seed 0.
	a := &spgemm.CSR{Rows: 6, Cols: 6, Indptr: []int64{0, 5, 5, 5, 5, 5, 5},
		Indices: []int32{1, 2, 3, 4, 5}, Data: []float32{1, 1, 1, 1, 1}}
	nw, err := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{2}, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	draws := nwDraws() / 4
	seeds := make([][]int32, draws)
	for i := range seeds {
		seeds[i] = []int32{0}
	}
	b, err := nw.SampleBulk(context.Background(), 0, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[[2]int32]int{}
	for m := range b.Len() {
		mb := b.Minibatch(m)
		src := mb.Blocks[0].Src
		if len(src) != 3 {
			t.Fatalf("minibatch %d: %d sources, want 3", m, len(src))
		}
		x, y := src[1], src[2]
		counts[[2]int32{min(x, y), max(x, y)}]++
	}
	checkTenSubsets(t, "through the sampler", slices.Collect(maps.Values(counts)))
}

// checkTenSubsets fails unless the counts of the 10 subsets of 2 of 5
// entries fit the uniform law (chi-square, p >= 1e-6).
func checkTenSubsets(t *testing.T, what string, counts []int) {
	t.Helper()
	if len(counts) != 10 {
		t.Fatalf("%s: %d distinct subsets, want 10: %v", what, len(counts), counts)
	}
	prob := make([]float64, len(counts))
	for i := range prob {
		prob[i] = 0.1
	}
	if stat, pv := nwChiSquare(counts, prob); pv < 1e-6 {
		t.Errorf("%s: chi-square %.1f, p = %.2g; counts %v", what, stat, pv, counts)
	}
}
