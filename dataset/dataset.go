package dataset

import "github.com/bulksample/bulksample/spgemm"

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
}

// NumNodes returns the number of vertices.
func (d *Dataset) NumNodes() int {
	if d.Adj == nil {
		return 0
	}
	return d.Adj.Rows
}
