// Package sampling owns minibatch sampling for GNN training written as sparse
// matrix products (docs/design.md section 3): the counter-based random stream, the
// minibatch plan of an epoch, the bulk node-wise (GraphSAGE) and layer-wise
// (LADIES, FastGCN) samplers, the building blocks of custom samplers, and a
// conventional per-minibatch baseline sampler used for comparison and as a
// second implementation in tests.
//
// # Overview
//
// A Plan permutes a vertex set once per epoch and cuts it into minibatches
// and bulks. A Sampler (NodeWise, LayerWise, Baseline or a user's type)
// turns the seeds of a bulk of k minibatches into a Bulk: per minibatch and
// layer a Block, a CSR matrix whose rows are destination vertices and whose
// columns index its source vertices. The blocks of a bulk are stored back to
// back (LayerArrays) and a minibatch's blocks are views of them.
//
// A sampler reads A through a RowSource: a local CSR (CSRRows) or a
// source of the caller's. Of its optional capabilities, PackedRows and
// DegreeSource concern every source; RemoteRows is the one seam through
// which a source serves rows that live in other processes, and its doc
// gives the order of the samplers' calls per layer. The node-wise
// kernel's code for such a source is one file (nodewise_remote.go), which
// a local source never enters, and the package imports no communication
// layer: distributed sampling (package dist's ranks, the row exchange, the
// choice of pull or push, NewDistSampler) is package sampling/distsample,
// whose DistRows is the RemoteRows of a row-distributed graph and whose
// samplers are NodeWise and LayerWise reading A through it, sampling what
// one process samples, bit for bit.
//
// The building blocks of the matrix formulation are exported for custom
// samplers: QPerEntry and QPerMinibatch build selection matrices Q, the
// spgemm package multiplies them with the adjacency, SelectPerRow and
// SelectPerMinibatch draw from the product, and Extract renumbers columns.
//
// # Conventions
//
// Vertex ids are global int32 ids of the adjacency's rows. A minibatch's
// frontier F_l is a list of distinct vertices; F_0 is its seeds with
// duplicates removed (first occurrences kept, so the GNN computes one output
// per distinct seed). Block l of a minibatch is |F_l| x |F_{l+1}| and
// F_{l+1} starts with F_l (destinations are a prefix of sources, as in DGL's
// blocks and PyG's NeighborLoader); the new vertices follow in order of first
// appearance. Blocks[0] is nearest to the seeds. Node-wise blocks hold 1 per
// sampled edge, the multiplicity of a neighbour drawn several times with
// replacement, or, when weighted, the selected weights normalised per row.
// With NodeWiseOptions.Degrees they also carry the degree in the graph (the
// row length of A) of each source vertex, Block.Deg, which GCN normalises
// with; the RowSource supplies them (any but a CSRRows through
// DegreeSource).
// Layer-wise blocks carry importance-normalised values and no degrees.
// Layer-wise samplers read the matrix they are given, or, with
// LayerWiseOptions.Normalize, the normalised adjacency D^-1/2 (A+I) D^-1/2
// that the LADIES paper samples from (spgemm.SymNormalizeWithSelfLoops, and
// dist.SymNormalizeWithSelfLoops on a distributed graph; the CLI's default,
// --ladies-matrix normalized); with the raw 0/1 adjacency a column's
// probability grows with its number of frontier neighbours. An empty
// minibatch gets empty blocks.
//
// Samplers describe themselves through optional capabilities:
// DegreeProvider (their blocks carry the graph's degrees) and Fingerprinter
// (the options that determine their samples, which a resumed training run
// compares with its checkpoint's).
//
// # Determinism
//
// Every random number is a pure function of (seed, epoch, global minibatch
// index, layer, vertex id, position) through Stream, so the sample of a
// minibatch is the same whatever the bulk size, thread count or rank count,
// and the bulk samplers return exactly what the per-minibatch Baseline
// returns. The parallel passes run on internal/par's team, whose
// documentation gives the argument for any thread count. Digest hashes
// samples (every block, its sources and their degrees) so that this can be
// checked.
//
// # Errors and panics
//
// Constructors return errors naming the bad option field; SampleBulk returns
// an error for a seed outside the graph or a cancelled context. Kernels
// called with inconsistent arguments (SelectPerRow with the wrong number of
// keys, a Q builder given a vertex outside [0, n)) panic with spgemm's typed
// errors, as the spgemm kernels do.
package sampling
