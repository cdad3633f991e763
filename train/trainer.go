package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// DefaultEpochs is the number of epochs when TrainerOptions.Plan.Epochs is 0.
const DefaultEpochs = 10

// TrainerOptions configure a training run, in groups: the model, the
// optimiser, the plan of the epochs, the runtime, the checkpoints and the
// hooks through which a caller follows and stops the run. The zero value of
// each field means its documented default; Validate names the first bad
// field by its path (Plan.Epochs).
type TrainerOptions struct {
	// Model describes the model; the number of graph layers is the
	// sampler's NumLayers, the input width and the classes the data's.
	Model ModelOptions
	// Optimizer configures Adam.
	Optimizer OptimizerOptions
	// Plan cuts the epochs into minibatches and bulks.
	Plan PlanOptions
	// Eval says when the model is evaluated, which metric ranks the
	// epochs, and when training stops early.
	Eval EvalOptions
	// Seed determines the epochs' permutations, the initial weights and
	// the dropout masks (the sampler has its own seed).
	Seed uint64
	// Runtime says where and how the work runs; it never changes the
	// result.
	Runtime RuntimeOptions
	// Checkpoint saves the run's progress and resumes it.
	Checkpoint CheckpointOptions
	// Hooks let the caller follow and stop the run.
	Hooks Hooks
}

// ModelOptions describes the model a Trainer trains: the fields of
// gnn.ModelOptions that are not the data's (the input width, the classes),
// the sampler's (the number of layers) or the runtime's.
type ModelOptions struct {
	// Arch is the architecture; the zero value is SAGE.
	Arch gnn.Arch
	// Hidden is the width of the hidden layers; 0 means gnn.DefaultHidden.
	Hidden int
	// Dropout is the probability, in [0, 1), of zeroing an element of a
	// layer's input in training; 0 means none.
	Dropout float32
	// GCNNorm selects the degrees GCN normalises with; with the default,
	// GCNGraphNorm, the sampler must supply them (a
	// sampling.DegreeProvider that provides them, as a NodeWise with
	// sampling.NodeWiseOptions.Degrees does).
	GCNNorm gnn.GCNNorm
	// Residual and Norm select the residual architecture (see
	// gnn.ModelOptions): skip connections around every graph layer and layer
	// normalisation, the setup of Platonov et al. (ICLR 2023).
	Residual bool
	Norm     gnn.Norm
}

// OptimizerOptions configures the optimiser.
type OptimizerOptions struct {
	// Adam configures Adam; its zero fields mean their defaults.
	Adam gnn.AdamOptions
	// WeightDecayFirstLayer limits Adam's weight decay to the parameters
	// of the first layer (its weights and bias; gnn.AdamOptions.DecayedParams),
	// as Kipf and Welling's GCN and PyG's GCN example regularise; false
	// decays every parameter.
	WeightDecayFirstLayer bool
}

// PlanOptions cuts the epochs into minibatches and bulks.
type PlanOptions struct {
	// BatchSize (b) and BulkSize (k) cut each epoch's permutation of the
	// training vertices into minibatches and bulks; 0 means the defaults
	// of sampling.PlanOptions.
	BatchSize, BulkSize int
	// Epochs is the number of epochs of the whole run (a resumed run
	// continues up to it); 0 means DefaultEpochs.
	Epochs int
}

// EvalOptions says when a run evaluates its model, by which metric it ranks
// the evaluated epochs, and when it stops early. The epoch of the best
// valid metric is the run's result (Result.BestEpoch): its test figures
// are reported and its weights kept (Trainer.BestParams), as Platonov et
// al. (ICLR 2023) and PyG's examples report the best validation step's.
type EvalOptions struct {
	// Metric ranks the evaluated epochs; gnn.MetricAuto, the default, is ROC
	// AUC for two classes and accuracy otherwise.
	Metric gnn.Metric
	// Every evaluates after every Every-th epoch only, and after the last;
	// 0 or 1 evaluates after every epoch. An evaluation is full-neighbour
	// inference over the whole graph, which can cost several epochs of
	// minibatch training.
	Every int
	// Patience, when > 0, ends the run after Patience evaluations in a row
	// without a better valid Metric than the best so far (early
	// stopping; Result.EarlyStopped); 0, the default, trains every epoch
	// of Plan.Epochs and still reports the best one.
	Patience int
}

// RuntimeOptions says where and how the work runs. The weights are the same
// bit for bit whatever its values.
type RuntimeOptions struct {
	// Threads is the number of goroutines of the sparse products and, with
	// OpenBLAS, of the dense ones; 0 means GOMAXPROCS.
	Threads int
	// PureGoBLAS selects gonum's pure-Go BLAS even in builds with OpenBLAS.
	PureGoBLAS bool
	// Backend runs the model's operations; nil means the CPU backend with
	// Threads and PureGoBLAS.
	Backend gnn.Backend
	// PipelineDepth is the number of minibatches, and of bulks, in flight
	// at once: with 2, the default, the next bulk is sampled and the next
	// minibatch's features gathered on other goroutines while the current
	// minibatch trains (see the package documentation, Pipeline); 1 runs
	// every phase in turn on the training goroutine. 0 means
	// DefaultPipelineDepth. NewTrainer lowers 2 to 1 when two components
	// communicate on a library that does not allow it from two goroutines
	// at once (CommUser).
	PipelineDepth int
	// NoEval skips the evaluation after each epoch (no epoch is
	// Evaluated; ValAcc and TestAcc stay 0), for benchmarks of the
	// training loop.
	NoEval bool
}

// CheckpointOptions saves the run's progress and resumes it.
type CheckpointOptions struct {
	// Dir, when set, is the directory where the model, the optimiser state
	// and the history are saved atomically after every epoch (or as Every
	// and Interval say), after the last one, and when a run is stopped.
	Dir string
	// Every, when > 0, saves the checkpoint after every Every-th epoch
	// only (and after the last); Interval, when > 0, after an epoch that
	// ends at least that long after the last save (or the run's start).
	// With both, either one saves; with neither, every epoch does. An
	// epoch not saved is trained again by a resumed run, with the same
	// result.
	Every    int
	Interval time.Duration
	// Resume continues from the checkpoint in Dir when there is one (and
	// starts afresh when there is none). A checkpoint written with other
	// options is refused with an error naming each option that differs:
	// the trainer's own, the split's fingerprint, the sampler's
	// (sampling.Fingerprinter) and the data's (Data.Fingerprint).
	Resume bool
	// Lock, when not nil, is the claim on Dir (LockCheckpoint) that the
	// caller took and holds for longer than Run (the command line takes
	// it before it loads the data, so that a second run in the folder
	// stops at once). nil: Run claims Dir itself, on the rank that writes
	// the checkpoints, for as long as it runs, and fails with an error
	// wrapping ErrCheckpointInUse when another run holds it.
	Lock *CheckpointLock
}

