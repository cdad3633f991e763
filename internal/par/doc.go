// Package par is the parallel-for of bulksample: the resolution of a
// Threads option, balanced ranges, the static and dynamic loops over them,
// the work-balanced loop over the rows of a sparse matrix, and the team of
// spinning goroutines that the samplers run their many short passes on.
// Every package of bulksample that runs work on several goroutines does so
// through it.
//
// # Determinism
//
// bulksample promises that a kernel's output has the same bits for any
// number of threads (docs/design.md section 3.3). The loops of
// this package decide only which goroutine handles which index; they
// guarantee that
//
//   - every index of [0, n) is handed to exactly one call of the body, once;
//   - a call gets a contiguous range [lo, hi), which it visits in any order
//     it likes, with no other goroutine touching that range meanwhile;
//   - the caller's goroutine takes part, and every loop returns only after
//     every call of the body has returned (a panic in a body is re-raised
//     on the caller, by Team and For alike, once the others have returned).
//
// They guarantee nothing about which ranges run together or in which
// order. A kernel built on them is therefore thread-independent when
//
//  1. the value written for an index (an output row, an entry, a vertex)
//     is computed from inputs and arithmetic that do not depend on where
//     the ranges were cut, and is written by the call that owns the index;
//  2. what is combined across ranges is combined exactly (integer counts
//     and offsets, minima, flags) or in index order after the loop (a
//     prefix sum over per-range totals, floating-point sums added range by
//     range in range order, never as they finish);
//  3. per-worker scratch (the worker argument) holds nothing that survives
//     from one index to the next in a way that changes a result: it is
//     cleared, or only reused for capacity.
//
// Randomness follows from 1: every random number is a pure function of its
// coordinates (sampling.Stream), never of a goroutine's position in a
// sequence. Each kernel's documentation says "the result does not depend
// on the thread count" and refers here for the argument; a kernel that
// needs more (a sum across rows, say) states its own order.
//
// # Threads
//
// A Threads option of 0 (or less) means GOMAXPROCS (Threads); a loop never
// starts more goroutines than it has ranges, and runs on the caller alone
// when one is enough, so that a small call allocates nothing.
package par
