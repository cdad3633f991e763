package sampling_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// TestSamplersLeaveNoGoroutines checks that NodeWise and LayerWise, whose
// calls run their parallel passes on a team of goroutines, end every one
// of them before SampleBulk returns: after bulks smaller and larger than
// the thread count, and after a call whose context is cancelled.
func TestSamplersLeaveNoGoroutines(t *testing.T) {
	a := samplingtest.RandomGraph(300, 8, true, 5)
	nw, err := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{4, 3}, Seed: 1, Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	lw, err := sampling.NewLayerWise(a, sampling.LayerWiseOptions{Budgets: []int{20, 20}, Seed: 1, Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	start := runtime.NumGoroutine()
	for _, s := range []sampling.Sampler{nw, lw} {
		for _, k := range []int{1, 2, 7} {
			seeds := samplingtest.RandomSeeds(a.Rows, k, 10, uint64(k))
			b, err := s.SampleBulk(context.Background(), 0, 0, seeds)
			if err != nil {
				t.Fatalf("%T, k = %d: %v", s, k, err)
			}
			b.Release()
			if _, err := s.SampleBulk(cancelled, 0, 0, seeds); err == nil {
				t.Errorf("%T, k = %d: no error from a cancelled context", s, k)
			}
			// More goroutines than at the start are leaked ones (fewer:
			// an earlier test's were still ending when start was read).
			deadline := time.Now().Add(time.Second)
			for runtime.NumGoroutine() > start && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > start {
				t.Fatalf("%T, k = %d: %d goroutines after the calls, %d before", s, k, n, start)
			}
		}
	}
}
