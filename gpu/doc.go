// Package gpu runs bulksample's samplers and sparse products on an NVIDIA
// GPU (docs/design.md section 5, GPU): NodeWise, LayerWise (LADIES, FastGCN)
// and Product (C = A·B) on a Device.
//
// # Overview
//
// Open returns the first GPU in a binary built with the cuda tag
// (`make build CUDA=1`); without the tag it returns ErrNotBuilt, and
// without a GPU the driver's error. A sampler uploads its graph once (an
// error names both sizes if it does not fit the device's free memory)
// and samples a bulk in a fixed sequence of kernel launches whatever the
// bulk's size k: node-wise, three a layer and one copy of the
// minibatches' offsets back to the host; LADIES nine and two copies,
// FastGCN five and one. SampleDevice leaves the blocks on the device (a
// DeviceBulk, for a GPU trainer), SampleBulk downloads them as a
// sampling.Bulk. A Product uploads A and B and computes C by a row gather
// when A has at most one entry per row (Q·A: two launches, a warp per
// row), by cuSPARSE's SpGEMM otherwise.
//
// # Costs
//
// A Device counts its work (Costs): launches, blocking copies, bytes
// copied, allocations, and on the emulator the global memory each kernel
// read and wrote. benchmarks/gpucost prints them per bulk and per training
// step, and make test checks issue 41's goals on a small graph.
//
// For a GPU trainer (docs/design.md section 5's backend, part 2 of the GPU
// work): Buffer is device memory the caller owns, a DeviceBulk's arrays
// give their device addresses (Array.Ptr), and, in a cuda build,
// Device.CUDA returns the context on whose thread cuBLAS and cuSPARSE's
// SpMM (package internal/cuda) run beside the samplers.
//
// # GNN training
//
// Backend is gnn.Backend on a Device: cuBLAS's Sgemm, cuSPARSE's SpMM
// and the kernels of internal/cuda/kernels/bs_nn.h (on the emulator, or
// with BackendOptions.OwnKernels, bulksample's own products instead of
// the libraries'). It also has gnn's optional capabilities: Hold (a sparse
// operand copied once per minibatch), Free, Err (the first device error;
// operations after it do nothing) and FormBlock, which turns a Block of a
// DeviceBulk (DeviceBulk.Minibatch) into a layer's operator on the device.
// With Features (the feature matrix in device memory) and GatherRows, a
// minibatch sampled by SampleDevice trains without its blocks or features
// leaving the device (gnn.Input's Blocks and Buf). The Backend's doc says
// which operations equal the CPU backend's bit for bit. A Backend's queued
// work may read a DeviceBulk's arrays until it has run: call Sync before
// the sampler's next call.
//
// # Determinism
//
// The samplers return exactly what package sampling's return, bit for
// bit: the same stream, selections, deduplication order and
// normalisation. Everything they compute is written once, in the CUDA C
// of package internal/cuda/kernels, as functions compiled both into the
// PTX and for the host; the host build runs on NewEmulator, a Device that
// executes the same kernels and the same Go pipeline on the CPU, one
// thread at a time (in a permuted order, to catch kernels that depend on
// the order of their threads; the cooperating threads of a block kernel
// phase by phase between barriers, blocks interleaved). The tests of this package run package
// sampling's conformance kit and bit-for-bit comparisons on the emulator
// in every `make test`, and on a GPU under the cuda tag (the GPU bundle).
// cuSPARSE's products sum in their own order: with integer values (a 0/1
// adjacency) they are exact; with others they agree with spgemm.Mul to
// float32 rounding.
//
// # Memory and concurrency
//
// Each sampler and product owns its device memory: buffers are named,
// sized from host bounds (a row's picks are at most its fanout), grow as
// needed and are reused by the next call, and Close frees them: a warm
// bulk allocates nothing. A DeviceBulk is valid until the sampler's next
// call. A Device runs one call at a time on the thread that holds its
// CUDA context.
//
// # What does not apply
//
// NodeWiseOptions.Threads and MaxBulkEdges, LayerWiseOptions.Threads and
// Semibulk shape the CPU's work and do not change results; the device
// samplers ignore them. A bulk is sampled in one group, so its size is
// bounded by the device's memory. Masks and Add of spgemm.MulOptions are
// not supported on the device.
package gpu
