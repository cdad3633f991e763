package sampling

import (
	"testing"

	"github.com/bulksample/bulksample/internal/hash"
)

// TestRowKeySeq checks that RowKey.Seq's counter gives Uint64's draws at
// consecutive positions.
func TestRowKeySeq(t *testing.T) {
	k := NewStream(7).Row(2, 3, 1, 5)
	for _, pos := range []int64{0, 1, 1000, 1 << 40} {
		start, step := k.Seq(pos)
		for i := range int64(20) {
			if got, want := hash.Mix64(start+uint64(i)*step), k.Uint64(pos+i); got != want {
				t.Fatalf("pos %d + %d: Mix64(start + i·step) = %#x, Uint64 = %#x", pos, i, got, want)
			}
		}
	}
}
