package sampling

import (
	"errors"
	"reflect"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
	"gonum.org/v1/gonum/stat/distuv"
)

// lwRepeatedRow returns a rows x n matrix whose rows all hold the entries
// (cols, vals): many independent minibatch rows of one law.
// lwKeys returns the minibatch-level keys of minibatches 0..n-1.
func lwKeys(seed uint64, n int) []RowKey {
	st := NewStream(seed)
	keys := make([]RowKey, n)
	for m := range keys {
		keys[m] = st.Row(0, m, 0, -1)
	}
	return keys
}

// lwChiSquare returns Pearson's statistic of observed counts against
// expected probabilities (all positive) and the critical value at p = 1e-6.
func lwChiSquare(obs []float64, prob []float64) (stat, crit float64) {
	total := 0.0
	for _, o := range obs {
		total += o
	}
	for i, o := range obs {
		e := total * prob[i]
		stat += (o - e) * (o - e) / e
	}
	crit = distuv.ChiSquared{K: float64(len(obs) - 1)}.Quantile(1 - 1e-6)
	return stat, crit
}

func lwDraws(t *testing.T) int {
	if testing.Short() {
		return 40000
	}
	return 200000
}

// TestSelectPerMinibatchPairLaw checks the law of s = 2 distinct columns
// drawn from three with probabilities (pa, pb, pc): successive sampling
// gives P({a, b}) = pa·pb·(1/(1-pa) + 1/(1-pb)).
func TestSelectPerMinibatchPairLaw(t *testing.T) {
	cols := []int32{3, 7, 9}
	vals := []float32{5, 3, 2} // pa, pb, pc = 0.5, 0.3, 0.2
	pr := []float64{0.5, 0.3, 0.2}
	pair := func(i, j int) float64 { return pr[i] * pr[j] * (1/(1-pr[i]) + 1/(1-pr[j])) }
	// Subsets in the order {a,b}, {a,c}, {b,c}.
	law := []float64{pair(0, 1), pair(0, 2), pair(1, 2)}
	if sum := law[0] + law[1] + law[2]; sum < 1-1e-12 || sum > 1+1e-12 {
		t.Fatalf("closed-form pair law sums to %v", sum)
	}
	n := lwDraws(t)
	got := SelectPerMinibatch(nwOneRow(n, 10, cols, vals), lwKeys(1, n), 2, SelectOptions{})
	obs := make([]float64, 3)
	for r := range n {
		idx, val := got.Row(r)
		if len(idx) != 2 {
			t.Fatalf("row %d: %d columns, want 2", r, len(idx))
		}
		for j, v := range idx {
			if want := vals[indexOf(cols, v)]; val[j] != want {
				t.Fatalf("row %d: column %d has value %v, want its weight %v", r, v, val[j], want)
			}
		}
		switch {
		case idx[0] == 3 && idx[1] == 7:
			obs[0]++
		case idx[0] == 3 && idx[1] == 9:
			obs[1]++
		case idx[0] == 7 && idx[1] == 9:
			obs[2]++
		default:
			t.Fatalf("row %d: impossible pair %v", r, idx)
		}
	}
	stat, crit := lwChiSquare(obs, law)
	if stat > crit {
		t.Errorf("pair counts %v over %d draws: chi-square %.1f > %.1f (p < 1e-6) for law %v", obs, n, stat, crit, law)
	}
	// The same counts must reject the law of uniform pairs and the law
	// of weights shifted by one position (the off-by-one pick of
	// docs/design.md section 7): the test has the power to fail.
	shifted := []float64{0.2, 0.5, 0.3}
	wrongPair := func(i, j int) float64 {
		return shifted[i] * shifted[j] * (1/(1-shifted[i]) + 1/(1-shifted[j]))
	}
	for name, wrong := range map[string][]float64{
		"uniform": {1.0 / 3, 1.0 / 3, 1.0 / 3},
		"shifted": {wrongPair(0, 1), wrongPair(0, 2), wrongPair(1, 2)},
	} {
		if stat, crit := lwChiSquare(obs, wrong); stat <= crit {
			t.Errorf("pair counts %v do not reject the %s law (chi-square %.1f <= %.1f)", obs, name, stat, crit)
		}
	}
}

