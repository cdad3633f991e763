package featurex_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/featurex/featurextest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestLocalConformance runs the Store conformance kit on the local store,
// with its sparse copy chosen automatically, always and never, and with one
// and four threads.
func TestLocalConformance(t *testing.T) {
	for _, opt := range []featurex.LocalOptions{
		{}, {Threads: 1, Sparse: featurex.SparseNever}, {Threads: 4, Sparse: featurex.SparseAlways},
	} {
		featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store {
			s, err := featurex.NewLocal(x, f, opt)
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	}
}

func TestGather(t *testing.T) {
	// 4 vertices with 2 features each: row v is (10v, 10v+1).
	features := []float32{0, 1, 10, 11, 20, 21, 30, 31}
	s, err := featurex.NewLocal(features, 2, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
		if err := s.Gather(context.Background(), dst, tc.ids); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(dst, tc.want) {
			t.Errorf("%s: Gather(%v) = %v; want %v", tc.name, tc.ids, dst, tc.want)
		}
	}
	// The error of issue 13: an id from another graph names itself and the
	// store's size, and does not claim to come from spgemm.
	err = s.Gather(context.Background(), make([]float32, 2), []int32{3895})
	if err == nil || !strings.Contains(err.Error(), "3895") || !strings.Contains(err.Error(), "n = 4") || strings.Contains(err.Error(), "spgemm") {
		t.Errorf("out of range: err = %v; want featurex's error naming 3895 and n = 4", err)
	}
}

func TestNewLocalErrors(t *testing.T) {
	tests := []struct {
		name   string
		x      []float32
		f      int
		opt    featurex.LocalOptions
		inside string
	}{
		{"zero width", nil, 0, featurex.LocalOptions{}, "features per vertex"},
		{"ragged", make([]float32, 5), 2, featurex.LocalOptions{}, "rows of 2"},
		{"threads", make([]float32, 4), 2, featurex.LocalOptions{Threads: -1}, "Threads"},
		{"mode", make([]float32, 4), 2, featurex.LocalOptions{Sparse: 7}, "Sparse"},
	}
	for _, tc := range tests {
		if _, err := featurex.NewLocal(tc.x, tc.f, tc.opt); err == nil || !strings.Contains(err.Error(), tc.inside) {
			t.Errorf("%s: err = %v; want one naming %s", tc.name, err, tc.inside)
		}
	}
}

func TestLabels(t *testing.T) {
	labels := []int32{3, -1, 0, 2}
	dst := make([]int32, 3)
	featurex.Labels(dst, labels, []int32{3, 1, 0})
	if want := []int32{2, -1, 3}; !slices.Equal(dst, want) {
		t.Errorf("Labels = %v; want %v", dst, want)
	}
}

func TestNormalizeRows(t *testing.T) {
	x := []float32{1, 3, 0, 0, 0, 0, 2, 2, 4}
	if err := featurex.NormalizeRows(x, 3); err != nil {
		t.Fatal(err)
	}
	want := []float32{0.25, 0.75, 0, 0, 0, 0, 0.25, 0.25, 0.5}
	if !slices.Equal(x, want) {
		t.Errorf("NormalizeRows = %v; want %v", x, want)
	}
}

// TestNormalizeRowsRefusesNegative: features that can be negative (the
// planted-partition generator's Gaussian ones) are refused, naming the
// first bad entry, and left as they were; normalising them made a row
// that sums to about 0 blow up (both presets forced it, and training on
// the synthetic graph fell from 0.98 to 0.24).
func TestNormalizeRowsRefusesNegative(t *testing.T) {
	for _, bad := range []float32{-0.5, float32(math.NaN()), float32(math.Inf(1))} {
		x := []float32{1, 3, 0.5, 0.2, bad, 0.3}
		orig := slices.Clone(x)
		err := featurex.NormalizeRows(x, 3)
		var re *featurex.RowError
		if !errors.As(err, &re) || re.Row != 1 || re.Col != 1 || !strings.Contains(err.Error(), "feature row 1") {
			t.Errorf("value %v: err %v; want a *RowError naming row 1, column 1", bad, err)
		}
		if !slices.EqualFunc(x, orig, func(a, b float32) bool { return a == b || a != a && b != b }) {
			t.Errorf("value %v: features changed to %v", bad, x)
		}
	}
}

// TestPanics: the kernels panic with spgemm's typed values, naming
// featurex.
func TestPanics(t *testing.T) {
	tests := []struct {
		name  string
		fn    func()
		index bool // IndexError rather than ShapeError
	}{
		{"labels short dst", func() { featurex.Labels(make([]int32, 1), []int32{0, 1}, []int32{0, 1}) }, false},
		{"labels id too big", func() { featurex.Labels(make([]int32, 1), []int32{0, 1}, []int32{2}) }, true},
		{"normalize ragged", func() { featurex.NormalizeRows(make([]float32, 5), 2) }, false},
		{"normalize zero width", func() { featurex.NormalizeRows(nil, 0) }, false},
		{"compress ragged", func() { featurex.CompressRows(nil, make([]float32, 5), 2, 2) }, false},
	}
	for _, tc := range tests {
		err := catch(tc.fn)
		var se spgemm.ShapeError
		var ie spgemm.IndexError
		switch {
		case err == nil:
			t.Errorf("%s: no panic", tc.name)
		case tc.index && !errors.As(err, &ie):
			t.Errorf("%s: got %v; want an IndexError", tc.name, err)
		case !tc.index && !errors.As(err, &se):
			t.Errorf("%s: got %v; want a ShapeError", tc.name, err)
		case strings.Contains(err.Error(), "spgemm"):
			t.Errorf("%s: %v calls itself spgemm", tc.name, err)
		}
	}
}

// TestMaybe: spgemm.Maybe turns featurex's panics into errors, as it does
// spgemm's, and the error still names featurex and the operation.
func TestMaybe(t *testing.T) {
	err := spgemm.Maybe(func() { featurex.Labels(make([]int32, 1), []int32{0, 1}, []int32{2}) })
	var ie spgemm.IndexError
	if !errors.As(err, &ie) || ie.Pkg != "featurex" || !strings.HasPrefix(err.Error(), "featurex: Labels: index 2 out of range [0, 2)") {
		t.Errorf("Maybe(Labels out of range) = %v; want a featurex IndexError", err)
	}
	err = spgemm.Maybe(func() { featurex.CompressRows(nil, make([]float32, 5), 2, 2) })
	var se spgemm.ShapeError
	if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "featurex: CompressRows: shape mismatch") {
		t.Errorf("Maybe(CompressRows ragged) = %v; want a featurex ShapeError", err)
	}
}

func catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(error)
			if err == nil {
				err = errors.New("non-error panic")
			}
		}
	}()
	fn()
	return nil
}
