package costmodel

import (
	"math"
	"testing"
)

// close reports whether got is within a relative 1e-12 of want (or both 0).
func close(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-12*math.Max(math.Abs(got), math.Abs(want))
}

func TestTraffic(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		// p = 4, c = 1: 3 of 4 blocks remote.
		{"pull p4 c1", PullSampleBytes(4, 1, 100, 1000), 0.75 * 4 * (200 + 1000)},
		{"pull p4 c2", PullSampleBytes(4, 2, 100, 1000), 0.5 * 4 * 1200},
		{"pull p4 c4", PullSampleBytes(4, 4, 100, 1000), 0},
		{"push p4 c1", PushSampleBytes(4, 1, 100, 1000), 0.75 * 4 * (300 + 1000)},
		{"push p128 c8", PushSampleBytes(128, 8, 10, 20), (1 - 8.0/128) * 4 * 50},
		{"header p4 c1", SampleHeaderBytes(4, 1, 4), 3 * 48 * 4},
		{"header p4 c4", SampleHeaderBytes(4, 4, 4), 0},
		// 1000 rows of 100 features, 13% cached, 26 exchanges.
		{"features p4 c1", FeatureBytes(4, 1, 100, 1000, 0.13, 26), 0.75*0.87*1000*404 + 16*3*26},
		{"features p4 c2", FeatureBytes(4, 2, 100, 1000, 0, 26), 0.5*1000*404 + 16*1*26},
		{"features p4 c4", FeatureBytes(4, 4, 100, 1000, 0, 26), 0},
		{"feature rounds", FeatureRounds(26), 78},
	} {
		if !close(tc.got, tc.want) {
			t.Errorf("%s: %g; want %g", tc.name, tc.got, tc.want)
		}
	}
}
