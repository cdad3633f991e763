package gnn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestROCAUCByHand checks ROCAUC against values computed by hand (and by
// scikit-learn's roc_auc_score, which gives the same): the pairs of a
// positive and a negative in order, a tie counting one half.
func TestROCAUCByHand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels []int32
		score  []float64
		want   float64
	}{
		// roc_auc_score's documentation example: 3 of 4 pairs in order.
		{"sklearn example", []int32{0, 0, 1, 1}, []float64{0.1, 0.4, 0.35, 0.8}, 0.75},
		{"all tied", []int32{0, 1, 0, 1}, []float64{0.5, 0.5, 0.5, 0.5}, 0.5},
		// Positives 0.9, 0.3, 0.9; negatives 0.9, 0.2: pairs 0.5+1, 0+1,
		// 0.5+1 = 4 of 6.
		{"ties across classes", []int32{1, 0, 1, 0, 1}, []float64{0.9, 0.9, 0.3, 0.2, 0.9}, 4.0 / 6},
		{"perfect", []int32{0, 1, 0, 1}, []float64{-2, 3, -1, 0}, 1},
		{"reversed", []int32{0, 1, 0, 1}, []float64{2, -3, 1, 0}, 0},
		// Unlabelled (-1) vertices are skipped: the first example again.
		{"unlabelled skipped", []int32{0, -1, 0, 1, 1}, []float64{0.1, 100, 0.4, 0.35, 0.8}, 0.75},
	} {
		ids := make([]int32, len(tc.labels))
		for i := range ids {
			ids[i] = int32(i)
		}
		if got := ROCAUC(tc.score, tc.labels, ids); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: ROCAUC = %v; want %v", tc.name, got, tc.want)
		}
	}
	if got := ROCAUC([]float64{1, 2}, []int32{1, 1}, []int32{0, 1}); !math.IsNaN(got) {
		t.Errorf("ROCAUC of positives only = %v; want NaN", got)
	}
}

// TestROCAUCPairs compares ROCAUC with the count of all (positive,
// negative) pairs on seeded random scores drawn from a few values, so that
// ties are frequent.
func TestROCAUCPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + rng.IntN(60)
		labels, score, ids := make([]int32, n), make([]float64, n), make([]int32, n)
		for i := range n {
			labels[i] = int32(rng.IntN(2))
			score[i] = float64(rng.IntN(5))
			ids[i] = int32(i)
		}
		var pairs, inOrder float64
		for i := range n {
			for j := range n {
				if labels[i] == 1 && labels[j] == 0 {
					pairs++
					switch {
					case score[i] > score[j]:
						inOrder++
					case score[i] == score[j]:
						inOrder += 0.5
					}
				}
			}
		}
		got := ROCAUC(score, labels, ids)
		if pairs == 0 {
			if !math.IsNaN(got) {
				t.Errorf("trial %d: one class only: %v; want NaN", trial, got)
			}
			continue
		}
		if want := inOrder / pairs; math.Abs(got-want) > 1e-12 {
			t.Errorf("trial %d: ROCAUC = %v; want %v (pairs)", trial, got, want)
		}
	}
}

// TestMacroF1ByHand: labels 0 0 1 1 2 predicted 0 1 1 1 0 have F1 0.5,
// 0.8 and 0 for the three classes, 0.4333 on average (scikit-learn's
// f1_score(average="macro") gives the same); a class that is neither a
// label nor a prediction (class 3 of 4) is not averaged.
func TestMacroF1ByHand(t *testing.T) {
	labels := []int32{0, 0, 1, 1, 2, -1}
	pred := []int32{0, 1, 1, 1, 0, 3}
	ids := []int32{0, 1, 2, 3, 4, 5}
	want := (0.5 + 0.8 + 0) / 3
	if got := MacroF1(pred, labels, ids, 4); math.Abs(got-want) > 1e-15 {
		t.Errorf("MacroF1 = %v; want %v", got, want)
	}
	s := Measure(pred, nil, labels, ids, 4)
	if s.Counted != 5 || math.Abs(s.Accuracy-0.6) > 1e-15 || math.Abs(s.MacroF1-want) > 1e-15 || !math.IsNaN(s.AUC) {
		t.Errorf("Measure = %+v; want 5 counted, accuracy 0.6, macro-F1 %v, AUC NaN", s, want)
	}
	if got := MacroF1(pred, labels, nil, 4); got != 0 {
		t.Errorf("MacroF1 of no vertex = %v; want 0", got)
	}
}

// TestConfusionAdds: the counts of two halves of a set, summed through
// Floats, give the whole set's measures.
func TestConfusionAdds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, classes = 200, 5
	labels, pred, ids := make([]int32, n), make([]int32, n), make([]int32, n)
	for i := range n {
		labels[i], pred[i], ids[i] = int32(rng.IntN(classes+1))-1, int32(rng.IntN(classes)), int32(i)
	}
	a, b := NewConfusion(classes), NewConfusion(classes)
	a.Count(pred, labels, ids[:77])
	b.Count(pred, labels, ids[77:])
	fa, fb := a.Floats(), b.Floats()
	for i := range fa {
		fa[i] += fb[i]
	}
	sum := NewConfusion(classes)
	sum.SetFloats(fa)
	got, want := sum.Measures(), Measure(pred, nil, labels, ids, classes)
	if got.Accuracy != want.Accuracy || got.MacroF1 != want.MacroF1 || got.Counted != want.Counted {
		t.Errorf("summed halves %+v; whole set %+v", got, want)
	}
}

func TestMetricFor(t *testing.T) {
	for _, tc := range []struct {
		m       Metric
		classes int
		want    Metric
	}{
		{MetricAuto, 2, MetricAUC}, {MetricAuto, 7, MetricAccuracy}, {MetricMacroF1, 2, MetricMacroF1}, {MetricAccuracy, 2, MetricAccuracy},
	} {
		if got := tc.m.For(tc.classes); got != tc.want {
			t.Errorf("%v.For(%d) = %v; want %v", tc.m, tc.classes, got, tc.want)
		}
	}
	for _, name := range []string{"auto", "accuracy", "auc", "macro-f1"} {
		m, err := ParseMetric(name)
		if err != nil || m.String() != name {
			t.Errorf("ParseMetric(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := ParseMetric("f2"); err == nil {
		t.Error("ParseMetric(f2): no error")
	}
}

// TestNormalCDF: Φ and φ of NormalCDF are within 1e-7 and 1e-15 of the
// float64 erf and exp forms on [-8, 8], and Φ is monotone there.
func TestNormalCDF(t *testing.T) {
	prev := -1.0
	for i := -8000; i <= 8000; i++ {
		x := float64(i) / 1000
		cdf, pdf := NormalCDF(x)
		want := 0.5 * (1 + math.Erf(x/math.Sqrt2))
		if math.Abs(cdf-want) > 1e-7 || math.Abs(pdf-math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)) > 1e-15 {
			t.Fatalf("NormalCDF(%v) = %v, %v; want %v, %v", x, cdf, pdf, want, math.Exp(-x*x/2)/math.Sqrt(2*math.Pi))
		}
		if cdf < prev {
			t.Fatalf("Φ(%v) = %v below Φ(%v) = %v", x, cdf, x-0.001, prev)
		}
		prev = cdf
	}
}