// Hooks let the caller follow and stop a run.
type Hooks struct {
	// OnMinibatch, when set, is called after every minibatch of every epoch
	// with the number of minibatches done and the epoch's total (for
	// progress bars). It runs on the training goroutine.
	OnMinibatch func(epoch, done, total int)
	// OnResume, when set, is called once by a Run that resumed from a
	// checkpoint, before it trains: with the epochs the checkpoint holds
	// complete and, when it was saved in the middle of the next epoch
	// (a stopped run), the minibatches of that epoch it holds, of total
	// (0 otherwise). Result.ResumedFrom and ResumedMinibatches say the same.
	OnResume func(epochsDone, minibatches, total int)
	// Notes is where the trainer writes what a user should know and would
	// otherwise not see: once per trainer, that the program was built
	// without the openblas tag and trains with pure-Go BLAS, about 4x
	// slower (gnn.PureGoBLASNote); and when Run starts, the stale temporary
	// checkpoint files it removed from Checkpoint.Dir. nil means
	// os.Stderr; io.Discard silences them.
	Notes io.Writer
	// Stop, when not nil, asks Run to stop at a step boundary once it is
	// closed (the CLI closes it on SIGINT or SIGTERM in a distributed run):
	// Run finishes the step in progress, saves a checkpoint of the epoch's
	// progress when Checkpoint.Dir is set, as it does when ctx is
	// cancelled, and returns a *StoppedError wrapping ErrStopRequested.
	// Unlike cancelling ctx it interrupts no collective, so that the ranks
	// of a data-parallel run stop together: the request travels in the
	// step's all-reduce (StepMetrics.Stops), a request on any rank stops
	// every rank after the same step, the pipeline's collectives in
	// flight complete alike on every rank, rank 0 writes the checkpoint
	// and the other ranks wait until it is written. A request made during
	// an epoch's evaluation takes effect after the next step; one made
	// after the last step is ignored. nil: only ctx stops a run.
	Stop <-chan struct{}
}

// Validate returns an error naming the first invalid field of o by its
// path (an *option.Error of package option: "train:
// TrainerOptions.Plan.Epochs = -1, want > 0 (or 0 for 10)"). Options that
// depend on the data (the model's input width, the sampler's layers) are
// checked by NewTrainer.
func (o *TrainerOptions) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("train", "TrainerOptions", field, value, format, args...)
	}
	a := o.Optimizer.Adam
	switch {
	case o.Model.Arch < gnn.SAGE || o.Model.Arch > gnn.Linear:
		return bad("Model.Arch", int(o.Model.Arch), "want SAGE, GCN or Linear")
	case o.Model.Hidden < 0:
		return bad("Model.Hidden", o.Model.Hidden, "want > 0 (or 0 for %d)", gnn.DefaultHidden)
	case !(o.Model.Dropout >= 0 && o.Model.Dropout < 1):
		return bad("Model.Dropout", o.Model.Dropout, "want a probability in [0, 1)")
	case o.Model.GCNNorm < gnn.GCNGraphNorm || o.Model.GCNNorm > gnn.GCNBlockNorm:
		return bad("Model.GCNNorm", int(o.Model.GCNNorm), "want GCNGraphNorm or GCNBlockNorm")
	case o.Model.Norm < gnn.NormNone || o.Model.Norm > gnn.NormLayer:
		return bad("Model.Norm", int(o.Model.Norm), "want NormNone or NormLayer")
	case o.Model.Arch == gnn.Linear && (o.Model.Residual || o.Model.Norm != gnn.NormNone):
		return option.With(bad("Model.Residual", o.Model.Residual, "the residual architecture (Residual, Norm) is for SAGE and GCN; Linear reads no block"), "Model.Arch")
	case !(a.LR >= 0) || math.IsInf(a.LR, 0):
		return bad("Optimizer.Adam.LR", a.LR, "want a finite value > 0 (or 0 for %g)", gnn.DefaultLR)
	case !(a.WeightDecay >= 0) || math.IsInf(a.WeightDecay, 0):
		return bad("Optimizer.Adam.WeightDecay", a.WeightDecay, "want a finite value >= 0")
	case o.Plan.BatchSize < 0:
		return bad("Plan.BatchSize", o.Plan.BatchSize, "want > 0 (or 0 for %d)", sampling.DefaultBatchSize)
	case o.Plan.BulkSize < 0:
		return bad("Plan.BulkSize", o.Plan.BulkSize, "want > 0 (or 0 for %d)", sampling.DefaultBulkSize)
	case o.Plan.Epochs < 0:
		return bad("Plan.Epochs", o.Plan.Epochs, "want > 0 (or 0 for %d)", DefaultEpochs)
	case o.Runtime.Threads < 0:
		return bad("Runtime.Threads", o.Runtime.Threads, "want >= 0 (0: GOMAXPROCS)")
	case o.Runtime.PipelineDepth < 0 || o.Runtime.PipelineDepth > 2:
		return bad("Runtime.PipelineDepth", o.Runtime.PipelineDepth, "want 1 (no pipeline), 2 (or 0 for %d)", DefaultPipelineDepth)
	case o.Eval.Metric < gnn.MetricAuto || o.Eval.Metric > gnn.MetricMacroF1:
		return bad("Eval.Metric", int(o.Eval.Metric), "want MetricAuto, MetricAccuracy, MetricAUC or MetricMacroF1")
	case o.Eval.Every < 0:
		return bad("Eval.Every", o.Eval.Every, "want >= 1 (or 0 for every epoch)")
	case o.Eval.Patience < 0:
		return bad("Eval.Patience", o.Eval.Patience, "want >= 1 (or 0 for no early stopping)")
	case o.Checkpoint.Resume && o.Checkpoint.Dir == "":
		return bad("Checkpoint.Resume", true, "needs a Checkpoint.Dir")
	case o.Checkpoint.Every < 0:
		return bad("Checkpoint.Every", o.Checkpoint.Every, "want >= 0 (0: every epoch)")
	case o.Checkpoint.Interval < 0:
		return bad("Checkpoint.Interval", o.Checkpoint.Interval, "want >= 0")
	case o.Checkpoint.Lock != nil && !o.Checkpoint.Lock.claims(o.Checkpoint.Dir):
		return bad("Checkpoint.Lock", o.Checkpoint.Lock.Dir(), "claims another folder than Checkpoint.Dir %q", o.Checkpoint.Dir)
	}
	if err := a.Validate(); err != nil {
		return option.Prefixed(err, "Optimizer.Adam")
	}
	return nil
}

