package par

// Resize returns s with length n, reusing its array when its capacity
// suffices; the contents are not cleared. A new array has room for n/8
// more elements: the buffers of bulksample's kernels serve the next call,
// bulk, group or layer, whose sizes differ by a few percent, and with exact
// sizes every one larger than all before it moved to a new array and left
// the old one as garbage on pages already faulted in (at k = 256 on R-MAT
// 20, 65-73 MiB a bulk through the sampler's cold pass; docs/perf-notes.md
// says why fresh pages are dear).
//
// It is the one slice-growing helper of bulksample: kernels that keep
// buffers across calls resize them with it.
func Resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, n+n/8)
}
