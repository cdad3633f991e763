package featurex_test

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/spgemm"
)

func ExampleLocal_Gather() {
	// Three vertices with two features each.
	features := []float32{0.0, 0.1, 1.0, 1.1, 2.0, 2.1}
	store, err := featurex.NewLocal(features, 2, featurex.LocalOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ids := []int32{2, 0} // a minibatch's deduplicated input vertices
	x := make([]float32, len(ids)*store.NumFeatures())
	if err := store.Gather(context.Background(), x, ids); err != nil {
		log.Fatal(err)
	}
	fmt.Println(x)
	// An id that is not a vertex of the store is an error, not a panic.
	fmt.Println(store.Gather(context.Background(), x[:2], []int32{7}))
	// Output:
	// [2 2.1 0 0.1]
	// featurex: gather: ids[0] = 7 is not a vertex of the feature store (n = 3)
}

func ExampleLabels() {
	labels := []int32{7, 8, 9}
	y := make([]int32, 2)
	featurex.Labels(y, labels, []int32{2, 0})
	fmt.Println(y)
	// Output: [9 7]
}

// Two in-process ranks (p = 2, c = 1) each hold the features of one block
// of 4 vertices; each gathers rows of both blocks, and the rows of the other
// block come from its owner in one exchange. The last gather shows a rank
// with nothing to read taking part, so that the other's request is served.
func ExampleNewDist() {
	const n, f = 8, 2
	features := make([]float32, n*f)
	for v := range n {
		features[v*f], features[v*f+1] = float32(v), float32(v)+0.5
	}
	world, _ := dist.NewInProcWorld(2, dist.Options{})
	out := make([]string, 2)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			ctx := context.Background()
			grid, err := dist.NewGrid(ctx, c, 1, n)
			if err != nil {
				c.Abort(err)
				return
			}
			lo, hi := grid.MyRows() // this rank's block: its rows only
			store, err := featurex.NewDist(ctx, grid, features[lo*f:hi*f], f, featurex.DistOptions{})
			if err != nil {
				c.Abort(err)
				return
			}
			defer store.Close()
			ids := []int32{7 - 5*int32(r), 1 + 4*int32(r)}
			x := make([]float32, len(ids)*f)
			if err := store.Gather(ctx, x, ids); err != nil {
				c.Abort(err)
				return
			}
			if r == 0 {
				err = store.Gather(ctx, make([]float32, f), []int32{6})
			} else {
				err = store.Gather(ctx, nil, nil) // nothing to read; still takes part
			}
			if err != nil {
				c.Abort(err)
				return
			}
			s := store.Stats()
			out[r] = fmt.Sprintf("rank %d: rows of %v: %v (local %d, fetched %d, served %d)", r, ids, x, s.LocalRows, s.Fetched, s.Served)
		})
	}
	wg.Wait()
	fmt.Println(out[0])
	fmt.Println(out[1])
	// Output:
	// rank 0: rows of [7 1]: [7 7.5 1 1.5] (local 1, fetched 2, served 1)
	// rank 1: rows of [2 5]: [2 2.5 5 5.5] (local 1, fetched 1, served 2)
}

// Per bulk: each of two ranks fetches the rows of all the minibatches of
// its share of a bulk in one exchange, then gathers each minibatch
// without communicating; a row that two minibatches share travels once.
func ExampleBulk() {
	const n, f = 8, 1
	features := []float32{0, 10, 20, 30, 40, 50, 60, 70}
	world, _ := dist.NewInProcWorld(2, dist.Options{})
	out := make([]string, 2)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			ctx := context.Background()
			grid, err := dist.NewGrid(ctx, c, 1, n)
			if err != nil {
				c.Abort(err)
				return
			}
			lo, hi := grid.MyRows()
			store, err := featurex.NewDist(ctx, grid, features[lo*f:hi*f], f, featurex.DistOptions{})
			if err != nil {
				c.Abort(err)
				return
			}
			defer store.Close()
			bulk := store.NewBulk()
			// Rank 0's two minibatches read 5 and 6, and 6 and 7, of rank
			// 1's block; rank 1 has nothing to read but serves them.
			minibatches := [][]int32{{5, 1, 6}, {6, 7}}
			if r == 1 {
				minibatches = nil
			}
			if err := bulk.Fetch(ctx, minibatches...); err != nil {
				c.Abort(err)
				return
			}
			for _, ids := range minibatches {
				x := make([]float32, len(ids)*f)
				if err := bulk.Gather(ctx, x, ids); err != nil {
					c.Abort(err)
					return
				}
				out[r] += fmt.Sprint(x)
			}
			s := store.Stats()
			out[r] += fmt.Sprintf(" exchanges %d, fetched %d, served %d", s.Exchanges, s.Fetched, s.Served)
		})
	}
	wg.Wait()
	fmt.Println(out[0])
	fmt.Println(out[1])
	// Output:
	// [50 10 60][60 70] exchanges 1, fetched 3, served 0
	//  exchanges 1, fetched 0, served 3
}

// ExampleNewLocalCSR keeps bag-of-words features as a CSR matrix only, as
// a reader of sparse features gives them: a minibatch's rows are gathered
// sparse, without an n x f dense array.
func ExampleNewLocalCSR() {
	// 3 vertices, 4 features: vertex 0 has words 1 and 3, vertex 2 word 0.
	x := &spgemm.CSR{Rows: 3, Cols: 4, Indptr: []int64{0, 2, 2, 3}, Indices: []int32{1, 3, 0}, Data: []float32{1, 1, 1}}
	s, err := featurex.NewLocalCSR(x, featurex.LocalOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var rows spgemm.CSR
	if err := s.GatherCSR(context.Background(), &rows, []int32{2, 0}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rows.Indptr, rows.Indices, s.Features() == nil)
	// Output: [0 1 3] [0 1 3] true
}
