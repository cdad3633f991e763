// Package traindata builds the inputs of a gnn.Trainer from a loaded
// dataset: a local feature store, the labels and split, and full-neighbour
// evaluation. It is where the command and the benchmarks meet package
// dataset, which package gnn does not import.
package traindata

import (
	"fmt"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// Options configure FromDataset. The zero value of each field means its
// documented default.
type Options struct {
	// Threads is the number of goroutines of feature gathering; 0 means
	// GOMAXPROCS.
	Threads int
	// NoEval leaves the evaluator out (no valid and test accuracy).
	NoEval bool
	// InferChunkRows is the chunk size of the evaluation's inference; 0
	// means gnn.Model.Predict's default.
	InferChunkRows int
}

// FromDataset returns the gnn.Data of ds with the minibatches of s. It
// returns an error naming ds when it has no features.
func FromDataset(ds *dataset.Dataset, s sampling.Sampler, opt Options) (gnn.Data, error) {
	if ds.NumFeatures <= 0 || len(ds.Features) == 0 {
		return gnn.Data{}, fmt.Errorf("%s has no node features", ds.Name)
	}
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{Threads: opt.Threads})
	if err != nil {
		return gnn.Data{}, fmt.Errorf("%s: %w", ds.Name, err)
	}
	d := gnn.Data{
		Name: ds.Name, Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test,
	}
	if !opt.NoEval && ds.Adj != nil {
		d.Evaluator = &gnn.FullNeighbour{Adj: ds.Adj, Features: ds.Features, ChunkRows: opt.InferChunkRows}
	}
	return d, nil
}
