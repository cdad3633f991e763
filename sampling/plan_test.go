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
	}
}
