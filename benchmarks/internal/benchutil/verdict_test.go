package benchutil

import (
	"fmt"
	"strings"
	"testing"
)

// verdictBase is the machine's speed per round of the verdict tests: it
// drifts by 10%, and a ratio taken within a round must not see it.
var verdictBase = []float64{10, 11, 9, 10, 10.5, 9.5, 10}

// scaledRounds returns verdictBase times f, f repeated over the rounds.
func scaledRounds(f ...float64) []float64 {
	x := make([]float64, len(verdictBase))
	for i := range x {
		x[i] = verdictBase[i] * f[i%len(f)]
	}
	return x
}

// TestLargestK checks the verdict on the largest k against rounds whose
// ratios are known: met when every interval is at or above 0.95, not met
// when one whole interval is below (a loss of 10% in every round, or of
// 6% at the edge of the threshold), unresolved when an interval straddles
// 0.95, named after the k against which the largest does worst, and "only
// k" for a thread count of one k.
func TestLargestK(t *testing.T) {
	for _, tc := range []struct {
		name      string
		k64, k256 []float64
		want      KVerdict
	}{
		{"equal", scaledRounds(1), scaledRounds(1),
			KVerdict{Threads: 1, K: 256, Against: 1, Median: 1, Lo: 1, Hi: 1, Coverage: 0.984375, Outcome: GoalMet}},
		{"2% slower than k = 64", scaledRounds(1.02), scaledRounds(1),
			KVerdict{Threads: 1, K: 256, Against: 64, Median: 1 / 1.02, Lo: 1 / 1.02, Hi: 1 / 1.02, Coverage: 0.984375, Outcome: GoalMet}},
		{"10% slower than k = 64", scaledRounds(1.1), scaledRounds(1),
			KVerdict{Threads: 1, K: 256, Against: 64, Median: 1 / 1.1, Lo: 1 / 1.1, Hi: 1 / 1.1, Coverage: 0.984375, Outcome: GoalNotMet}},
		{"6% slower than k = 1 in every round", scaledRounds(1), scaledRounds(0.94),
			KVerdict{Threads: 1, K: 256, Against: 1, Median: 0.94, Lo: 0.94, Hi: 0.94, Coverage: 0.984375, Outcome: GoalNotMet}},
		{"noisy", scaledRounds(1), scaledRounds(0.9, 1.05),
			KVerdict{Threads: 1, K: 256, Against: 1, Median: 0.9, Lo: 0.9, Hi: 1.05, Coverage: 0.984375, Outcome: GoalUnresolved}},
		{"lucky rounds do not make a loss met", scaledRounds(1), scaledRounds(1.2, 0.9, 0.9),
			KVerdict{Threads: 1, K: 256, Against: 1, Median: 0.9, Lo: 0.9, Hi: 1.2, Coverage: 0.984375, Outcome: GoalUnresolved}},
	} {
		rows := []SweepRow{
			{Threads: 1, K: 1, Warm: scaledRounds(1)},
			{Threads: 1, K: 64, Warm: tc.k64},
			{Threads: 1, K: 256, Warm: tc.k256},
			{Threads: 2, K: 256, Warm: scaledRounds(0.5)}, // another thread count: not compared
		}
		got := LargestK(rows, 1)
		if got.Threads != tc.want.Threads || got.K != tc.want.K || got.Against != tc.want.Against || got.Outcome != tc.want.Outcome ||
			!near(got.Median, tc.want.Median) || !near(got.Lo, tc.want.Lo) || !near(got.Hi, tc.want.Hi) || !near(got.Coverage, tc.want.Coverage) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if s := got.String(); !strings.HasSuffix(s, "; "+tc.want.Outcome.String()) || !strings.Contains(s, fmt.Sprintf("of k = %d,", tc.want.Against)) {
			t.Errorf("%s: clause %q does not end in %q or name k = %d", tc.name, s, tc.want.Outcome, tc.want.Against)
		}
	}
	one := LargestK([]SweepRow{{Threads: 4, K: 16, Warm: []float64{1}}}, 4)
	if one.Outcome != GoalOneK || one.String() != "T = 4: only k = 16" {
		t.Errorf("one k: %+v, %q", one, one)
	}
	if none := LargestK(nil, 4); none.Outcome != GoalOneK || none.K != 0 {
		t.Errorf("no rows: %+v", none)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestGoalVerdict checks the sentence: a clause per thread count in the
// rows' order, and the CPU-time clause at 1 thread only when byCPU is
// given and the sweep has 1 thread.
func TestGoalVerdict(t *testing.T) {
	seps := []SweepRow{
		{Threads: 1, K: 16, Warm: scaledRounds(1)},
		{Threads: 1, K: 256, Warm: scaledRounds(0.8)},
		{Threads: 2, K: 16, Warm: scaledRounds(2)},
		{Threads: 2, K: 256, Warm: scaledRounds(2)},
	}
	cpu := []SweepRow{
		{Threads: 1, K: 16, Warm: scaledRounds(1)},
		{Threads: 1, K: 256, Warm: scaledRounds(1)},
		{Threads: 2, K: 16, Warm: scaledRounds(1)},
		{Threads: 2, K: 256, Warm: scaledRounds(1)},
	}
	for _, tc := range []struct {
		name        string
		seps, cpu   []SweepRow
		want, unwan []string
	}{
		{"with CPU time", seps, cpu, []string{
			"T = 1: k = 256 at 0.800 [0.800, 0.800] (coverage 0.984) of k = 16, its lowest ratio; not met; " +
				"T = 2: k = 256 at 1.000 [1.000, 1.000] (coverage 0.984) of k = 16, its lowest ratio; met.",
			" The same by sampled edges per CPU second, at 1 thread: T = 1: k = 256 at 1.000 [1.000, 1.000] (coverage 0.984) of k = 16, its lowest ratio; met.",
		}, nil},
		{"without CPU time", seps, nil, []string{"; met."}, []string{"CPU second"}},
		{"without 1 thread", seps[2:], cpu[2:], []string{": T = 2: k = 256"}, []string{"T = 1", "CPU second"}},
	} {
		got := GoalVerdict(tc.seps, tc.cpu)
		if !strings.HasPrefix(got, "Verdict on issue 14's goal") {
			t.Errorf("%s: %q does not start as the verdict", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, w := range tc.unwan {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", tc.name, got, w)
			}
		}
	}
}

// The largest k of a thread count is compared with every other k by the
// ratio of their SEPS taken within each round, so the machine's drift
// between rounds (here 10 to 12) cancels.
func ExampleLargestK() {
	rows := []SweepRow{
		{Threads: 1, K: 16, Warm: []float64{10, 12, 11, 10, 12, 11, 10}},
		{Threads: 1, K: 256, Warm: []float64{9.8, 11.9, 10.8, 9.9, 11.9, 10.9, 9.9}},
	}
	fmt.Println(LargestK(rows, 1))
	// Output: T = 1: k = 256 at 0.990 [0.980, 0.992] (coverage 0.984) of k = 16, its lowest ratio; met
}
