package par

// Work splitting by cost, for the row-wise kernels of sparse matrices.
//
// A kernel describes its work as a prefix sum shaped like a CSR's Indptr
// (work[i+1]-work[i] is the cost of row i: for SpGEMM the flop count, for
// row-wise kernels the row's nonzeros). SplitWork cuts the rows into
// contiguous ranges of about equal cost, counting one unit per row as well
// so that long runs of empty rows are split too; ForWork hands such ranges
// to the goroutines of For. Each row is computed by exactly one goroutine,
// in a fixed order within its range (see Determinism in the package
// documentation).

// ChunksPerThread is how many ranges ForWork makes per thread, for dynamic
// load balance; 8 follows the GraphBLAS saxpy3 coarse-task heuristic of a
// few tasks per thread.
const ChunksPerThread = 8

// MinChunkWork is the least work (flops or nonzeros, plus rows) worth a
// range of its own: below it the cost of a goroutine hand-off dominates.
const MinChunkWork = 1 << 14

// SplitWork returns boundaries b (b[0] = 0, b[len(b)-1] = rows, strictly
// increasing unless rows == 0) of at most parts ranges of rows of about
// equal cost, where the cost of rows [0, i) is work[i] - work[0] + i. work
// has length rows+1 and is non-decreasing.
func SplitWork(work []int64, parts int) []int {
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

// splitParts returns the total cost of the rows of work (see SplitWork) and
// how many ranges to cut them into: at most parts, at most one per row, and
// at most one per MinChunkWork of cost, but at least one.
func splitParts(work []int64, parts int) (total int64, n int) {
	rows := len(work) - 1
	total = work[rows] - work[0] + int64(rows)
	if p := total / MinChunkWork; int64(parts) > p {
		parts = int(max(p, 1))
	}
	return total, max(min(parts, rows), 1)
}

// costSearch returns the smallest i in [lo, rows] with cost(i) >= target
// (see SplitWork), or rows if there is none; cost is strictly increasing.
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

// ForWork splits rows by work as SplitWork does, into about
// threads·ChunksPerThread ranges, and calls fn(worker, lo, hi) for each
// range on threads goroutines (For). When the rows make one range or
// threads is 1 it calls fn(0, 0, rows) once on the caller's goroutine;
// otherwise each range's bounds are found by binary search when it is
// taken (possibly empty ranges are skipped), so no bounds are allocated.
func ForWork(work []int64, threads int, fn func(worker, lo, hi int)) {
	rows := len(work) - 1
	if threads <= 1 || rows <= 1 {
		fn(0, 0, max(rows, 0))
		return
	}
	total, parts := splitParts(work, threads*ChunksPerThread)
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
	For(parts, threads, func(w, c int) {
		if lo, hi := bound(c), bound(c+1); lo < hi {
			fn(w, lo, hi)
		}
	})
}
