package par

import (
	"fmt"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestThreads(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{3, 3}, {1, 1}, {0, runtime.GOMAXPROCS(0)}, {-2, runtime.GOMAXPROCS(0)}} {
		if got := Threads(tc.n); got != tc.want {
			t.Errorf("Threads(%d) = %d; want %d", tc.n, got, tc.want)
		}
	}
}

// TestRange checks the ranges by hand on 10 in 3 parts, and that for many
// (n, parts) the ranges tile [0, n) with lengths that differ by at most 1.
func TestRange(t *testing.T) {
	var got [][2]int
	for i := range 3 {
		lo, hi := Range(10, 3, i)
		got = append(got, [2]int{lo, hi})
	}
	if want := [][2]int{{0, 3}, {3, 6}, {6, 10}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Range(10, 3, ·) = %v; want %v", got, want)
	}
	for _, n := range []int{0, 1, 5, 97, 1 << 31} {
		for _, parts := range []int{1, 2, 7, 64} {
			prev := 0
			for i := range parts {
				lo, hi := Range(n, parts, i)
				if lo != prev || hi < lo || hi-lo > n/parts+1 {
					t.Fatalf("Range(%d, %d, %d) = [%d, %d) after %d", n, parts, i, lo, hi, prev)
				}
				prev = hi
			}
			if prev != n {
				t.Fatalf("Range(%d, %d, ·) ends at %d", n, parts, prev)
			}
		}
	}
	for _, bad := range [][3]int{{5, 0, 0}, {5, 2, 2}, {5, 2, -1}, {-1, 2, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Range%v did not panic", bad)
				}
			}()
			Range(bad[0], bad[1], bad[2])
		}()
	}
}

// TestRanges checks that Ranges visits every index once, in ranges whose
// inner bounds are multiples of align, and that one part is a direct call.
func TestRanges(t *testing.T) {
	for _, n := range []int{0, 1, 9, 100, 1001} {
		for _, parts := range []int{1, 2, 3, 8} {
			for _, align := range []int{1, 4, 16} {
				seen := make([]atomic.Int32, n)
				Ranges(n, parts, align, func(p, lo, hi int) {
					if p < 0 || p >= max(parts, 1) || lo >= hi || (lo%align != 0) || (hi != n && hi%align != 0) {
						t.Errorf("n=%d parts=%d align=%d: call (%d, %d, %d)", n, parts, align, p, lo, hi)
					}
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				})
				for i := range seen {
					if c := seen[i].Load(); c != 1 {
						t.Fatalf("n=%d parts=%d align=%d: index %d visited %d times", n, parts, align, i, c)
					}
				}
			}
		}
	}
}

// TestDoPanic checks that a panic in any goroutine of Do reaches the
// caller once the others have returned.
func TestDoPanic(t *testing.T) {
	for bad := range 3 {
		var done atomic.Int32
		got := func() (r any) {
			defer func() { r = recover() }()
			Do(3, func(w int) {
				if w == bad {
					panic(fmt.Sprint("worker ", w))
				}
				done.Add(1)
			})
			return nil
		}()
		if want := fmt.Sprint("worker ", bad); got != want || done.Load() != 2 {
			t.Errorf("panic in %d: recovered %v with %d others done; want %q and 2", bad, got, done.Load(), want)
		}
	}
}

// TestFor checks that For hands every chunk to exactly one call, with
// worker numbers below the thread count.
func TestFor(t *testing.T) {
	for _, chunks := range []int{0, 1, 5, 300} {
		for _, threads := range []int{1, 2, 7} {
			seen := make([]atomic.Int32, chunks)
			For(chunks, threads, func(w, c int) {
				if w < 0 || w >= threads {
					t.Errorf("For(%d, %d): worker %d", chunks, threads, w)
				}
				seen[c].Add(1)
			})
			for c := range seen {
				if n := seen[c].Load(); n != 1 {
					t.Fatalf("For(%d, %d): chunk %d handed out %d times", chunks, threads, c, n)
				}
			}
		}
	}
}

func TestSplitWork(t *testing.T) {
	tests := []struct {
		work  []int64
		parts int
		want  []int
	}{
		{[]int64{0}, 4, []int{0, 0}},
		{[]int64{0, 5}, 4, []int{0, 1}},
		{[]int64{0, 0, 0, 0}, 2, []int{0, 3}}, // too little work to split
		{[]int64{0, MinChunkWork, 2 * MinChunkWork, 3 * MinChunkWork, 4 * MinChunkWork}, 2, []int{0, 2, 4}},
		// Row 1 holds all the work: the cut falls right after it.
		{[]int64{0, 0, 10 * MinChunkWork, 10 * MinChunkWork, 10 * MinChunkWork}, 4, []int{0, 2, 3, 4}},
	}
	for _, tc := range tests {
		if got := SplitWork(tc.work, tc.parts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitWork(%v, %d) = %v; want %v", tc.work, tc.parts, got, tc.want)
		}
	}
}

// TestForWorkCover checks that ForWork hands every row to exactly one
// call, in ranges within [0, rows), for small hand-made work arrays and a
// skewed one that splits into many ranges.
func TestForWorkCover(t *testing.T) {
	skewed := make([]int64, 2001)
	for i := range 2000 {
		skewed[i+1] = skewed[i] + int64(i%7)*100
		if i == 3 {
			skewed[i+1] += 1 << 20 // one huge row
		}
	}
	for _, tc := range []struct {
		name string
		work []int64
	}{
		{"no rows", []int64{0}},
		{"one row", []int64{0, 5}},
		{"small", []int64{0, 1, 1, 4, 9}},
		{"skewed", skewed},
	} {
		for _, threads := range []int{1, 2, 3, 8} {
			rows := len(tc.work) - 1
			seen := make([]atomic.Int32, rows)
			var calls atomic.Int32
			ForWork(tc.work, threads, func(w, lo, hi int) {
				calls.Add(1)
				if w < 0 || w >= threads || lo < 0 || hi > rows || (lo >= hi && rows > 0) {
					t.Errorf("%s, %d threads: call (%d, %d, %d)", tc.name, threads, w, lo, hi)
					return
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if n := seen[i].Load(); n != 1 {
					t.Errorf("%s, %d threads: row %d handed out %d times", tc.name, threads, i, n)
				}
			}
			if calls.Load() == 0 {
				t.Errorf("%s, %d threads: fn never called", tc.name, threads)
			}
		}
	}
}

// TestResize checks that Resize keeps an array that is large enough (same
// first element) and gives a new one room beyond n otherwise.
func TestResize(t *testing.T) {
	s := make([]int32, 4, 10)
	if r := Resize(s, 9); len(r) != 9 || &r[0] != &s[0] {
		t.Errorf("Resize within capacity: len %d, same array %v", len(r), &r[0] == &s[0])
	}
	if r := Resize(s, 80); len(r) != 80 || cap(r) != 90 {
		t.Errorf("Resize beyond capacity: len %d cap %d; want 80 and 90", len(r), cap(r))
	}
	if r := Resize[float32](nil, 0); len(r) != 0 {
		t.Errorf("Resize(nil, 0) has length %d", len(r))
	}
}
