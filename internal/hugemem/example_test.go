package hugemem_test

import (
	"fmt"

	"github.com/bulksample/bulksample/internal/hugemem"
)

// A loader builds its large arrays in an Arena and releases them all when
// its user is done with them.
func Example() {
	var mem hugemem.Arena
	defer mem.Release() // the arrays must not be used after this

	indices := hugemem.Make[int32](&mem, 1<<20) // 4 MiB: mapped, on huge pages
	small := hugemem.Make[int32](&mem, 100)     // below MinBytes: an ordinary slice
	indices[0], small[0] = 7, 8
	fmt.Println(len(indices), indices[0], small[0])
	// Output: 1048576 7 8
}
