package spgemm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortIDs: every path (insertion, pdqsort, radix with and without
// skipped digits) sorts like slices.Sort, reusing its buffer.
func TestSortIDs(t *testing.T) {
	if s := []int32{3, 1, 2}; SortIDs(s, nil) == nil && !slices.Equal(s, []int32{1, 2, 3}) {
		t.Fatalf("by hand: %v", s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []int32
	for _, n := range []int{0, 1, 5, 31, 32, 100, 255, 256, 1000, 5000} {
		for _, top := range []int32{1, 200, 70_000, 1 << 30} {
			s := make([]int32, n)
			for i := range s {
				s[i] = rng.Int32N(top)
			}
			want := slices.Sorted(slices.Values(s))
			buf = SortIDs(s, buf)
			if !slices.Equal(s, want) {
				t.Fatalf("n = %d, ids below %d: not sorted", n, top)
			}
		}
	}
}

// TestSortPairs: every path (insertion, pdqsort, radix through buf's
// words) sorts the ids like slices.Sort with each value kept beside its id,
// reusing its buffer, with values of every bit pattern (NaN, -0).
func TestSortPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf []uint64
	for _, n := range []int{0, 1, 5, 31, 32, 100, 255, 256, 1000, 5000} {
		for _, top := range []int32{200, 70_000, 1 << 30} {
			perm := rng.Perm(int(min(int64(top), 1<<20)))
			if len(perm) < n {
				continue // n distinct ids below top do not exist
			}
			idx := make([]int32, n)
			val := make([]float32, n)
			want := map[int32]uint32{}
			for i := range idx {
				idx[i] = int32(perm[i]) * (top / int32(len(perm)))
				bits := rng.Uint32()
				val[i] = math.Float32frombits(bits)
				want[idx[i]] = bits
			}
			buf = SortPairs(idx, val, buf)
			if !slices.IsSorted(idx) {
				t.Fatalf("n = %d, ids below %d: not sorted", n, top)
			}
			for i, j := range idx {
				if math.Float32bits(val[i]) != want[j] {
					t.Fatalf("n = %d, ids below %d: id %d holds value bits %#x, want %#x", n, top, j, math.Float32bits(val[i]), want[j])
				}
			}
			if n > 0 && len(want) != n {
				t.Fatalf("n = %d: ids repeat", n)
			}
		}
	}
}
