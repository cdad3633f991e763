package sampling_test

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// handGraph is the weighted graph 0 -1- 1 -3- 3 -1- 2 -2- 0.
func handGraph() *spgemm.CSR {
	a, err := spgemm.FromCOO(4, 4, []int32{0, 0, 1, 2}, []int32{1, 2, 3, 3}, []float32{1, 2, 3, 1},
		&spgemm.COOOptions{Symmetrize: true})
	if err != nil {
		panic(err)
	}
	return a
}

// LADIES on a small weighted graph with budgets that take every column:
// from the seed 0, P ∝ (A∘A)[0,:] = [0 1 4 0], so vertices 1 and 2 are
// weighted A[0,v]/p_v = 1/0.2 and 2/0.8, row-normalised to 2/3 and 1/3.
func ExampleNewLayerWise() {
	s, err := sampling.NewLayerWise(handGraph(), sampling.LayerWiseOptions{
		Method:  sampling.LADIES,
		Budgets: []int{4, 4},
		Seed:    1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	bulk, err := s.SampleBulk(context.Background(), 0, 0, [][]int32{{0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for l, b := range bulk.Minibatch(0).Blocks {
		fmt.Printf("layer %d: rows %v, sources %v\n", l, b.Dst(), b.Src)
		for i := range b.NumDst() {
			idx, val := b.Adj.Row(i)
			fmt.Printf("  row %d: columns %v values %.3f\n", i, idx, val)
		}
	}
	// Output:
	// layer 0: rows [0], sources [0 1 2]
	//   row 0: columns [1 2] values [0.667 0.333]
	// layer 1: rows [0 1 2], sources [0 1 2 3]
	//   row 0: columns [1 2] values [0.667 0.333]
	//   row 1: columns [0 3] values [0.400 0.600]
	//   row 2: columns [0 3] values [0.800 0.200]
}

// Extract cuts the induced submatrices A[rows[m], cols[m]] of two
// minibatches out of a graph in one call.
func ExampleExtract() {
	la := sampling.Extract(handGraph(), [][]int32{{0, 1}, {3}}, [][]int32{{2, 1}, {0, 1, 2}}, 0, 0)
	bulk := sampling.Bulk{SeedStart: make([]int, 3), Layers: []sampling.LayerArrays{*la}}
	for m := range bulk.Len() {
		b := bulk.Minibatch(m).Blocks[0]
		fmt.Printf("minibatch %d: sources %v, block %v\n", m, b.Src, exampleDense(&b.Adj))
	}
	// Output:
	// minibatch 0: sources [2 1], block [[2 1] [0 0]]
	// minibatch 1: sources [0 1 2], block [[0 3 1]]
}

// SelectPerMinibatch draws distinct columns from one probability row per
// minibatch; a budget at least the support takes every positive entry.
func ExampleSelectPerMinibatch() {
	p := &spgemm.CSR{Rows: 2, Cols: 5, Indptr: []int64{0, 3, 4},
		Indices: []int32{0, 2, 4, 3}, Data: []float32{0.5, 0, 0.25, 1}}
	st := sampling.NewStream(1)
	keys := []sampling.RowKey{st.Row(0, 0, 0, -1), st.Row(0, 1, 0, -1)}
	sel := sampling.SelectPerMinibatch(p, keys, 2, sampling.SelectOptions{})
	for m := range sel.Rows {
		idx, _ := sel.Row(m)
		fmt.Printf("minibatch %d: columns %v\n", m, idx)
	}
	// Output:
	// minibatch 0: columns [0 4]
	// minibatch 1: columns [3]
}
