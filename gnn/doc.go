// Package gnn owns the graph neural networks that bulksample trains on its
// samples: the layers (GraphSAGE mean aggregator, GCN, and a features-only
// softmax regression baseline), the loss, the Adam optimiser, the trainer
// that drives sampling, feature extraction, forward, backward and update
// minibatch by minibatch, layer-wise full-neighbour evaluation, checkpoints,
// and the compute backends.
//
// # Models
//
// A model with L graph layers consumes a sampling.Minibatch with L blocks,
// applying Blocks[L-1] first and Blocks[0] (whose rows are the seeds) last.
// Block l is |Dst| x |Src| and its destinations are the first rows of its
// sources (DGL's block convention), so h_dst is a prefix of H_src.
//
//   - SAGE: h' = act(h_dst·W_self + aggregate·W_neigh + b) with
//     aggregate = row-normalise(block)·H_src: the mean over the sampled
//     neighbours when the block's values are 1 (node-wise sampling), the
//     weighted mean otherwise (weighted or with-replacement samples, LADIES
//     values). An empty row aggregates to 0.
//
//   - GCN: h' = act(Â·H_src·W + b) with Kipf and Welling's
//     Â = D^-1/2 (A+I) D^-1/2, formed for every block by one function
//     (gcnNormalize) that inference uses too. A node-wise block carries
//     the graph's degree of each source vertex (sampling.Block.Deg, from
//     NodeWiseOptions.Degrees), and d_v = deg(v)+1 with those degrees, not
//     the block's: a block holding every neighbour of its destinations is
//     exactly their rows of the full-batch operator, so a full-neighbour
//     minibatch of all training vertices computes the logits and gradients
//     of full-batch GCN (tested on Cora), and training and inference use
//     one operator. A sampled row's neighbour values are scaled by
//     deg/(sum of the row's values), deg/s for s uniform picks, which makes
//     the sampled aggregate an unbiased estimate of the full one.
//     ModelOptions.GCNNorm = GCNBlockNorm selects instead the block's own
//     degrees, D_r the row sums and D_c the column sums of block+I (DGL's
//     GraphConv with norm="both" applied to a block): a source vertex's
//     column sum counts only its edges to the block's destinations, so
//     this operator differs from full-batch GCN even with all neighbours
//     (0.74 instead of 0.78 test accuracy on Cora full batch); it is there
//     to compare with DGL. A block without degrees whose values are all 1
//     (a custom sampler's) is normalised with its own degrees too. A block
//     whose values are not all 1 and that carries no degrees (LADIES,
//     FastGCN) already holds its normalisation and is used as given,
//     without self loops. LADIES and FastGCN divide each sampled column's
//     values by its sampling probability and then normalise each row (see
//     sampling.LayerWiseOptions): their block is an importance estimate of
//     the rows of M·H for the matrix M they sample from (Â itself, as in
//     the LADIES paper, or A), over a few hundred columns per minibatch
//     instead of every neighbour, so it is not the exact rows of Â that
//     node-wise blocks give, and it needs no degrees. How the two relate:
//     sampled from Â (the stored diagonal included), a LADIES or FastGCN
//     block with sampling.LayerWiseOptions.Unbiased and Replace is an
//     unbiased estimate of Â's rows (self term included, drawn like any
//     column), the operator that full-neighbour inference (Predict, through
//     gcnNormalize) applies, as a node-wise block with graph degrees is an
//     unbiased estimate of the same rows; the default row normalisation
//     makes every row sum to 1 where Â's rows sum to Σ_j 1/sqrt(d_i·d_j),
//     a self-normalised estimate that trades this unbiasedness for variance
//     (the LADIES paper's choice), so the model trains under a rescaled
//     operator and is evaluated under Â.
//
//   - Linear: logits = x·W + b on the seeds' own features, the
//     features-only baseline; it reads no block (see SeedsOnly).
//
//   - The residual architecture (ModelOptions.Residual, Norm; residual.go),
//     the setup of Platonov et al. (ICLR 2023) for SAGE and GCN: an input
//     linear map to the hidden width and GELU, then for each graph layer a
//     block of layer normalisation, the SAGE or GCN conv, dropout, GELU,
//     a linear map and dropout, added to the block's input (the skip
//     connection), then layer normalisation and the output linear map. Its
//     layer normalisation and GELU are the backend's NormBackend
//     operations; a backend without them refuses it.
//
// act is ReLU on hidden layers and the identity on the last one, whose
// outputs are the logits; the loss is the cross-entropy of their log-softmax
// over the labelled seeds (CrossEntropy). Dropout applies to every layer's
// input, the features included. Weights start Glorot-uniform and biases 0.
// Adam's weight decay (coupled L2, added to the gradient) applies to every
// parameter, or with TrainOptions.Optimizer.WeightDecayFirstLayer to the first
// layer's weights and bias only, as in Kipf and Welling's code and PyG's GCN
// example (benchmarks/kipfpeer compares full-batch GCN with a PyTorch peer
// on the same splits).
// Backward passes are written by hand and checked against central finite
// differences in the tests.
//
// # Seams
//
// gnn knows no file format and no data set: the trainer is built from
// Data, whose parts are interfaces that distributed and GPU training
// implement without copying any of the math here.
//
//   - Backend (compute): the dense and sparse operations of the layers over
//     buffers the backend owns. The layer math of SAGE, GCN and Linear is
//     written once against it (layer.go) and used by training (Forward,
//     Backward) and inference (Predict). NewCPU is the CPU backend,
//     package gpu's Backend the CUDA one; gnn/backendtest is the
//     conformance kit every backend passes. A backend whose memory is not
//     the host's may have optional capabilities the model and the trainer
//     use (backend_device.go): Freer, Holder (a block copied once per
//     minibatch), ErrBackend (its first error ends the run) and
//     BlockFormer (a block already in its memory, Input.Blocks, made into
//     a layer's operator there); Adam's moments then stay in its memory
//     (Adam.Sync for checkpoints, which are the same file on every
//     backend).
//   - featurex.Store (input features): the trainer gathers each
//     minibatch's input rows through it, as CSR rows when the store holds
//     sparse features (featurex.SparseGatherer).
//   - GradReducer: called between the backward pass and the optimiser
//     step with the flat gradients and the step's metrics; an all-reduce
//     in data-parallel training (DataParallel: one float32 all-reduce of
//     one flat buffer per step; as a Sharder it also gives each rank its
//     part of every global minibatch, so that p ranks follow the
//     single-process run with the same batch, and a rank with an empty
//     part takes a zero-weight step that still enters every collective).
//   - Evaluator: the measures (Measures: accuracy, macro-F1 and, for two
//     classes, ROC AUC) of the train, valid and test sets after an epoch; FullNeighbour
//     is the single-process one; in a data-parallel run BlockEvaluator
//     infers each rank's row block (remote neighbours' rows fetched from
//     their owners) and RootEvaluator is the gathered evaluation (rank 0
//     holds the whole graph, infers, and broadcasts the accuracies).
//
// # Compute
//
// Values are float32. The CPU backend runs dense products through BLAS:
// OpenBLAS via cgo (gonum.org/v1/netlib) in builds with the openblas tag,
// gonum's pure-Go BLAS otherwise; the constant BLAS names the build's, and
// CPUOptions.PureGoBLAS (or ModelOptions.PureGoBLAS) selects the pure-Go one
// in any build. The pure-Go fallback trains about 4x slower. To get OpenBLAS
// in your own program, install it (Debian: apt-get install libopenblas-dev)
// and build with the tag: go build -tags openblas ./... (the Makefile adds it
// when OpenBLAS links). Result.BLAS and the CLI's header and --json summary
// say which BLAS a run used, and the CLI prints a note when it is the
// fallback; the element-wise passes, column sums and Adam run on the
// backend's threads, and the passes that follow one another over the same
// activations are fused (a bias with ReLU and dropout, the input's copy with
// its dropout, the activation's gradient with the bias gradient of the layer
// below: fusedBackend). Sparse aggregation goes through spgemm.MulDense (SpMM) and,
// backwards, spgemm.MulDenseT, or for a large block MulDense on its
// transpose (spgemm's (*CSR).Transpose into arrays the backend reuses),
// which has MulDenseT's bits and gathers each row in registers instead of
// scattering into it. Layers aggregate before they transform, since
// a sampled block has many more sources than destinations. When the input
// features are sparse (under 1/8 nonzero, as bag-of-words features are) the
// first layer instead keeps them as a CSR matrix and transforms first, so
// that its cost follows the nonzeros. Buffers are kept in the model and the
// trainer and reused from one minibatch to the next; they grow only when a
// minibatch is larger than every earlier one. What a training step still
// allocates is spgemm's and the BLAS's: with one thread and OpenBLAS, a few
// hundred bytes of work split per step whatever the minibatch's size; with
// more threads the transpose of a large block adds its blocked sort's
// scratch (4 bytes per entry), and gonum's pure-Go BLAS its per-tile jobs. TestStepReusesBuffers
// checks this and BenchmarkTrainStep reports it.
//
// # Training and evaluation
//
// Trainer.Run trains epoch by epoch. Each epoch permutes the training
// vertices (sampling.Plan, a pure function of the seed and the epoch), cuts
// them into minibatches of BatchSize, groups BulkSize minibatches into a
// bulk sampled at once (the last minibatch and bulk may be short; no vertex
// is dropped), then for each minibatch gathers its input features
// (featurex.Store), runs forward, backward, the GradReducer and an Adam
// step. Each phase's wall time and SEPS are reported per epoch. After every
// epoch the Evaluator measures the model; FullNeighbour does it by
// full-neighbour inference (Model.Predict): layer by layer over
// all vertices, in row chunks, with the mean-normalised (SAGE) or
// symmetric-normalised (GCN, the same gcnNormalize with the graph's row
// lengths) full adjacency, on dense or sparse (CSR) features. The epochs
// are ranked by TrainOptions.Eval.Metric (ROC AUC for two classes,
// accuracy otherwise, by default): the reported test figures are those of
// the epoch with the best valid metric, whose weights the trainer keeps
// (Trainer.BestParams, and in the checkpoint). Eval.Every evaluates every
// few epochs only, and Eval.Patience stops a run after that many
// evaluations without a better valid metric.
//
// # Pipeline
//
// With TrainOptions.Runtime.PipelineDepth 2 (the default) the epoch is a pipeline
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
// A stop requested through TrainOptions.Hooks.Stop is not a cancellation: the
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
// # Determinism
//
// Initial weights and dropout masks are pure functions of (seed, epoch,
// minibatch, layer, element) through sampling.Stream, as the samples are.
// A run is therefore reproducible bit for bit for a given build and thread
// count, and a run resumed from a checkpoint (TrainOptions.Checkpoint.Dir and
// Resume) ends with the same weights as an uninterrupted one. With OpenBLAS
// the CPU backend gives the same bits for any thread count too: it splits a
// large product into blocks of rows or columns, each a single-threaded
// Sgemm (OpenBLAS's own threading gives other bits for 2 threads than for
// 1), and its element-wise passes and column sums compute every value with
// the same arithmetic in the same order whatever the split (the argument of
// internal/par's documentation).
//
// # Options and resuming
//
// TrainOptions group the model (Model), the optimiser (Optimizer), the
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
// # Errors and panics
//
// Options and Data are checked by the constructors, which return errors
// naming the field; a sampler, a feature store, labels and an evaluator
// that disagree on the number of vertices are an error naming both counts. Tensors of the wrong shape passed to the kernels
// (Forward, Backward, CrossEntropy, Adam.Step) are caller bugs and panic
// with a spgemm.ShapeError or IndexError.
package gnn
