package hash

import "testing"

// TestMix64SplitMix64 checks Mix64 against the published outputs of the
// SplitMix64 generator (the reference splitmix64.c by Vigna), whose n-th
// output for seed s is Mix64(s + n·golden).
func TestMix64SplitMix64(t *testing.T) {
	const golden = 0x9e3779b97f4a7c15
	for _, tc := range []struct {
		seed uint64
		want []uint64
	}{
		{0, []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}},
		{1234567, []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}},
	} {
		for n, want := range tc.want {
			if got := Mix64(tc.seed + uint64(n+1)*golden); got != want {
				t.Errorf("seed %d output %d: Mix64 = %#x; want %#x", tc.seed, n+1, got, want)
			}
		}
	}
}

func TestMix64Zero(t *testing.T) {
	if got := Mix64(0); got != 0 {
		t.Errorf("Mix64(0) = %#x; want 0 (the finaliser fixes zero)", got)
	}
}
