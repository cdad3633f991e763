package distsample_test

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
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

// Distributed sampling on 4 in-process ranks (goroutines; under MPI the
// same rank program runs once per process, on dist.NewMPIWorld's
// communicator). The path 0 - 1 - 2 - 3 - 4 is cut into 2 blocks of rows,
// each held by the 2 ranks of a process row (replication 2); every rank
// samples its run of the bulk's 4 minibatches, pushing its requests to the
// rows' owners, and rank 0 gathers the digest, which is the one process's.
func ExampleNewDistSampler() {
	a := pathGraph()
	seeds := [][]int32{{0}, {2}, {4}, {1, 3}}
	opt := distsample.DistSamplerOptions{
		SamplerOptions: sampling.SamplerOptions{Fanouts: []int{1, 2}, Seed: 7},
		Fetch:          distsample.FetchPush,
	}
	var digest string
	err := dist.RunInProc(context.Background(), 4, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := dist.NewGrid(ctx, w, 2, a.Rows)
		if err != nil {
			return err
		}
		defer g.Close()
		// This rank's block of rows, as dataset.LoadRowBlock reads it.
		s, err := distsample.NewDistSampler(ctx, g, blockOf(g, a), opt)
		if err != nil {
			return err
		}
		lo, hi := g.Minibatches(len(seeds))
		b, err := s.SampleBulk(ctx, 0, lo, seeds[lo:hi])
		if err != nil {
			return err
		}
		var d *sampling.Digest
		if g.Rank() == 0 {
			d = sampling.NewDigest()
		}
		if err := distsample.GatherDigest(ctx, g.World(), d, b); err != nil {
			return err
		}
		if d != nil {
			digest = d.Sum()
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	one, _ := sampling.NewSampler(a, opt.SamplerOptions)
	b, _ := one.SampleBulk(context.Background(), 0, 0, seeds)
	d := sampling.NewDigest()
	d.AddBulk(b)
	fmt.Println("4 ranks sample what one process samples:", digest == d.Sum())
	// Output:
	// 4 ranks sample what one process samples: true
}
