// Package sampling owns minibatch sampling for GNN training written as sparse
// matrix products (DESIGN.md section 3): the counter-based random stream, the
// minibatch plan of an epoch, the bulk node-wise (GraphSAGE) and layer-wise
// (LADIES, FastGCN) samplers, the building blocks of custom samplers, and a
// conventional per-minibatch baseline sampler used for comparison and as a
// second implementation in tests.
//
// # Determinism
//
// Every random number is a pure function of (seed, epoch, global minibatch
// index, layer, vertex id, position), so the sample of a minibatch is the
// same whatever the bulk size, thread count or rank count.
package sampling
