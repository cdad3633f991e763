// Command balancebench measures how evenly a distributed run's work falls
// on its ranks for each vertex labelling of one R-MAT graph (issue 31): as
// generated (ids already permuted at random by the generator), sorted by
// degree with the heaviest first (heavy vertices clustered in low ids, the
// worst case), relabelled at random and relabelled by degree
// (dataset.Relabel). For each block count B (p/c of a run, c = 1) it
// reports, per row block, the stored edges (what a rank holds), the
// sampled edges picked from the block's rows (what an owner does under
// --fetch push), the row entries the block serves under --fetch pull (the
// degrees of the distinct frontier vertices each rank asks it for, per
// layer and bulk), and per rank the sampled edges of its own minibatches
// (what it samples under pull): the largest over the mean, and the
// smallest. The sample is one process's (the distributed sample is the
// same, docs/design.md 3.3), split among the B ranks as the CLI splits each
// bulk (dist.BlockRange).
//
// Usage:
//
//	go run ./benchmarks/balancebench [--scale 22] [--blocks 2,4,16] [--out benchmarks/results/balance.md]
package main
