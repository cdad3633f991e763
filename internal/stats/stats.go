// Package stats holds the summary statistics that the command line's run
// summaries and the benchmarks both report, so that a figure means the
// same in both: the median of repetitions (docs/design.md section 8:
// shared machines are noisy, quote medians).
package stats

import (
	"math"
	"slices"
)

// Median returns the median of x (the mean of the middle two for an even
// length), leaving x as it was. It returns NaN for an empty x and for one
// that holds a NaN (a repetition without the figure), which a sort would
// otherwise place first.
func Median(x []float64) float64 {
	if len(x) == 0 || slices.ContainsFunc(x, math.IsNaN) {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(x))
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}

// MedianOr returns Median(x), or none when x is empty: a JSON summary,
// which cannot hold a NaN, writes 0 for a figure it has no values of.
func MedianOr(x []float64, none float64) float64 {
	if len(x) == 0 {
		return none
	}
	return Median(x)
}
