package train

import (
	"fmt"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/spgemm"
)

// Options configure the assembly of a training run. The zero value of each
// field means its documented default; Validate (one process) and
// ValidateDist (a distributed run) name the first bad field by its path.
type Options struct {
	// Name names the data in error messages (a path, say); "" means the
	// dataset's own name.
	Name string
	// Sampler chooses the sampler of the graph layers: Method (node-wise
	// by default, LADIES or FastGCN), Fanouts (the fanouts or column
	// budgets, the seeds' layer first; required unless the model is
	// gnn.Linear, which samples no neighbours), Normalize (LADIES' matrix)
	// and the method's other options. Seed and Threads are the run's
	// (Trainer.Seed and Trainer.Runtime.Threads), and Degrees is set for GCN's
	// node-wise blocks, which carry the graph's degrees: the values given
	// here for those three are not used.
	Sampler sampling.SamplerOptions
	// NewSampler, when set, builds the sampler of a one-process run (New)
	// in place of sampling.NewSampler, from the graph and the options New
	// would give it (Sampler with the run's seed, threads and degrees): a
	// device's sampler, say (package gpu's NewSampler on the device of
	// Trainer.Runtime.Backend), which must sample what sampling.NewSampler's
	// sampler samples for a run to train what a CPU-sampled run trains. A
	// sampler that is an io.Closer is closed by Job.Close. nil means
	// sampling.NewSampler. A distributed run samples with its own samplers
	// and refuses it (ValidateDist).
	NewSampler func(a *spgemm.CSR, opt sampling.SamplerOptions) (sampling.Sampler, error)
	// Trainer configures the trainer (NewTrainer).
	Trainer TrainerOptions
	// NormFeatures scales every feature row to sum 1 (featurex.NormalizeRows,
	// the Planetoid protocol's preprocessing) before training: in place in
	// the dataset New is given; a rank of a distributed run scales the rows
	// it holds.
	NormFeatures bool
	// SplitFile, when set, is a split file (dataset.ReadSplit: the
	// train, valid and test vertices as rows of the graph) whose split
	// replaces the data's; every rank of a distributed run reads it.
	SplitFile string
	// BatchAll puts every training vertex in one minibatch (full-batch
	// training with fanouts of -1): Trainer.Plan.BatchSize is set to the
	// size of the training split.
	BatchAll bool
	// Dist configures a distributed run (NewDist); New ignores it.
	Dist DistOptions
}

// DistOptions configure how a distributed run holds and evaluates its data.
type DistOptions struct {
	// Replication is the replication factor c of the (p/c) x c grid
	// (dist.NewGrid): each block of rows is held by c ranks; it must
	// divide the number of ranks. 0 means 1.
	Replication int
	// Layout is how the ranks hold the graph and the features:
	// distsample.Split (the default: each rank its block) or
	// distsample.Replicated (every rank all of them).
	Layout distsample.Layout
	// Fetch is how a Split node-wise sampler gets remote rows:
	// distsample.FetchAuto (the default: pull or push per layer, by the
	// byte model), FetchPull or FetchPush.
	Fetch distsample.FetchMode
	// Overlap is whether a Split node-wise sampler overlaps its push
	// rounds with its own work (distsample.DistSamplerOptions.Overlap).
	Overlap distsample.OverlapMode
	// PullBatchBytes and PushBatchBytes bound what one pull or push round
	// of a Split node-wise sampler brings to a rank (the fields of
	// distsample.DistSamplerOptions); 0 means their defaults.
	PullBatchBytes, PushBatchBytes int64
	// Eval is where the evaluation after each epoch runs; default
	// EvalDistributed.
	Eval EvalMode
}

// SamplerOptions returns the options of a distributed sampler of so with
// the layout, fetch, overlap and batch bounds of o.
func (o DistOptions) SamplerOptions(so sampling.SamplerOptions) distsample.DistSamplerOptions {
	return distsample.DistSamplerOptions{SamplerOptions: so, Layout: o.Layout, Fetch: o.Fetch, Overlap: o.Overlap,
		PullBatchBytes: o.PullBatchBytes, PushBatchBytes: o.PushBatchBytes}
}

