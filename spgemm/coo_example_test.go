package spgemm_test

import (
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// A path 0-1-2 given one edge per line, with a repeated edge and a self
// loop, becomes a symmetric adjacency without either.
func ExampleFromCOO() {
	src := []int32{0, 1, 1, 2}
	dst := []int32{1, 2, 2, 2}
	a, err := spgemm.FromCOO(3, 3, src, dst, nil, &spgemm.COOOptions{
		Symmetrize: true, Duplicates: spgemm.DropDuplicates, DropSelfLoops: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Indptr, a.Indices, a.Data)

	_, err = spgemm.FromCOO(3, 3, []int32{0, 5}, []int32{1, 1}, nil, nil)
	fmt.Println(err)
	// Output:
	// [0 1 3 4] [1 0 2 1] [1 1 1 1]
	// spgemm: invalid COO input: entry 1: row id 5 outside [0, 3)
}
