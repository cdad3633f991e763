// Command gpucost is the cost report of the GPU pipeline (issue 41): it runs
// bulk sampling and a training step on the host emulator (package gpu's
// NewEmulator, which runs the same kernels as a GPU, one thread at a time)
// and prints what each costs as package gpu's Costs count it: kernel
// launches, blocking device-to-host copies, allocations, the bytes copied
// between host and device, and the bytes of global memory the kernels read
// and wrote per sampled edge (every load and store of the sampling kernels
// is counted by the emulator's instrumented host build).
//
//	go run ./benchmarks/gpucost                       # R-MAT 15, b = 1024, 15,10,5, k = 1,16,64,256
//	go run ./benchmarks/gpucost --scale 12 --batch 64 --check   # make test's run
//
// Rows: node-wise bulk sampling at each k, LADIES at each of --ladies-k,
// and a warm GraphSAGE training step through package train's device path
// (what `train --device cuda` runs: the bulk sampled into the device's
// memory, blocks formed and features gathered there), the second step of
// its third epoch. Every bulk is measured warm: after the same call once,
// so that the arena's buffers exist.
//
// With --check it exits 1 when a goal of issue 41 fails: node-wise
// launches per bulk independent of k and at most 6 per layer; at most one
// blocking copy per layer; no allocation in a warm bulk or step, and no
// device-wide sync in a warm step (it waits for its own stream); at most
// 100 bytes of global memory traffic per sampled edge in the node-wise
// pipeline; for LADIES, no kernel whose work runs in one thread per
// minibatch (a launch of at most k+1 threads that moves more than 1 KiB a
// thread, or a kernel of a block per minibatch one of whose threads moves
// more than 4 KiB between two barriers; telling a kernel of a block per
// minibatch from a one-tile kernel needs two values of --ladies-k).
//
// The traffic counts element sizes as the kernels declare their accesses,
// not the device's 32-byte sectors, caches or local memory: an estimate of
// a GPU's DRAM traffic, not a measurement of it.
package main
