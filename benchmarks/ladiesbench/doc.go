// Command ladiesbench measures bulk layer-wise sampling (LADIES, and
// optionally FastGCN) against bulk node-wise sampling of the same
// minibatches, and writes a markdown section to --out
// (benchmarks/results/sampling-layerwise.md by default; `make bench` appends
// the section to benchmarks/results/sampling.md instead).
//
// Usage (what `make bench` runs):
//
//	go run ./benchmarks/ladiesbench [flags]
//
// The graph is Graph500 R-MAT of --scale (20 by default), edge factor 16,
// symmetrised, without self loops or duplicates. Minibatches are --batch
// seeds each, the first minibatches of epoch 0 of a plan over all vertices.
// For every bulk size k of --bulks, each method samples --minibatches
// minibatches (at least k) in bulks of k, --reps times; the table reports
// the median time per minibatch and SEPS (sampled edges, the entries of all
// blocks, per second of sampling, docs/design.md section 8), and the ratio of
// each layer-wise method's time per minibatch to node-wise sampling's,
// measured alternately in the same run.
//
// With --cli BULKSAMPLE it instead sweeps --bulks and --sweep-threads
// through the command line, one `bulksample sample --method ladies --json`
// process per run (sweep.go): SEPS, cold SEPS, parallel efficiency and
// peak RSS as a user measures them, the within-round ratios with 95%
// intervals, and a verdict on the largest k against the best.
package main
