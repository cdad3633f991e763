package gnn_test

import (
	"fmt"

	"github.com/bulksample/bulksample/gnn"
)

// ExampleROCAUC measures four vertices' class-1 scores: of the four
// (positive, negative) pairs, three are in order (scikit-learn's
// roc_auc_score gives the same 0.75), and a tie counts one half.
func ExampleROCAUC() {
	labels := []int32{0, 0, 1, 1}
	score := []float64{0.1, 0.4, 0.35, 0.8}
	ids := []int32{0, 1, 2, 3}
	fmt.Println(gnn.ROCAUC(score, labels, ids))
	fmt.Println(gnn.ROCAUC([]float64{0.5, 0.5, 0.5, 0.5}, labels, ids))
	// Output:
	// 0.75
	// 0.5
}

// ExampleMeasure gives the accuracy and macro-F1 of predictions on five
// labelled vertices of three classes (F1 0.5, 0.8 and 0; vertex 5 is
// unlabelled and not counted).
func ExampleMeasure() {
	labels := []int32{0, 0, 1, 1, 2, -1}
	pred := []int32{0, 1, 1, 1, 0, 2}
	m := gnn.Measure(pred, nil, labels, []int32{0, 1, 2, 3, 4, 5}, 3)
	fmt.Printf("accuracy %.2f, macro-F1 %.4f, %d counted\n", m.Accuracy, m.MacroF1, m.Counted)
	// Output: accuracy 0.60, macro-F1 0.4333, 5 counted
}

// ExampleMetric_For: the default metric is ROC AUC for two classes and
// accuracy otherwise.
func ExampleMetric_For() {
	fmt.Println(gnn.MetricAuto.For(2), gnn.MetricAuto.For(7), gnn.MetricMacroF1.For(2))
	// Output: auc accuracy macro-f1
}
