// Command summabench compares the two distributed products of Q·A (a
// selection Q of k random rows times the adjacency A, the sampling shape)
// under a real MPI launcher: `bulksample spgemm --grid 2d` (Sparse SUMMA on
// a sqrt(p) x sqrt(p) grid: every block of A travels along its process
// column, and Q's along its process row) and `--grid 1.5d` (Q's rows spread
// over the ranks, which pull only the rows of A they use from their owners
// in their process column, for each replication c), and, for a general
// product, the same two on A·A of a smaller graph (--square-scale). It
// checks every run's
// digest against one process and appends a markdown section to --out
// (benchmarks/results/dist.md, after distbench's report, as `make bench`
// runs it).
//
// Usage:
//
//	go run ./benchmarks/summabench --bulksample bin/bulksample [--scale 18] [--np 4] [--select-rows 32768]
package main
