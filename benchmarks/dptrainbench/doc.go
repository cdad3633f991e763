// Command dptrainbench measures data-parallel training under a real MPI
// launcher: `bulksample train` on one process and on --np ranks of
// mpirun (each replication factor c of --replication), on one labelled
// planted-partition graph shaped like ogbn-products, and appends to --out
// (benchmarks/results/dist.md, as `make bench` runs it) the epoch time per
// phase (sampling, feature exchange, compute, gradient all-reduce, and the
// time spent waiting in each communication phase) against the
// single-process run, with the gradient all-reduce term of the cost model
// checked against the bytes counted and used to predict ogbn-papers100M.
//
// Usage:
//
//	go run ./benchmarks/dptrainbench --bulksample bin/bulksample [--nodes 150000] [--np 4]
//
// # Gradient all-reduce term (package benchmarks/internal/costmodel)
//
// One step all-reduces B = 4·(P + 3) bytes (the P float32 gradients and
// three metrics, train.DataParallel). A ring all-reduce sends, per rank,
// 2(p-1)/p·B bytes in 2(p-1) messages, so with bandwidth β per rank and
// latency α per message
//
//	T_grad = steps · (2(p-1)/p · B / β + 2(p-1) · α)
//
// per epoch, where steps is the epoch's number of global minibatches. (The
// counters of package dist count a collective as direct sends, (p-1)·B per
// rank per step: the report gives both.)
package main
