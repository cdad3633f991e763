package simd

import (
	"testing"

	"github.com/bulksample/bulksample/internal/hash"
)

// TestMix64Seq checks Mix64Seq (the AVX-512 kernel where it runs) against
// hash.Mix64 one by one, for lengths around multiples of 8 and counters
// that wrap.
func TestMix64Seq(t *testing.T) {
	for _, c := range []struct{ start, step uint64 }{
		{0, 1}, {1, 0xe7037ed1a0b428db}, {^uint64(0) - 5, 3}, {0x123456789abcdef, ^uint64(0)},
	} {
		for _, n := range []int{0, 1, 7, 8, 9, 16, 63, 256, 1000} {
			got := make([]uint64, n+1)
			got[n] = 42 // a sentinel: the kernel writes n values only
			Mix64Seq(got[:n], c.start, c.step)
			for i := range n {
				if want := hash.Mix64(c.start + uint64(i)*c.step); got[i] != want {
					t.Fatalf("start %#x step %#x n %d: [%d] = %#x, want %#x (AVX-512: %v)", c.start, c.step, n, i, got[i], want, haveAVX512)
				}
			}
			if got[n] != 42 {
				t.Fatalf("start %#x step %#x n %d: wrote past the end", c.start, c.step, n)
			}
		}
	}
}

func BenchmarkMix64Seq(b *testing.B) {
	dst := make([]uint64, 256)
	b.SetBytes(8 * 256)
	for i := 0; b.Loop(); i++ {
		Mix64Seq(dst, uint64(i), 0xe7037ed1a0b428db)
	}
}
