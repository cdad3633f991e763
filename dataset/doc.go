// Package dataset owns reading and writing graphs and node features (scipy
// .npz, the gnn-benchmark .npz layout, OGB node-property folders, edge lists
// and Matrix Market files, and bulksample's native memory-mappable format),
// the synthetic generators (R-MAT, labelled planted-partition graphs) and the
// train/valid/test splits.
//
// # Errors
//
// Every problem with input data is returned as an error that names the file
// and, where it applies, the array, field or line; no input makes a reader
// panic. Writers write to a temporary name and rename, so an output file is
// never left half-written.
package dataset
