package sampling

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/internal/freelist"
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
			var pool freelist.List[*lwPart] // shared across calls, as a sampler's
			for _, threads := range []int{1, 2, 3, 8} {
				for _, minPer := range []int{1, 7, 64} {
					var w lwWorker
					got := chooseSplit(nil, &w, &pool, key, cols, vals, s, threads, minPer)
					if !slices.Equal(got, want) {
						t.Fatalf("n %d s %d threads %d minPer %d: got %v; want %v", n, s, threads, minPer, got, want)
					}
				}
			}
		}
	}
}

// TestSelectByBound checks that the selection of long rows by a key bound
// picks exactly the heap's positions (topKeys), on rows whose weight sits
// in a few heavy entries (LADIES' rows of P), on flat rows, with zero,
// negative, NaN, infinite and subnormal weights, and when the bound is
// forced to fall short so that it doubles and finally hands over to the
// heap.
func TestSelectByBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	stream := NewStream(12)
	for _, shape := range []string{"skewed", "flat", "odd"} {
		for _, n := range []int{64, 2000, 20000} {
			cols := make([]int32, n)
			vals := make([]float32, n)
			for i := range cols {
				cols[i] = int32(3*i + rng.IntN(3))
				switch shape {
				case "skewed":
					vals[i] = float32(math.Pow(10, -8*rng.Float64()))
					if rng.IntN(50) == 0 {
						vals[i] = 1
					}
				case "flat":
					vals[i] = 1 + rng.Float32()
				case "odd":
					vals[i] = [...]float32{0, -1, float32(math.NaN()), float32(math.Inf(1)), 1e-45, 3, rng.Float32()}[rng.IntN(7)]
				}
			}
			for _, s := range []int{1, 16, 300} {
				key := stream.Row(0, n, s, -1)
				npos := 0
				for _, v := range vals {
					if v > 0 {
						npos++
					}
				}
				if s >= npos {
					continue
				}
				want, _ := topKeys(key, cols, vals, 0, n, s, nil, nil)
				slices.Sort(want)
				var sel rowSelector
				if got := sel.selectByBound(key, cols, vals, s, nil); !slices.Equal(got, want) {
					t.Fatalf("%s n %d s %d: got %v; want %v", shape, n, s, got, want)
				}
				// A bound far too small: every pass falls short.
				short := func(tau float64, pos []int32, hk []float64) ([]int32, []float64) {
					return keysBelow(key, cols, vals, 0, n, tau*1e-30, pos, hk)
				}
				if got := sel.selectByBound(key, cols, vals, s, short); !slices.Equal(got, want) {
					t.Fatalf("%s n %d s %d, short bound: got %v; want %v", shape, n, s, got, want)
				}
			}
		}
	}
}
