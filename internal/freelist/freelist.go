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
