package sampling

import (
	"slices"
	"strings"
	"testing"
)

func TestPlanSmall(t *testing.T) {
	verts := []int32{10, 11, 12, 13, 14, 15, 16}
	p, err := NewPlan(verts, PlanOptions{BatchSize: 3, BulkSize: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	verts[0] = 99 // the plan holds a copy
	e := p.Epoch(0)
	if p.NumMinibatches() != 3 || len(e.Minibatches) != 3 || e.NumBulks() != 2 {
		t.Fatalf("%d minibatches (%d), %d bulks; want 3 and 2", len(e.Minibatches), p.NumMinibatches(), e.NumBulks())
	}
	var all []int32
	for i, mb := range e.Minibatches {
		if want := []int{3, 3, 1}[i]; len(mb) != want {
			t.Errorf("minibatch %d has %d seeds, want %d", i, len(mb), want)
		}
		all = append(all, mb...)
	}
	slices.Sort(all)
	if !slices.Equal(all, []int32{10, 11, 12, 13, 14, 15, 16}) {
		t.Errorf("epoch is not a permutation: %v", all)
	}
	first, seeds := e.Bulk(1)
	if first != 2 || len(seeds) != 1 || &seeds[0][0] != &e.Minibatches[2][0] {
		t.Errorf("Bulk(1) = %d, %v", first, seeds)
	}
	if first, seeds := e.Bulk(0); first != 0 || len(seeds) != 2 {
		t.Errorf("Bulk(0) = %d, %d minibatches", first, len(seeds))
	}
	defer func() {
		if recover() == nil {
			t.Error("Bulk(2) did not panic")
		}
	}()
	e.Bulk(2)
}

func TestPlanDeterministic(t *testing.T) {
	verts := allVertices(1000)
	p, _ := NewPlan(verts, PlanOptions{BatchSize: 64, Seed: 3})
	q, _ := NewPlan(verts, PlanOptions{BatchSize: 64, BulkSize: 5, Seed: 3})
	a, b := p.Epoch(4), q.Epoch(4)
	for i := range a.Minibatches {
		if !slices.Equal(a.Minibatches[i], b.Minibatches[i]) {
			t.Fatal("same seed and epoch, different permutation")
		}
	}
	if slices.Equal(p.Epoch(5).Minibatches[0], a.Minibatches[0]) {
		t.Error("epochs 4 and 5 start alike")
	}
	r, _ := NewPlan(verts, PlanOptions{BatchSize: 64, Seed: 4})
	if slices.Equal(r.Epoch(4).Minibatches[0], a.Minibatches[0]) {
		t.Error("seeds 3 and 4 start alike")
	}
	if o := p.Options(); o.BulkSize != DefaultBulkSize || o.BatchSize != 64 {
		t.Errorf("options %+v", o)
	}
}

// TestPlanUniform: over many epochs, each of 8 vertices lands at each
// position with probability 1/8 (chi-square over the 64 cells).
func TestPlanUniform(t *testing.T) {
	p, _ := NewPlan(allVertices(8), PlanOptions{BatchSize: 8, Seed: 9})
	counts := make([]int, 64)
	epochs := nwDraws() / 4
	for e := range epochs {
		for pos, v := range p.Epoch(e).Minibatches[0] {
			counts[8*int(v)+pos]++
		}
	}
	prob := make([]float64, 64)
	for i := range prob {
		prob[i] = 1.0 / 64
	}
	if stat, pv := nwChiSquare(counts, prob); pv < 1e-6 {
		t.Errorf("chi-square %.1f, p = %.2g", stat, pv)
	}
}

func TestPlanEdgeCases(t *testing.T) {
	p, err := NewPlan(nil, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Epoch(0); len(e.Minibatches) != 0 || e.NumBulks() != 0 {
		t.Errorf("empty set: %d minibatches, %d bulks", len(e.Minibatches), e.NumBulks())
	}
	p, _ = NewPlan([]int32{4, 4, 2}, PlanOptions{BatchSize: 100})
	if e := p.Epoch(1); len(e.Minibatches) != 1 || len(e.Minibatches[0]) != 3 {
		t.Errorf("b larger than the set: %v", e.Minibatches)
	}
	for _, tc := range []struct {
		opt  PlanOptions
		want string
	}{
		{PlanOptions{BatchSize: -1}, "BatchSize"},
		{PlanOptions{BulkSize: -2}, "BulkSize"},
	} {
		if _, err := NewPlan(nil, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc.opt, err)
		}
	}
}

func allVertices(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// TestEpochPlanTruncate keeps the first n seeds in order, cutting the
// minibatch that holds seed n, for every n around the minibatch borders.
func TestEpochPlanTruncate(t *testing.T) {
	full := func() *EpochPlan {
		return &EpochPlan{BulkSize: 2, Minibatches: [][]int32{{5, 6, 7}, {8, 9, 10}, {11}}}
	}
	for _, tc := range []struct {
		n    int
		want [][]int32
	}{
		{-1, [][]int32{{5, 6, 7}, {8, 9, 10}, {11}}},
		{0, [][]int32{{5, 6, 7}, {8, 9, 10}, {11}}},
		{1, [][]int32{{5}}},
		{3, [][]int32{{5, 6, 7}}},
		{4, [][]int32{{5, 6, 7}, {8}}},
		{6, [][]int32{{5, 6, 7}, {8, 9, 10}}},
		{7, [][]int32{{5, 6, 7}, {8, 9, 10}, {11}}},
		{100, [][]int32{{5, 6, 7}, {8, 9, 10}, {11}}},
	} {
		e := full()
		e.Truncate(tc.n)
		if !slices.EqualFunc(e.Minibatches, tc.want, slices.Equal[[]int32]) {
			t.Errorf("Truncate(%d): got %v; want %v", tc.n, e.Minibatches, tc.want)
		}
		if last := e.Minibatches[len(e.Minibatches)-1]; cap(last) != len(last) {
			t.Errorf("Truncate(%d): the last minibatch has capacity %d beyond its %d seeds", tc.n, cap(last), len(last))
		}
		for i, mb := range e.Minibatches[len(e.Minibatches):cap(e.Minibatches)] {
			if mb != nil {
				t.Errorf("Truncate(%d): dropped minibatch %d still held (%v)", tc.n, len(e.Minibatches)+i, mb)
			}
		}
	}
}

// TestEpochPlanKeep: Keep keeps the chosen minibatches' seeds in an array
// of their own (writing to the permutation afterwards changes none of
// them), empties the others, and leaves the bulks' shape alone.
func TestEpochPlanKeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep func(i int) bool
		want [][]int32
	}{
		{"all", func(int) bool { return true }, [][]int32{{5, 6, 7}, {8, 9, 10}, {11}}},
		{"none", func(int) bool { return false }, [][]int32{nil, nil, nil}},
		{"odd", func(i int) bool { return i%2 == 1 }, [][]int32{nil, {8, 9, 10}, nil}},
		{"first and last", func(i int) bool { return i != 1 }, [][]int32{{5, 6, 7}, nil, {11}}},
	} {
		perm := []int32{5, 6, 7, 8, 9, 10, 11}
		e := &EpochPlan{BulkSize: 2, Minibatches: [][]int32{perm[0:3:3], perm[3:6:6], perm[6:7:7]}}
		e.Keep(tc.keep)
		for i := range perm {
			perm[i] = -1
		}
		if !slices.EqualFunc(e.Minibatches, tc.want, slices.Equal[[]int32]) {
			t.Errorf("%s: got %v; want %v", tc.name, e.Minibatches, tc.want)
		}
		for i, mb := range e.Minibatches {
			if mb != nil && cap(mb) != len(mb) {
				t.Errorf("%s: minibatch %d has capacity %d beyond its %d seeds", tc.name, i, cap(mb), len(mb))
			}
		}
		if first, seeds := e.Bulk(1); e.NumBulks() != 2 || first != 2 || len(seeds) != 1 {
			t.Errorf("%s: %d bulks, bulk 1 starts at %d with %d minibatches; want 2, 2, 1", tc.name, e.NumBulks(), first, len(seeds))
		}
	}
}

// TestNewPlanAll: the plan of 0..n-1 without a list draws the epochs of
// NewPlan's plan of that list, and refuses a negative n.
func TestNewPlanAll(t *testing.T) {
	opt := PlanOptions{BatchSize: 7, BulkSize: 3, Seed: 9}
	for _, n := range []int{0, 1, 7, 1000} {
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		want, err := NewPlan(all, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewPlanAll(n, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got.NumVertices() != n || got.NumMinibatches() != want.NumMinibatches() {
			t.Errorf("n=%d: %d vertices, %d minibatches; want %d, %d", n, got.NumVertices(), got.NumMinibatches(), n, want.NumMinibatches())
		}
		for epoch := range 3 {
			g, w := got.Epoch(epoch), want.Epoch(epoch)
			if !slices.EqualFunc(g.Minibatches, w.Minibatches, slices.Equal[[]int32]) || g.BulkSize != w.BulkSize {
				t.Errorf("n=%d epoch %d: %v; want %v", n, epoch, g.Minibatches, w.Minibatches)
			}
		}
	}
	if _, err := NewPlanAll(-1, opt); err == nil || !strings.Contains(err.Error(), "-1 vertices") {
		t.Errorf("NewPlanAll(-1): error %v", err)
	}
	if _, err := NewPlanAll(5, PlanOptions{BatchSize: -2}); err == nil || !strings.Contains(err.Error(), "BatchSize") {
		t.Errorf("NewPlanAll with BatchSize -2: error %v", err)
	}
}