// EvalMode is where a distributed run evaluates.
type EvalMode int

const (
	// EvalDistributed: each rank infers its block of rows by layer-wise
	// full-neighbour inference, fetching its remote neighbours' feature
	// and hidden rows from their owners (BlockEvaluator), and the
	// counts are summed.
	EvalDistributed EvalMode = iota
	// EvalGathered: rank 0 infers the whole graph, which it holds whole,
	// and broadcasts the accuracies (RootEvaluator).
	EvalGathered
)

// String returns "distributed" or "gathered".
func (m EvalMode) String() string {
	switch m {
	case EvalDistributed:
		return "distributed"
	case EvalGathered:
		return "gathered"
	}
	return fmt.Sprintf("EvalMode(%d)", int(m))
}

// ParseEvalMode parses "distributed" or "gathered".
func ParseEvalMode(s string) (EvalMode, error) {
	switch s {
	case "distributed":
		return EvalDistributed, nil
	case "gathered":
		return EvalGathered, nil
	}
	return 0, fmt.Errorf("train: evaluation %q, want distributed or gathered", s)
}

// samples reports whether the model reads sampled graph layers (all but
// gnn.Linear).
func (o *Options) samples() bool { return o.Trainer.Model.Arch != gnn.Linear }

// samplerOptions returns Sampler with the run's seed and threads, and the
// graph's degrees for GCN's node-wise blocks.
func (o *Options) samplerOptions() sampling.SamplerOptions {
	s := o.Sampler
	s.Seed, s.Threads = o.Trainer.Seed, o.Trainer.Runtime.Threads
	s.Degrees = o.Trainer.Model.Arch == gnn.GCN && (s.Method == "" || s.Method == sampling.MethodNode)
	return s
}

// distSamplerOptions returns the options of this rank's sampler.
func (o *Options) distSamplerOptions() distsample.DistSamplerOptions {
	return o.Dist.SamplerOptions(o.samplerOptions())
}

// Validate returns an error naming the first invalid field of o for a
// single-process run (an *option.Error of package option, whose
// field is the path: Trainer.Plan.Epochs, Sampler.Fanouts[1]).
func (o *Options) Validate() error {
	if err := o.Trainer.Validate(); err != nil {
		return option.Prefixed(err, "Trainer")
	}
	if !o.samples() {
		if o.Sampler.Method != "" && o.Sampler.Method != sampling.MethodNode {
			return option.With(option.Errorf("train", "Options", "Sampler.Method", o.Sampler.Method, "a %v model trains on the seeds' own features and samples no neighbours", o.Trainer.Model.Arch), "Trainer.Model.Arch")
		}
		return nil
	}
	if err := o.samplerOptions().Validate(); err != nil {
		return option.Prefixed(err, "Sampler")
	}
	return nil
}

// ValidateDist is Validate for a rank of a distributed run: the
// distribution's options too, and their combinations with the model's.
func (o *Options) ValidateDist() error {
	if err := o.Validate(); err != nil {
		return err
	}
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("train", "Options", field, value, format, args...)
	}
	d := o.Dist
	switch {
	case o.NewSampler != nil:
		return bad("NewSampler", "set", "a distributed run samples with the distributed samplers (distsample); NewSampler is for one process")
	case d.Replication < 0:
		return bad("Dist.Replication", d.Replication, "want >= 1 (or 0 for 1)")
	case d.Eval != EvalDistributed && d.Eval != EvalGathered:
		return bad("Dist.Eval", int(d.Eval), "want EvalDistributed or EvalGathered")
	case d.Eval == EvalDistributed && o.Trainer.Model.Arch == gnn.GCN && o.Trainer.Model.GCNNorm == gnn.GCNBlockNorm:
		return option.With(bad("Dist.Eval", d.Eval, "needs the graph's degrees (GCNGraphNorm) for GCN; use EvalGathered with GCNBlockNorm"), "Trainer.Model.GCNNorm")
	}
	if !o.samples() {
		return nil
	}
	so := o.distSamplerOptions()
	if err := so.Validate(); err != nil {
		return option.Prefixed(err, "Dist")
	}
	return nil
}
