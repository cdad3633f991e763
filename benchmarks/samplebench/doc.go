// Command samplebench measures node-wise sampling throughput in sampled
// edges per second (SEPS, docs/design.md section 8): the bulk sampler
// (sampling.NodeWise) at several bulk sizes k against the conventional
// per-minibatch sampler (sampling.Baseline), on the same R-MAT graph, seeds
// and thread counts, in one process, and writes a markdown table to --out
// (benchmarks/results/sampling.md, as `make bench` runs it).
//
// Usage:
//
//	go run ./benchmarks/samplebench [--scale 20] [--threads 1,2] [--bulk 1,4,16,64,256]
//
// The workload is issue 4's: Graph500 R-MAT (edge factor 16, symmetrised),
// minibatches of --batch seeds taken from a random permutation of all
// vertices (the first --seeds of it), fanouts --fanout, no replacement,
// uniform. Each configuration samples all seeds --reps times; the table
// gives the median SEPS, its range, the ratio to the baseline at the same
// thread count, and the peak resident memory of the process during that
// configuration (VmHWM, reset before each one where the kernel allows).
// All configurations of one thread count are checked to produce the same
// digest, so the figures compare equal work.
//
// --graph FILE samples a graph read from a file (any format bulksample
// reads: Tolokers' heterophilous-graphs .npz, a SNAP edge list) instead,
// for degree distributions that are not R-MAT's; --write-snap FILE writes
// the R-MAT graph of --scale as SNAP text (dataset.WriteSNAP) for such a
// run through the text reader.
package main