// ErrStopRequested is the error a *StoppedError wraps when Run stopped at
// the request of TrainerOptions.Hooks.Stop (on this rank or on another).
var ErrStopRequested = errors.New("train: stop requested")

// DefaultPipelineDepth is TrainerOptions.Runtime.PipelineDepth's default.
const DefaultPipelineDepth = 2

// PhaseTimes are the wall times of the phases of training. With the
// pipeline (TrainerOptions.Runtime.PipelineDepth 2), Sample and Extract are measured
// on the goroutines that sample and gather, and overlap the training
// goroutine's phases, so that the phases add up to more than the epoch's
// time; Wait is then the part of them the training goroutine did not hide.
type PhaseTimes struct {
	Sample time.Duration // SampleBulk
	// Extract is the gathering of the minibatches' input features and
	// labels: the feature exchange when the feature store is distributed.
	Extract  time.Duration
	Forward  time.Duration // forward pass and loss
	Backward time.Duration // backward pass
	Reduce   time.Duration // the GradReducer: the gradient all-reduce (data-parallel training only)
	Update   time.Duration // the optimiser step
	// Wait is the time the training goroutine waited for the pipeline to
	// deliver a loaded minibatch (0 without the pipeline).
	Wait time.Duration
	Eval time.Duration // full-neighbour inference on all vertices
}

// Train returns the sum of the training phases (all but Eval); with the
// pipeline, phases overlap and the sum exceeds the epoch's wall time.
func (p PhaseTimes) Train() time.Duration {
	return p.Sample + p.Extract + p.Compute() + p.Reduce + p.Wait
}

// Compute returns the time of the model's own work: forward, backward and
// the optimiser step.
func (p PhaseTimes) Compute() time.Duration { return p.Forward + p.Backward + p.Update }

// EpochStats are the figures of one epoch.
type EpochStats struct {
	Epoch    int     // 0-based
	Loss     float64 // mean training loss over the labelled seeds
	TrainAcc float64 // accuracy on the seeds during training (with dropout)
	ValAcc   float64 // accuracy of full-neighbour inference on the valid set
	TestAcc  float64 // and on the test set
	// Evaluated says whether the Evaluator measured the model after this
	// epoch (EvalOptions.Every, Runtime.NoEval); Train, Valid and Test are
	// then the measures of full-neighbour inference (without dropout) on
	// the three sets (Valid.Accuracy is ValAcc), and zero otherwise.
	Evaluated          bool
	Train, Valid, Test gnn.Measures
	Minibatches        int
	// SampledEdges is the number of entries of all the epoch's blocks.
	SampledEdges int64
	Phases       PhaseTimes
	// Costs is what each phase cost the process, measured over the same
	// spans as Phases: wall and CPU time, page faults, heap allocation, GC
	// and peak resident memory, in the order PhaseSample, PhaseExtract,
	// PhaseWait (only with the pipeline), PhaseForward, PhaseBackward,
	// PhaseCommunicate (only with a GradReducer; Phases.Reduce),
	// PhaseUpdate, PhaseEval. A cost covers the whole process over its span:
	// with the pipeline the spans of the loading goroutines overlap the
	// training goroutine's, and CPU time, faults and allocations of the
	// overlapped work count in both.
	Costs PhaseCosts
	// Seconds is the epoch's training wall time (without evaluation).
	Seconds float64
	// SEPS is SampledEdges divided by the sampling time (docs/design.md section
	// 8): the sampler's throughput inside training.
	SEPS float64
	// RSSBytes is the process's resident set size and HeapBytes the Go
	// heap's live and not yet swept objects (runtime.MemStats.HeapAlloc),
	// both read at the end of the epoch, after its evaluation: their
	// curve over the epochs shows whether a run's memory grows. RSSBytes is
	// -1 where the operating system does not say.
	RSSBytes, HeapBytes int64
}

// Result is the outcome of a run.
type Result struct {
	// Epochs holds every epoch's figures, including those of the epochs a
	// resumed run found in its checkpoint.
	Epochs []EpochStats
	// Metric is the metric that ranks the epochs: EvalOptions.Metric, with
	// MetricAuto resolved for the data's classes.
	Metric gnn.Metric
	// BestEpoch is the evaluated epoch of the highest valid Metric (the
	// first on ties; a NaN, an AUC of a valid set without both classes,
	// ranks below any number), -1 when no epoch was evaluated; BestValid
	// and BestTest are its measures, and BestValAcc and TestAcc its
	// accuracies: the reported test figures are the best-valid epoch's,
	// never the best test.
	BestEpoch           int
	BestValAcc          float64
	TestAcc             float64
	BestValid, BestTest gnn.Measures
	// EarlyStopped says that EvalOptions.Patience ended the run before
	// Plan.Epochs: that many evaluations in a row found no better valid
	// Metric.
	EarlyStopped bool
	// sinceBest counts the evaluations after the best epoch's.
	sinceBest int
	// ResumedFrom is the number of epochs loaded from a checkpoint (0 for a
	// fresh run), and ResumedMinibatches the minibatches of the next epoch
	// it held (a run stopped in the middle of an epoch; possibly all of
	// them, when it stopped after the last one and before the evaluation).
	ResumedFrom        int
	ResumedMinibatches int
	// BLAS names the dense backend used.
	BLAS string
	// PipelineDepth is the depth the run used, and PipelineReason why it
	// is lower than TrainerOptions.Runtime.PipelineDepth asked ("" when it is not);
	// see Trainer.PipelineDepth.
	PipelineDepth  int
	PipelineReason string
}

