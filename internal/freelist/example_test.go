package freelist_test

import (
	"fmt"

	"github.com/bulksample/bulksample/internal/freelist"
)

// A gatherer keeps its scratch buffers across calls: the second call reuses
// the first call's array.
func Example() {
	var bufs freelist.List[[]int64]
	scratch := func(n int) []int64 {
		b, _ := bufs.Get()
		if cap(b) < n {
			b = make([]int64, n)
		}
		return b[:n]
	}
	b := scratch(1000)
	bufs.Put(b)
	c := scratch(10)
	fmt.Println(len(c), cap(c), &b[0] == &c[0])
	// Output: 10 1000 true
}
