package main

import (
	"math"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/benchmarks/internal/costmodel"
)

// TestProbeNetwork: the model's network is the line through the mean
// points of the uniform id and row probes; the 5-size fit is the
// least-squares line over all uniform probes, here points on one line.
func TestProbeNetwork(t *testing.T) {
	const alpha, beta = 1e-3, 4e9
	var run featureRun
	for i, k := range uniformProbes {
		b := 1e6 * float64(int(1)<<(2*i)) // per sample
		// Three samples whose mean lies on the line.
		run.Probes[k] = probeSums{Seconds: 3 * (alpha + b/beta), Bytes: 3 * b, Samples: 3}
	}
	// A replay far off the line must not move the model.
	run.Probes[probeReplayRows] = probeSums{Seconds: 9, Bytes: 1e6, Samples: 3}
	for _, tc := range []struct {
		name string
		fit  func() (costmodel.Hockney, error)
	}{{"network", run.network}, {"fitAll", run.fitAll}} {
		h, err := tc.fit()
		if err != nil || math.Abs(h.Alpha-alpha) > 1e-12 || math.Abs(h.Beta-beta) > 1e-3*beta {
			t.Errorf("%s: α = %g, β = %g, %v; want %g, %g", tc.name, h.Alpha, h.Beta, err, alpha, beta)
		}
	}
	// The row of the probe table: the fit's model time and its error
	// against a measured transfer 10% above it.
	rounds, bytes := 10.0, 1e9
	want := rounds*alpha + bytes/beta
	row := probeRow(&run, rounds, bytes, want*1.1)
	if !strings.Contains(row, "| 1000 | 4.00 | 1000 | 4.00 |") || !strings.Contains(row, "(-9%)") {
		t.Errorf("probe row %q", row)
	}
	// Without row probes (a column of one rank) there is no row.
	if row := probeRow(&featureRun{}, rounds, bytes, 1); row != "" {
		t.Errorf("probe row of a run without probes: %q", row)
	}
}

// TestRatioSpread: the median and range of the ratios of the calls where
// both sides are positive.
func TestRatioSpread(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want string
	}{
		{[]float64{1, 3, 2}, []float64{1, 2, 4}, "1.00 (0.50-1.50)"},
		{[]float64{1, 0, 2}, []float64{2, 1, 1}, "2.00 (0.50-2.00)"}, // the second call left out
		{[]float64{1, 2}, []float64{1}, "1.00 (1.00-1.00)"},          // only calls on both sides
		{nil, []float64{1}, "–"},
	} {
		if got := ratioSpread(tc.a, tc.b); got != tc.want {
			t.Errorf("ratioSpread(%v, %v) = %q; want %q", tc.a, tc.b, got, tc.want)
		}
	}
}
