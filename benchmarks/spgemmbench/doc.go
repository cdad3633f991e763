// Command spgemmbench compares bulksample's SpGEMM (spgemm.Mul) with
// SuiteSparse:GraphBLAS (GrB_mxm) on the same products of the same matrices,
// in the same process, at the same thread count, and writes the comparison
// table to benchmarks/results/spgemm.md.
//
// Usage (what `make bench` runs):
//
//	go run -tags graphblas ./benchmarks/spgemmbench [flags]
//
// Built without the graphblas tag it times bulksample alone and says so.
//
// Cases are named by product and R-MAT scale: "aa16" is A·A for the R-MAT
// graph of scale 16, "qa20" is Q·A for scale 20, where Q selects --qrows
// distinct random rows (one 1 per row, the shape of bulk sampling). Every
// graph is Graph500 R-MAT, (a,b,c,d) = (0.57,0.19,0.19,0.05), edge factor
// 16, symmetrised, without self loops or duplicates, values 1.
//
// The first product of each library is compared with the other's entry by
// entry, and the program fails if they differ. Then each library runs
// --warmup untimed and --reps timed runs, alternating the two (and which goes
// first) so that a noisy neighbour hurts both alike; a run repeats a product
// shorter than --mintime. The table reports medians per product.
//
// Flags: --cases, --threads, --reps, --warmup, --mintime, --seed, --qrows,
// --out (the markdown file; "" for none), --cpuprofile, --json (the last line of standard
// output is one JSON object with every figure), --help. Progress goes to
// standard error.
package main
