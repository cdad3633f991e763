// Command formatbench checks that the kernels run as fast on a graph read
// from a scipy .npz as on the same graph read from bulksample's native
// format (issue 14): it writes one R-MAT graph in both formats with the CLI,
// then runs the CLI's Q·A product (spgemm --select-rows), A·A product
// (spgemm on a smaller graph) and node-wise sampling (sample) on each,
// native and npz alternating, each in a fresh process as a user runs it, and
// writes a markdown table of the medians and the npz/native ratio to --out
// (benchmarks/results/formats.md, as `make bench` runs it).
//
// Usage:
//
//	go build -o bin/bulksample ./cmd/bulksample
//	go run ./benchmarks/formatbench --bin bin/bulksample [--scale 20] [--rounds 5]
//
// The figure of one run is the CLI's own headline, its warm figure: the
// median of the products after the first (cold) one for spgemm (seconds),
// the median SEPS of the passes after the first for sample. The table gives
// the median over --rounds runs of each. A ratio above 1.10 is marked: the two formats must
// give the kernels memory they run on equally fast.
package main
