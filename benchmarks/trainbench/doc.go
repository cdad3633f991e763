// Command trainbench measures GraphSAGE training epochs on bulk-sampled
// minibatches: the epoch time and its breakdown into phases (sample, extract,
// forward, backward, update, and the pipeline's wait) and SEPS, with the
// build's native BLAS (OpenBLAS under the openblas tag) and with gonum's
// pure-Go BLAS, with and without the input pipeline (--pipeline 1,2), in one
// process on the same graph, and writes a markdown table to --out
// (benchmarks/results/train.md, as `make bench` runs it). The
// configurations take turns, one epoch each per round, so that they see the
// same load; every round trains the same epoch (the first) of each
// configuration's model again, so that the rounds do the same work.
//
// Usage:
//
//	go run -tags openblas ./benchmarks/trainbench [--nodes 150000] [--epochs 2] [--threads 2] [--pipeline 2]
//
// The workload is issue 5's: a 3-layer GraphSAGE, hidden 256, fanouts
// 15,10,5, batch 1024, k = 32 minibatches per bulk, dropout 0.5, Adam, on a
// labelled planted-partition graph shaped like ogbn-products (average degree
// 50, 100 features, 47 classes, 8% of the vertices in the training split) at
// --nodes vertices: ogbn-products itself (2.45M vertices) does not fit the
// benchmark's 5-minute budget on 2 cores, so the scale is the largest that
// does and the table states it. Evaluation is skipped: the epoch time is the
// training loop's.
package main
