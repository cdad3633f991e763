// Package featurex owns node-feature storage and extraction: the Store
// interface through which a trainer gets the feature rows of the vertices a
// minibatch reads, its local in-memory implementation (Local: a dense
// row-major array, with a CSR copy for sparse bag-of-words features), and
// the kernels that copy labels and normalise feature rows.
//
// The distributed store (DESIGN.md section 4), where feature rows are
// partitioned over ranks, replicated by a factor c and fetched with
// all-to-all exchanges inside a process column, implements the same Store
// interface and passes the same conformance checks
// (featurex/featurextest).
//
// # Conventions
//
// Vertex ids are global int32 ids. A minibatch's ids are expected to be
// deduplicated already (a block's source list is), so every feature row is
// read once per minibatch (DESIGN.md section 7).
//
// # Errors and panics
//
// A Store returns errors: an id out of range (which comes from data: a
// sampler built on another graph, a corrupt split) is an error naming the id
// and the store's size. The kernels (Labels, NormalizeRows, CompressRows)
// panic with this package's *ShapeError or *IndexError on a caller bug.
package featurex
