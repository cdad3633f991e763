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

import "sync"

// List is a stack of values kept for reuse. The zero value is empty; it is
// safe for concurrent use.
type List[T any] struct {
	mu   sync.Mutex
	free []T
}

// Get removes and returns the value put last, or reports that there is
// none.
func (l *List[T]) Get() (x T, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.free)
	if n == 0 {
		return x, false
	}
	x = l.free[n-1]
	var zero T
	l.free[n-1] = zero // the list holds no reference to what it gave out
	l.free = l.free[:n-1]
	return x, true
}

// Put keeps x for a later Get.
func (l *List[T]) Put(x T) {
	l.mu.Lock()
	l.free = append(l.free, x)
	l.mu.Unlock()
}
