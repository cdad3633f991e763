package dist_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dist"
)

func TestNewGridErrors(t *testing.T) {
	world, _ := dist.NewInProcWorld(1, dist.Options{})
	for _, tc := range []struct{ c, n int }{{0, 10}, {2, 10}, {1, -1}} {
		if _, err := dist.NewGrid(context.Background(), world[0], tc.c, tc.n); err == nil {
			t.Errorf("NewGrid(c=%d, n=%d) on 1 rank: no error", tc.c, tc.n)
		}
	}
	// A replication that makes no grid is a *ReplicationError (a command
	// rewords it by its flag), the same as CheckReplication's.
	_, err := dist.NewGrid(context.Background(), world[0], 2, 10)
	var re *dist.ReplicationError
	if !errors.As(err, &re) || re.Replication != 2 || re.Ranks != 1 || !strings.Contains(err.Error(), "replication 2 does not divide the 1 ranks") {
		t.Errorf("NewGrid(c=2) on 1 rank: %v; want a *ReplicationError", err)
	}
	for _, tc := range []struct {
		p, c int
		ok   bool
	}{{4, 2, true}, {6, 3, true}, {1, 1, true}, {4, 3, false}, {4, 0, false}, {2, -1, false}} {
		if err := dist.CheckReplication(tc.p, tc.c); (err == nil) != tc.ok {
			t.Errorf("CheckReplication(%d, %d) = %v; want ok %v", tc.p, tc.c, err, tc.ok)
		}
	}
}

// TestGridLocate: every vertex is located in the block whose rows hold it,
// on every rank of 6 with c = 2 and c = 3.
func TestGridLocate(t *testing.T) {
	for _, c := range []int{1, 2, 3, 6} {
		world, _ := dist.NewInProcWorld(6, dist.Options{})
		var wg sync.WaitGroup
		for _, w := range world {
			wg.Go(func() {
				g, err := dist.NewGrid(context.Background(), w, c, 101)
				if err != nil {
					t.Error(err)
					w.Abort(err)
					return
				}
				defer g.Close()
				if g.Blocks() != 6/c || g.RankAt(g.ProcRow(), g.ProcCol()) != g.Rank() || g.Row().Size() != c || g.Col().Size() != 6/c {
					t.Errorf("c=%d rank %d: grid %d blocks, row comm %d, col comm %d", c, g.Rank(), g.Blocks(), g.Row().Size(), g.Col().Size())
				}
				for v := int32(0); v < 101; v++ {
					b, lrow := g.Locate(v)
					lo, hi := g.BlockRows(b)
					if v < lo || v >= hi || lrow != v-lo {
						t.Errorf("c=%d: Locate(%d) = block %d row %d; block rows [%d, %d)", c, v, b, lrow, lo, hi)
					}
				}
			})
		}
		wg.Wait()
	}
}

// TestNewGridOtherVertexCounts: a rank whose graph has another vertex count
// than rank 0's (a stale copy of the file on its node) gets an error naming
// both counts; it aborts the job, as a command does, which ends the others.
// It used to cut other blocks than its peers and index past their rows (a
// panic in the sampler under mpirun).
func TestNewGridOtherVertexCounts(t *testing.T) {
	world, _ := dist.NewInProcWorld(3, dist.Options{})
	errs := make([]error, len(world))
	var wg sync.WaitGroup
	for r, w := range world {
		wg.Go(func() {
			n := 3000
			if r == 2 {
				n = 1024
			}
			g, err := dist.NewGrid(context.Background(), w, 1, n)
			if errs[r] = err; err != nil {
				w.Abort(err)
				return
			}
			g.Close()
		})
	}
	wg.Wait()
	want := "this rank's graph has 1024 vertices but rank 0's has 3000"
	if errs[2] == nil || !strings.Contains(errs[2].Error(), want) {
		t.Errorf("rank 2: err %v; want one containing %q", errs[2], want)
	}
	for r, err := range errs[:2] {
		if err != nil && !errors.Is(err, dist.ErrAborted) {
			t.Errorf("rank %d: err %v; want nil or the abort", r, err)
		}
	}
}
