package train_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/train"
)

// The distributed sampler without the trainer: each of 4 ranks
// (in-process here; under MPI one per process, on dist.NewMPIWorld's
// communicator) reads its block of a graph file with train.LoadGraph, 2
// blocks of rows each held by 2 ranks (replication 2), and samples its run
// of a bulk of 8 minibatches, fetching the remote rows it needs from their
// owners.
func ExampleLoadGraph() {
	dir, err := os.MkdirTemp("", "loadgraph")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "g.bsn")
	if err := dataset.Save(path, exampleData()); err != nil {
		fmt.Println(err)
		return
	}
	lines := make([]string, 4)
	err = dist.RunInProc(context.Background(), 4, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := train.LoadGraph(ctx, w, path, 2, nil)
		if err != nil {
			return err
		}
		defer g.Close()
		s, err := distsample.NewDistSampler(ctx, g.Grid, g.Adj, distsample.DistSamplerOptions{
			SamplerOptions: sampling.SamplerOptions{Fanouts: []int{5, 5}, Seed: 1, Threads: 1}})
		if err != nil {
			return err
		}
		seeds := make([][]int32, 8) // of 10 training vertices each
		for i := range seeds {
			seeds[i] = g.Train[10*i : 10*(i+1)]
		}
		lo, hi := g.Grid.Minibatches(len(seeds))
		b, err := s.SampleBulk(ctx, 0, lo, seeds[lo:hi])
		if err != nil {
			return err
		}
		defer b.Release()
		rlo, rhi := g.Grid.MyRows()
		lines[w.Rank()] = fmt.Sprintf("rank %d: rows [%d, %d) of %d, block only %v; minibatches %d..%d",
			w.Rank(), rlo, rhi, g.N, g.BlockOnly, lo, hi-1)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// rank 0: rows [0, 1000) of 2000, block only true; minibatches 0..1
	// rank 1: rows [0, 1000) of 2000, block only true; minibatches 2..3
	// rank 2: rows [1000, 2000) of 2000, block only true; minibatches 4..5
	// rank 3: rows [1000, 2000) of 2000, block only true; minibatches 6..7
}
