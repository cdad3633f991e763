// Command scalebench runs issue 31's scaling table through the CLI: one
// R-MAT graph sampled by one process at T threads and under mpirun with
// pull, push and a replicated graph, each graph as generated and relabelled
// (gen rmat --relabel), and the same for a papers100M-sized graph. It runs
// on a machine without Go from the folder scripts/scale-bundle.sh builds
// (run.sh there gives it the bundle's binaries and Open MPI), and on this
// machine at a small scale in `make test` (TestScaleBundle).
//
// Usage:
//
//	scalebench --bulksample B --bulksample-mpi BM --mpirun M --work DIR --out DIR [--scale 22] [--budget 470]
//
// It writes DIR/scale.md (a table per graph: SEPS, the ratio to the one
// process, seconds, the busiest rank's sample traffic, the largest peak
// RSS, the digest check) and DIR/scale.json (every run's command and its
// whole JSON summary), after every run, so that a run stopped by the budget
// keeps what it measured.
//
// # Extending it
//
// A table row is a runCase (cases.go: its label, ranks, threads and the
// sample flags it adds); a column is a column (cases.go: its header and a
// function of the run's JSON). A new fetch mode is a row in tableCases, a
// new figure of the JSON summary a column in columns.
package main
