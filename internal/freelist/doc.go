// Package freelist owns List, the free list of reusable scratch values
// (buffers, per-call state) that the samplers and the feature stores keep
// from call to call.
//
// Why not sync.Pool: a Pool empties at every other garbage collection, and
// a large bulk or gather triggers several; refilling a buffer then touches
// fresh pages, each first touch a page fault that costs 10-20 µs per 4 KiB
// page on the shared machines (docs/perf-notes.md). A List keeps
// its values until its owner is garbage, so that its size is bounded by
// the largest number of calls that were ever active at once.
package freelist
