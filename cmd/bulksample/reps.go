package main

import (
	"slices"

	"github.com/bulksample/bulksample/internal/stats"
)

// repFigures summarises the times of a command's --reps repetitions of
// the same work (sample's passes, spgemm's products), of which the first
// is the cold one: it pays for fresh memory and empty buffers, which later
// ones find ready.
type repFigures struct {
	// Seconds is the headline: the median of the warm repetitions (all but
	// the first) when there are two or more, else the one cold repetition.
	Seconds float64
	Warm    bool    // whether Seconds is of warm repetitions
	Cold    float64 // the first repetition's time
	Best    float64 // the fastest repetition's time
}

// summarizeReps returns the figures of times, one per repetition in order
// (at least one).
func summarizeReps(times []float64) repFigures {
	f := repFigures{Seconds: times[0], Cold: times[0], Best: slices.Min(times), Warm: len(times) > 1}
	if f.Warm {
		f.Seconds = stats.Median(times[1:])
	}
	return f
}