// Data is what a Trainer trains on: where the minibatches, the input
// features and the labels come from, and the two optional hooks of
// data-parallel training.
type Data struct {
	// Name names the data in error messages (optional).
	Name string
	// Sampler gives the minibatches; required. A sampler with a
	// NumVertices method (sampling.NodeWise, sampling.LayerWise) must
	// agree with Features on the number of vertices.
	Sampler sampling.Sampler
	// Features gives the input features of the minibatches' input
	// vertices; required. A store that implements featurex.SparseGatherer
	// and reports Sparse features is gathered as CSR rows.
	Features featurex.Store
	// Labels holds the class of every vertex (-1: unlabelled), one per
	// vertex of Features; NumClasses (>= 2) is the number of classes.
	Labels     []int32
	NumClasses int
	// Train holds the training vertices (required); Valid and Test the
	// vertices the Evaluator measures after every epoch.
	Train, Valid, Test []int32
	// Evaluator measures valid and test accuracy after every epoch; nil
	// means no evaluation (ValAcc and TestAcc stay 0), as does
	// TrainerOptions.Runtime.NoEval. FullNeighbour is the single-process one.
	Evaluator Evaluator
	// Reducer is called between backward and the optimiser step; nil means
	// none (one process). See GradReducer.
	Reducer GradReducer
	// Fingerprint names how the data was prepared, where that changes
	// what a run trains on and the trainer cannot see it (the rows of the
	// features scaled to sum 1: norm-features): a resumed run compares it
	// with its checkpoint's, as it does the sampler's
	// (sampling.Fingerprinter). nil: nothing.
	Fingerprint sampling.Fingerprint
}

// Trainer trains a model on Data. A Trainer is not safe for concurrent use.
type Trainer struct {
	data    Data
	sampler sampling.Sampler
	opt     TrainerOptions
	plan    *sampling.Plan
	model   *gnn.Model
	adam    *gnn.Adam
	sparse  featurex.SparseGatherer // Features, when gathered as CSR rows
	// bufStore is Features when it gathers into the backend's memory
	// (gnn.BufGatherer, with a backend whose memory is not the host's): the
	// loaders then only note the input ids, and the training goroutine
	// gathers into xBuf.
	bufStore gnn.BufGatherer
	xBuf     gnn.Buf
	// devSampler is the Sampler and idStore the Features on the device
	// path (see devicePath): bulks stay in the backend's memory and
	// the input rows are gathered there by the ids there; nil otherwise.
	devSampler gnn.DeviceSampler
	idStore    gnn.IDGatherer
	// live holds the device bulks not yet released, which an epoch that
	// ends early releases (releaseLive).
	live liveBulks

	// meter measures the phases of the current epoch (EpochStats.Costs).
	meter procstat.Meter

	// The input buffer of the unpipelined loop; the pipeline has its own
	// (pipeline.bufs).
	inputBuf
	// Reused buffers of the minibatch loop.
	dLogits gnn.Buf
	// pipe is the current epoch's pipeline until Run waits for it.
	pipe *pipeline
	// bufs are the pipeline's input buffers, kept from epoch to epoch.
	bufs []*inputBuf
	// depthReason says why opt.Runtime.PipelineDepth is lower than asked.
	depthReason string
	// best holds the parameters after the best epoch (BestParams).
	best []float32
}

// inputBuf holds one minibatch's input features (dense, or CSR rows for a
// sparse store) and labels.
type inputBuf struct {
	x      []float32
	xs     spgemm.CSR
	labels []int32
	ids    []int32 // the input vertices, when the training goroutine gathers (bufStore)
	// dids are the input vertices in the backend's memory on the device
	// path (idStore gathers them); nil on the host path.
	dids gnn.DeviceIDs
}

// NewTrainer returns a trainer of a fresh model (or, with Resume, of the
// checkpointed one when Run starts) on d. It returns an error naming the
// field of d or the option that is invalid, and when the sampler, the
// features, the labels and the evaluator do not agree on the number of
// vertices.
func NewTrainer(d Data, opt TrainerOptions) (*Trainer, error) {
	if err := checkTrainerData(&d); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Plan.Epochs == 0 {
		opt.Plan.Epochs = DefaultEpochs
	}
	if opt.Runtime.PipelineDepth == 0 {
		opt.Runtime.PipelineDepth = DefaultPipelineDepth
	}
	s := d.Sampler
	layers := s.NumLayers()
	if opt.Model.Arch != gnn.Linear && layers < 1 {
		return nil, fmt.Errorf("train: the sampler gives %d layers; %v needs at least one", layers, opt.Model.Arch)
	}
	mo := gnn.ModelOptions{
		Arch: opt.Model.Arch, Layers: max(layers, 1), Hidden: opt.Model.Hidden,
		InFeatures: d.Features.NumFeatures(), Classes: d.NumClasses, Dropout: opt.Model.Dropout,
		Seed: opt.Seed, Threads: opt.Runtime.Threads, PureGoBLAS: opt.Runtime.PureGoBLAS, Backend: opt.Runtime.Backend,
		GCNNorm: opt.Model.GCNNorm, Residual: opt.Model.Residual, Norm: opt.Model.Norm,
	}
	// Training holds four values per parameter: the parameter, its
	// gradient and Adam's two moments. Checked before the model exists.
	if err := mo.CheckTrainingMemory("TrainerOptions.Model.Hidden"); err != nil {
		return nil, err
	}
	m, err := gnn.NewModel(mo)
	if err != nil {
		return nil, err
	}
	if dp, ok := s.(sampling.DegreeProvider); ok && opt.Model.Arch == gnn.GCN && opt.Model.GCNNorm == gnn.GCNGraphNorm && !dp.ProvidesDegrees() {
		// Without them its 0/1 blocks would fall back to the block's own
		// degrees: another operator than inference's.
		return nil, errors.New("train: GCN normalises with the graph's degrees, which the node-wise sampler supplies only with sampling.NodeWiseOptions.Degrees set (or set TrainerOptions.Model.GCNNorm to GCNBlockNorm)")
	}
	ao := opt.Optimizer.Adam
	if opt.Optimizer.WeightDecayFirstLayer {
		ao.DecayedParams = m.FirstLayerParams()
	}
	adam, err := gnn.NewAdam(len(m.Params()), ao)
	if err != nil {
		return nil, err
	}
	plan, err := sampling.NewPlan(d.Train, sampling.PlanOptions{BatchSize: opt.Plan.BatchSize, BulkSize: opt.Plan.BulkSize, Seed: opt.Seed})
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	t := &Trainer{data: d, sampler: s, opt: opt, plan: plan, model: m, adam: adam}
	if note := gnn.PureGoBLASNote(gnn.BLAS, opt.Runtime.PureGoBLAS || opt.Runtime.Backend != nil); note != "" {
		t.note(note)
	}
	t.opt.Runtime.PipelineDepth, t.depthReason = effectiveDepth(&d, opt.Runtime.PipelineDepth)
	if sg, ok := d.Features.(featurex.SparseGatherer); ok && sg.Sparse() {
		t.sparse = sg
	}
	if bg, ok := d.Features.(gnn.BufGatherer); ok && t.sparse == nil && !m.Backend().HostMemory() {
		t.bufStore = bg
	}
	t.devSampler, t.idStore = devicePath(&d, &opt, m.Backend(), t.bufStore != nil)
	return t, nil
}

