package sampling_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// TestNewSampler: each method gives the sampler its own constructor gives
// (the same bulk for the same options), and options that do not apply to
// the method are errors naming the field.
func TestNewSampler(t *testing.T) {
	a := ringGraph(60)
	seeds := [][]int32{{0, 5, 9}, {30, 31}}
	nw, err := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{2, 2}, Seed: 4, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	lw, err := sampling.NewLayerWise(a, sampling.LayerWiseOptions{Method: sampling.FastGCN, Budgets: []int{5, 5}, Seed: 4, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opt  sampling.SamplerOptions
		want sampling.Sampler
	}{
		{sampling.SamplerOptions{Fanouts: []int{2, 2}, Seed: 4, Threads: 1}, nw},
		{sampling.SamplerOptions{Method: sampling.MethodFastGCN, Fanouts: []int{5, 5}, Seed: 4, Threads: 1}, lw},
	} {
		s, err := sampling.NewSampler(a, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.SampleBulk(context.Background(), 0, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tc.want.SampleBulk(context.Background(), 0, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		if digest(got) != digest(want) {
			t.Errorf("method %q: the factory's sampler differs from its constructor's", tc.opt.Method)
		}
	}
	for _, tc := range []struct {
		opt    sampling.SamplerOptions
		inside string
	}{
		{sampling.SamplerOptions{Method: "graphsaint", Fanouts: []int{2}}, "Method"},
		{sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{2}, Weighted: true}, "Weighted"},
		{sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{2}, MaxBulkEdges: 9}, "MaxBulkEdges"},
		{sampling.SamplerOptions{Method: sampling.MethodLADIES, Fanouts: []int{2}, Frontier: sampling.FrontierNew}, "Frontier"},
		{sampling.SamplerOptions{Method: sampling.MethodFastGCN, Fanouts: []int{2}, Degrees: true}, "Degrees"},
		{sampling.SamplerOptions{Fanouts: []int{2}, Semibulk: 3}, "Semibulk"},
		{sampling.SamplerOptions{}, "Fanouts"},
	} {
		s, err := sampling.NewSampler(a, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.inside) || s != nil {
			t.Errorf("%+v: sampler %v, err = %v; want nil and an error naming %s", tc.opt, s, err, tc.inside)
		}
	}
}

func TestRandomRows(t *testing.T) {
	rows, err := sampling.RandomRows(100, 30, 7)
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(rows)
	slices.Sort(sorted)
	if len(rows) != 30 || len(slices.Compact(sorted)) != 30 || sorted[0] < 0 || sorted[29] >= 100 {
		t.Errorf("RandomRows(100, 30) = %v; want 30 distinct vertices", rows)
	}
	again, _ := sampling.RandomRows(100, 30, 7)
	other, _ := sampling.RandomRows(100, 30, 8)
	if !slices.Equal(rows, again) || slices.Equal(rows, other) {
		t.Error("RandomRows is not a function of its seed")
	}
	for _, k := range []int{0, 101} {
		if _, err := sampling.RandomRows(100, k, 1); err == nil {
			t.Errorf("RandomRows(100, %d): no error", k)
		}
	}
}

// ringGraph returns the undirected cycle of n vertices with chords to the
// vertex n/2 away.
func ringGraph(n int) *spgemm.CSR {
	var src, dst []int32
	for v := range n {
		for _, d := range []int{1, n / 2} {
			src, dst = append(src, int32(v)), append(dst, int32((v+d)%n))
		}
	}
	a, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{Symmetrize: true, Duplicates: spgemm.KeepFirst, DropSelfLoops: true})
	if err != nil {
		panic(err)
	}
	return a
}

func digest(b *sampling.Bulk) string {
	d := sampling.NewDigest()
	d.AddBulk(b)
	return d.Sum()
}

// TestNewNodeWiseFromChecksWeights: a weighted sampler of a RowSource
// rejects a negative, infinite or NaN weight, naming the edge, as
// NewNodeWise does for a CSR matrix.
func TestNewNodeWiseFromChecksWeights(t *testing.T) {
	for _, bad := range []float32{-1, float32(math.Inf(1)), float32(math.NaN())} {
		a := ringGraph(10)
		a.Data = slices.Clone(a.Data)
		a.Data[7] = bad
		src := sampling.CSRRows{A: a}
		opt := sampling.NodeWiseOptions{Fanouts: []int{2}, Weighted: true}
		_, err := sampling.NewNodeWiseFrom(src, opt)
		if err == nil || !strings.Contains(err.Error(), "(2, ") || !strings.Contains(err.Error(), "Weighted") {
			t.Errorf("weight %v: err = %v; want one naming the edge of row 2", bad, err)
		}
		if _, err := sampling.NewNodeWise(a, opt); err == nil {
			t.Errorf("weight %v: NewNodeWise accepts it", bad)
		}
		opt.Weighted = false
		if _, err := sampling.NewNodeWiseFrom(src, opt); err != nil {
			t.Errorf("weight %v, unweighted sampling: %v", bad, err)
		}
	}
}
