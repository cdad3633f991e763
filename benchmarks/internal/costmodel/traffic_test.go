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
