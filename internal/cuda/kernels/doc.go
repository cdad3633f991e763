// Package kernels holds bulksample's CUDA kernels: their CUDA C source
// (kernels.cu and the bs_*.h headers), the module image that `go generate`
// compiles from it with nvcc (kernels.fatbin: SASS for sm_80 and sm_90 and
// compute_80 PTX, committed and embedded, so that building bulksample needs
// no CUDA toolkit and an A100, H100 or H200 loads it without a JIT; the PTX
// is committed as text too, kernels.ptx), and a host emulator
// that runs the same per-thread functions, compiled for the host by cgo,
// over an emulated grid.
//
// # One definition
//
// Everything a kernel computes that must equal package sampling's Go code
// bit for bit (the counter-based stream, the per-row selections, the
// deduplication order, LADIES' and FastGCN's probabilities, selections and
// normalisation) is written once, as __host__ __device__ functions in the
// headers. The device runs them from the fatbin; the host emulator runs them
// from the cgo build; the tests of this package compare the host build with
// package sampling function by function, and package gpu's tests run whole
// samplers on the emulator against package sampling. scripts/ptx.sh holds
// the nvcc flags that keep the device arithmetic IEEE (no contraction into
// fused multiply-adds, no flush to zero), and its --check (make test)
// checks the images: every float operation of the PTX rounded as written
// (.rn), and SASS that ptxas makes the same with contraction on, so that no
// multiply and add were fused. host.go's pragmas turn off contraction for
// the host compiler too.
//
// # Kernels
//
// A per-thread kernel NAME is the function bs_NAME_thread(params, t) of
// its parameter struct bs_NAME_p, whose members are all 8 bytes wide
// (device pointers, int64_t, double), the thread count n first. The PTX
// exports it as bs_NAME, a grid-stride loop over t in [0, n). Callers pass
// the struct as a []uint64 (Kernel.Params words); both launchers check
// the count.
//
// A block kernel (bs_block.h; Kernel.Threads > 0) is a block of 256
// threads that cooperate through shared memory and barriers, written as
// phases, the code between two barriers: bs_NAME_phase(params, shared,
// registers, thread, phase) returns the next phase. Its n is its tiles of
// work, which blocks take by tickets; a tile's scan over the whole launch
// is one pass by decoupled look-back (Merrill and Garland), so a kernel
// that counts its rows' entries also places them: node-wise sampling is
// three launches a layer (bs_nodewise.h), the row-gather product two
// (bs_gather.h), and no kernel of layer-wise sampling runs a minibatch on
// one thread (bs_layerwise.h).
//
// # The emulator
//
// RunHost calls a per-thread function for every t of [0, n) in the order
// (offset + i·stride) mod n, so that a test can run the threads of every
// kernel in several orders: a kernel whose result depends on the order of
// its threads (which the device does not guarantee) then gives different
// results. RunHostBlocks runs a block kernel as thread-loop fission: it
// keeps each block's shared memory and each thread's registers (filled
// with garbage, as on a device), runs one block's phase for all of its
// threads, in a permuted order, then another block's, in turn or at
// random, so that blocks interleave and a block waiting for another's
// look-back lets it run; it reports a barrier that the threads of a block
// do not all reach, and a launch whose blocks wait without end. Its
// memory is C memory (Alloc), addressed like device memory.
//
// Every global load and store of the sampling kernels goes through BS_LD
// and BS_ST (bs_common.h), which the host build counts: RunHost and
// RunHostBlocks return each launch's Traffic, the bytes its kernel's
// accesses declare, and the most one thread moved between two barriers.
// The GNN backend's kernels (bs_nn.h) are not counted (Kernel.Counted).
package kernels