// devicePath returns the sampler and the store of the device path, on
// which a bulk never leaves the backend's memory: the sampler samples
// into it (gnn.DeviceSampler), the backend forms the blocks there
// (gnn.BlockFormer) and the store gathers the input rows there by the ids
// there (gnn.IDGatherer, on a store that gathers into the backend's
// memory: resident), the sampler's device the backend's. It returns nils, the host path (bulks on the host,
// whose blocks and input ids the backend uploads), when any is missing,
// for Linear (no blocks) and for GCNBlockNorm (no device form).
func devicePath(d *Data, opt *TrainerOptions, be gnn.Backend, resident bool) (gnn.DeviceSampler, gnn.IDGatherer) {
	ds, ok := d.Sampler.(gnn.DeviceSampler)
	if !ok || !resident || !ds.SamplesOn(be) || opt.Model.Arch == gnn.Linear || (opt.Model.Arch == gnn.GCN && opt.Model.GCNNorm == gnn.GCNBlockNorm) {
		return nil, nil
	}
	ig, ok := d.Features.(gnn.IDGatherer)
	if _, former := be.(gnn.BlockFormer); !ok || !former {
		return nil, nil
	}
	return ds, ig
}

// DevicePath reports whether the trainer's bulks stay in its backend's
// memory: sampled there by a gnn.DeviceSampler, their blocks formed there
// (gnn.BlockFormer) and their input rows gathered there from a resident
// store (gnn.IDGatherer). Otherwise each bulk is sampled to the host and
// its blocks and input ids cross to the backend per minibatch.
func (t *Trainer) DevicePath() bool { return t.devSampler != nil }

// vertexCounter is implemented by samplers and evaluators that know their
// graph's number of vertices.
type vertexCounter interface{ NumVertices() int }

// checkTrainerData returns an error naming the first field of d that training
// cannot use.
func checkTrainerData(d *Data) error {
	name := d.Name
	if name == "" {
		name = "data"
	}
	if d.Sampler == nil {
		return fmt.Errorf("train: %s: no Sampler", name)
	}
	if d.Features == nil {
		return fmt.Errorf("train: %s has no node features (Features)", name)
	}
	n, f := d.Features.NumVertices(), d.Features.NumFeatures()
	switch {
	case f <= 0:
		return fmt.Errorf("train: %s has no node features (Features has %d per vertex)", name, f)
	case d.Labels == nil || d.NumClasses < 2:
		return fmt.Errorf("train: %s has no labels (Labels, NumClasses = %d)", name, d.NumClasses)
	case len(d.Labels) != n:
		return fmt.Errorf("train: %s: Labels has %d entries but the feature store has %d vertices", name, len(d.Labels), n)
	case len(d.Train) == 0:
		return fmt.Errorf("train: %s has an empty training split (Train)", name)
	}
	if vc, ok := d.Sampler.(vertexCounter); ok && vc.NumVertices() != n {
		return fmt.Errorf("train: %s: the sampler's graph has %d vertices but the feature store has %d", name, vc.NumVertices(), n)
	}
	if vc, ok := d.Evaluator.(vertexCounter); ok && vc.NumVertices() != n {
		return fmt.Errorf("train: %s: the evaluator's graph has %d vertices but the feature store has %d", name, vc.NumVertices(), n)
	}
	for v, y := range d.Labels {
		if y < -1 || y >= int32(d.NumClasses) {
			return fmt.Errorf("train: %s: Labels[%d] = %d outside [-1, %d)", name, v, y, d.NumClasses)
		}
	}
	for _, split := range []struct {
		name string
		ids  []int32
	}{{"Train", d.Train}, {"Valid", d.Valid}, {"Test", d.Test}} {
		for i, v := range split.ids {
			if v < 0 || int(v) >= n {
				return fmt.Errorf("train: %s: %s[%d] = %d is not a vertex (n = %d)", name, split.name, i, v, n)
			}
		}
	}
	return nil
}

// note writes a line to TrainerOptions.Hooks.Notes.
func (t *Trainer) note(s string) {
	w := t.opt.Hooks.Notes
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintln(w, s)
}

// Model returns the model being trained.
func (t *Trainer) Model() *gnn.Model { return t.model }

// PipelineDepth returns the pipeline depth the trainer runs at and, when it
// is lower than TrainerOptions.Runtime.PipelineDepth asked, why: two of the Data's
// components communicate (CommUser) and their communicators may not be
// called from two goroutines at once (dist.ConcurrentComms).
func (t *Trainer) PipelineDepth() (depth int, reason string) {
	return t.opt.Runtime.PipelineDepth, t.depthReason
}

