package hugemem

import (
	"sync"
	"unsafe"

	"github.com/bulksample/bulksample/internal/par"
)

// MinBytes is the smallest array an Arena maps: smaller ones are ordinary Go
// slices, for which one huge page (2 MiB) would be more waste than gain.
const MinBytes = 2 << 20

// hugePage is the transparent huge page size that mappings are aligned to.
const hugePage = 2 << 20

// Element is the element types an Arena holds: numbers, never pointers,
// since the garbage collector does not scan memory outside its heap.
type Element interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// An Arena hands out large arrays outside the Go heap and releases them all
// at once. The zero value is ready to use; a nil *Arena allocates on the Go
// heap. An Arena is safe for concurrent use.
type Arena struct {
	mu      sync.Mutex
	regions [][]byte // live mappings, whole (see mapRegion)
	bytes   int64    // total length of regions
}

// Make returns a zeroed slice of n elements: in a mapping of a, aligned to a
// huge page and advised to use huge pages, when a is not nil and the array
// has at least MinBytes; on the Go heap otherwise (or if the mapping fails).
// A mapped slice is valid until a.Release.
func Make[T Element](a *Arena, n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if a == nil || n < MinBytes/size {
		return make([]T, n)
	}
	raw, off := mapRegion(n * size)
	if raw == nil {
		return make([]T, n)
	}
	a.mu.Lock()
	a.regions = append(a.regions, raw)
	a.bytes += int64(len(raw))
	a.mu.Unlock()
	return unsafe.Slice((*T)(unsafe.Pointer(&raw[off])), n)
}

// Move returns s's elements in memory of a (see Make): s itself if it is
// already there, or too small, or a is nil; otherwise a copy, leaving s to
// the garbage collector. Copying runs in parallel on up to threads
// goroutines (at least one).
func Move[T Element](a *Arena, s []T, threads int) []T {
	if a == nil || a.Owns(unsafe.Pointer(unsafe.SliceData(s))) {
		return s
	}
	d := Make[T](a, len(s))
	if unsafe.SliceData(d) == nil || !a.Owns(unsafe.Pointer(unsafe.SliceData(d))) {
		return s // not mapped: keep the original rather than a heap copy
	}
	parallelCopy(d, s, threads)
	return d
}

// parallelCopy copies src into dst (equal lengths) in threads chunks, so
// that the first touch of dst's pages, the dear part, is shared out.
func parallelCopy[T any](dst, src []T, threads int) {
	threads = max(1, min(threads, len(src)/(1<<18)))
	par.Ranges(len(src), threads, 1, func(_, lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// Grow returns s resized to n elements: s's array when its capacity
// suffices, else a new one of a (see Make) with a quarter more room, so that
// slightly larger requests that follow fit, and s's own array freed (see
// Free). The contents are not kept: Grow is for buffers the caller
// overwrites. Should the unmapping fail, s's array stays mapped until
// a.Release: memory, not correctness.
func Grow[T Element](a *Arena, s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	_ = Free(a, s)
	return Make[T](a, n+n/4)[:n]
}

// Free unmaps the mapping that holds s, an array that Make or Move of a
// returned, when the caller is done with it before the rest of a; s, and
// every slice of that array, must not be used afterwards. It does nothing
// for arrays a does not hold (small ones, heap copies), so callers may pass
// any array they are finished with.
func Free[T Element](a *Arena, s []T) error {
	if a == nil || cap(s) == 0 {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	a.mu.Lock()
	var raw []byte
	for i, r := range a.regions {
		if lo := uintptr(unsafe.Pointer(unsafe.SliceData(r))); p >= lo && p < lo+uintptr(len(r)) {
			raw = r
			a.regions = append(a.regions[:i], a.regions[i+1:]...)
			a.bytes -= int64(len(r))
			break
		}
	}
	a.mu.Unlock()
	if raw == nil {
		return nil
	}
	return unmapRegion(raw)
}

// Owns reports whether p points into memory that a has mapped and not
// released.
func (a *Arena) Owns(p unsafe.Pointer) bool {
	if a == nil || p == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.regions {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(r)))
		if uintptr(p) >= lo && uintptr(p) < lo+uintptr(len(r)) {
			return true
		}
	}
	return false
}

// Bytes returns the number of bytes of address space a holds mapped.
func (a *Arena) Bytes() int64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bytes
}

// Release unmaps every array a has handed out; none of them may be used
// afterwards. Releasing twice, or a nil Arena, does nothing. The Arena can
// be used again.
func (a *Arena) Release() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	regions := a.regions
	a.regions, a.bytes = nil, 0
	a.mu.Unlock()
	var first error
	for _, r := range regions {
		if err := unmapRegion(r); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Populate makes every page of s's whole array (its capacity, not only its
// length) resident and writable now, so that later writes to it, a
// transport's included, take no page fault: the first touch of fresh
// memory, 2-22 µs per 4 KiB on our virtual machines (docs/perf-notes.md),
// is paid here, by the caller, rather than inside whatever fills the array
// first (an all-to-all, where every other rank would wait for it). It
// returns the bytes it covered. On Linux it asks the kernel to fault the
// pages in (madvise MADV_POPULATE_WRITE, Linux 5.14), which keeps the
// contents; where that is not available it writes a zero into every 4 KiB
// page, so the contents of a populated array are unspecified: Populate is
// for buffers the caller overwrites, as Grow's are. Populating an array
// that is already resident costs a walk of its page tables.
func Populate[T Element](s []T) int64 {
	if cap(s) == 0 {
		return 0
	}
	s = s[:cap(s)]
	size := int(unsafe.Sizeof(s[0]))
	bytes := int64(len(s)) * int64(size)
	if populateRegion(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*size)) {
		return bytes
	}
	step := max(1, 4096/size)
	var zero T
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
	return bytes
}
