// Package train owns the training of a graph neural network of package
// gnn: the Trainer (NewTrainer, Run) that drives sampling, feature
// gathering, forward, backward, the gradient all-reduce and the optimiser
// step minibatch by minibatch, its pipeline, its checkpoints, the
// evaluation after each epoch (the evaluators FullNeighbour,
// BlockEvaluator and RootEvaluator, built on gnn's inference and metrics),
// the ranking of the epochs and early stopping, and data parallelism
// (DataParallel, the gradient all-reduce). gnn owns the models, the loss,
// the optimiser and the backends, and knows nothing of this package, as
// DGL keeps its nn modules apart from its dataloading.
//
// It also assembles a training run from a dataset: the sampler, the
// feature store, the labels and split, the evaluator and, on the ranks of
// a distributed run, the data-parallel reducer (docs/design.md sections 4
// and 5). It is where packages dataset, sampling, featurex, dist and gnn
// meet, so that a program trains in three steps: Options, New (one
// process) or NewDist (one rank of a job), and the Trainer's Run. The
// CLI's `bulksample train` is its flags, then Options, then those calls.
// Options.Trainer (TrainerOptions) configures the trainer; the other
// fields of Options say how the run is assembled.
//
// # The trainer's seams
//
// The trainer is built from Data, whose parts are interfaces that
// distributed and GPU training implement without copying any of the math
// of package gnn:
//
//   - featurex.Store (input features): the trainer gathers each
//     minibatch's input rows through it, as CSR rows when the store holds
//     sparse features (featurex.SparseGatherer).
//
//   - GradReducer: called between the backward pass and the optimiser
//     step with the flat gradients and the step's metrics; an all-reduce
//     in data-parallel training (DataParallel: one float32 all-reduce of
//     one flat buffer per step; as a Sharder it also gives each rank its
//     part of every global minibatch, so that p ranks follow the
//     single-process run with the same batch, and a rank with an empty
//     part takes a zero-weight step that still enters every collective).
//
//   - Evaluator: the measures (gnn.Measures: accuracy, macro-F1 and, for two
//     classes, ROC AUC) of the train, valid and test sets after an epoch; FullNeighbour
//     is the single-process one; in a data-parallel run BlockEvaluator
//     infers each rank's row block (remote neighbours' rows fetched from
//     their owners) and RootEvaluator is the gathered evaluation (rank 0
//     holds the whole graph, infers, and broadcasts the accuracies).
//
//   - gnn.Backend (compute), through TrainerOptions.Runtime.Backend: the
//     CPU one by default, package gpu's on a device. With a device's
//     sampler (a gnn.DeviceSampler), a backend that forms blocks there
//     (gnn.BlockFormer) and features resident there (gnn.IDGatherer), the
//     trainer takes the device path (Trainer.DevicePath): bulks never
//     leave the device's memory, only the labels cross; otherwise bulks
//     come to the host. Both paths train the same bits.
//
// # One process
//
// New takes a loaded dataset.Dataset: its graph, features, labels and
// split. NormFeatures scales the feature rows to sum 1 first (in place:
// the dataset is the caller's). Features a dataset keeps sparse
// (Dataset.SparseFeatures) stay a CSR matrix: the store gathers CSR rows,
// the first layer multiplies them sparse, and evaluation reads the CSR
// matrix; a distributed run makes them dense.
//
// # Distributed
//
// NewDist runs on every rank of a job (the ranks of a dist.Comm; see
// dist.Run) and reads the data from a Source: a file or folder (Path), a
// dataset every rank holds in memory (Whole), or the blocks a rank has
// loaded itself (Blocks). With the default Split layout a rank holds only
// its block of the graph's rows and of the feature rows (read by offsets
// from a native file, by row pointers from a scipy .npz, by streaming from
// an OGB folder: dataset.LoadRowBlock and LoadFeatureBlock), and of the
// labels (dataset.LoadLabelBlock) its block's and those of the training
// vertices, which the owners of the blocks send it once; the rows of other
// blocks come from their owners while sampling (distsample.NewDistSampler)
// and gathering features (featurex.Dist). With the Replicated layout every
// rank holds the whole dataset and samples without communication. Rank 0
// of a run with EvalGathered holds the whole dataset too, to evaluate the
// whole graph.
//
// The ranks compare what they loaded with rank 0's (its figures and the
// file's identity, dataset.Identity) before training: a rank that read a
// stale copy under the same name is an error naming what differs, not a run
// on other data.
//
// # Determinism
//
// Every rank samples its part of every global minibatch and the step's
// all-reduce gives every rank the gradient of the whole minibatch
// (train.DataParallel), so p ranks follow the single-process run with the
// same Trainer.Plan.BatchSize; the layouts and sources give the same bits.
//
// # Training and evaluation
//
// Trainer.Run trains epoch by epoch. Each epoch permutes the training
// vertices (sampling.Plan, a pure function of the seed and the epoch), cuts
// them into minibatches of BatchSize, groups BulkSize minibatches into a
// bulk sampled at once (the last minibatch and bulk may be short; no vertex
// is dropped), then for each minibatch gathers its input features
// (featurex.Store), runs forward, backward, the GradReducer and a gnn.Adam
// step. Each phase's wall time and SEPS are reported per epoch. After every
// epoch the Evaluator measures the model; FullNeighbour does it by
// full-neighbour inference (gnn.Model.Predict): layer by layer over
// all vertices, in row chunks, with the mean-normalised (SAGE) or
// symmetric-normalised (GCN, the operator of the package gnn
// documentation's Models) full adjacency, on dense or sparse (CSR) features. The epochs
// are ranked by TrainerOptions.Eval.Metric (ROC AUC for two classes,
// accuracy otherwise, by default): the reported test figures are those of
// the epoch with the best valid metric, whose weights the trainer keeps
// (Trainer.BestParams, and in the checkpoint). Eval.Every evaluates every
// few epochs only, and Eval.Patience stops a run after that many
// evaluations without a better valid metric.
//
// # Pipeline
//
// With TrainerOptions.Runtime.PipelineDepth 2 (the default) the epoch is a pipeline
// of depth 2, as in DGL's prefetching dataloader, P3 and DSP: one goroutine
// samples the next bulk and another gathers the next minibatch's features
// and labels (the feature exchange of a distributed featurex.Store) while
// the training goroutine runs forward, backward, the GradReducer and Adam
// on the current one. At most two bulks are alive (the one training and the
// next; a third is sampled only once the first is trained) and two input
// buffers (the one training and the one being filled), so the pipeline
// costs one bulk and one minibatch's input more memory than PipelineDepth 1,
// which runs the phases in turn. Each goroutine calls its component in the
// epoch's order whatever the timing, the sampler is keyed by (epoch,
// minibatch) and dropout masks by (epoch, minibatch, layer), so the weights
// are bit for bit those of PipelineDepth 1, a stopped and resumed run
// included. A sampling or gathering error reaches the trainer after the
// minibatches before it, as it would without the pipeline; an error or
// cancellation on the training side cancels the loaders, and Run returns
// only after they have ended (after saving a stopped epoch's checkpoint).
// A stop requested through TrainerOptions.Hooks.Stop is not a cancellation: the
// ranks of a data-parallel run agree on it in the step's all-reduce, every
// rank stops after the same step, and the loaders finish the collectives
// they had begun, alike on every rank, instead of being cancelled, so that
// no rank is left waiting in one (rank 0 then saves the step's progress
// before any rank returns).
// EpochStats.Phases reports the loaders' Sample and Extract times, which
// overlap the training goroutine's phases, and Wait, the time the training
// goroutine waited for a minibatch: what the pipeline did not hide.
//
// The sampler gets a goroutine of its own only when the feature store is a
// *featurex.Local, which never communicates, or a *featurex.Dist, which
// exchanges on its own copy of the grid's column communicator; with any
// other store one loading goroutine samples each bulk after the previous
// bulk's last gather, since the store may share the sampler's communicator
// (distsample.DistNodeWise uses the grid's process column), and the next
// bulk's sampling then overlaps only the training of the previous bulk's
// last minibatches. Under MPI the loading goroutine and
// the training goroutine call MPI at the same time, which needs
// MPI_THREAD_MULTIPLE: the components that communicate say so (CommUser),
// and when two of them do on a library that did not grant it
// (dist.ConcurrentComms), NewTrainer runs at PipelineDepth 1 and says why
// (Trainer.PipelineDepth, Result.PipelineReason). The GradReducer must use
// a communicator that neither the sampler nor the store uses (a Split of
// the world of its own), since each communicator must see its collectives
// in the same order on every rank.
//
// # Options and resuming
//
// TrainerOptions group the model (Model), the optimiser (Optimizer), the
// plan of the epochs (Plan), the runtime (Runtime), the checkpoints
// (Checkpoint) and the hooks (Hooks); Validate names a bad field by its
// path. A checkpoint records the options a resumed run must share: the
// trainer's own, the split's fingerprint (SplitFingerprint), the sampler's
// (a sampling.Fingerprinter: its method, fanouts or budgets, and LADIES'
// matrix) and the data's (Data.Fingerprint: whether the feature rows were
// normalised). A resume with another value of any of them is an error
// naming each that differs, in both directions. GCN with the graph's
// degrees needs a sampler whose blocks carry them (a
// sampling.DegreeProvider that provides them).
//
// # Errors
//
// Options and Data are checked by the constructors, which return errors
// naming the field; a sampler, a feature store, labels and an evaluator
// that disagree on the number of vertices are an error naming both counts.
package train
