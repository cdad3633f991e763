// Package gnn owns the graph neural networks that bulksample trains on its
// samples: the layers (GraphSAGE mean aggregator, GCN, and a features-only
// softmax regression baseline), the loss, the Adam optimiser, the trainer
// that drives sampling, feature extraction, forward, backward and update
// minibatch by minibatch, layer-wise full-neighbour evaluation, checkpoints,
// and the dense compute backends (BLAS).
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
//   - GCN: h' = act(Â·H_src·W + b). When every value of the block is 1, Â
//     is D_r^-1/2 (A+I) D_c^-1/2 with the block's own degrees: D_r holds the
//     row sums of A+I, D_c its column sums (DGL's norm="both"; on a full
//     symmetric graph both are the degrees plus one). A block whose values
//     are not all 1 already carries its normalisation (LADIES, FastGCN) and
//     is used as given, without self loops.
//   - Linear: logits = x·W + b on the seeds' own features, the
//     features-only baseline; it reads no block (see SeedsOnly).
//
// act is ReLU on hidden layers and the identity on the last one, whose
// outputs are the logits; the loss is the cross-entropy of their log-softmax
// over the labelled seeds (CrossEntropy). Dropout applies to every layer's
// input, the features included. Weights start Glorot-uniform and biases 0.
// Backward passes are written by hand and checked against central finite
// differences in the tests.
//
// # Compute
//
// Values are float32. Dense products go through BLAS: OpenBLAS via cgo
// (gonum.org/v1/netlib) in builds with the openblas tag, gonum's pure-Go
// BLAS otherwise; the constant BLAS names the build's, and
// ModelOptions.PureGoBLAS selects the pure-Go one in any build. The pure-Go
// fallback trains about 4x slower. To get OpenBLAS in your own program,
// install it (Debian: apt-get install libopenblas-dev) and build with the
// tag: go build -tags openblas ./... (the Makefile adds it when OpenBLAS
// links). Result.BLAS and the CLI's header and --json summary say which BLAS
// a run used, and the CLI prints a note when it is the fallback. Sparse
// aggregation goes through spgemm.MulDense (SpMM) and, backwards,
// spgemm.MulDenseT. Layers aggregate before they transform, since a sampled
// block has many more sources than destinations. When the input features are
// sparse (under 1/8 nonzero, as bag-of-words features are) the first layer
// instead keeps them as a CSR matrix and transforms first, so that its cost
// follows the nonzeros. Buffers are kept in the model and the trainer and
// reused from one minibatch to the next; they grow only when a minibatch is
// larger than every earlier one. What a training step still allocates is
// spgemm's and the BLAS's: with one thread and OpenBLAS, a few hundred bytes
// of work split per step whatever the minibatch's size; with more threads
// spgemm.MulDenseT adds a count per source vertex (8 bytes each), and
// gonum's pure-Go BLAS its per-tile jobs. TestStepReusesBuffers checks this
// and BenchmarkTrainStep reports it.
//
// # Training and evaluation
//
// Trainer.Run trains epoch by epoch. Each epoch permutes the training
// vertices (sampling.Plan, a pure function of the seed and the epoch), cuts
// them into minibatches of BatchSize, groups BulkSize minibatches into a
// bulk sampled at once (the last minibatch and bulk may be short; no vertex
// is dropped), then for each minibatch gathers its input features
// (featurex), runs forward, backward and an Adam step. Each phase's wall
// time and SEPS are reported per epoch. After every epoch the model is
// evaluated by full-neighbour inference (Model.Predict): layer by layer over
// all vertices, in row chunks, with the mean-normalised (SAGE) or
// symmetric-normalised (GCN) full adjacency; the reported test accuracy is
// that of the epoch with the best valid accuracy.
//
// # Determinism
//
// Initial weights and dropout masks are pure functions of (seed, epoch,
// minibatch, layer, element) through sampling.Stream, as the samples are.
// A run is therefore reproducible bit for bit for a given build and thread
// count, and a run resumed from a checkpoint (TrainOptions.CheckpointDir and
// Resume) ends with the same weights as an uninterrupted one.
//
// # Errors and panics
//
// Options and datasets are checked by the constructors, which return errors
// naming the field. Tensors of the wrong shape passed to the kernels
// (Forward, Backward, CrossEntropy, Adam.Step) are caller bugs and panic
// with a spgemm.ShapeError or IndexError.
package gnn
