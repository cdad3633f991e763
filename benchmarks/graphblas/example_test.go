//go:build graphblas

package graphblas_test

import (
	"fmt"
	"log"

	"github.com/bulksample/bulksample/benchmarks/graphblas"
	"github.com/bulksample/bulksample/spgemm"
)

// Square the adjacency of the path 0-1-2 with GraphBLAS and read it back.
func ExampleMul() {
	if err := graphblas.Init(2); err != nil {
		log.Fatal(err)
	}
	path := &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 4},
		Indices: []int32{1, 0, 2, 1}, Data: []float32{1, 1, 1, 1}}
	a, err := graphblas.FromCSR(path)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Free()
	sq, err := graphblas.Mul(a, a)
	if err != nil {
		log.Fatal(err)
	}
	defer sq.Free()
	c, err := sq.ToCSR()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Indptr, c.Indices, c.Data)
	// Output: [0 2 3 5] [0 2 1 0 2] [1 1 2 1 1]
}
