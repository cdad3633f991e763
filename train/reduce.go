package train

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/spgemm"
)

// GradReducer is the seam of data-parallel training: the trainer calls it
// after the backward pass of every minibatch and before the optimiser step,
// with the model's flat gradient array (laid out like gnn.Model.Params) and the
// step's metrics. On one process there is none (Data.Reducer nil); with
// several ranks each training its own minibatches, an all-reduce averages
// the gradients, so that every rank takes the same step, and sums the
// metrics, so that every rank reports the same epoch figures.
//
// Reduce replaces grads and *m in place, m.Stops included: the sum of the
// ranks' stop requests, on which the ranks agree to stop after the same
// step (TrainerOptions.Hooks.Stop); a reducer that leaves it as it is stops the
// requesting rank alone. An error ends the epoch; on
// several ranks the implementation must make every rank fail rather than
// hang.
type GradReducer interface {
	Reduce(ctx context.Context, grads []float32, m *StepMetrics) error
}

// StepMetrics are the figures of one training step that an epoch's
// figures sum: the loss summed over the labelled seeds (the mean loss times
// Labelled), the labelled seeds predicted correctly, and the labelled seeds.
type StepMetrics struct {
	LossSum           float64
	Correct, Labelled int64
	// Stops is the number of ranks that asked to stop after this step
	// (TrainerOptions.Hooks.Stop): 0 or 1 before the reduction, the ranks' sum
	// after it. It is not one of Floats.
	Stops int64
}

// Floats returns m's figures as three float64s (LossSum, Correct, Labelled), the
// form an all-reduce of one buffer sums; counts up to 2^53 are exact.
func (m StepMetrics) Floats() [3]float64 {
	return [3]float64{m.LossSum, float64(m.Correct), float64(m.Labelled)}
}

// SetFloats sets m from the form of Floats.
func (m *StepMetrics) SetFloats(v [3]float64) {
	m.LossSum, m.Correct, m.Labelled = v[0], int64(v[1]), int64(v[2])
}

// Evaluator measures a model after an epoch: the single-process one is
// FullNeighbour; a distributed one runs inference over the ranks' vertices.
type Evaluator interface {
	// Evaluate returns, for each of sets, the measures of the model's
	// predictions on its labelled vertices (see Measure) given every
	// vertex's labels; the trainer passes the train, valid and test sets.
	Evaluate(ctx context.Context, m *gnn.Model, labels []int32, sets ...[]int32) ([]gnn.Measures, error)
}

// FullNeighbour evaluates by layer-wise full-neighbour inference over all
// vertices of Adj (gnn.Model.PredictInput).
type FullNeighbour struct {
	// Adj is the n x n adjacency, and Features the n x f row-major input
	// features (the array of featurex.Local.Features) or, for features
	// that are only sparse, SparseFeatures their n x f CSR matrix; one of
	// the two is set.
	Adj            *spgemm.CSR
	Features       []float32
	SparseFeatures *spgemm.CSR
	// ChunkRows is the inference's chunk size; 0 means Predict's default.
	ChunkRows int
}

var _ Evaluator = (*FullNeighbour)(nil)

// NumVertices returns Adj.Rows.
func (e *FullNeighbour) NumVertices() int { return e.Adj.Rows }

// Evaluate predicts every vertex and returns the measures of each set
// (the ROC AUC, for two classes, of the class-1 scores). It returns an
// error when Adj or the features do not fit the model, or when ctx is
// done.
func (e *FullNeighbour) Evaluate(ctx context.Context, m *gnn.Model, labels []int32, sets ...[]int32) ([]gnn.Measures, error) {
	n, f := e.Adj.Rows, m.Options().InFeatures
	x := gnn.Input{Dense: e.Features, Sparse: e.SparseFeatures}
	fits := e.Adj.Cols == n && len(labels) == n
	var rows int
	if x.Sparse != nil {
		rows = x.Sparse.Rows
		fits = fits && x.Dense == nil && x.Sparse.Rows == n && x.Sparse.Cols == f
	} else {
		rows = len(x.Dense) / max(f, 1)
		fits = fits && len(x.Dense) == n*f
	}
	if !fits {
		return nil, fmt.Errorf("train: FullNeighbour: adjacency %d x %d, features of %d rows of %d values and %d labels do not fit %d vertices of %d features",
			e.Adj.Rows, e.Adj.Cols, rows, f, len(labels), n, f)
	}
	pred, score, err := m.PredictScored(ctx, e.Adj, x, e.ChunkRows)
	if err != nil {
		return nil, err
	}
	out := make([]gnn.Measures, len(sets))
	for i, ids := range sets {
		out[i] = gnn.Measure(pred, score, labels, ids, m.Options().Classes)
	}
	return out, nil
}
