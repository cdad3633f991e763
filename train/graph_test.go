package train_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/train"
)

// plantedFile saves a planted-partition graph of 400 vertices drawn with
// seed and returns its path.
func plantedFile(t *testing.T, seed uint64) string {
	t.Helper()
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 400, Classes: 3, Features: 6, AvgDegree: 6, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.bsn")
	if err := dataset.Save(path, ds); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadGraphWholeAndBlocks: ranks of one run may read the whole graph
// (Whole) or their blocks, and agree on its sizes; each holds the rows of
// its grid's block.
func TestLoadGraphWholeAndBlocks(t *testing.T) {
	path := plantedFile(t, 5)
	ds, err := dataset.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	err = dist.RunInProc(context.Background(), 4, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := train.LoadGraph(ctx, w, path, 2, &train.GraphOptions{Whole: w.Rank() == 0})
		if err != nil {
			return err
		}
		defer g.Close()
		lo, hi := g.Grid.MyRows()
		rows := int(hi - lo)
		if w.Rank() == 0 {
			rows = g.N
		}
		if g.N != ds.NumNodes() || g.NNZ != ds.Adj.NNZ() || g.Adj.Rows != rows || (g.Dataset != nil) != (w.Rank() == 0) || g.BlockOnly == (w.Rank() == 0) {
			return fmt.Errorf("rank %d: %d vertices, %d entries, %d rows, dataset %v, block only %v; want %d, %d, %d",
				w.Rank(), g.N, g.NNZ, g.Adj.Rows, g.Dataset != nil, g.BlockOnly, ds.NumNodes(), ds.Adj.NNZ(), rows)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLoadGraphOtherFile: a rank that reads another file of rank 0's vertex
// count (a stale copy) ends the job with an error naming the file and what
// differs; a replication that does not divide the ranks is a
// *dist.ReplicationError.
func TestLoadGraphOtherFile(t *testing.T) {
	paths := []string{plantedFile(t, 5), plantedFile(t, 6)}
	err := dist.RunInProc(context.Background(), 2, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := train.LoadGraph(ctx, w, paths[w.Rank()], 1, nil)
		if err != nil {
			return err
		}
		return g.Close()
	})
	if want := "rank 1: " + paths[1] + " differs from rank 0's: "; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "native header CRC-32C") {
		t.Errorf("another file on rank 1: %v; want %q and the header's checksums", err, want)
	}
	err = dist.RunInProc(context.Background(), 2, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		_, err := train.LoadGraph(ctx, w, paths[0], 3, nil)
		var re *dist.ReplicationError
		if err == nil || !errors.As(err, &re) {
			return fmt.Errorf("replication 3 of 2 ranks: %v; want a *dist.ReplicationError", err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
