package sampling

import (
	"math"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestDigestRowsBlocks: the digest of a matrix equals the digest of its row
// blocks added in order, directly or encoded, and changes with a value's
// bits (the sign of a zero included) or a row boundary.
func TestDigestRowsBlocks(t *testing.T) {
	m, err := spgemm.FromCOO(4, 5, []int32{0, 0, 2, 3, 3}, []int32{1, 4, 0, 2, 3}, []float32{1, 2, 3, 4, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(ms ...*spgemm.CSR) string {
		d := NewDigest()
		for _, x := range ms {
			d.AddRows(x)
		}
		return d.Sum()
	}
	whole := sum(m)
	top := spgemm.GatherRows(m, []int32{0, 1}, 1)
	bottom := spgemm.GatherRows(m, []int32{2, 3}, 1)
	if got := sum(top, bottom); got != whole {
		t.Errorf("blocks: %s; want %s", got, whole)
	}
	d := NewDigest()
	d.AddEncoded(AppendRowsEncoding(nil, top))
	d.AddEncoded(AppendRowsEncoding(nil, bottom))
	if got := d.Sum(); got != whole {
		t.Errorf("encoded blocks: %s; want %s", got, whole)
	}
	neg := m.Clone()
	neg.Data[4] = float32(math.Copysign(0, -1)) // m stores +0 there
	shifted := spgemm.GatherRows(m, []int32{0, 2, 1, 3}, 1)
	for name, x := range map[string]*spgemm.CSR{"-0 for +0": neg, "rows swapped": shifted} {
		if sum(x) == whole {
			t.Errorf("%s: same digest", name)
		}
	}
}
