package freelist_test

import (
	"sync"
	"testing"

	"github.com/bulksample/bulksample/internal/freelist"
)

// TestList: Get returns what Put kept, last first, and reports an empty
// list; concurrent users each get a value of their own (run with -race).
func TestList(t *testing.T) {
	var l freelist.List[*int]
	if x, ok := l.Get(); ok || x != nil {
		t.Fatalf("Get of an empty list = %v, %v; want nil, false", x, ok)
	}
	a, b := new(int), new(int)
	l.Put(a)
	l.Put(b)
	for _, want := range []*int{b, a} {
		if x, ok := l.Get(); !ok || x != want {
			t.Fatalf("Get = %p, %v; want %p, true", x, ok, want)
		}
	}
	if _, ok := l.Get(); ok {
		t.Fatal("Get after every value was taken reported one")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				x, ok := l.Get()
				if !ok {
					x = new(int)
				}
				*x++ // a race if two goroutines held the same value
				l.Put(x)
			}
		})
	}
	wg.Wait()
}
