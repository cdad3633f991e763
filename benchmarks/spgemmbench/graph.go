package main

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/spgemm"
)

// makeGraph returns the Graph500 R-MAT graph of the case: dataset.RMAT with
// (a,b,c,d) = (0.57,0.19,0.19,0.05), symmetrised, no self loops or
// duplicates, values 1. The graph does not depend on threads.
func makeGraph(ctx context.Context, scale, edgeFactor int, seed uint64, threads int) (*spgemm.CSR, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, err := dataset.RMAT(dataset.RMATOptions{Scale: scale, EdgeFactor: edgeFactor, Seed: seed, Threads: threads})
	if err != nil {
		return nil, fmt.Errorf("R-MAT scale %d: %w", scale, err)
	}
	return g, nil
}
