package dist_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/dist/commtest"
)

func TestInProcConformance(t *testing.T) {
	for _, p := range []int{1, 2, 3, 4, 8} {
		for _, maxCount := range []int{0, 5} {
			t.Run(fmt.Sprintf("p=%d/maxCount=%d", p, maxCount), func(t *testing.T) {
				ranks, err := dist.NewInProcWorld(p, dist.Options{MaxCount: maxCount})
				if err != nil {
					t.Fatal(err)
				}
				commtest.Run(t, ranks, maxCount)
			})
		}
	}
}

func TestNewInProcWorldErrors(t *testing.T) {
	if _, err := dist.NewInProcWorld(0, dist.Options{}); err == nil {
		t.Error("p = 0: no error")
	}
	if _, err := dist.NewInProcWorld(2, dist.Options{MaxCount: -1}); err == nil {
		t.Error("MaxCount = -1: no error")
	}
}

// TestInProcAbort injects an error on one rank while the others wait in a
// collective: they must all return ErrAborted promptly, never hang.
func TestInProcAbort(t *testing.T) {
	const p = 4
	ranks, err := dist.NewInProcWorld(p, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	errs := make([]error, p)
	var wg sync.WaitGroup
	start := time.Now()
	for r, c := range ranks {
		wg.Go(func() {
			if r == 2 {
				time.Sleep(10 * time.Millisecond)
				c.Abort(errors.New("injected failure"))
				errs[r] = c.Barrier(ctx, dist.PhaseControl)
				return
			}
			errs[r] = c.Barrier(ctx, dist.PhaseControl)
		})
	}
	wg.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("abort took %v", d)
	}
	for r, err := range errs {
		if !errors.Is(err, dist.ErrAborted) {
			t.Errorf("rank %d: got %v; want ErrAborted", r, err)
		}
	}
}

// TestInProcCancel: a rank whose context is cancelled while it waits ends
// the job for every rank.
func TestInProcCancel(t *testing.T) {
	ranks, err := dist.NewInProcWorld(3, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for r, c := range ranks[:2] {
		wg.Go(func() {
			c2 := context.Background()
			if r == 0 {
				c2 = ctx
			}
			errs[r] = c.Barrier(c2, dist.PhaseControl)
		})
	}
	time.Sleep(10 * time.Millisecond)
	cancel()
	wg.Wait()
	if !errors.Is(errs[0], context.Canceled) {
		t.Errorf("rank 0: %v; want context.Canceled", errs[0])
	}
	if !errors.Is(errs[1], dist.ErrAborted) {
		t.Errorf("rank 1: %v; want ErrAborted", errs[1])
	}
}

func TestBlockRange(t *testing.T) {
	for _, tc := range []struct{ n, parts int }{{10, 3}, {0, 2}, {7, 7}, {5, 8}, {1000003, 16}} {
		prev := 0
		for i := range tc.parts {
			lo, hi := dist.BlockRange(tc.n, tc.parts, i)
			if lo != prev || hi < lo || hi-lo > tc.n/tc.parts+1 {
				t.Fatalf("BlockRange(%d, %d, %d) = [%d, %d); previous ended at %d", tc.n, tc.parts, i, lo, hi, prev)
			}
			for x := lo; x < hi; x += max(1, (hi-lo)/7) {
				if b := dist.BlockOf(tc.n, tc.parts, x); b != i {
					t.Fatalf("BlockOf(%d, %d, %d) = %d; want %d", tc.n, tc.parts, x, b, i)
				}
			}
			if hi > lo {
				if b := dist.BlockOf(tc.n, tc.parts, hi-1); b != i {
					t.Fatalf("BlockOf(%d, %d, %d) = %d; want %d", tc.n, tc.parts, hi-1, b, i)
				}
			}
			prev = hi
		}
		if prev != tc.n {
			t.Fatalf("BlockRange(%d, %d, ·) ends at %d", tc.n, tc.parts, prev)
		}
	}
}

// TestChain: float64 sums passed along the ranks equal the sequential sum
// bit for bit (values chosen so that the order matters), on every rank.
func TestChain(t *testing.T) {
	const p = 5
	ranks, _ := dist.NewInProcWorld(p, dist.Options{})
	contrib := func(r int) float64 { return 1 / float64(3+7*r) }
	want := 0.0
	for r := range p {
		want += contrib(r)
	}
	got := make([]float64, p)
	var wg sync.WaitGroup
	for r, c := range ranks {
		wg.Go(func() {
			buf := []float64{0}
			err := dist.Chain(context.Background(), c, dist.PhaseControl, []any{buf}, func() error {
				buf[0] += contrib(r)
				return nil
			})
			if err != nil {
				t.Error(err)
				c.Abort(err)
			}
			got[r] = buf[0]
		})
	}
	wg.Wait()
	for r, g := range got {
		if g != want {
			t.Errorf("rank %d: %v; want %v", r, g, want)
		}
	}
}

// concurrentAllreduces runs, on each of the comms of one rank (one per
// world), rounds of Allreduce on two communicators split from it, each on
// its own goroutine at the same time, and checks every sum: what the
// trainer's pipeline does with the sampler's, the store's and the
// reducer's communicators.
func concurrentAllreduces(t *testing.T, world dist.Comm, rounds int) {
	t.Helper()
	ctx := context.Background()
	if !dist.ConcurrentComms(world) {
		t.Fatalf("rank %d: ConcurrentComms = false; want true", world.Rank())
	}
	var subs [2]dist.Comm
	for i := range subs {
		c, err := world.Split(ctx, 0, world.Rank())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if !dist.ConcurrentComms(c) {
			t.Errorf("rank %d: ConcurrentComms of a split = false; want true", world.Rank())
		}
		subs[i] = c
	}
	var wg sync.WaitGroup
	errs := make([]error, len(subs))
	for i, c := range subs {
		wg.Go(func() {
			p := float64(c.Size())
			for r := range rounds {
				buf := []float64{float64(c.Rank()), float64(r * (i + 1))}
				if err := c.Allreduce(ctx, dist.PhaseControl, dist.OpSum, buf); err != nil {
					errs[i] = err
					return
				}
				if want := []float64{p * (p - 1) / 2, p * float64(r*(i+1))}; buf[0] != want[0] || buf[1] != want[1] {
					errs[i] = fmt.Errorf("communicator %d round %d: sums %v; want %v", i, r, buf, want)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", world.Rank(), err)
		}
	}
}

// TestInProcConcurrentComms: in-process ranks may call two communicators
// from two goroutines at once.
func TestInProcConcurrentComms(t *testing.T) {
	ranks, err := dist.NewInProcWorld(3, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, c := range ranks {
		wg.Go(func() { concurrentAllreduces(t, c, 200) })
	}
	wg.Wait()
}
