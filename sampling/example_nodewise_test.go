package sampling_test

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// pathGraph returns the path 0 - 1 - 2 - 3 - 4 as a symmetric adjacency.
func pathGraph() *spgemm.CSR {
	return &spgemm.CSR{
		Rows: 5, Cols: 5,
		Indptr:  []int64{0, 1, 3, 5, 7, 8},
		Indices: []int32{1, 0, 2, 1, 3, 2, 4, 3},
		Data:    []float32{1, 1, 1, 1, 1, 1, 1, 1},
	}
}

// Sample two layers around two minibatches at once. With fanouts at least
// the degree, every neighbour is taken, so the output is easy to check:
// each block's sources start with its destinations.
func ExampleNodeWise() {
	nw, err := sampling.NewNodeWise(pathGraph(), sampling.NodeWiseOptions{Fanouts: []int{2, 2}, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	bulk, err := nw.SampleBulk(context.Background(), 0, 0, [][]int32{{2}, {0, 4}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for m := range bulk.Len() {
		mb := bulk.Minibatch(m)
		for l, blk := range mb.Blocks {
			fmt.Printf("minibatch %d block %d: %dx%d dst %v src %v indptr %v indices %v\n",
				mb.Index, l, blk.Adj.Rows, blk.Adj.Cols, blk.Dst(), blk.Src, blk.Adj.Indptr, blk.Adj.Indices)
		}
	}
	fmt.Println("sampled edges:", bulk.SampledEdges())
	// Output:
	// minibatch 0 block 0: 1x3 dst [2] src [2 1 3] indptr [0 2] indices [1 2]
	// minibatch 0 block 1: 3x5 dst [2 1 3] src [2 1 3 0 4] indptr [0 2 4 6] indices [1 2 0 3 0 4]
	// minibatch 1 block 0: 2x4 dst [0 4] src [0 4 1 3] indptr [0 1 2] indices [2 3]
	// minibatch 1 block 1: 4x5 dst [0 4 1 3] src [0 4 1 3 2] indptr [0 1 2 4 6] indices [2 3 0 4 1 4]
	// sampled edges: 16
}

// With Degrees, every block carries the degree in the graph (the row length
// of A) of each source vertex, however many of its edges the block holds:
// what GCN's D^-1/2 (A+I) D^-1/2 needs. On the path 0 - 1 - 2 - 3 - 4 with
// fanout 1, vertex 2 keeps one of its two neighbours, and its degree is 2;
// vertex 4, an end of the path, has degree 1.
func ExampleNodeWiseOptions_degrees() {
	nw, _ := sampling.NewNodeWise(pathGraph(), sampling.NodeWiseOptions{Fanouts: []int{1, 1}, Degrees: true, Seed: 3})
	bulk, _ := nw.SampleBulk(context.Background(), 0, 0, [][]int32{{2}})
	mb := bulk.Minibatch(0)
	for l, blk := range mb.Blocks {
		fmt.Printf("block %d: src %v deg %v, %d entries\n", l, blk.Src, blk.Deg, blk.Adj.NNZ())
	}
	// Output:
	// block 0: src [2 3] deg [2 2], 1 entries
	// block 1: src [2 3 1 4] deg [2 2 2 1], 2 entries
}

// FrontierNew expands only the vertices reached at the previous hop, as
// PyG's NeighborLoader does: the seed's row of the second block is empty.
func ExampleFrontierMode() {
	nw, _ := sampling.NewNodeWise(pathGraph(), sampling.NodeWiseOptions{Fanouts: []int{2, 2}, Frontier: sampling.FrontierNew})
	bulk, _ := nw.SampleBulk(context.Background(), 0, 0, [][]int32{{2}})
	mb := bulk.Minibatch(0)
	blk := mb.Blocks[1]
	fmt.Println(blk.Dst(), blk.Src, blk.Adj.Indptr, blk.Adj.Indices)
	// Output:
	// [2 1 3] [2 1 3 0 4] [0 0 2 4] [0 3 0 4]
}

// Cut 10 vertices into minibatches of 4 grouped in bulks of 2: the last
// minibatch and the last bulk are short, and nothing is dropped.
func ExamplePlan() {
	vertices := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	plan, _ := sampling.NewPlan(vertices, sampling.PlanOptions{BatchSize: 4, BulkSize: 2, Seed: 3})
	ep := plan.Epoch(0)
	for i := range ep.NumBulks() {
		first, seeds := ep.Bulk(i)
		sizes := []int{}
		for _, s := range seeds {
			sizes = append(sizes, len(s))
		}
		fmt.Printf("bulk %d: first minibatch %d, sizes %v\n", i, first, sizes)
	}
	// Output:
	// bulk 0: first minibatch 0, sizes [4 4]
	// bulk 1: first minibatch 2, sizes [2]
}

// The general node-wise path with explicit matrices: gather the rows of the
// frontier entries with Q·A, then keep one entry per row. Rows of degree
// at most s keep all their entries.
func ExampleSelectPerRow() {
	a := pathGraph()
	q := sampling.QPerEntry([][]int32{{0, 4}}, a.Rows)
	p := spgemm.Mul(q, a, nil)
	st := sampling.NewStream(1)
	keys := []sampling.RowKey{st.Row(0, 0, 0, 0), st.Row(0, 0, 0, 4)}
	sel := sampling.SelectPerRow(p, keys, 1, sampling.SelectOptions{})
	fmt.Println(sel.Indptr, sel.Indices)
	// Output:
	// [0 1 2] [1 3]
}

// QPerMinibatch has one row per minibatch with ones at its distinct
// frontier vertices.
func ExampleQPerMinibatch() {
	q := sampling.QPerMinibatch([][]int32{{3, 1, 3}, {0}}, 5)
	fmt.Println(q.Indptr, q.Indices)
	// Output:
	// [0 2 3] [1 3 0]
}

// A Digest is the same for any bulk size and thread count.
func ExampleDigest() {
	a := pathGraph()
	seeds := [][]int32{{0}, {1}, {2}, {3}}
	digest := func(k, threads int) string {
		nw, _ := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{1, 1}, Seed: 9, Threads: threads})
		d := sampling.NewDigest()
		for lo := 0; lo < len(seeds); lo += k {
			b, _ := nw.SampleBulk(context.Background(), 0, lo, seeds[lo:min(lo+k, len(seeds))])
			d.AddBulk(b)
		}
		return d.Sum()
	}
	fmt.Println(digest(1, 1) == digest(4, 2))
	// Output:
	// true
}
