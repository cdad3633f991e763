package train

import (
	"time"

	"github.com/bulksample/bulksample/internal/procstat"
)

// Cost is what a span of work cost the process: wall and CPU time, page
// faults, bytes allocated on the Go heap, garbage collection and the peak
// resident set. EpochStats.Costs reports one per phase of training.
type Cost = procstat.Cost

// PhaseCosts lists the costs of named phases in the order they first ran;
// its JSON form is an object keyed by phase name.
type PhaseCosts = procstat.Phases

// The phases of EpochStats.Costs.
const (
	PhaseSample      = "sample"      // SampleBulk
	PhaseExtract     = "extract"     // feature and label gathering (the feature exchange)
	PhaseForward     = "forward"     // forward pass and loss
	PhaseBackward    = "backward"    // backward pass
	PhaseCommunicate = "communicate" // the GradReducer (data-parallel training only)
	PhaseUpdate      = "update"      // the optimiser step
	PhaseWait        = "wait"        // the training goroutine waiting for the pipeline
	PhaseEval        = "eval"        // evaluation
)

// lap ends the trainer's current measured span as phase name and returns
// its wall time.
func (t *Trainer) lap(name string) time.Duration {
	return time.Duration(t.meter.End(name).Seconds * float64(time.Second))
}
