package gnn

// The measures of a model's predictions on a vertex set: accuracy,
// macro-averaged F1 and, for two classes, the area under the ROC curve of
// class 1's score. They are computed from counts that add over the parts
// of a set (Confusion), so that the ranks of a distributed evaluation sum
// theirs, and, for the AUC, from the scores themselves.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Metric is the measure that ranks the evaluated epochs of a run: the
// epoch of the best valid Metric is reported, its weights kept
// (train.Trainer.BestParams), and early stopping (train.EvalOptions.Patience) waits for
// it to improve.
type Metric int

const (
	// MetricAuto is MetricAUC for two classes and MetricAccuracy
	// otherwise (Metric.For): the measures Platonov et al. (ICLR 2023)
	// report for binary and multi-class node classification.
	MetricAuto Metric = iota
	// MetricAccuracy is the fraction of the labelled vertices whose
	// arg-max class is their label.
	MetricAccuracy
	// MetricAUC is the area under the ROC curve of class 1's score
	// (logit 1 minus logit 0, a monotone function of its softmax
	// probability), for two classes (ROCAUC).
	MetricAUC
	// MetricMacroF1 is the unweighted mean of the classes' F1 scores
	// (MacroF1).
	MetricMacroF1
)

var metricNames = [...]string{MetricAuto: "auto", MetricAccuracy: "accuracy", MetricAUC: "auc", MetricMacroF1: "macro-f1"}

