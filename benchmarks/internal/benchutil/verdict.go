package benchutil

// The verdict of a bulk size sweep on issue 14's goal, SEPS at the largest
// bulk k within 5% of the best k, read from the rounds' ratios and their
// distribution-free intervals (MedianCI). Both sweeps through the CLI
// (samplebench --cli, ladiesbench --cli) print it, so it lives here.

import (
	"fmt"
	"strings"
)

// GoalThreshold is the ratio that issue 14's goal allows the largest k
// against any other k: within 5%.
const GoalThreshold = 0.95

// RatioCILegend says how a sweep's table summarises its within-round
// ratios (RatioCICell), for its legend.
const RatioCILegend = "The ratios are taken within each round, then their median over the rounds and a " +
	"distribution-free 95% confidence interval for it [low, high] (order statistics of the rounds' ratios; with fewer than 6 rounds " +
	"the range, which covers less)"

// GoalOutcome is what the rounds say of the goal for one thread count.
type GoalOutcome int

const (
	// GoalUnresolved: no interval lies wholly below GoalThreshold, and
	// one reaches below it.
	GoalUnresolved GoalOutcome = iota
	// GoalMet: every interval is at or above GoalThreshold.
	GoalMet
	// GoalNotMet: the whole interval of one ratio is below GoalThreshold.
	GoalNotMet
	// GoalOneK: the thread count has one k, and nothing to compare.
	GoalOneK
)

// String returns the outcome as the verdict prints it.
func (o GoalOutcome) String() string {
	switch o {
	case GoalMet:
		return "met"
	case GoalNotMet:
		return "not met"
	case GoalOneK:
		return "only one k"
	}
	return "not resolved (an interval straddles 0.95)"
}

// KVerdict is the verdict on the largest k of one thread count.
type KVerdict struct {
	Threads int
	K       int // the largest k of the thread count
	// Against is the k against which K does worst: the lowest median
	// ratio. Zero for GoalOneK, as are the figures below.
	Against int
	// Median, Lo and Hi are the median over the rounds of K's SEPS over
	// Against's, taken within each round, and its 95% interval, whose
	// coverage is Coverage (MedianCI).
	Median, Lo, Hi, Coverage float64
	Outcome                  GoalOutcome
}

// LargestK reads the goal for the rows of threads, each of which has its
// values (Warm) in round order. It compares the largest k with each other k
// by their within-round ratio, not with a best k chosen from the same
// rounds (which noise would favour, and against which the best itself
// reads 1 whatever the noise): the goal is met when the 95% interval of
// every such ratio is at or above GoalThreshold, not met when the whole
// interval of one is below, and unresolved otherwise. A real loss of 5% or
// more then cannot read as met (its interval reaches below 0.95 unless the
// noise favours the largest k in most rounds), and a miss needs the rounds
// to agree on it. A thread count without rows reads GoalOneK with K zero.
func LargestK(rows []SweepRow, threads int) KVerdict {
	v := KVerdict{Threads: threads, Outcome: GoalOneK}
	j := -1 // the largest k of threads
	for i, r := range rows {
		if r.Threads == threads && (j < 0 || r.K > rows[j].K) {
			j = i
		}
	}
	if j < 0 {
		return v
	}
	v.K = rows[j].K
	met, missed, compared := true, false, false
	for i, r := range rows {
		if r.Threads != threads || i == j {
			continue
		}
		a, b := rows[j].Warm, r.Warm
		ratio := make([]float64, min(len(a), len(b)))
		for round := range ratio {
			ratio[round] = a[round] / b[round]
		}
		med, lo, hi, cover := MedianCI(ratio, 0.95)
		met, missed = met && lo >= GoalThreshold, missed || hi < GoalThreshold
		if !compared || med < v.Median {
			v.Against, v.Median, v.Lo, v.Hi, v.Coverage = r.K, med, lo, hi, cover
		}
		compared = true
	}
	switch {
	case !compared:
	case missed:
		v.Outcome = GoalNotMet
	case met:
		v.Outcome = GoalMet
	default:
		v.Outcome = GoalUnresolved
	}
	return v
}

// String returns the verdict as a clause of GoalVerdict's sentence.
func (v KVerdict) String() string {
	if v.Outcome == GoalOneK {
		return fmt.Sprintf("T = %d: only k = %d", v.Threads, v.K)
	}
	return fmt.Sprintf("T = %d: k = %d at %.3f [%.3f, %.3f] (coverage %.3f) of k = %d, its lowest ratio; %s",
		v.Threads, v.K, v.Median, v.Lo, v.Hi, v.Coverage, v.Against, v.Outcome)
}

// GoalVerdict returns the sentence that reads issue 14's goal for a sweep:
// LargestK by SEPS (bySEPS) for each thread count, in the order of the
// rows, and, when byCPU is not nil, the same by sampled edges per CPU
// second at one thread, where CPU time is the sampler's own time (the
// time the VM gave to other processes or tenants left out). byCPU has the
// rows of bySEPS with their per-round CPU figures as Warm.
func GoalVerdict(bySEPS, byCPU []SweepRow) string {
	var clauses []string
	seen := map[int]bool{}
	for _, r := range bySEPS {
		if !seen[r.Threads] {
			seen[r.Threads] = true
			clauses = append(clauses, LargestK(bySEPS, r.Threads).String())
		}
	}
	v := "Verdict on issue 14's goal, SEPS at the largest k within 5% of the best k, read as: within 5% of every other k, " +
		"each by the median of its within-round ratios [95% interval], met when every interval is at or above 0.95: " +
		strings.Join(clauses, "; ") + "."
	if byCPU != nil && seen[1] {
		v += " The same by sampled edges per CPU second, at 1 thread: " + LargestK(byCPU, 1).String() + "."
	}
	return v
}
