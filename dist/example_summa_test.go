package dist_test

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
)

// A custom sampler's general product on a 2 x 2 grid of in-process ranks:
// the two-hop walk counts P = Q·A·A from the seeds 0 and 3 of a path of 6
// vertices, computed by two Sparse SUMMA products. Each rank holds one 2D
// block of every matrix; the result equals spgemm.Mul's, bit for bit.
func ExampleSUMMA() {
	// The path 0-1-2-3-4-5 and the selection Q of the seeds 0 and 3.
	a, _ := spgemm.FromCOO(6, 6, []int32{0, 1, 1, 2, 2, 3, 3, 4, 4, 5}, []int32{1, 0, 2, 1, 3, 2, 4, 3, 5, 4}, nil, nil)
	q, _ := spgemm.FromCOO(2, 6, []int32{0, 1}, []int32{0, 3}, nil, nil)

	world, _ := dist.NewInProcWorld(4, dist.Options{})
	var p *spgemm.CSR
	var wg sync.WaitGroup
	for _, w := range world {
		wg.Go(func() {
			ctx := context.Background()
			err := func() error {
				g, err := dist.NewSquareGrid(ctx, w) // 2 x 2
				if err != nil {
					return err
				}
				defer g.Close()
				da, err := dist.Distribute2D(g, a)
				if err != nil {
					return err
				}
				dq, err := dist.Distribute2D(g, q)
				if err != nil {
					return err
				}
				qa, err := dist.SUMMA(ctx, dq, da, nil) // one hop
				if err != nil {
					return err
				}
				qaa, err := dist.SUMMA(ctx, qa, da, nil) // two hops
				if err != nil {
					return err
				}
				whole, err := qaa.Whole(ctx, dist.PhaseControl)
				if err == nil && g.Rank() == 0 {
					p = whole
				}
				return err
			}()
			if err != nil {
				dist.Fail(os.Stderr, w, err)
			}
		})
	}
	wg.Wait()
	for i, seed := range []int{0, 3} {
		cols, vals := p.Row(i)
		fmt.Println("seed", seed, "reaches", cols, "by", vals, "walks")
	}
	// Output:
	// seed 0 reaches [0 2] by [1 1] walks
	// seed 3 reaches [1 3 5] by [1 2 1] walks
}
