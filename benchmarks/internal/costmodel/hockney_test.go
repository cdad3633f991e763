package costmodel

import (
	"math"
	"testing"
)

func TestFitHockney(t *testing.T) {
	for _, tc := range []struct {
		name        string
		bytes, sec  []float64
		alpha, beta float64
		wantErr     bool
	}{
		// Exact points of α = 1 ms, β = 4 GB/s.
		{"exact", []float64{1e3, 1e7, 5e7, 1e8}, []float64{1e-3 + 1e3/4e9, 1e-3 + 1e7/4e9, 1e-3 + 5e7/4e9, 1e-3 + 1e8/4e9}, 1e-3, 4e9, false},
		// Symmetric noise around the same line leaves it in place.
		{"noisy", []float64{0, 0, 1e8, 1e8}, []float64{0.9e-3, 1.1e-3, 26e-3 - 1e-4, 26e-3 + 1e-4}, 1e-3, 4e9, false},
		{"one size", []float64{1e6, 1e6}, []float64{1e-3, 2e-3}, 0, 0, true},
		{"flat", []float64{1e6, 2e6}, []float64{2e-3, 1e-3}, 0, 0, true},
		{"lengths", []float64{1e6, 2e6}, []float64{2e-3}, 0, 0, true},
	} {
		h, err := FitHockney(tc.bytes, tc.sec)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v; want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if math.Abs(h.Alpha-tc.alpha) > 1e-9 || math.Abs(h.Beta-tc.beta) > 1e-6*tc.beta {
			t.Errorf("%s: α = %g, β = %g; want %g, %g", tc.name, h.Alpha, h.Beta, tc.alpha, tc.beta)
		}
		if got, want := h.Seconds(2, 1e8), 2*tc.alpha+1e8/tc.beta; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: Seconds(2, 1e8) = %g; want %g", tc.name, got, want)
		}
	}
}
