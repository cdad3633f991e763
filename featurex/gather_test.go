package featurex

import (
	"errors"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

func TestGather(t *testing.T) {
	// 4 vertices with 2 features each: row v is (10v, 10v+1).
	features := []float32{0, 1, 10, 11, 20, 21, 30, 31}
	tests := []struct {
		name string
		ids  []int32
		want []float32
	}{
		{"empty", nil, []float32{}},
		{"one", []int32{2}, []float32{20, 21}},
		{"permuted", []int32{3, 0, 1}, []float32{30, 31, 0, 1, 10, 11}},
		{"all", []int32{0, 1, 2, 3}, features},
	}
	for _, tc := range tests {
		dst := make([]float32, len(tc.ids)*2)
		Gather(dst, features, 2, tc.ids)
		if !slices.Equal(dst, tc.want) {
			t.Errorf("%s: Gather(%v) = %v; want %v", tc.name, tc.ids, dst, tc.want)
		}
	}
}

// TestGatherLarge crosses the parallel threshold and compares every row with
// the source.
func TestGatherLarge(t *testing.T) {
	const n, f = 5000, 37
	features := make([]float32, n*f)
	for i := range features {
		features[i] = float32(i)
	}
	ids := make([]int32, 3001)
	for r := range ids {
		ids[r] = int32((r * 7919) % n)
	}
	dst := make([]float32, len(ids)*f)
	Gather(dst, features, f, ids)
	for r, id := range ids {
		if !slices.Equal(dst[r*f:(r+1)*f], features[int(id)*f:int(id+1)*f]) {
			t.Fatalf("row %d (vertex %d) differs", r, id)
		}
	}
}

func TestLabels(t *testing.T) {
	labels := []int32{3, -1, 0, 2}
	dst := make([]int32, 3)
	Labels(dst, labels, []int32{3, 1, 0})
	if want := []int32{2, -1, 3}; !slices.Equal(dst, want) {
		t.Errorf("Labels = %v; want %v", dst, want)
	}
}

func TestNormalizeRows(t *testing.T) {
	x := []float32{1, 3, 0, 0, 0, 0, 2, 2, 4}
	NormalizeRows(x, 3)
	want := []float32{0.25, 0.75, 0, 0, 0, 0, 0.25, 0.25, 0.5}
	if !slices.Equal(x, want) {
		t.Errorf("NormalizeRows = %v; want %v", x, want)
	}
}

func TestPanics(t *testing.T) {
	features := make([]float32, 6) // 3 x 2
	tests := []struct {
		name  string
		fn    func()
		index bool // IndexError rather than ShapeError
	}{
		{"gather short dst", func() { Gather(make([]float32, 3), features, 2, []int32{0, 1}) }, false},
		{"gather ragged features", func() { Gather(make([]float32, 2), features[:5], 2, []int32{0}) }, false},
		{"gather id too big", func() { Gather(make([]float32, 2), features, 2, []int32{3}) }, true},
		{"gather negative id", func() { Gather(make([]float32, 2), features, 2, []int32{-1}) }, true},
		{"labels short dst", func() { Labels(make([]int32, 1), []int32{0, 1}, []int32{0, 1}) }, false},
		{"labels id too big", func() { Labels(make([]int32, 1), []int32{0, 1}, []int32{2}) }, true},
		{"normalize ragged", func() { NormalizeRows(make([]float32, 5), 2) }, false},
		{"normalize zero width", func() { NormalizeRows(nil, 0) }, false},
	}
	for _, tc := range tests {
		err := spgemm.Maybe(tc.fn)
		var se spgemm.ShapeError
		var ie spgemm.IndexError
		switch {
		case err == nil:
			t.Errorf("%s: no panic", tc.name)
		case tc.index && !errors.As(err, &ie):
			t.Errorf("%s: got %v; want an IndexError", tc.name, err)
		case !tc.index && !errors.As(err, &se):
			t.Errorf("%s: got %v; want a ShapeError", tc.name, err)
		}
	}
}
