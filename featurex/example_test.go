package featurex_test

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
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
