package train

import (
	"context"
	"errors"
	"fmt"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
)

// Graph is what one rank of a distributed run holds of a graph file that
// every rank reads (LoadGraph): its block of the rows on the run's grid, or
// every row, and the sizes of the whole graph. Close it after the run.
type Graph struct {
	// Grid is the (p/c) x c grid of the graph's N vertices over the
	// ranks (dist.NewGrid); its MyRows are this rank's block.
	Grid *dist.Grid
	// N is the number of vertices of the whole graph and NNZ its stored
	// entries (counted over the ranks' blocks where the file records
	// none: an OGB folder).
	N   int
	NNZ int64
	// Adj holds the rows Grid.MyRows() of the graph ((hi-lo) x N, row r
	// the global row lo+r, columns global vertex ids), or every row with
	// GraphOptions.Whole.
	Adj *spgemm.CSR
	// Train is the training split of the whole graph (nil when the file
	// has none): every rank needs the seeds.
	Train []int32
	// BlockOnly reports whether only the block was read from the file (a
	// native file, a scipy .npz, an OGB folder; dataset.LoadRowBlock), not
	// the whole of it.
	BlockOnly bool
	// Dataset is the whole dataset read with GraphOptions.Whole (nil
	// otherwise): the graph and what else GraphOptions.Load asks for
	// (features, labels).
	Dataset *dataset.Dataset

	data closers // the block's or the dataset's mapping
}

// Close releases the graph's grid and its mappings; Adj must not be used
// afterwards.
func (g *Graph) Close() error { return errors.Join(g.Grid.Close(), g.data.close()) }

// GraphOptions are the options of LoadGraph. The zero value reads the
// rank's block with dataset's default load options.
type GraphOptions struct {
	// Whole reads every row of the graph (dataset.LoadContext) rather than
	// the rank's block: the Replicated layout, or a rank that evaluates the
	// whole graph. Ranks of one run may differ in Whole.
	Whole bool
	// Load are the loaders' options (nil: the defaults). Their Progress is
	// dropped on the ranks other than 0, so that one rank reports.
	Load *dataset.LoadOptions
}

// LoadGraph reads this rank's part of the graph at path (any format
// package dataset reads) and builds the grid of c replicas over world on
// the way: dist.NewGrid is collective and needs the vertex count, which
// the file's header gives before the block is read. It is collective,
// every rank of world calling it with the same path and c.
//
// A rank reads only its block of rows where the format allows (by offsets
// from a native file, by row pointers from a scipy .npz, by streaming the
// edges of an OGB folder: dataset.LoadRowBlock); other formats are read
// whole and all but the block dropped (BlockOnly false). With Whole it
// reads the whole dataset.
//
// The ranks then compare the graph's vertex and entry counts and the
// file's identity (dataset.Identity) with rank 0's (dist.SameAsRoot): a
// rank that read a stale copy under the same name returns an error naming
// path and what differs, where it would otherwise sample other edges with
// exit status 0, since no rank reads the whole file to compare its
// contents. The other ranks return their graph and wait in their next
// collective for the job to end (run the ranks through dist.Run). A
// replication that does not divide the ranks is dist.NewGrid's error
// (*dist.ReplicationError).
func LoadGraph(ctx context.Context, world dist.Comm, path string, c int, opt *GraphOptions) (_ *Graph, err error) {
	var o GraphOptions
	if opt != nil {
		o = *opt
	}
	var lo dataset.LoadOptions
	if o.Load != nil {
		lo = *o.Load
	}
	if world.Rank() != 0 {
		lo.Progress = nil
	}
	id, err := dataset.Identity(path)
	if err != nil {
		return nil, err
	}
	var g *Graph
	if o.Whole {
		g, err = loadWholeGraph(ctx, world, path, c, &lo)
	} else {
		g, err = loadBlockGraph(ctx, world, path, c, &lo)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			g.Close()
		}
	}()
	lines := []string{fmt.Sprintf("vertices %d", g.N), fmt.Sprintf("entries %d", g.NNZ)}
	if err := dist.SameAsRoot(ctx, world, path, append(lines, id...)); err != nil {
		return nil, err
	}
	return g, nil
}

// loadWholeGraph is LoadGraph of every row.
func loadWholeGraph(ctx context.Context, world dist.Comm, path string, c int, opt *dataset.LoadOptions) (*Graph, error) {
	ds, err := dataset.LoadContext(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	grid, err := dist.NewGrid(ctx, world, c, ds.NumNodes())
	if err != nil {
		ds.Close()
		return nil, err
	}
	g := &Graph{Grid: grid, N: ds.NumNodes(), NNZ: -1, Adj: ds.Adj, Train: ds.Train, Dataset: ds, data: closers{ds.Close}}
	if ds.Adj != nil {
		g.NNZ = ds.Adj.NNZ()
	}
	lo, hi := grid.MyRows()
	if g.NNZ, err = totalEntries(ctx, world, c, g.NNZ, blockEntries(ds.Adj, int(lo), int(hi))); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// loadBlockGraph is LoadGraph of the rank's block of rows.
func loadBlockGraph(ctx context.Context, world dist.Comm, path string, c int, opt *dataset.LoadOptions) (*Graph, error) {
	var grid *dist.Grid
	var gridErr error
	rb, blockOnly, err := dataset.LoadRowBlock(ctx, path, func(n int) (int, int) {
		if grid, gridErr = dist.NewGrid(ctx, world, c, n); gridErr != nil {
			return 0, 0
		}
		lo, hi := grid.MyRows()
		return int(lo), int(hi)
	}, opt)
	if gridErr != nil {
		return nil, gridErr
	}
	if err != nil {
		if grid != nil {
			grid.Close()
		}
		return nil, err
	}
	g := &Graph{Grid: grid, N: rb.N, Adj: rb.Adj, Train: rb.Train, BlockOnly: blockOnly, data: closers{rb.Close}}
	if g.NNZ, err = totalEntries(ctx, world, c, rb.NNZ, rb.Adj.NNZ()); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// totalEntries returns the entries of the whole graph: nnz when the file
// recorded them (nnz >= 0), else the sum over one replica of the blocks,
// mine being the entries of this rank's block (the c replicas of every
// block each add it once). It is collective on world, called by every rank
// alike, also one that read the whole graph and knows the count, so that
// the ranks need not agree first on whether to count.
func totalEntries(ctx context.Context, world dist.Comm, c int, nnz, mine int64) (int64, error) {
	sum := []int64{mine}
	if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpSum, sum); err != nil {
		return 0, fmt.Errorf("train: count the graph's entries: %w", err)
	}
	if nnz >= 0 {
		return nnz, nil
	}
	return sum[0] / int64(c), nil
}

// blockEntries returns the entries of rows [lo, hi) of a (nil: none).
func blockEntries(a *spgemm.CSR, lo, hi int) int64 {
	if a == nil {
		return 0
	}
	return a.Indptr[hi] - a.Indptr[lo]
}
