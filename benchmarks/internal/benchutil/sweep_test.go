package benchutil

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/internal/stats"
)

// TestSweepOrder checks the rounds' orders: each a permutation, the same
// for the same seed, and not the same order in every round.
func TestSweepOrder(t *testing.T) {
	const n, rounds = 12, 3
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	var orders [][]int
	for r := range rounds {
		o := SweepOrder(n, r, 1)
		if got := slices.Sorted(slices.Values(o)); !slices.Equal(got, identity) {
			t.Fatalf("round %d order %v is not a permutation of 0..%d", r, o, n-1)
		}
		if again := SweepOrder(n, r, 1); !slices.Equal(again, o) {
			t.Errorf("round %d: orders %v and %v for the same seed", r, o, again)
		}
		orders = append(orders, o)
	}
	if slices.Equal(orders[0], orders[1]) && slices.Equal(orders[1], orders[2]) {
		t.Errorf("every round runs in the order %v", orders[0])
	}
	if slices.Equal(SweepOrder(n, 0, 1), SweepOrder(n, 0, 2)) {
		t.Errorf("seeds 1 and 2 give the same order %v", SweepOrder(n, 0, 1))
	}
}

// TestRoundRatios checks that the ratios are taken within rounds (a round
// in which the whole machine runs at half speed leaves them unchanged) and
// against one best row per thread count, not each round's fastest: k = 1024
// wins round 3 at 1 thread, yet k = 16 is the reference of all three.
func TestRoundRatios(t *testing.T) {
	rows := []SweepRow{
		{Threads: 1, K: 16, Warm: []float64{10, 5, 10}},
		{Threads: 1, K: 1024, Warm: []float64{9, 4.5, 11}},
		{Threads: 2, K: 16, Warm: []float64{18, 9, 16}},
		{Threads: 2, K: 1024, Warm: []float64{16, 8, 17}},
		{Threads: 2, K: 64, Warm: []float64{15, 7.5, 15}}, // no 1-thread row at k = 64
	}
	q := RoundRatios(rows)
	if q.Best[1] != 0 || q.Best[2] != 2 || len(q.Best) != 2 {
		t.Errorf("best rows %v, want 1 thread: 0 (k = 16), 2 threads: 2 (k = 16)", q.Best)
	}
	for _, tc := range []struct {
		name string
		got  []float64
		want []float64
	}{
		{"vs best, 1 thread k=16", q.VsBest[0], []float64{1, 1, 1}},
		{"vs best, 1 thread k=1024", q.VsBest[1], []float64{0.9, 0.9, 1.1}},
		{"vs best, 2 threads k=16", q.VsBest[2], []float64{1, 1, 1}},
		{"vs best, 2 threads k=1024", q.VsBest[3], []float64{16.0 / 18, 8.0 / 9, 17.0 / 16}},
		{"efficiency, 2 threads k=16", q.Eff[2], []float64{0.9, 0.9, 0.8}},
		{"efficiency, 2 threads k=1024", q.Eff[3], []float64{16.0 / 18, 8.0 / 9, 17.0 / 22}},
		{"vs 1-thread best, 2 threads k=1024", q.EffBest[3], []float64{0.8, 0.8, 0.85}},
		{"efficiency without a 1-thread row", q.Eff[4], nil},
		{"vs 1-thread best, 2 threads k=64", q.EffBest[4], []float64{0.75, 0.75, 0.75}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
			continue
		}
		for i := range tc.got {
			if math.Abs(tc.got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
				break
			}
		}
	}
}

// sweepTestRow is a program's row type: SweepRow embedded beside its own
// columns, as the sweeps' rows are.
type sweepTestRow struct {
	SweepRow
	label string
}