// String returns the metric's command-line name.
func (m Metric) String() string {
	if m >= 0 && int(m) < len(metricNames) {
		return metricNames[m]
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// Title returns the metric's name in a sentence ("ROC AUC").
func (m Metric) Title() string {
	switch m {
	case MetricAccuracy:
		return "accuracy"
	case MetricAUC:
		return "ROC AUC"
	case MetricMacroF1:
		return "macro-F1"
	}
	return m.String()
}

// ParseMetric returns the metric named s ("auto", "accuracy", "auc" or
// "macro-f1").
func ParseMetric(s string) (Metric, error) {
	for m, name := range metricNames {
		if s == name {
			return Metric(m), nil
		}
	}
	return 0, fmt.Errorf("gnn: unknown metric %q (want auto, accuracy, auc or macro-f1)", s)
}

// For returns the metric for data of classes classes: MetricAuto resolved,
// any other metric itself.
func (m Metric) For(classes int) Metric {
	if m != MetricAuto {
		return m
	}
	if classes == 2 {
		return MetricAUC
	}
	return MetricAccuracy
}

// Measures are the figures of a model's predictions on the labelled
// vertices of one set (vertices labelled -1 are not counted).
type Measures struct {
	// Accuracy is the fraction of the counted vertices predicted right.
	Accuracy float64
	// MacroF1 is the mean F1 over the classes that occur among the
	// counted vertices' labels or predictions (MacroF1).
	MacroF1 float64
	// AUC is the ROC AUC of class 1's score for two classes (ROCAUC); NaN
	// for more classes, and when the set lacks one of the two.
	AUC float64
	// Counted is the number of labelled vertices measured.
	Counted int
}

// Value returns the measure that m names (m resolved: not MetricAuto).
func (s Measures) Value(m Metric) float64 {
	switch m {
	case MetricAUC:
		return s.AUC
	case MetricMacroF1:
		return s.MacroF1
	}
	return s.Accuracy
}

// Confusion holds the counts that accuracy and macro-F1 are made of, per
// class: the vertices labelled c (Labelled[c]), those predicted c
// (Predicted[c]) and those both (Correct[c]). Counts of the parts of a set
// add up to the set's (Add, Floats), so that distributed ranks sum theirs.
type Confusion struct {
	Correct, Labelled, Predicted []int64
}

// NewConfusion returns empty counts for classes classes.
func NewConfusion(classes int) Confusion {
	c := make([]int64, 3*classes)
	return Confusion{Correct: c[:classes:classes], Labelled: c[classes : 2*classes : 2*classes], Predicted: c[2*classes:]}
}

// Count adds the vertices ids (those labelled, label >= 0) with their
// predictions pred[v] (indexed by vertex, like labels).
func (c Confusion) Count(pred, labels []int32, ids []int32) {
	for _, v := range ids {
		y := labels[v]
		if y < 0 {
			continue
		}
		p := pred[v]
		c.Labelled[y]++
		c.Predicted[p]++
		if p == y {
			c.Correct[y]++
		}
	}
}

// Floats returns the counts as float64s (Correct, Labelled, Predicted in
// turn), the form of an all-reduce; SetFloats reads them back. Counts up
// to 2^53 are exact.
func (c Confusion) Floats() []float64 {
	k := len(c.Correct)
	f := make([]float64, 3*k)
	for j := range k {
		f[j], f[k+j], f[2*k+j] = float64(c.Correct[j]), float64(c.Labelled[j]), float64(c.Predicted[j])
	}
	return f
}

// SetFloats sets c from the form of Floats.
func (c Confusion) SetFloats(f []float64) {
	k := len(c.Correct)
	for j := range k {
		c.Correct[j], c.Labelled[j], c.Predicted[j] = int64(f[j]), int64(f[k+j]), int64(f[2*k+j])
	}
}

// Measures returns the accuracy, macro-F1 and count of c; AUC is NaN (the
// counts do not determine it).
func (c Confusion) Measures() Measures {
	var correct, counted int64
	for j := range c.Correct {
		correct += c.Correct[j]
		counted += c.Labelled[j]
	}
	s := Measures{Counted: int(counted), AUC: math.NaN()}
	if counted > 0 {
		s.Accuracy = float64(correct) / float64(counted)
	}
	s.MacroF1 = macroF1(c)
	return s
}

// macroF1 is MacroF1 from the counts.
func macroF1(c Confusion) float64 {
	var sum float64
	classes := 0
	for j := range c.Correct {
		// F1 = 2·TP / (2·TP + FP + FN), and 2·TP + FP + FN is the
		// vertices labelled j plus those predicted j.
		d := c.Labelled[j] + c.Predicted[j]
		if d == 0 {
			continue // neither a label nor a prediction of the set
		}
		classes++
		sum += 2 * float64(c.Correct[j]) / float64(d)
	}
	if classes == 0 {
		return 0
	}
	return sum / float64(classes)
}

// MacroF1 returns the unweighted mean of the classes' F1 scores,
// 2·TP/(2·TP+FP+FN), over the vertices ids (those labelled) with
// predictions pred[v], of classes classes. The mean runs over the classes
// that occur among the labels or the predictions of those vertices, as
// scikit-learn's f1_score(average="macro") does by default; 0 when no
// vertex is counted.
func MacroF1(pred, labels []int32, ids []int32, classes int) float64 {
	c := NewConfusion(classes)
	c.Count(pred, labels, ids)
	return macroF1(c)
}

// ROCAUC returns the area under the ROC curve of the scores of the
// vertices ids (those labelled 0 or 1; others are skipped), score[v] being
// vertex v's score for class 1: the probability that a positive vertex
// scores above a negative one, a tie counting one half (the
// Mann-Whitney statistic with mid-ranks), which is what scikit-learn's
// roc_auc_score computes, ties included. It returns NaN when the vertices
// lack positives or negatives, where roc_auc_score raises an error. It
// costs a sort of the counted vertices.
func ROCAUC(score []float64, labels []int32, ids []int32) float64 {
	var pts []ScoredLabel
	for _, v := range ids {
		if y := labels[v]; y == 0 || y == 1 {
			pts = append(pts, ScoredLabel{Score: score[v], Positive: y == 1})
		}
	}
	return AUCOf(pts)
}

// ScoredLabel is a vertex's score for class 1 and whether it is labelled 1.
type ScoredLabel struct {
	Score    float64
	Positive bool
}

// AUCOf returns the ROC AUC of pts (see ROCAUC), sorting pts in place: the
// form in which a distributed evaluation gathers the ranks' vertices.
func AUCOf(pts []ScoredLabel) float64 {
	slices.SortFunc(pts, func(a, b ScoredLabel) int { return cmp.Compare(a.Score, b.Score) })
	var pos, neg int64
	var rankSum float64 // the sum of the positives' (mid-)ranks, 1-based
	for i := 0; i < len(pts); {
		j := i
		for j < len(pts) && pts[j].Score == pts[i].Score {
			j++
		}
		// Ranks i+1..j share their mean.
		mid := float64(i+1+j) / 2
		for _, p := range pts[i:j] {
			if p.Positive {
				pos++
				rankSum += mid
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	// U = rankSum - pos(pos+1)/2 counts the (positive, negative) pairs in
	// order, ties one half.
	u := rankSum - float64(pos)*float64(pos+1)/2
	return u / (float64(pos) * float64(neg))
}

// Measure returns the measures of the predictions pred and, for two
// classes, the class-1 scores score (nil: no AUC) on the vertices ids.
func Measure(pred []int32, score []float64, labels []int32, ids []int32, classes int) Measures {
	c := NewConfusion(classes)
	c.Count(pred, labels, ids)
	s := c.Measures()
	if classes == 2 && score != nil {
		s.AUC = ROCAUC(score, labels, ids)
	}
	return s
}
