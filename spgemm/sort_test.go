package spgemm

import (
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