func indexOf(s []int32, v int32) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestSelectPerMinibatchReplaceLaw checks draws with replacement: every
// draw picks column v with probability w_v / Σw (never a zero weight), the
// values are count·weight and the counts sum to s.
func TestSelectPerMinibatchReplaceLaw(t *testing.T) {
	cols := []int32{0, 2, 4, 5, 8}
	vals := []float32{1, 0, 2, 3, 4} // column 2 has weight 0
	prob := []float64{0.1, 0.2, 0.3, 0.4}
	const s = 5
	n := lwDraws(t) / s
	got := SelectPerMinibatch(nwOneRow(n, 9, cols, vals), lwKeys(2, n), s, SelectOptions{Replace: true})
	obs := make([]float64, 4)
	slot := map[int32]int{0: 0, 4: 1, 5: 2, 8: 3}
	for r := range n {
		idx, val := got.Row(r)
		drawn := 0
		for j, v := range idx {
			i, ok := slot[v]
			if !ok {
				t.Fatalf("row %d: drew column %d of weight 0", r, v)
			}
			c := val[j] / vals[indexOf(cols, v)]
			if c != float32(int(c)) || c < 1 {
				t.Fatalf("row %d: column %d value %v is not a multiple of its weight", r, v, val[j])
			}
			obs[i] += float64(c)
			drawn += int(c)
		}
		if drawn != s {
			t.Fatalf("row %d: %d draws, want %d", r, drawn, s)
		}
	}
	stat, crit := lwChiSquare(obs, prob)
	if stat > crit {
		t.Errorf("counts %v: chi-square %.1f > %.1f for law %v", obs, stat, crit, prob)
	}
	// Power: the law shifted by one entry must be rejected.
	if stat, crit := lwChiSquare(obs, []float64{0.4, 0.1, 0.2, 0.3}); stat <= crit {
		t.Errorf("counts %v do not reject the shifted law", obs)
	}
}

// TestSelectPerMinibatchSmall checks hand cases: budgets at least the
// support take every positive column; the result does not depend on the
// goroutine count.
func TestSelectPerMinibatchSmall(t *testing.T) {
	p := lwFromDense([][]float32{
		{0, 2, 0, 1, 0},
		{0, 0, 0, 0, 0},
		{3, 0, 0, 0, 1},
	})
	got := lwDense(SelectPerMinibatch(p, lwKeys(3, 3), 4, SelectOptions{}))
	if want := lwDense(p); !reflect.DeepEqual(got, want) {
		t.Errorf("budget above support: got %v, want %v", got, want)
	}
	big := lwRandomGraph(50, 20, true, 4)
	keys := lwKeys(5, big.Rows)
	for _, replace := range []bool{false, true} {
		ref := selectPerMinibatch(big, keys, 6, replace, 1)
		for _, th := range []int{2, 3} {
			if got := selectPerMinibatch(big, keys, 6, replace, th); !reflect.DeepEqual(got, ref) {
				t.Errorf("replace=%v: %d threads differ from 1", replace, th)
			}
		}
		if err := ref.Validate(); err != nil {
			t.Error(err)
		}
		for r := range ref.Rows {
			if n := ref.RowNNZ(r); n > 6 || (!replace && n != min(6, big.RowNNZ(r))) {
				t.Errorf("replace=%v: row %d has %d columns (degree %d)", replace, r, n, big.RowNNZ(r))
			}
		}
	}
	t.Run("keys length", func(t *testing.T) {
		err := spgemm.Maybe(func() { SelectPerMinibatch(p, lwKeys(1, 2), 1, SelectOptions{}) })
		var se spgemm.ShapeError
		if !errors.As(err, &se) {
			t.Fatalf("2 keys for 3 rows: got %v, want a ShapeError panic", err)
		}
	})
}