// TestRoundRatiosOfAndKCell checks that the ratios of a program's own rows
// equal those of their SweepRows, and that exactly the best row of each
// thread count is marked.
func TestRoundRatiosOfAndKCell(t *testing.T) {
	rows := []*sweepTestRow{
		{SweepRow{Threads: 1, K: 16, Warm: []float64{10, 5, 10}}, "16*"},
		{SweepRow{Threads: 1, K: 1024, Warm: []float64{9, 4.5, 11}}, "1024"},
		{SweepRow{Threads: 2, K: 16, Warm: []float64{16, 8, 15}}, "16"},
		{SweepRow{Threads: 2, K: 1024, Warm: []float64{18, 9, 16}}, "1024*"},
	}
	plain := make([]SweepRow, len(rows))
	for i, r := range rows {
		plain[i] = r.SweepRow
	}
	q, want := RoundRatiosOf(rows), RoundRatios(plain)
	if len(q.Best) != len(want.Best) || q.Best[1] != want.Best[1] || q.Best[2] != want.Best[2] {
		t.Errorf("RoundRatiosOf best %v, RoundRatios %v", q.Best, want.Best)
	}
	for j, r := range rows {
		if !slices.Equal(q.VsBest[j], want.VsBest[j]) {
			t.Errorf("row %d: vs best %v, want %v", j, q.VsBest[j], want.VsBest[j])
		}
		if cell := q.KCell(j, r.SweepRow); cell != r.label {
			t.Errorf("row %d: KCell %q, want %q", j, cell, r.label)
		}
	}
}

// TestSweepOrderByThreads checks that each round is a permutation in which
// the rows of a thread count run one after the other, that the group that
// goes first turns with the round, and that the order within a group is
// shuffled.
func TestSweepOrderByThreads(t *testing.T) {
	threads := []int{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}
	var firsts []int
	var withinOrders [][]int
	for r := range 4 {
		o := SweepOrderByThreads(threads, r, 1)
		if got := slices.Sorted(slices.Values(o)); len(got) != len(threads) || got[0] != 0 || got[len(got)-1] != len(threads)-1 || len(slices.Compact(got)) != len(threads) {
			t.Fatalf("round %d order %v is not a permutation", r, o)
		}
		for i := 1; i < len(o); i++ {
			if threads[o[i]] != threads[o[i-1]] && i != 6 {
				t.Fatalf("round %d order %v leaves its thread count's group at %d", r, o, i)
			}
		}
		firsts = append(firsts, threads[o[0]])
		withinOrders = append(withinOrders, o[:6])
		if !slices.Equal(SweepOrderByThreads(threads, r, 1), o) {
			t.Errorf("round %d: two orders for the same seed", r)
		}
	}
	if !slices.Equal(firsts, []int{1, 2, 1, 2}) {
		t.Errorf("first thread counts of rounds 0-3: %v, want 1, 2, 1, 2", firsts)
	}
	if slices.Equal(withinOrders[0], withinOrders[2]) {
		t.Errorf("rounds 0 and 2 run the 1-thread rows in the same order %v", withinOrders[0])
	}
}

// TestMedianCI checks the interval's order statistics against the binomial
// law (for 5 values the range, covering 1 - 2/32; for 13 values x_(3) and
// x_(11), covering 1 - 2·92/8192) and that it covers the median of a law
// about 95% of the time.
func TestMedianCI(t *testing.T) {
	for _, tc := range []struct {
		n, lo, hi int // 1-based ranks
		cover     float64
	}{
		{5, 1, 5, 1 - 2.0/32},
		{6, 1, 6, 1 - 2.0/64},
		{13, 3, 11, 1 - 2*92.0/8192},
		{20, 6, 15, 0.9586105346679688},
	} {
		x := make([]float64, tc.n)
		for i := range x {
			x[i] = float64((i*7)%tc.n + 1) // 1..n, shuffled
		}
		med, lo, hi, cover := MedianCI(x, 0.95)
		if med != stats.Median(x) || lo != float64(tc.lo) || hi != float64(tc.hi) || math.Abs(cover-tc.cover) > 1e-12 {
			t.Errorf("n=%d: median %v, CI [%v, %v] covering %v; want [%d, %d] covering %v", tc.n, med, lo, hi, cover, tc.lo, tc.hi, tc.cover)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, n = 2000, 15
	missed := 0
	for range trials {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.ExpFloat64() // skewed; median ln 2
		}
		if _, lo, hi, _ := MedianCI(x, 0.95); lo > math.Ln2 || hi < math.Ln2 {
			missed++
		}
	}
	// Coverage 0.9648 for n = 15: about 70 misses of 2000 (sd 8).
	if missed < 40 || missed > 100 {
		t.Errorf("the interval missed the median in %d of %d trials, want about 70", missed, trials)
	}
	if got, want := RatioCICell([]float64{0.9, 0.95, 0.8}), "0.900 [0.800, 0.950]"; got != want {
		t.Errorf("RatioCICell = %q, want %q", got, want)
	}
	if got := RatioCICell(nil); got != "-" {
		t.Errorf("RatioCICell(nil) = %q, want -", got)
	}
}
