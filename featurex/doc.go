// Package featurex owns node-feature extraction: copying the feature rows and
// labels of the vertices a minibatch needs into dense, reusable buffers.
//
// This file set is the local part: the features live in one row-major
// n x f array in this process and Gather reads them directly. The
// distributed part (DESIGN.md section 4), where feature rows are partitioned
// over ranks, replicated by a factor c and fetched with all-to-all exchanges
// inside a process column, comes later and will keep Gather's contract for
// the rows a rank holds.
//
// # Conventions
//
// Vertex ids are global int32 ids. A minibatch's ids are expected to be
// deduplicated already (a block's source list is), so every feature row is
// read once per minibatch (DESIGN.md section 7).
//
// # Errors and panics
//
// The functions are kernels: a buffer of the wrong length panics with an
// spgemm.ShapeError and an id outside [0, n) with an spgemm.IndexError.
package featurex
