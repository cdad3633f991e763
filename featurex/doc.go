// Package featurex owns node-feature storage and extraction: the Store
// interface through which a trainer gets the feature rows of the vertices a
// minibatch reads, its local in-memory implementation (Local: a dense
// row-major array, with a CSR copy for sparse bag-of-words features, or
// only a CSR matrix for features stored sparsely, NewLocalCSR), and
// the kernels that copy labels and normalise feature rows.
//
// The distributed store Dist (docs/design.md section 4) partitions the feature
// rows by the vertex blocks of a dist.Grid, replicated on the c ranks of
// each process row; a gather fetches the distinct rows of other blocks from
// their owners with all-to-all exchanges inside the rank's process column
// (counted under dist.PhaseFeatures), reads its own block in place, and
// optionally keeps the rows of the highest-degree vertices on every rank (a
// hot-vertex cache, DistOptions.CacheBytes). Bulk fetches the rows of a
// whole bulk of minibatches in one exchange. Both implement Store and pass
// the same conformance checks as Local (featurex/featurextest), in-process
// and under mpirun.
//
// # Collective calls
//
// Dist.Gather and Bulk.Fetch are collective on the process column: every
// rank of it calls them the same number of times, a rank with nothing to
// read with no ids (Gather(ctx, nil, nil)), since others may need its rows.
// Local.Gather, Bulk.Gather and the kernels below involve no other rank.
//
// # Conventions
//
// Vertex ids are global int32 ids. A minibatch's ids are expected to be
// deduplicated already (a block's source list is), so every feature row is
// read once per minibatch (docs/design.md section 7).
//
// # Errors and panics
//
// A Store returns errors: an id out of range (which comes from data: a
// sampler built on another graph, a corrupt split) is an error naming the id
// and the store's size. The kernels (Labels, NormalizeRows, CompressRows)
// panic on a caller bug with spgemm's ShapeError or IndexError, whose Pkg
// is "featurex" (messages start "featurex:"), so that spgemm.Maybe turns
// them into errors as it does spgemm's.
package featurex
