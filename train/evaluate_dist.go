package train

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
)

// RootEvaluator is the gathered evaluation of data-parallel training: one
// rank, Root, holds the whole graph and its features and runs Eval (the
// single-process FullNeighbour, say) while the others wait, then broadcasts
// the accuracies, so that every rank's Evaluate returns the same figures.
// Its memory is the single process's on Root; it suits graphs that fit one
// rank (Cora, CiteSeer, ogbn-products on a large node), not papers100M.
type RootEvaluator struct {
	Comm dist.Comm
	Root int
	// Eval evaluates on Root; it is not called, and may be nil, elsewhere.
	Eval Evaluator
	// Vertices is the graph's number of vertices, for the trainer's check
	// against the feature store (NumVertices); 0 skips it.
	Vertices int
}

var _ Evaluator = (*RootEvaluator)(nil)

// NumVertices returns Vertices.
func (e *RootEvaluator) NumVertices() int { return e.Vertices }

// Evaluate returns Root's measures of sets on every rank. It is
// collective over Comm. When Root's evaluation fails, Root returns its
// error and the other ranks an error naming Root, rather than waiting.
func (e *RootEvaluator) Evaluate(ctx context.Context, m *gnn.Model, labels []int32, sets ...[]int32) ([]gnn.Measures, error) {
	const per = 4                           // Accuracy, MacroF1, AUC, Counted
	buf := make([]float64, 1+per*len(sets)) // ok flag, then the measures
	var err error
	if e.Comm.Rank() == e.Root {
		var ms []gnn.Measures
		if e.Eval == nil {
			err = fmt.Errorf("train: RootEvaluator: no Eval on rank %d", e.Root)
		} else if ms, err = e.Eval.Evaluate(ctx, m, labels, sets...); err == nil && len(ms) != len(sets) {
			err = fmt.Errorf("train: RootEvaluator: %d measures for %d vertex sets", len(ms), len(sets))
		}
		if err == nil {
			buf[0] = 1
			for i, s := range ms {
				copy(buf[1+per*i:], []float64{s.Accuracy, s.MacroF1, s.AUC, float64(s.Counted)})
			}
		}
	}
	if berr := e.Comm.Bcast(ctx, dist.PhaseControl, e.Root, buf); berr != nil {
		return nil, fmt.Errorf("train: broadcast the measures: %w", berr)
	}
	switch {
	case err != nil:
		return nil, err
	case buf[0] == 0:
		return nil, fmt.Errorf("train: the evaluation failed on rank %d", e.Root)
	}
	out := make([]gnn.Measures, len(sets))
	for i := range out {
		b := buf[1+per*i:]
		out[i] = gnn.Measures{Accuracy: b[0], MacroF1: b[1], AUC: b[2], Counted: int(b[3])}
	}
	return out, nil
}
