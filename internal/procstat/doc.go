// Package procstat reads figures about the running process from the
// operating system and the Go runtime, and owns the per-phase meter that the
// CLI's summaries, the trainer's epoch records and the benchmark programs
// report: for each named phase of a run, its wall and CPU time, the page
// faults it took, the bytes it allocated, the garbage collection it paid
// for, and the peak resident memory.
//
// # Why
//
// On the machines this project runs on, fresh memory costs 11-22 µs per 4 KiB
// page on first touch (docs/perf-notes.md), so the same kernel call
// can take 2 ms or 14 ms depending on whether its output pages are new. A
// phase's minor faults and kernel (system) time say which happened; its
// allocated bytes and GC time say whether the Go heap was the cause.
//
// # Sources
//
// One getrusage(RUSAGE_SELF) call gives the CPU time (user and system, all
// threads), the minor and major page faults and the peak resident set
// (ru_maxrss, the kernel's high-water mark, which ResetPeakRSS lowers);
// runtime/metrics gives the bytes allocated on the heap, the GC cycles, the
// stop-the-world pause time and the runtime's estimate of GC CPU time. A
// reading costs a few microseconds and allocates nothing after the first.
//
// # Conventions
//
// A Meter is a value owned by whoever measures (a command, a trainer, a
// benchmark); there is no package-level state, and a Meter is not safe for
// concurrent use. Costs of the same phase add up; the peak resident set of a
// sum is the larger of the two.
package procstat
