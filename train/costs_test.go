package train

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/gnn"
)

// identityReducer is a one-rank GradReducer: it changes nothing, so that the
// trainer measures a communicate phase.
type identityReducer struct{}

func (identityReducer) Reduce(context.Context, []float32, *StepMetrics) error { return nil }

// TestEpochCosts checks that every epoch reports the cost of each phase, in
// order, over the very spans its PhaseTimes time, with and without the
// pipeline.
func TestEpochCosts(t *testing.T) {
	ds := smallGraph(t, 600, 3, 6, 8, 0.8, 0.5, 3)
	for _, tc := range []struct {
		name    string
		reducer GradReducer
		depth   int
		want    []string
	}{
		{"local", nil, 1, []string{PhaseSample, PhaseExtract, PhaseForward, PhaseBackward, PhaseUpdate, PhaseEval}},
		{"reducer", identityReducer{}, 1, []string{PhaseSample, PhaseExtract, PhaseForward, PhaseBackward, PhaseCommunicate, PhaseUpdate, PhaseEval}},
		{"pipelined", nil, 2, []string{PhaseSample, PhaseExtract, PhaseWait, PhaseForward, PhaseBackward, PhaseUpdate, PhaseEval}},
		{"pipelined reducer", identityReducer{}, 2, []string{PhaseSample, PhaseExtract, PhaseWait, PhaseForward, PhaseBackward, PhaseCommunicate, PhaseUpdate, PhaseEval}},
	} {
		data := dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 1))
		data.Reducer = tc.reducer
		tr, err := NewTrainer(data, TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8}, Plan: PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 2}, Seed: 1, Runtime: RuntimeOptions{PipelineDepth: tc.depth}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range res.Epochs {
			var names []string
			for _, p := range st.Costs {
				names = append(names, p.Name)
				if p.Seconds <= 0 || p.CPUSeconds < 0 || p.MinorFaults < 0 || p.AllocBytes < 0 || p.PeakRSSBytes <= 0 {
					t.Errorf("%s: epoch %d: phase %s: %+v", tc.name, st.Epoch, p.Name, p.Cost)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Fatalf("%s: epoch %d: phases %v; want %v", tc.name, st.Epoch, names, tc.want)
			}
			// The wall times are the PhaseTimes' own, up to the nanosecond
			// rounding of each of the epoch's laps.
			tol := 1e-9 * float64(5*st.Minibatches+10)
			c := st.Costs
			for _, p := range []struct {
				name string
				got  float64
				want float64
			}{
				{PhaseSample, c.Get(PhaseSample).Seconds, st.Phases.Sample.Seconds()},
				{PhaseExtract, c.Get(PhaseExtract).Seconds, st.Phases.Extract.Seconds()},
				{PhaseForward, c.Get(PhaseForward).Seconds, st.Phases.Forward.Seconds()},
				{PhaseBackward, c.Get(PhaseBackward).Seconds, st.Phases.Backward.Seconds()},
				{PhaseCommunicate, c.Get(PhaseCommunicate).Seconds, st.Phases.Reduce.Seconds()},
				{PhaseUpdate, c.Get(PhaseUpdate).Seconds, st.Phases.Update.Seconds()},
				{PhaseWait, c.Get(PhaseWait).Seconds, st.Phases.Wait.Seconds()},
				{PhaseEval, c.Get(PhaseEval).Seconds, st.Phases.Eval.Seconds()},
			} {
				if math.Abs(p.got-p.want) > tol {
					t.Errorf("%s: epoch %d: %s costs %.9f s; PhaseTimes %.9f s", tc.name, st.Epoch, p.name, p.got, p.want)
				}
			}
		}
	}
}
