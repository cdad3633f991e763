package main

import (
	"slices"
	"testing"

	"github.com/bulksample/bulksample/internal/stats"
)

func TestSummarizeReps(t *testing.T) {
	for _, tc := range []struct {
		times []float64
		want  repFigures
	}{
		{[]float64{5}, repFigures{Seconds: 5, Cold: 5, Best: 5}},
		{[]float64{5, 2}, repFigures{Seconds: 2, Warm: true, Cold: 5, Best: 2}},
		{[]float64{9, 3, 1, 2}, repFigures{Seconds: 2, Warm: true, Cold: 9, Best: 1}},
		{[]float64{1, 4, 2}, repFigures{Seconds: 3, Warm: true, Cold: 1, Best: 1}}, // a cold repetition may be the fastest
	} {
		times := slices.Clone(tc.times)
		if got := summarizeReps(times); got != tc.want || !slices.Equal(times, tc.times) {
			t.Errorf("summarizeReps(%v) = %+v, times now %v; want %+v, times unchanged", tc.times, got, times, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		x := slices.Clone(tc.x)
		if got := stats.MedianOr(x, 0); got != tc.want || !slices.Equal(x, tc.x) {
			t.Errorf("MedianOr(%v, 0) = %v, input now %v; want %v, input unchanged", tc.x, got, x, tc.want)
		}
	}
}
