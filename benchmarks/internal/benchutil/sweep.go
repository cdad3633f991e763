package benchutil

// The bulk size and thread sweeps through the CLI (samplebench --cli and
// ladiesbench --cli, issue 14) run every (threads, k) configuration once per
// round, as its own process, and compare configurations by ratios taken
// within a round. On a shared VM the machine's speed drifts by more than the
// differences between bulk sizes (10-20% between runs of one command), and a
// drift reaches both sides of a ratio taken in one round; a ratio of medians
// over the whole run does not cancel it.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
	"strconv"

	"github.com/bulksample/bulksample/internal/stats"
)

// SweepOrder returns the order in which round r of a sweep runs its n
// configurations: a permutation drawn from a generator seeded by seed and r.
// A drift of the machine's speed (other tenants of the VM, its neighbours'
// load) then reaches the configurations of a round alike and falls on none
// of them by its place in the order, and a re-run repeats the orders.
func SweepOrder(n, round int, seed uint64) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, uint64(round)))
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// SweepRow is one configuration of a sweep: its thread count, its bulk size
// and its warm SEPS, one per round in round order.
type SweepRow struct {
	Threads, K int
	Warm       []float64
}

// Sweep returns r: a row type of a program that embeds SweepRow has the
// method too, so that RoundRatiosOf takes the program's own rows.
func (r SweepRow) Sweep() SweepRow { return r }

// SweepRatios holds, per row and round, the ratios that compare the rows of
// a sweep within one round.
type SweepRatios struct {
	// Best is, per thread count, the index of its best row: the one whose
	// SEPS, relative to the mean of the thread count's rows in the same
	// round, has the highest median over the rounds. One row is the
	// reference of every round: the best of each round would be the one
	// that noise favoured there, and every other row would look slower
	// than it is.
	Best map[int]int
	// VsBest is the row's warm SEPS over its thread count's best row's in
	// the same round.
	VsBest [][]float64
	// Eff is the parallel efficiency at the same k, SEPS(T, k) / (T ·
	// SEPS(1, k)); EffBest is SEPS(T, k) / (T · SEPS of the 1-thread best
	// row). Eff is nil for a row without a 1-thread row of its k, EffBest
	// for every row of a sweep without 1 thread.
	Eff, EffBest [][]float64
}

// RoundRatios returns the ratios of rows, every one of which has the same
// number of rounds.
func RoundRatios(rows []SweepRow) SweepRatios {
	rounds := len(rows[0].Warm)
	mean := map[int][]float64{} // per thread count, per round: the sum of its rows
	one := map[int]int{}        // 1-thread row per k
	for j, r := range rows {
		m := mean[r.Threads]
		if m == nil {
			m = make([]float64, rounds)
			mean[r.Threads] = m
		}
		for i, x := range r.Warm {
			m[i] += x
		}
		if r.Threads == 1 {
			one[r.K] = j
		}
	}
	q := SweepRatios{Best: map[int]int{}, VsBest: make([][]float64, len(rows)), Eff: make([][]float64, len(rows)), EffBest: make([][]float64, len(rows))}
	score := make([]float64, len(rows))
	for j, r := range rows {
		rel := make([]float64, rounds)
		for i, x := range r.Warm {
			rel[i] = x / mean[r.Threads][i] // the row count cancels in the comparison
		}
		score[j] = stats.Median(rel)
		if b, ok := q.Best[r.Threads]; !ok || score[j] > score[b] {
			q.Best[r.Threads] = j
		}
	}
	for j, r := range rows {
		t := float64(r.Threads)
		best := rows[q.Best[r.Threads]]
		b1, haveOne := q.Best[1]
		r1, haveK := one[r.K]
		for i, x := range r.Warm {
			q.VsBest[j] = append(q.VsBest[j], x/best.Warm[i])
			if haveOne {
				q.EffBest[j] = append(q.EffBest[j], x/(t*rows[b1].Warm[i]))
			}
			if haveK {
				q.Eff[j] = append(q.Eff[j], x/(t*rows[r1].Warm[i]))
			}
		}
	}
	return q
}

// RoundRatiosOf is RoundRatios of rows of a type that embeds SweepRow.
func RoundRatiosOf[R interface{ Sweep() SweepRow }](rows []R) SweepRatios {
	return RoundRatios(SweepRows(rows))
}

// SweepRows returns the SweepRows of rows of a type that embeds SweepRow.
func SweepRows[R interface{ Sweep() SweepRow }](rows []R) []SweepRow {
	plain := make([]SweepRow, len(rows))
	for i, r := range rows {
		plain[i] = r.Sweep()
	}
	return plain
}

// KCell returns the k of row j, r, as a table cell, marked * when the row
// is its thread count's best.
func (q SweepRatios) KCell(j int, r SweepRow) string {
	k := strconv.Itoa(r.K)
	if q.Best[r.Threads] == j {
		k += "*"
	}
	return k
}

// SweepOrderByThreads returns the order in which round r of a sweep runs
// rows whose thread counts are threads[i]: the rows of one thread count one
// after the other, in an order shuffled per round as SweepOrder's, and the
// thread counts' groups in turn, the first group of round r being the
// (r mod groups)-th. The ratios that decide a thread count's best k compare
// rows of that count only, and grouping them puts those rows seconds apart
// instead of up to a whole round, so that a slow stretch of the machine
// longer than a group reaches them alike. (On the development VM most of
// the spread of such a ratio was not of that kind: two 1-thread processes
// next to each other differed as much as two three processes apart, and
// only more rounds narrowed it; see MedianCI.)
func SweepOrderByThreads(threads []int, round int, seed uint64) []int {
	var counts []int // distinct thread counts, in order of first appearance
	groups := map[int][]int{}
	for i, t := range threads {
		if _, ok := groups[t]; !ok {
			counts = append(counts, t)
		}
		groups[t] = append(groups[t], i)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(round)))
	order := make([]int, 0, len(threads))
	for g := range counts {
		idx := slices.Clone(groups[counts[(g+round)%len(counts)]])
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		order = append(order, idx...)
	}
	return order
}

// MedianCI returns the median of x and a distribution-free confidence
// interval [lo, hi] for the median of the law x was drawn from, with its
// coverage: the order statistics x_(j) and x_(n+1-j) for the largest j whose
// coverage 1 - 2·P(Bin(n, 1/2) < j) is at least conf. It needs no
// assumption on the law (the noise of a shared VM is skewed and has
// outliers). With too few values for conf (fewer than 6 for 0.95) it
// returns the range, whose coverage is then below conf. NaNs for none.
func MedianCI(x []float64, conf float64) (med, lo, hi, coverage float64) {
	n := len(x)
	if n == 0 {
		nan := math.NaN()
		return nan, nan, nan, nan
	}
	s := slices.Sorted(slices.Values(x))
	j := 1 // [x_(1), x_(n)] covers 1 - 2·P(B = 0)
	for j < (n+1)/2 && 1-2*binomHalfCDF(n, j) >= conf {
		j++ // [x_(j+1), x_(n-j)] still covers at least conf
	}
	return stats.Median(x), s[j-1], s[n-j], 1 - 2*binomHalfCDF(n, j-1)
}

// binomHalfCDF returns P(B <= m) for B ~ Bin(n, 1/2).
func binomHalfCDF(n, m int) float64 {
	return distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(m))
}

// RatioCICell returns the median of x and its 95% confidence interval
// (MedianCI) as a table cell, "-" for none.
func RatioCICell(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	med, lo, hi, _ := MedianCI(x, 0.95)
	return fmt.Sprintf("%.3f [%.3f, %.3f]", med, lo, hi)
}
