package dist_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
)

// A rank's work runs through dist.Run, which ends the whole job when the
// work fails: here rank 2 of 4 fails before the collective the others wait
// in, which then returns dist.ErrAborted on their side instead of hanging.
// (Under MPI the same program is one rank per process, world from
// dist.NewMPIWorld, and MPI_Abort ends every rank.)
func ExampleRun() {
	world, _ := dist.NewInProcWorld(4, dist.Options{})
	errs := make([]error, len(world))
	var wg sync.WaitGroup
	for r, w := range world {
		wg.Go(func() {
			errs[r] = dist.Runner{Log: os.Stdout}.Run(context.Background(), w, func(ctx context.Context, c dist.Comm) error {
				if c.Rank() == 2 {
					return errors.New("cannot read the graph")
				}
				return c.Barrier(ctx, dist.PhaseControl)
			})
		})
	}
	wg.Wait()
	for r, err := range errs {
		fmt.Printf("rank %d aborted: %v\n", r, errors.Is(err, dist.ErrAborted))
	}
	// Output:
	// rank 2: cannot read the graph
	// rank 0 aborted: true
	// rank 1 aborted: true
	// rank 2 aborted: false
	// rank 3 aborted: true
}

// The 1.5D product on 4 in-process ranks with replication 2: B, a 4-vertex
// path graph, is cut into 2 blocks of rows, each held by the 2 ranks of a
// process row; every rank multiplies its row of A = B by B, fetching the
// rows of B it needs from its process column. The rows together are B·B,
// the two-hop walk counts.
func ExampleMul15D() {
	b := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 1, 3, 5, 6},
		Indices: []int32{1, 0, 2, 1, 3, 2}, Data: []float32{1, 1, 1, 1, 1, 1}}
	rows := make([]string, 4)
	err := dist.RunInProc(context.Background(), 4, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := dist.NewGrid(ctx, w, 2, b.Rows)
		if err != nil {
			return err
		}
		defer g.Close()
		m, err := dist.Distribute(g, b) // in a real run: the block each rank read
		if err != nil {
			return err
		}
		x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: true})
		if err != nil {
			return err
		}
		mine := spgemm.GatherRows(b, []int32{int32(g.Rank())}, 1) // this rank's row of A
		c, err := dist.Mul15D(ctx, mine, x, nil)
		if err != nil {
			return err
		}
		cols, vals := c.Row(0)
		rows[g.Rank()] = fmt.Sprint(cols, vals)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	for i, r := range rows {
		fmt.Println("row", i, r)
	}
	// Output:
	// row 0 [0 2] [1 1]
	// row 1 [1 3] [2 1]
	// row 2 [0 2] [1 2]
	// row 3 [1 3] [1 1]
}
