// Command gatherbench measures featurex's local feature gather on many
// threads: it gathers the input rows of real sampled minibatches (the
// sources of their last block) from a featurex.Local store, dense
// (Local.Gather into a dense block) and sparse (Local.GatherCSR from the
// store's CSR copy), at each thread count of --threads, and writes a
// markdown section to --out (`make bench` appends it to
// benchmarks/results/sampling.md).
//
// Usage (what `make bench` runs):
//
//	go run ./benchmarks/gatherbench [flags]
//
// The graph is Graph500 R-MAT of --scale (20 by default), symmetrised.
// Features are --features float32 per vertex, uniform in [-1, 1) (dense),
// and a second array with each value kept with probability --density
// (sparse; the store keeps its CSR copy). --minibatches minibatches of
// --batch seeds are sampled node-wise with --fanouts (the seeds of epoch 0
// of a plan over all vertices); each timed repetition gathers all their
// input rows once per store, the thread counts interleaved. The table gives
// the median over --reps repetitions of rows per second and GB/s, the bytes
// written (dense: rows·f·4; sparse: the CSR's 8 bytes per entry and per
// row), and the speedup and parallel efficiency against one thread.
//
// With --pin each thread count T runs in its own process, this program
// started again with --threads T and every other flag the user set
// (childArgs) under taskset on T CPUs (benchutil.Pinner):
// a process cannot pin the threads of its own Go runtime, whose workers
// and GC would otherwise use every CPU of the machine. Each such process
// also times the 1-thread gather, interleaved with T's, and the speedup is
// against that, so that drift between the processes does not enter it.
package main