// Run trains for the remaining epochs, evaluating after each one, and
// returns the figures. progress, when non-nil, is called after every epoch.
// When ctx is cancelled, Run stops after the current minibatch (or stops the
// current sampling or evaluation), saves a checkpoint of the epoch's progress
// when Checkpoint.Dir is set, and returns the result of the completed epochs
// with a *StoppedError wrapping ctx's error. A resumed run continues that
// epoch from the next minibatch and ends exactly as an uninterrupted run.
func (t *Trainer) Run(ctx context.Context, progress func(EpochStats)) (*Result, error) {
	defer t.endPipeline()
	unlock, err := t.lockCheckpoint()
	if err != nil {
		return nil, err
	}
	defer unlock()
	res := &Result{BLAS: t.model.BLAS(), BestEpoch: -1, PipelineDepth: t.opt.Runtime.PipelineDepth, PipelineReason: t.depthReason,
		Metric: t.metric()}
	t.best = nil
	t.removeStaleCheckpoints()
	var from *partialEpoch
	if t.opt.Checkpoint.Resume {
		ck, err := loadCheckpoint(t.opt.Checkpoint.Dir)
		if err != nil {
			return nil, err
		}
		if ck != nil {
			if err := t.restore(ck); err != nil {
				return nil, err
			}
			res.ResumedFrom = ck.EpochsDone
			for _, st := range ck.History {
				res.add(st)
			}
			t.best = ck.BestParams
			if t.best == nil && res.BestEpoch >= 0 && res.BestEpoch == ck.EpochsDone-1 && ck.Partial == nil {
				// An older checkpoint saved after its best epoch: its
				// weights are the best epoch's.
				t.best = append([]float32(nil), ck.Params...)
			}
			from = ck.Partial
			if from != nil {
				res.ResumedMinibatches = from.Stats.Minibatches
			}
			if t.opt.Hooks.OnResume != nil {
				t.opt.Hooks.OnResume(res.ResumedFrom, res.ResumedMinibatches, t.plan.NumMinibatches())
			}
		}
	}
	lastSave := time.Now()
	for epoch := res.ResumedFrom; epoch < t.opt.Plan.Epochs; epoch++ {
		if t.patienceSpent(res) {
			// A resumed run whose history already ran out of patience.
			res.EarlyStopped = true
			break
		}
		st, part, err := t.epoch(ctx, epoch, from)
		from = nil
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, ErrStopRequested) {
				return res, err
			}
			return res, t.stopped(ctx, epoch, part, res.Epochs, err)
		}
		if res.add(st) {
			t.keepBest()
		}
		// A NaN or infinite loss poisons every later step (NaN features,
		// or a step size that diverged): stop, keeping the checkpoint of
		// the last finite epoch, rather than train on and report chance
		// accuracy with exit status 0. The loss is the all-reduced one, so
		// every rank of a data-parallel run stops alike.
		if math.IsNaN(st.Loss) || math.IsInf(st.Loss, 0) {
			if progress != nil {
				progress(st)
			}
			return res, fmt.Errorf("train: epoch %d: the training loss is %v: non-finite input features, or a learning rate so high that the weights diverged; stopped (the last checkpoint saved holds epochs with a finite loss)", epoch+1, st.Loss)
		}
		stop := t.patienceSpent(res)
		if t.opt.Checkpoint.Dir != "" && (stop || t.saveDue(epoch+1, lastSave)) {
			if err := t.save(epoch+1, res.Epochs, nil); err != nil {
				return res, err
			}
			lastSave = time.Now()
		}
		if progress != nil {
			progress(st)
		}
		if stop {
			res.EarlyStopped = epoch+1 < t.opt.Plan.Epochs
			break
		}
	}
	return res, nil
}

// metric returns the metric that ranks the epochs (EvalOptions.Metric
// resolved for the data's classes).
func (t *Trainer) metric() gnn.Metric { return t.opt.Eval.Metric.For(t.data.NumClasses) }

// Metric returns the metric that ranks the epochs of the trainer's runs:
// TrainerOptions.Eval.Metric, with MetricAuto resolved for the data's
// classes.
func (t *Trainer) Metric() gnn.Metric { return t.metric() }

// patienceSpent reports whether EvalOptions.Patience evaluations in a row
// have found no better valid metric than the best epoch's.
func (t *Trainer) patienceSpent(res *Result) bool {
	return t.opt.Eval.Patience > 0 && res.BestEpoch >= 0 && res.sinceBest >= t.opt.Eval.Patience
}

// keepBest copies the model's parameters as those of the best epoch.
func (t *Trainer) keepBest() { t.best = append(t.best[:0:0], t.model.Params()...) }

// BestParams returns the parameters after the best epoch of the last Run
// (Result.BestEpoch; laid out like gnn.Model.Params): a copy the trainer keeps,
// and the checkpoint with it, so that the best epoch's predictions can be
// made after training (gnn.Model.SetParams, then Predict). It returns nil before a
// Run, when no epoch was evaluated, and when the run resumed from a
// checkpoint written before checkpoints kept them (version 5 or older)
// and no later epoch was better.
func (t *Trainer) BestParams() []float32 { return t.best }

// evalDue reports whether the model is evaluated after epoch (0-based):
// every EvalOptions.Every-th epoch, and the last.
func (t *Trainer) evalDue(epoch int) bool {
	if t.opt.Runtime.NoEval || t.data.Evaluator == nil {
		return false
	}
	every := max(t.opt.Eval.Every, 1)
	return (epoch+1)%every == 0 || epoch+1 == t.opt.Plan.Epochs
}

// saveDue reports whether the checkpoint is saved after done epochs, the
// last save having ended at last (TrainerOptions.Checkpoint.Every and
// Interval).
func (t *Trainer) saveDue(done int, last time.Time) bool {
	every, interval := t.opt.Checkpoint.Every, t.opt.Checkpoint.Interval
	switch {
	case done >= t.opt.Plan.Epochs:
		return true
	case every == 0 && interval == 0:
		return true
	case every > 0 && done%every == 0:
		return true
	}
	return interval > 0 && time.Since(last) >= interval
}

// StoppedError is the error of a Run stopped by its context: where it
// stopped, and the checkpoint it wrote. It wraps the context's error.
type StoppedError struct {
	Epoch       int    // the epoch in progress, 0-based
	Minibatches int    // minibatches of that epoch trained
	Total       int    // minibatches of that epoch
	Checkpoint  string // the checkpoint file written; "" without Checkpoint.Dir
	Err         error  // the context's error
}

