package sampling

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestChooseSplit checks that the weighted selection of one long row split
// over goroutines (k < threads) picks exactly the serial heap's positions,
// for any number of goroutines and range size, with zero, negative and NaN
// weights among the entries.
func TestChooseSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	stream := NewStream(11)
	for _, n := range []int{0, 5, 100, 3000} {
		cols := make([]int32, n)
		vals := make([]float32, n)
		c := int32(0)
		for i := range cols {
			c += 1 + rng.Int32N(5)
			cols[i] = c
			switch rng.IntN(10) {
			case 0:
				vals[i] = 0
			case 1:
				vals[i] = -1
			case 2:
				vals[i] = float32(math.NaN())
			default:
				vals[i] = rng.Float32() * 10
			}
		}
		for _, s := range []int{1, 3, 50, 400, 5000} {
			key := stream.Row(0, n, s, -1)
			var ref rowSelector
			want, _ := ref.choose(key, cols, vals, s, SelectOptions{Weighted: true})
			var pool lwPartPool // shared across calls, as a sampler's
			for _, threads := range []int{1, 2, 3, 8} {
				for _, minPer := range []int{1, 7, 64} {
					var w lwWorker
					got := chooseSplit(&w, &pool, key, cols, vals, s, threads, minPer)
					if !slices.Equal(got, want) {
						t.Fatalf("n %d s %d threads %d minPer %d: got %v; want %v", n, s, threads, minPer, got, want)
					}
				}
			}
		}
	}
}
