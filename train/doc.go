// Package train assembles the training of a graph neural network from a
// dataset: the sampler, the feature store, the labels and split, the
// evaluator and, on the ranks of a distributed run, the data-parallel
// reducer (docs/design.md sections 4 and 5). It is where packages dataset,
// sampling, featurex, dist and gnn meet, so that a program trains in three
// steps: options, New (one process) or NewDist (one rank of a job), and the
// gnn.Trainer's Run. The CLI's `bulksample train` is its flags, then
// Options, then those calls.
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
// (gnn.DataParallel), so p ranks follow the single-process run with the
// same Train.Plan.BatchSize; the layouts and sources give the same bits.
package train
