package dataset

import (
	"fmt"
	"runtime"

	"github.com/bulksample/bulksample/spgemm"
)

// Dataset is a graph with node features, labels and a train/valid/test split,
// as GNN training consumes it.
type Dataset struct {
	Name string

	// Adj is the n x n adjacency: row v lists the vertices v aggregates from
	// (its in-neighbours; symmetric for undirected graphs). Its values are the
	// edge weights, 1 for unweighted graphs.
	Adj *spgemm.CSR
	// Weighted reports whether Adj's values are meaningful edge weights.
	Weighted bool

	// Features is n x NumFeatures, row-major; nil when the dataset has none.
	Features    []float32
	NumFeatures int

	// Labels has one class id per vertex, -1 for unlabelled vertices; nil
	// when the dataset has no labels.
	Labels     []int32
	NumClasses int

	// Train, Valid and Test are vertex ids, each sorted ascending.
	Train, Valid, Test []int32

	// release unmaps the file that a native load mapped; nil otherwise.
	release func() error
}

// NumNodes returns the number of vertices.
func (d *Dataset) NumNodes() int {
	if d.Adj == nil {
		return 0
	}
	return d.Adj.Rows
}

// Close releases the memory mapping of a Dataset loaded from a native file;
// its arrays must not be used afterwards. It does nothing for other Datasets.
// A Dataset that is never closed keeps its mapping until the process exits.
func (d *Dataset) Close() error {
	if d.release == nil {
		return nil
	}
	r := d.release
	d.release = nil
	return r()
}

// Validate checks that d is consistent: a valid square adjacency, features
// of n x NumFeatures, one label per node in [-1, NumClasses), and split ids
// in range, sorted and unique. It returns an error naming the first problem.
// It costs O(n·f + nnz).
func (d *Dataset) Validate() error {
	if d.Adj == nil {
		return fmt.Errorf("dataset: no adjacency")
	}
	if err := d.Adj.Validate(); err != nil {
		return fmt.Errorf("adjacency: %w", err)
	}
	return d.validateAttributes()
}

// validateAttributes is Validate without the O(nnz) check of Adj's rows,
// which must have passed ValidateOffsets.
func (d *Dataset) validateAttributes() error {
	n := d.Adj.Rows
	if d.Adj.Cols != n {
		return fmt.Errorf("dataset: adjacency is %d x %d, not square", n, d.Adj.Cols)
	}
	if d.NumFeatures < 0 || int64(len(d.Features)) != int64(n)*int64(d.NumFeatures) {
		return fmt.Errorf("dataset: %d feature values for %d nodes x %d features", len(d.Features), n, d.NumFeatures)
	}
	if d.Labels != nil {
		if len(d.Labels) != n {
			return fmt.Errorf("dataset: %d labels for %d nodes", len(d.Labels), n)
		}
		for v, l := range d.Labels {
			if l < -1 || int(l) >= d.NumClasses {
				return fmt.Errorf("dataset: node %d: label %d outside [-1, %d)", v, l, d.NumClasses)
			}
		}
	}
	for _, s := range []struct {
		name string
		ids  []int32
	}{{"train", d.Train}, {"valid", d.Valid}, {"test", d.Test}} {
		for i, v := range s.ids {
			if uint32(v) >= uint32(n) {
				return fmt.Errorf("dataset: %s split: entry %d: node %d outside [0, %d)", s.name, i, v, n)
			}
			if i > 0 && v <= s.ids[i-1] {
				return fmt.Errorf("dataset: %s split: not sorted and unique at entry %d", s.name, i)
			}
		}
	}
	return nil
}

// numThreads resolves a Threads option: <= 0 means GOMAXPROCS.
func numThreads(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}
