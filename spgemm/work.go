package spgemm

// Work splitting shared by every kernel of the package.
//
// A kernel describes its work as a prefix sum shaped like Indptr (work[i+1]-work[i]
// is the cost of row i; for SpGEMM the flop count, for row-wise kernels the
// row's nonzeros). splitWork cuts the rows into contiguous ranges of about
// equal cost, counting one unit per row as well so that long runs of empty rows
// are split too. parallelFor hands the ranges to a fixed number of goroutines
// through an atomic counter, so a slow range does not hold up the others, while
// each row is still computed by exactly one goroutine in a fixed order: the
// output bits do not depend on the thread count or on the schedule.

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunksPerThread is how many ranges splitWork makes per thread, for dynamic
// load balance; 8 follows the GraphBLAS saxpy3 coarse-task heuristic of a few
// tasks per thread.
const chunksPerThread = 8

// minChunkWork is the least work (flops or nonzeros, plus rows) worth a range
// of its own: below it the cost of a goroutine hand-off dominates.
const minChunkWork = 1 << 14

// threadsOf resolves a thread-count option: n <= 0 means GOMAXPROCS.
func threadsOf(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// splitWork returns boundaries b (b[0] = 0, b[len(b)-1] = rows, strictly
// increasing unless rows == 0) of at most parts ranges of rows of about equal
// cost, where the cost of rows [0, i) is work[i] - work[0] + i. work has
// length rows+1 and is non-decreasing.
func splitWork(work []int64, parts int) []int {
	rows := len(work) - 1
	if rows <= 0 {
		return []int{0, 0}
	}
	total, parts := splitParts(work, parts)
	bounds := make([]int, 1, parts+1)
	lo := 0
	for k := 1; k < parts; k++ {
		i := costSearch(work, lo+1, total*int64(k)/int64(parts))
		if i >= rows {
			break
		}
		bounds = append(bounds, i)
		lo = i
	}
	return append(bounds, rows)
}

// splitParts returns the total cost of the rows of work (see splitWork) and
// how many ranges to cut them into: at most parts, at most one per row, and
// at most one per minChunkWork of cost, but at least one.
func splitParts(work []int64, parts int) (total int64, n int) {
	rows := len(work) - 1
	total = work[rows] - work[0] + int64(rows)
	if p := total / minChunkWork; int64(parts) > p {
		parts = int(max(p, 1))
	}
	return total, max(min(parts, rows), 1)
}

// costSearch returns the smallest i in [lo, rows] with cost(i) >= target
// (see splitWork), or rows if there is none; cost is strictly increasing.
func costSearch(work []int64, lo int, target int64) int {
	i, j := lo, len(work)-1
	for i < j {
		h := int(uint(i+j) >> 1)
		if work[h]-work[0]+int64(h) < target {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// parallelFor calls fn(worker, chunk) for every chunk in [0, chunks) on at
// most threads goroutines, the caller's among them; worker in [0, threads)
// identifies the goroutine so that fn may use per-worker scratch space. It
// returns when all calls have returned. With one thread or one chunk it runs
// on the caller's goroutine alone.
func parallelFor(chunks, threads int, fn func(worker, chunk int)) {
	threads = min(threads, chunks)
	if threads <= 1 {
		for c := range chunks {
			fn(0, c)
		}
		return
	}
	// One allocation for the shared state rather than one per variable.
	s := &parallelState{chunks: chunks, fn: fn}
	for w := 1; w < threads; w++ {
		s.wg.Go(func() { s.work(w) })
	}
	s.work(0)
	s.wg.Wait()
}

// parallelState is what the goroutines of one parallelFor share.
type parallelState struct {
	next   atomic.Int64
	wg     sync.WaitGroup
	chunks int
	fn     func(worker, chunk int)
}

// work calls fn for the chunks not yet taken, as worker w.
func (s *parallelState) work(w int) {
	for {
		c := int(s.next.Add(1) - 1)
		if c >= s.chunks {
			return
		}
		s.fn(w, c)
	}
}

// parallelRows splits rows by work as splitWork does and calls fn(worker,
// lo, hi) for each range on threads goroutines. When the rows make one range
// or threads is 1 it calls fn(0, 0, rows) once on the caller's goroutine;
// otherwise each range's bounds are found by binary search when it is taken
// (possibly empty ranges are skipped), so no bounds are allocated.
func parallelRows(work []int64, threads int, fn func(worker, lo, hi int)) {
	rows := len(work) - 1
	if threads <= 1 || rows <= 1 {
		fn(0, 0, max(rows, 0))
		return
	}
	total, parts := splitParts(work, threads*chunksPerThread)
	if parts == 1 {
		fn(0, 0, rows)
		return
	}
	bound := func(k int) int {
		if k == parts {
			return rows
		}
		return costSearch(work, 0, total*int64(k)/int64(parts))
	}
	parallelFor(parts, threads, func(w, c int) {
		if lo, hi := bound(c), bound(c+1); lo < hi {
			fn(w, lo, hi)
		}
	})
}
