package spgemm_test

import (
	"errors"
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
	"gonum.org/v1/gonum/mat"
)

// path3 is the path graph 0 - 1 - 2.
func path3() *spgemm.CSR {
	return &spgemm.CSR{Rows: 3, Cols: 3,
		Indptr:  []int64{0, 1, 3, 4},
		Indices: []int32{1, 0, 2, 1},
		Data:    []float32{1, 1, 1, 1}}
}

func ExampleCSR_Mul() {
	a := path3()
	var c spgemm.CSR // the zero value is a ready destination
	c.Mul(a, a, nil) // walks of length 2
	fmt.Println(mat.Formatted(&c, mat.Squeeze()))
	// Output:
	// ⎡1  0  1⎤
	// ⎢0  2  0⎥
	// ⎣1  0  1⎦
}

func ExampleMul_masked() {
	a := path3()
	// Only the pairs that are not already neighbours (C<¬A> = A·A): the
	// vertices two hops away, and the walks back to oneself.
	c := spgemm.Mul(a, a, &spgemm.MulOptions{Mask: a, ComplementMask: true})
	for i := range c.Rows {
		cols, vals := c.Row(i)
		fmt.Println(i, cols, vals)
	}
	// Output:
	// 0 [0 2] [1 1]
	// 1 [1] [2]
	// 2 [0 2] [1 1]
}

func ExampleMul_selection() {
	// Q·A with Q = I[[2 0], :] gathers rows 2 and 0 of A: the sampling shape.
	a := path3()
	q := &spgemm.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 1, 2}, Indices: []int32{2, 0}, Data: []float32{1, 1}}
	p := spgemm.Mul(q, a, nil)
	fmt.Println(p.Indptr, p.Indices)
	g := spgemm.GatherRows(a, []int32{2, 0}, 0) // the same without building Q
	fmt.Println(g.Indptr, g.Indices)
	// Output:
	// [0 1 2] [1 1]
	// [0 1 2] [1 1]
}

func ExampleMulDense() {
	a := path3()
	x := []float32{1, 10, 2, 20, 3, 30} // 3 x 2, row-major
	dst := make([]float32, 6)
	spgemm.MulDense(dst, a, x, 2, 0) // sum of the neighbours' features
	fmt.Println(dst)
	spgemm.MulDenseT(dst, a, x, 2, 0) // Aᵀ·X; A is symmetric
	fmt.Println(dst)
	// Output:
	// [2 20 4 40 2 20]
	// [2 20 4 40 2 20]
}

func ExampleTranspose() {
	a := &spgemm.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 2, 3}, Indices: []int32{0, 2, 1}, Data: []float32{1, 2, 3}}
	t := spgemm.Transpose(a, 0)
	fmt.Println(t.Rows, t.Cols, t.Indptr, t.Indices, t.Data)
	// Output:
	// 3 2 [0 1 2 3] [0 1 0] [1 3 2]
}

func ExampleExtractColumns() {
	a := path3()
	// Keep columns 2 and 1 as new columns 0 and 1; drop column 0.
	e := spgemm.ExtractColumns(a, []int32{-1, 1, 0}, 2, 0)
	fmt.Println(e.Indptr, e.Indices)
	// Output:
	// [0 1 2 3] [1 0 1]
}

func ExampleNormalizeRows() {
	a := path3()
	fmt.Println(spgemm.RowSums(a, 0))
	spgemm.NormalizeRows(a, 0) // uniform neighbour-sampling probabilities
	fmt.Println(a.Data)
	// Output:
	// [1 2 1]
	// [1 0.5 0.5 1]
}

func ExampleCSR_Square() {
	a := &spgemm.CSR{Rows: 1, Cols: 3, Indptr: []int64{0, 2}, Indices: []int32{0, 2}, Data: []float32{-2, 3}}
	var sq spgemm.CSR
	sq.Square(a, 0)
	fmt.Println(sq.Data)
	a.Scale(0.5, a, 0) // in place
	fmt.Println(a.Data)
	// Output:
	// [4 9]
	// [-1 1.5]
}

func ExampleCSR_Validate() {
	m := &spgemm.CSR{Rows: 1, Cols: 3, Indptr: []int64{0, 2}, Indices: []int32{2, 0}, Data: []float32{1, 1}}
	fmt.Println(m.Validate())
	// Output:
	// spgemm: invalid CSR: row 0: column ids not sorted (0 after 2, entry 1)
}

func ExampleFromMatrix() {
	d := mat.NewDense(2, 3, []float64{0, 1.5, 0, 2, 0, 0})
	m := spgemm.FromMatrix(d)
	fmt.Println(m.Indptr, m.Indices, m.Data)
	fmt.Println(mat.Equal(spgemm.ToDense(m), d))
	// Output:
	// [0 1 2] [1 0] [1.5 2]
	// true
}

func ExampleMaybe() {
	err := spgemm.Maybe(func() {
		spgemm.Mul(&spgemm.CSR{Rows: 2, Cols: 3}, &spgemm.CSR{Rows: 4, Cols: 1}, nil)
	})
	var se spgemm.ShapeError
	fmt.Println(errors.As(err, &se), se)
	// Output:
	// true spgemm: Mul: shape mismatch: 2 x 3 and 4 x 1
}
