// Command bulksample samples GNN minibatches in bulk as sparse matrix
// products, trains GraphSAGE and GCN on them, and benchmarks the kernels.
//
// Usage:
//
//	bulksample <command> [flags]
//
// Run `bulksample help` for the list of commands and `bulksample <command>
// --help` for each command's flags. Every command accepts --json, which makes
// the last line of standard output a single JSON object with the run's
// figures.
package main
