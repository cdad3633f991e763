package stats

import (
	"math"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		x := slices.Clone(tc.x)
		if got := Median(x); got != tc.want || !slices.Equal(x, tc.x) {
			t.Errorf("Median(%v) = %v, input now %v; want %v, input unchanged", tc.x, got, x, tc.want)
		}
	}
	for _, x := range [][]float64{nil, {1, math.NaN(), 2}} {
		if got := Median(x); !math.IsNaN(got) {
			t.Errorf("Median(%v) = %v; want NaN", x, got)
		}
	}
	if got := MedianOr(nil, 0); got != 0 {
		t.Errorf("MedianOr(nil, 0) = %v; want 0", got)
	}
	if got := MedianOr([]float64{4, 1, 3, 2}, 0); got != 2.5 {
		t.Errorf("MedianOr([4 1 3 2], 0) = %v; want 2.5", got)
	}
}
