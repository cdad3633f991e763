package featurex_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/dist/mpitest"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/featurex/featurextest"
)

// TestDistMPI runs the distributed store on real MPI ranks: the test
// binary starts itself under `mpirun -np 4`, and every rank runs the
// conformance kit (whose calls are the same on every rank, hence
// collective) for c = 1 and 2, per minibatch, per bulk and with a cache,
// then gathers a different list on each rank, nothing at all on the last,
// and last reuses its buffers across gathers of changing sizes.
func TestDistMPI(t *testing.T) {
	if mpitest.IsChild("featurex") {
		distMPIChild(t)
		return
	}
	mpitest.RunSelf(t, 4, "TestDistMPI", "featurex", 90*time.Second)
}

func distMPIChild(t *testing.T) {
	world, err := dist.NewMPIWorld(dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A cleanup, registered first so that it runs last: after the grids'.
	t.Cleanup(func() {
		if err := world.Close(); err != nil {
			t.Error(err)
		}
	})
	if world.Size() != 4 {
		t.Fatalf("MPI world of %d ranks; want 4", world.Size())
	}
	ctx := context.Background()
	newStore := func(t *testing.T, c int, x []float32, f int, cache bool) *featurex.Dist {
		n := len(x) / f
		g, err := dist.NewGrid(ctx, world, c, n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		lo, hi := g.MyRows()
		var opt featurex.DistOptions
		if cache {
			opt = fakeDegrees(g)
		}
		s, err := featurex.NewDist(ctx, g, x[int(lo)*f:int(hi)*f], f, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() }) // before the grid's
		return s
	}
	me := world.Rank()
	for _, c := range []int{1, 2} {
		featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store { return newStore(t, c, x, f, false) })
		featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store { return newStore(t, c, x, f, true) })
		featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store {
			return &fetchThenGather{newStore(t, c, x, f, false).NewBulk()}
		})
		// Rank-dependent lists: rank r reads a rotation of a permutation,
		// the last rank nothing.
		const n, f = 1000, 5
		x := randomFeatures(n, f, 9)
		s := newStore(t, c, x, f, c == 2)
		perm := make([]int32, n)
		for i := range perm {
			perm[i] = int32((i * 7919) % n)
		}
		var ids []int32
		for _, i := range rankList(me, 4, n) {
			ids = append(ids, perm[i])
		}
		got := make([]float32, len(ids)*f)
		if err := s.Gather(ctx, got, ids); err != nil {
			t.Fatal(err)
		}
		for k, v := range ids {
			if !slices.Equal(got[k*f:(k+1)*f], x[int(v)*f:int(v+1)*f]) {
				t.Fatalf("c = %d: row %d (vertex %d) differs", c, k, v)
			}
		}
	}
	// Buffers reused across gathers on real ranks (TestDistBuffersReused
	// in process): lists of changing sizes, twice, per minibatch and per
	// bulk; rows of 64 values, so that the row buffers are mapped and
	// pre-faulted; the second pass must return the right rows and grow
	// nothing.
	const n, f = 20000, 64
	x := randomFeatures(n, f, 13)
	for _, bulk := range []bool{false, true} {
		s := newStore(t, 1, x, f, false)
		b := s.NewBulk()
		sizes := []int{n / 8, n / 2, n / 16, n / 2, n / 4}
		var grows [2]int64
		for pass := range 2 {
			for k, rows := range sizes {
				ids := make([]int32, rows)
				for i := range ids {
					ids[i] = int32((k*977 + me*31 + i*7919) % n)
				}
				got := make([]float32, rows*f)
				var err error
				if bulk {
					if err = b.Fetch(ctx, ids); err == nil {
						err = b.Gather(ctx, got, ids)
					}
				} else {
					err = s.Gather(ctx, got, ids)
				}
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range ids {
					if !slices.Equal(got[i*f:(i+1)*f], x[int(v)*f:int(v+1)*f]) {
						t.Fatalf("bulk %v, pass %d, gather %d: row %d (vertex %d) differs", bulk, pass, k, i, v)
					}
				}
			}
			grows[pass] = s.Stats().Grows
		}
		if grows[0] == 0 || grows[1] != grows[0] {
			t.Errorf("bulk %v: buffers grown %d times in the first pass, %d after the second; want some, then none", bulk, grows[0], grows[1])
		}
		b.Release()
	}
}

// fetchThenGather is a Bulk seen as a Store: every Gather fetches its ids
// first (collective, as the kit's calls are the same on every rank).
type fetchThenGather struct{ b *featurex.Bulk }

func (s *fetchThenGather) NumVertices() int { return s.b.NumVertices() }
func (s *fetchThenGather) NumFeatures() int { return s.b.NumFeatures() }
func (s *fetchThenGather) Gather(ctx context.Context, dst []float32, ids []int32) error {
	if err := s.b.Fetch(ctx, ids); err != nil {
		return err
	}
	return s.b.Gather(ctx, dst, ids)
}
