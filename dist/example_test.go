package dist_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/bulksample/bulksample/dist"
)

// Three in-process ranks exchange lists of different lengths: counts
// first, then exactly the payload (no padding).
func ExampleExchange() {
	world, _ := dist.NewInProcWorld(3, dist.Options{})
	got := make([][]int32, 3)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			// Rank r sends r+d copies of 10·r+d to rank d.
			var send []int32
			counts := make([]int, c.Size())
			for d := range c.Size() {
				counts[d] = r + d
				for range r + d {
					send = append(send, int32(10*r+d))
				}
			}
			recv, _, err := dist.Exchange(context.Background(), c, dist.PhaseSample, send, counts)
			if err != nil {
				c.Abort(err)
				return
			}
			got[r] = recv
		})
	}
	wg.Wait()
	for r, g := range got {
		fmt.Println("rank", r, "received", g)
	}
	// Output:
	// rank 0 received [10 20 20]
	// rank 1 received [1 11 11 21 21 21]
	// rank 2 received [2 2 12 12 12 22 22 22 22]
}

// The grid of 8 ranks with replication 2: 4 blocks of rows, each held by
// the 2 ranks of one process row.
func ExampleNewGrid() {
	world, _ := dist.NewInProcWorld(8, dist.Options{})
	lines := make([]string, 8)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			g, err := dist.NewGrid(context.Background(), c, 2, 100)
			if err != nil {
				c.Abort(err)
				return
			}
			defer g.Close()
			lo, hi := g.MyRows()
			lines[r] = fmt.Sprintf("rank %d: process row %d column %d, rows [%d, %d), column comm rank %d of %d",
				g.Rank(), g.ProcRow(), g.ProcCol(), lo, hi, g.Col().Rank(), g.Col().Size())
		})
	}
	wg.Wait()
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// rank 0: process row 0 column 0, rows [0, 25), column comm rank 0 of 4
	// rank 1: process row 0 column 1, rows [0, 25), column comm rank 0 of 4
	// rank 2: process row 1 column 0, rows [25, 50), column comm rank 1 of 4
	// rank 3: process row 1 column 1, rows [25, 50), column comm rank 1 of 4
	// rank 4: process row 2 column 0, rows [50, 75), column comm rank 2 of 4
	// rank 5: process row 2 column 1, rows [50, 75), column comm rank 2 of 4
	// rank 6: process row 3 column 0, rows [75, 100), column comm rank 3 of 4
	// rank 7: process row 3 column 1, rows [75, 100), column comm rank 3 of 4
}