func (e *StoppedError) Error() string {
	ck := "no checkpoint"
	if e.Checkpoint != "" {
		ck = "checkpoint " + e.Checkpoint
	}
	return fmt.Sprintf("train: stopped in epoch %d after %d of %d minibatches (%s): %v", e.Epoch+1, e.Minibatches, e.Total, ck, e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// stopped saves the progress of an epoch stopped by the context or by a
// stop request, when checkpointing is on, and returns the StoppedError.
// After a stop request, which every rank of a data-parallel run met after
// the same step, it then waits for the pipeline to drain and, with a
// communicating reducer (CommUser), for every rank: the ranks learn
// together whether rank 0 wrote the checkpoint, so that none returns
// before it is written.
func (t *Trainer) stopped(ctx context.Context, epoch int, part partialEpoch, history []EpochStats, err error) error {
	se := &StoppedError{Epoch: epoch, Minibatches: part.Stats.Minibatches, Total: t.plan.NumMinibatches(), Err: err}
	var serr error
	if t.opt.Checkpoint.Dir != "" {
		serr = t.save(epoch, history, &part)
	}
	if errors.Is(err, ErrStopRequested) {
		// The loaders finish the collectives that every rank started
		// before the ranks meet below.
		t.endPipeline()
		if cu, ok := t.data.Reducer.(CommUser); ok {
			failed := []int64{0}
			if serr != nil {
				failed[0] = 1
			}
			if cerr := cu.Comm().Allreduce(ctx, dist.PhaseControl, dist.OpMax, failed); cerr != nil {
				return fmt.Errorf("%w; waiting for the other ranks failed: %w", se, cerr)
			}
			if failed[0] != 0 && serr == nil {
				serr = errors.New("train: rank 0 could not write it")
			}
		}
	}
	if serr != nil {
		return fmt.Errorf("%w; saving the checkpoint failed: %w", se, serr)
	}
	if t.opt.Checkpoint.Dir != "" {
		se.Checkpoint = filepath.Join(t.opt.Checkpoint.Dir, CheckpointFile)
	}
	return se
}

// add appends st to the epochs and reports whether it is the new best
// epoch: evaluated, with a valid Metric above the best so far.
func (r *Result) add(st EpochStats) bool {
	r.Epochs = append(r.Epochs, st)
	if !st.Evaluated {
		return false
	}
	v := st.Valid.Value(r.Metric)
	if r.BestEpoch >= 0 && !(v > r.BestValid.Value(r.Metric)) && !(math.IsNaN(r.BestValid.Value(r.Metric)) && !math.IsNaN(v)) {
		r.sinceBest++
		return false
	}
	r.BestEpoch, r.BestValAcc, r.TestAcc = st.Epoch, st.ValAcc, st.TestAcc
	r.BestValid, r.BestTest = st.Valid, st.Test
	r.sinceBest = 0
	return true
}

// partialEpoch is the progress of an epoch that was stopped: the figures so
// far, with the sums that Loss and TrainAcc are made of. Stats.Minibatches
// minibatches are trained (the model and optimiser state are theirs), and
// Stats.SampledEdges counts the bulks they came from.
type partialEpoch struct {
	Stats             EpochStats
	LossSum           float64
	Correct, Labelled int
}

// epoch trains one epoch, or the rest of it after from when from is not nil,
// and evaluates the model. On an error it also returns the epoch's progress,
// which a checkpoint can hold when the error is the context's; the
// pipeline, if any, is then stopped but not yet waited for (Run waits after
// saving the checkpoint, see endPipeline).
func (t *Trainer) epoch(ctx context.Context, epoch int, from *partialEpoch) (EpochStats, partialEpoch, error) {
	p := partialEpoch{Stats: EpochStats{Epoch: epoch}}
	if from != nil {
		p = *from
	}
	st := &p.Stats
	t.meter.Reset()
	ep := t.shardedEpoch(epoch)
	total := len(ep.Minibatches)
	start := time.Now().Add(-time.Duration(st.Seconds * float64(time.Second)))
	var feed minibatchFeed = &inlineFeed{t: t, ep: ep, epoch: epoch, pos: st.Minibatches}
	if t.opt.Runtime.PipelineDepth > 1 && st.Minibatches < total {
		t.pipe = t.startPipeline(ctx, epoch, ep, st.Minibatches)
		feed = t.pipe
	}
	// phases returns the epoch's phase times: the training goroutine's,
	// plus those of the pipeline's goroutines measured so far.
	phases := func() PhaseTimes {
		ph := st.Phases
		if t.pipe != nil {
			s, x := t.pipe.times()
			ph.Sample += s
			ph.Extract += x
		}
		return ph
	}
	stop := func(err error) (EpochStats, partialEpoch, error) {
		if t.pipe != nil {
			t.pipe.stop(err)
		}
		st.Phases = phases()
		st.Seconds = time.Since(start).Seconds()
		return *st, p, fmt.Errorf("train: epoch %d: %w", epoch, err)
	}
	// stopRequested ends the epoch after a step whose reduction carried a
	// stop request (TrainerOptions.Hooks.Stop): every rank ends after the same
	// step, and the pipeline's loaders finish the collectives in flight
	// (drain) rather than abandon them.
	stopRequested := func() (EpochStats, partialEpoch, error) {
		if t.pipe != nil {
			t.pipe.drain()
		}
		st.Phases = phases()
		st.Seconds = time.Since(start).Seconds()
		return *st, p, fmt.Errorf("train: epoch %d: %w", epoch, ErrStopRequested)
	}
	for st.Minibatches < total {
		if err := ctx.Err(); err != nil {
			return stop(err)
		}
		it, err := feed.next(ctx, &st.Phases)
		if err != nil {
			return stop(err)
		}
		sm, err := t.train(ctx, &it.mb, it.in, it.buf, epoch, &st.Phases)
		if err != nil {
			return stop(fmt.Errorf("minibatch %d: %w", it.mb.Index, err))
		}
		feed.release(it)
		p.LossSum += sm.LossSum
		p.Correct += int(sm.Correct)
		p.Labelled += int(sm.Labelled)
		st.Minibatches++
		// A checkpoint taken inside a bulk counts the bulk's edges only
		// once it is finished, since a resumed run samples it again.
		st.SampledEdges += it.edges
		if t.opt.Hooks.OnMinibatch != nil {
			t.opt.Hooks.OnMinibatch(epoch, st.Minibatches, total)
		}
		if sm.Stops > 0 {
			return stopRequested()
		}
	}
	loaderCosts := t.finishPipeline(&st.Phases)
	st.Seconds = time.Since(start).Seconds()
	out := *st
	if p.Labelled > 0 {
		out.Loss = p.LossSum / float64(p.Labelled)
		out.TrainAcc = float64(p.Correct) / float64(p.Labelled)
	}
	if out.Phases.Sample > 0 {
		out.SEPS = float64(out.SampledEdges) / out.Phases.Sample.Seconds()
	}
	if t.evalDue(epoch) {
		if err := t.evaluate(ctx, &out); err != nil {
			return out, p, fmt.Errorf("train: epoch %d: %w", epoch, err)
		}
	}
	out.Costs = append(loaderCosts, t.meter.Phases()...)
	out.RSSBytes, out.HeapBytes = memoryNow()
	return out, p, nil
}

// finishPipeline waits for the epoch's pipeline, if any, once every
// minibatch was delivered (its goroutines have then ended or are about
// to), adds its loaders' times to ph and returns their costs.
func (t *Trainer) finishPipeline(ph *PhaseTimes) PhaseCosts {
	pipe := t.pipe
	if pipe == nil {
		return nil
	}
	t.endPipeline()
	s, x := pipe.times()
	ph.Sample += s
	ph.Extract += x
	return pipe.costs()
}

// evaluate measures the model on the train, valid and test sets with the
// Evaluator and records the measures and the time in st.
func (t *Trainer) evaluate(ctx context.Context, st *EpochStats) error {
	t.meter.Begin()
	ms, err := t.data.Evaluator.Evaluate(ctx, t.model, t.data.Labels, t.data.Train, t.data.Valid, t.data.Test)
	if err != nil {
		return err
	}
	if len(ms) != 3 {
		return fmt.Errorf("the evaluator returned %d measures for 3 vertex sets", len(ms))
	}
	st.Evaluated = true
	st.Train, st.Valid, st.Test = ms[0], ms[1], ms[2]
	st.ValAcc, st.TestAcc = ms[1].Accuracy, ms[2].Accuracy
	st.Phases.Eval = t.lap(PhaseEval)
	return nil
}

// memoryNow returns the resident set size (-1 where unknown) and the Go
// heap's allocated bytes.
func memoryNow() (rss, heap int64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return procstat.RSS(), int64(ms.HeapAlloc)
}

// step loads and trains one minibatch with the trainer's own input buffer
// (the unpipelined path) and returns its metrics, after the reducer's.
func (t *Trainer) step(ctx context.Context, mb *sampling.Minibatch, epoch int, ph *PhaseTimes) (StepMetrics, error) {
	t.meter.Begin()
	in, err := t.load(ctx, mb, &t.inputBuf)
	if err != nil {
		return StepMetrics{}, err
	}
	ph.Extract += t.lap(PhaseExtract)
	return t.train(ctx, mb, in, &t.inputBuf, epoch, ph)
}

// load gathers the input features and the labels of mb into buf and
// returns the model's input, which points into buf (as do the labels,
// buf.labels). It reads only what
// NewTrainer set, so that the pipeline may call it beside train.
func (t *Trainer) load(ctx context.Context, mb *sampling.Minibatch, buf *inputBuf) (gnn.Input, error) {
	in := mb.InputNodes()
	if t.opt.Model.Arch == gnn.Linear {
		in = mb.Seeds // the seeds are a prefix of every block's sources
	}
	var x gnn.Input
	switch {
	case t.bufStore != nil:
		buf.ids = append(buf.ids[:0], in...)
		buf.dids = nil
	case t.sparse != nil:
		if err := t.sparse.GatherCSR(ctx, &buf.xs, in); err != nil {
			return gnn.Input{}, err
		}
		x.Sparse = &buf.xs
	default:
		buf.x = par.Resize(buf.x, len(in)*t.data.Features.NumFeatures())
		if err := t.data.Features.Gather(ctx, buf.x, in); err != nil {
			return gnn.Input{}, err
		}
		x.Dense = buf.x
	}
	buf.labels = par.Resize(buf.labels, len(mb.Seeds))
	featurex.Labels(buf.labels, t.data.Labels, mb.Seeds)
	return x, nil
}

// train runs forward, backward, the reducer and the optimiser step on mb
// with its loaded input x and buf (its labels, and the input ids when the
// training goroutine gathers) and returns the step's metrics, after the
// reducer's. Its phases start at the meter's current span. The metrics'
// Stops is 1 when TrainerOptions.Hooks.Stop is closed and, after the reducer, the
// number of ranks whose Stop is. An empty part
// of a data-parallel minibatch (Sharder) is a zero-weight step: no forward
// or backward, but the collectives all the same.
func (t *Trainer) train(ctx context.Context, mb *sampling.Minibatch, x gnn.Input, buf *inputBuf, epoch int, ph *PhaseTimes) (StepMetrics, error) {
	labels := buf.labels
	var sm StepMetrics
	if len(mb.Seeds) > 0 {
		be := t.model.Backend()
		if buf.dids != nil {
			// The device path: the input rows, gathered by ids in the
			// backend's memory.
			t.xBuf = gnn.GrowBuf(be, t.xBuf, int(buf.dids.Len())*t.data.Features.NumFeatures())
			if err := t.idStore.GatherIDs(ctx, be, t.xBuf, buf.dids); err != nil {
				return sm, err
			}
			x = gnn.Input{Buf: t.xBuf, Blocks: x.Blocks}
			ph.Extract += t.lap(PhaseExtract)
		} else if t.bufStore != nil {
			// The input rows, gathered in the backend's memory.
			t.xBuf = gnn.GrowBuf(be, t.xBuf, len(buf.ids)*t.data.Features.NumFeatures())
			if err := t.bufStore.GatherBuf(ctx, be, t.xBuf, buf.ids); err != nil {
				return sm, err
			}
			x = gnn.Input{Buf: t.xBuf}
			ph.Extract += t.lap(PhaseExtract)
		}
		logits := t.model.ForwardBuf(mb, x, gnn.Pass{Train: true, Epoch: epoch, Minibatch: mb.Index, Part: t.part()})
		t.dLogits = gnn.GrowBuf(be, t.dLogits, logits.Len())
		loss, correct, labelled := be.SoftmaxCrossEntropy(t.dLogits, logits, t.data.NumClasses, labels)
		ph.Forward += t.lap(PhaseForward)
		t.model.BackwardBuf(t.dLogits)
		if err := gnn.SyncBackend(be); err != nil {
			return sm, fmt.Errorf("compute backend %s: %w", be.Name(), err)
		}
		ph.Backward += t.lap(PhaseBackward)
		sm = StepMetrics{LossSum: loss * float64(labelled), Correct: int64(correct), Labelled: int64(labelled)}
	}
	select {
	case <-t.opt.Hooks.Stop: // nil: never
		sm.Stops = 1
	default:
	}
	if t.data.Reducer != nil {
		// A copy, so that sm stays on the stack of a step without reducer.
		r := sm
		g := t.model.Grads()
		if len(mb.Seeds) == 0 {
			clear(g) // a zero-weight step carries none of the last step's gradients
		}
		if err := t.data.Reducer.Reduce(ctx, g, &r); err != nil {
			return sm, fmt.Errorf("reduce gradients: %w", err)
		}
		t.model.SetGrads(g)
		sm = r
		ph.Reduce += t.lap(PhaseCommunicate)
	} else if len(mb.Seeds) == 0 {
		return sm, nil // nothing to learn from, and no other rank to keep in step
	}
	t.adam.StepOn(t.model.Backend(), t.model.ParamsBuf(), t.model.GradsBuf())
	if err := gnn.SyncBackend(t.model.Backend()); err != nil {
		return sm, fmt.Errorf("compute backend %s: %w", t.model.Backend().Name(), err)
	}
	ph.Update += t.lap(PhaseUpdate)
	return sm, nil
}
