package costmodel

import (
	"math"
	"testing"
)

func TestRingAllreduce(t *testing.T) {
	for _, tc := range []struct {
		p                int
		bytes, bw, lat   float64
		wantBytes, wantS float64
	}{
		{1, 1000, 1e9, 1e-6, 0, 0},
		{2, 1000, 1e9, 0, 1000, 1e-6},           // 2·1/2·1000 bytes at 1 GB/s
		{4, 4000, 1e9, 1e-6, 6000, 6e-6 + 6e-6}, // 2·3/4·4000; 6 messages of 1 µs
		{128, 1.14e6, 25e9, 2e-6, 2 * 127.0 / 128 * 1.14e6, 2*127.0/128*1.14e6/25e9 + 254*2e-6},
	} {
		if got := RingAllreduceBytes(tc.p, tc.bytes); math.Abs(got-tc.wantBytes) > 1e-9*tc.wantBytes {
			t.Errorf("p=%d: RingAllreduceBytes = %g; want %g", tc.p, got, tc.wantBytes)
		}
		if got := RingAllreduceSeconds(tc.p, tc.bytes, tc.bw, tc.lat); math.Abs(got-tc.wantS) > 1e-12 {
			t.Errorf("p=%d: RingAllreduceSeconds = %g; want %g", tc.p, got, tc.wantS)
		}
	}
	// ogbn-papers100M's 1,207,179 training vertices in global batches of
	// 1024: 1179 steps.
	if got, want := GradientSeconds(128, 285356, 1207179, 1024, 25e9, 2e-6), 1179*RingAllreduceSeconds(128, GradientBytes(285356), 25e9, 2e-6); math.Abs(got-want) > 1e-12 {
		t.Errorf("GradientSeconds = %g; want %g", got, want)
	}
}
