package dist_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/dist/commtest"
)

// TestTimedConformance: a timed communicator is a Comm like the one it
// wraps (the conformance suite, on 3 ranks), and its split communicators
// are timed into the same counters.
func TestTimedConformance(t *testing.T) {
	ranks, err := dist.NewInProcWorld(3, dist.Options{MaxCount: 5})
	if err != nil {
		t.Fatal(err)
	}
	times := make([]dist.CommTimes, len(ranks))
	for r := range ranks {
		ranks[r] = dist.NewTimed(ranks[r], &times[r])
	}
	commtest.Run(t, ranks, 5)
	for r := range times {
		s := times[r].Seconds()
		if !(s[dist.PhaseGradients] > 0 && s[dist.PhaseControl] > 0) {
			t.Errorf("rank %d: times %v; want some in the gradients and control phases", r, s)
		}
	}
}

// TestTimedWaits: a rank that reaches an all-reduce first counts the wait
// for the last one, under the call's phase.
func TestTimedWaits(t *testing.T) {
	ranks, err := dist.NewInProcWorld(2, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var times [2]dist.CommTimes
	var wg sync.WaitGroup
	for r, c := range ranks {
		wg.Go(func() {
			tc := dist.NewTimed(c, &times[r])
			sub, err := tc.Split(context.Background(), 0, r)
			if err != nil {
				t.Error(err)
				return
			}
			if r == 1 {
				time.Sleep(50 * time.Millisecond)
			}
			if err := sub.Allreduce(context.Background(), dist.PhaseGradients, dist.OpSum, []float32{1}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if s := times[0].Seconds()[dist.PhaseGradients]; s < 0.04 {
		t.Errorf("rank 0 waited %.3f s in the all-reduce of its split communicator; want about 0.05 s", s)
	}
}

// foreignComm is a Comm of another implementation than the package's.
type foreignComm struct{ dist.Comm }

// TestTimedConcurrentComms: timing a communicator keeps what
// ConcurrentComms says of it, for its splits too; a Comm of another
// implementation reports false.
func TestTimedConcurrentComms(t *testing.T) {
	world, err := dist.NewInProcWorld(1, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var times dist.CommTimes
	tc := dist.NewTimed(world[0], &times)
	sub, err := tc.Split(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    dist.Comm
		want bool
	}{
		{"timed", tc, true},
		{"split of timed", sub, true},
		{"foreign", foreignComm{world[0]}, false},
		{"timed foreign", dist.NewTimed(foreignComm{world[0]}, &times), false},
	} {
		if got := dist.ConcurrentComms(tt.c); got != tt.want {
			t.Errorf("ConcurrentComms(%s) = %v; want %v", tt.name, got, tt.want)
		}
	}
}

// Time the communication of a job by phase: every call of a timed
// communicator, and of the communicators split from it (a Grid's), adds
// its wall time to the counters.
func ExampleNewTimed() {
	world, err := dist.NewInProcWorld(2, dist.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var times [2]dist.CommTimes
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			tc := dist.NewTimed(c, &times[r])
			g, err := dist.NewGrid(context.Background(), tc, 1, 10)
			if err != nil {
				fmt.Println(err)
				return
			}
			defer g.Close()
			g.World().Allreduce(context.Background(), dist.PhaseGradients, dist.OpSum, []float32{1, 2})
		})
	}
	wg.Wait()
	s := times[0].Seconds()
	fmt.Println("gradients timed:", s[dist.PhaseGradients] > 0, "features timed:", s[dist.PhaseFeatures] > 0)
	// Output: gradients timed: true features timed: false
}
