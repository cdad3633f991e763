// Package gnn owns the graph neural networks that bulksample trains on its
// samples: the layers (GraphSAGE mean aggregator, GCN, and a features-only
// softmax regression baseline) and the residual architecture, the models
// built of them, the loss, the Adam optimiser, layer-wise full-neighbour
// inference (Predict, and InferRowBlock for one rank's block of rows), the
// metrics (Measure, ROC AUC, macro-F1: pure functions of predictions,
// scores and labels), and the compute backends (the CPU one, the optional
// capabilities of a device's, the layer normalisation operations) with the
// BLAS seam. How a model is trained, minibatch by minibatch and epoch by
// epoch, with the pipeline, checkpoints, evaluation, early stopping and
// data parallelism, is package train's (train.Trainer); gnn gives it what
// seam.go lists and imports nothing of it, as DGL keeps its nn modules
// apart from its dataloading.
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
//     features-only baseline; it reads no block (see train.SeedsOnly).
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
// parameter, or with train.TrainerOptions.Optimizer.WeightDecayFirstLayer to the first
// layer's weights and bias only, as in Kipf and Welling's code and PyG's GCN
// example (benchmarks/kipfpeer compares full-batch GCN with a PyTorch peer
// on the same splits).
// Backward passes are written by hand and checked against central finite
// differences in the tests.
//
// # Seams
//
// gnn knows no file format, no data set and no training loop.
//
//   - Backend (compute): the dense and sparse operations of the layers over
//     buffers the backend owns. The layer math of SAGE, GCN and Linear is
//     written once against it (layer.go) and used by training (Forward,
//     Backward) and inference (Predict). NewCPU is the CPU backend,
//     package gpu's Backend the CUDA one; gnn/backendtest is the
//     conformance kit every backend passes. A backend whose memory is not
//     the host's may have optional capabilities the model and the trainer
//     use (backend_device.go): Freer, Holder (a block copied once per
//     minibatch), ErrBackend (its first error ends the run), BufGatherer
//     (a feature store that gathers into its memory) and BlockFormer (a
//     block already in its memory, Input.Blocks, made into a layer's
//     operator there); and the device path's seam of package train's
//     trainer: DeviceSampler (a sampler whose bulks, DeviceBulk and
//     DeviceMinibatch, stay in the backend's memory until their Release)
//     and IDGatherer (a store gathering rows by ids in that memory,
//     DeviceIDs). Adam's moments then stay in its memory (Adam.Sync
//     for checkpoints, which are the same file on every backend).
//   - The training seam (seam.go): what package train's trainer uses
//     besides Forward, Backward and Predict: the buffer forms of the pass
//     (ForwardBuf, BackwardBuf, ParamsBuf, GradsBuf, Adam.StepOn),
//     SetGrads after the gradient all-reduce, FirstLayerParams for
//     first-layer weight decay, Adam.SetMoments and ParamHash for
//     checkpoints and replicas, GrowBuf and SyncBackend for a device
//     backend, CheckTrainingMemory before a model exists, PredictScored
//     for the evaluators, and NormalizeRowBlock and InferRowBlock, the
//     layer-wise inference of one rank's block of rows whose remote
//     neighbours' rows come from elsewhere (train.BlockEvaluator).
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
// when OpenBLAS links). train.Result.BLAS and the CLI's header and --json summary
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
// scratch (4 bytes per entry), and gonum's pure-Go BLAS its per-tile jobs.
// TestModelStepReusesBuffers checks the model's buffers, package train's
// TestStepReusesBuffers the step's allocations, and its BenchmarkTrainStep
// reports them.
//
// # Determinism
//
// Initial weights and dropout masks are pure functions of (seed, epoch,
// minibatch, layer, element) through sampling.Stream, as the samples are.
// A run is therefore reproducible bit for bit for a given build and thread
// count, and a run that package train resumes from a checkpoint ends with
// the same weights as an uninterrupted one. With OpenBLAS
// the CPU backend gives the same bits for any thread count too: it splits a
// large product into blocks of rows or columns, each a single-threaded
// Sgemm (OpenBLAS's own threading gives other bits for 2 threads than for
// 1), and its element-wise passes and column sums compute every value with
// the same arithmetic in the same order whatever the split (the argument of
// internal/par's documentation).
//
// # Errors and panics
//
// Options are checked by the constructors (NewModel, NewAdam), which
// return errors naming the field. Tensors of the wrong shape passed to the
// kernels (Forward, Backward, CrossEntropy, Adam.Step) are caller bugs and
// panic with a spgemm.ShapeError or IndexError.
package gnn
