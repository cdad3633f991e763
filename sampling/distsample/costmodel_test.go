package distsample

import (
	"math"
	"testing"
)

// TestSampleBytes checks the byte model on figures worked by hand.
func TestSampleBytes(t *testing.T) {
	close := func(got, want float64) bool {
		return got == want || math.Abs(got-want) <= 1e-12*math.Max(math.Abs(got), math.Abs(want))
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		// p = 4, c = 1: 3 of 4 blocks remote.
		{"pull p4 c1", PullSampleBytes(4, 1, 100, 1000), 0.75 * 4 * (200 + 1000)},
		{"pull p4 c2", PullSampleBytes(4, 2, 100, 1000), 0.5 * 4 * 1200},
		{"pull p4 c4", PullSampleBytes(4, 4, 100, 1000), 0},
		{"push p4 c1", PushSampleBytes(4, 1, 100, 1000), 0.75 * 4 * (300 + 1000)},
		{"push p128 c8", PushSampleBytes(128, 8, 10, 20), (1 - 8.0/128) * 4 * 50},
		{"header p4 c1", SampleHeaderBytes(4, 1, 4), 3 * 48 * 4},
		{"header p4 c4", SampleHeaderBytes(4, 4, 4), 0},
	} {
		if !close(tc.got, tc.want) {
			t.Errorf("%s: %g; want %g", tc.name, tc.got, tc.want)
		}
	}
}
