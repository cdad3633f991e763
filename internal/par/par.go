package par

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Threads returns the number of goroutines a Threads option n means: n
// when it is positive, else GOMAXPROCS.
func Threads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Range returns the i-th of parts contiguous, balanced ranges of [0, n):
// [i·n/parts, (i+1)·n/parts), computed in 64 bits. It panics unless
// n >= 0, parts > 0 and 0 <= i < parts.
func Range(n, parts, i int) (lo, hi int) {
	if parts <= 0 || uint(i) >= uint(parts) || n < 0 {
		panic(fmt.Sprintf("par: Range(%d, %d, %d): want n >= 0, parts > 0, 0 <= i < parts", n, parts, i))
	}
	return int(int64(i) * int64(n) / int64(parts)), int(int64(i+1) * int64(n) / int64(parts))
}

// Do calls fn(0), ..., fn(t-1) at the same time, fn(0) on the caller's
// goroutine, and returns when all have returned; fn may wait for its
// peers. t = 1 is one direct call of fn(0), and t <= 0 calls nothing. A
// panic in any call is re-raised on the caller once all have returned.
func Do(t int, fn func(w int)) {
	switch {
	case t <= 0:
		return
	case t == 1:
		fn(0)
		return
	}
	var failed atomic.Pointer[any]
	var wg sync.WaitGroup
	for w := 1; w < t; w++ {
		wg.Go(func() { guard(&failed, func() { fn(w) }) })
	}
	guard(&failed, func() { fn(0) })
	wg.Wait()
	if r := failed.Load(); r != nil {
		panic(*r)
	}
}

// Ranges cuts [0, n) into parts contiguous ranges whose inner bounds are
// multiples of align (bound p is n/align·p/parts·align, and the last is
// n), and calls fn(part, lo, hi) for every non-empty one at the same time
// (Do). With parts <= 1 it is one direct call fn(0, 0, n); n <= 0 calls
// nothing.
func Ranges(n, parts, align int, fn func(part, lo, hi int)) {
	if n <= 0 {
		return
	}
	if parts <= 1 {
		fn(0, 0, n)
		return
	}
	align = max(align, 1)
	bound := func(p int) int {
		if p >= parts {
			return n
		}
		return int(int64(n/align) * int64(p) / int64(parts) * int64(align))
	}
	Do(parts, func(p int) {
		if lo, hi := bound(p), bound(p+1); lo < hi {
			fn(p, lo, hi)
		}
	})
}

// For calls fn(worker, chunk) for every chunk of [0, chunks) on at most
// threads goroutines, the caller's among them, handing the chunks out in
// order through an atomic counter (so that a slow chunk does not hold the
// others up); worker, in [0, threads), names the goroutine, for
// per-worker scratch. It returns when every call has returned. With one
// thread or one chunk it runs on the caller's goroutine alone.
func For(chunks, threads int, fn func(worker, chunk int)) {
	threads = min(threads, chunks)
	if threads <= 1 {
		for c := range chunks {
			fn(0, c)
		}
		return
	}
	// One allocation for the shared state rather than one per variable.
	s := &forState{chunks: chunks, fn: fn}
	Do(threads, s.work)
}

// forState is what the goroutines of one For share.
type forState struct {
	next   atomic.Int64
	chunks int
	fn     func(worker, chunk int)
}

// work calls fn for the chunks not yet taken, as worker w.
func (s *forState) work(w int) {
	for {
		c := int(s.next.Add(1) - 1)
		if c >= s.chunks {
			return
		}
		s.fn(w, c)
	}
}

// guard runs job, recording in failed the first panic (a panic in a
// helper goroutine would otherwise end the process, and one in the caller
// would leave the helpers' work unfinished).
func guard(failed *atomic.Pointer[any], job func()) {
	defer func() {
		if r := recover(); r != nil {
			v := r // a variable of its own: &r would move r to the heap on every call
			failed.CompareAndSwap(nil, &v)
		}
	}()
	job()
}
