// Package hugemem owns large, long-lived numeric arrays kept outside the Go
// heap, on memory that asks the kernel for transparent huge pages.
//
// Why: on the machines bulksample runs on (virtual machines with transparent
// huge pages set to "madvise"), where a loader's arrays live decides how fast
// the kernels that read them run, for two reasons. Random reads of rows of a
// large CSR matrix miss the TLB on every row unless the array sits on 2 MiB
// pages, which the Go heap never asks for. And a graph held on the Go heap
// makes the heap large, so the garbage collector runs rarely and every
// product's output lands on fresh pages, each first touch costing a page
// fault (10-20 µs per 4 KiB page on these machines, see docs/perf-notes.md); a
// graph mapped from a native file leaves the heap small, the collector
// recycles outputs, and the same product ran 7x faster. An Arena gives every
// loader the native file's conditions: the arrays off the heap, on huge
// pages.
//
// The price is an explicit lifetime: memory from an Arena stays valid until
// its Release, and the garbage collector cannot see references to it. The
// owner of an Arena (dataset.Dataset, through Close) releases it when its
// user says the arrays are no longer needed; an Arena never released keeps
// its memory until the process exits, like a file mapping never unmapped.
// Arrays smaller than MinBytes, a nil Arena, and systems without anonymous
// mappings get ordinary Go slices, so callers need no second code path.
package hugemem
