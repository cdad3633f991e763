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
	"math/rand/v2"
	"slices"
	"strconv"
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
		score[j] = Median(rel)
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
	plain := make([]SweepRow, len(rows))
	for i, r := range rows {
		plain[i] = r.Sweep()
	}
	return RoundRatios(plain)
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

// RatioCell returns the median of x and its range as a table cell, or "-"
// for none.
func RatioCell(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%.2f-%.2f)", Median(x), slices.Min(x), slices.Max(x))
}
