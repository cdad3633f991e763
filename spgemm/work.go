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
	total := work[rows] - work[0] + int64(rows)
	if p := total / minChunkWork; int64(parts) > p {
		parts = int(max(p, 1))
	}
	parts = min(parts, rows)
	bounds := make([]int, 1, parts+1)
	lo := 0
	for k := 1; k < parts; k++ {
		target := total * int64(k) / int64(parts)
		// Smallest i > lo with cost(i) >= target.
		i, j := lo+1, rows
		for i < j {
			h := int(uint(i+j) >> 1)
			if work[h]-work[0]+int64(h) < target {
				i = h + 1
			} else {
				j = h
			}
		}
		if i >= rows {
			break
		}
		bounds = append(bounds, i)
		lo = i
	}
	return append(bounds, rows)
}

// parallelFor calls fn(worker, chunk) for every chunk in [0, chunks) on at
// most threads goroutines; worker in [0, threads) identifies the goroutine so
// that fn may use per-worker scratch space. It returns when all calls have
// returned. With one thread or one chunk it runs on the caller's goroutine.
func parallelFor(chunks, threads int, fn func(worker, chunk int)) {
	threads = min(threads, chunks)
	if threads <= 1 {
		for c := range chunks {
			fn(0, c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range threads {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				fn(w, c)
			}
		})
	}
	wg.Wait()
}

// parallelRows splits rows by work (see splitWork) and calls fn(worker, lo,
// hi) for each range on threads goroutines.
func parallelRows(work []int64, threads int, fn func(worker, lo, hi int)) {
	bounds := splitWork(work, threads*chunksPerThread)
	parallelFor(len(bounds)-1, threads, func(w, c int) { fn(w, bounds[c], bounds[c+1]) })
}
