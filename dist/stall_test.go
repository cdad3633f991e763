package dist

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStallWatchdog: on 3 in-process ranks, rank 2 does not come to an
// Allreduce (a stopped rank): with a stall timeout the two others give up
// after it, each reporting its rank, the call, its phase and the rank that
// never came, and the job ends (every call returns), where it hung forever
// without a word. A call that is merely slow, within the timeout, is not
// one.
func TestStallWatchdog(t *testing.T) {
	var mu sync.Mutex
	var report strings.Builder
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return report.Write(p) })
	ctx := context.Background()
	// Slow, well within the timeout: rank 2 comes 100 ms late.
	slow, err := NewInProcWorld(3, Options{StallTimeout: 3 * time.Second, StallReport: w})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Go(func() {
			if r == 2 {
				time.Sleep(100 * time.Millisecond)
			}
			errs[r] = slow[r].Allreduce(ctx, PhaseGradients, OpSum, []float32{1})
		})
	}
	wg.Wait()
	world, err := NewInProcWorld(3, Options{StallTimeout: 300 * time.Millisecond, StallReport: w})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	quiet := report.String()
	mu.Unlock()
	if err := errors.Join(errs...); err != nil || quiet != "" {
		t.Fatalf("a rank 100 ms late: %v, report %q; want no stall", err, quiet)
	}
	// Stopped: rank 2 never comes until the others have given up.
	start := time.Now()
	type result struct {
		rank int
		err  error
	}
	results := make(chan result, 3)
	release := make(chan struct{})
	for r := range 3 {
		go func() {
			if r == 2 {
				<-release
			}
			results <- result{r, world[r].Allreduce(ctx, PhaseGradients, OpSum, []float32{1})}
		}()
	}
	for range 2 {
		select {
		case res := <-results:
			errs[res.rank] = res.err
		case <-time.After(10 * time.Second):
			close(release)
			t.Fatal("ranks 0 and 1 still wait after 10 s")
		}
	}
	close(release)
	res := <-results
	errs[res.rank] = res.err
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the stalled job took %v to end; want about the 300 ms timeout", d)
	}
	// The first rank whose watchdog fires returns its *StallError; the
	// other one's may fire too, or find the job aborted by the first.
	stalls := 0
	for r, err := range errs[:2] {
		var se *StallError
		switch {
		case errors.As(err, &se) && se.Call == "Allreduce" && se.Rank == r:
			stalls++
		case errors.Is(err, ErrAborted) && strings.Contains(err.Error(), "stalled"):
		default:
			t.Errorf("rank %d: %v; want a *StallError in Allreduce, or the job aborted by one", r, err)
		}
	}
	if stalls == 0 {
		t.Errorf("no rank returned a *StallError: %v", errs[:2])
	}
	if errs[2] == nil {
		t.Error("rank 2, coming after the job ended, succeeded")
	}
	mu.Lock()
	out := report.String()
	mu.Unlock()
	for _, want := range []string{"Allreduce (phase gradients, 3 ranks) for rank 2, which never came; ending the job", "dist: stalled: waited ", "more than the stall timeout 300ms, in Allreduce"} {
		if !strings.Contains(out, want) {
			t.Errorf("report %q; want %q", out, want)
		}
	}
	if !strings.HasPrefix(out, "rank 0: ") && !strings.HasPrefix(out, "rank 1: ") {
		t.Errorf("report %q; want it to start with the rank", out)
	}
	if err := (&Options{StallTimeout: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "StallTimeout") {
		t.Errorf("StallTimeout -1: %v; want an error naming it", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestStallReportOfPeers: what the stall probe's answers say (callBoard)
// and how a StallError names the ranks that did not answer and those that
// were elsewhere; under MPI every rank that stalled printed "for the other
// ranks (one is stopped, hung or far behind)", naming none.
func TestStallReportOfPeers(t *testing.T) {
	var b callBoard
	t0 := time.Now()
	if got := b.describe(t0); got != "in no collective yet" {
		t.Errorf("a fresh board: %q", got)
	}
	end := b.enter("Allreduce", PhaseGradients)
	if got := b.describe(time.Now().Add(2 * time.Second)); !strings.HasPrefix(got, "in Allreduce (phase gradients) for 2") {
		t.Errorf("in a call: %q", got)
	}
	end2 := b.enter("Alltoallv", PhaseFeatures)
	if got := b.describe(time.Now()); !strings.HasPrefix(got, "in Allreduce (phase gradients) for ") || !strings.HasSuffix(got, " (and 1 other call)") {
		t.Errorf("in two calls: %q; want the older one named", got)
	}
	end2()
	end()
	if got := b.describe(time.Now().Add(25 * time.Second)); !strings.HasPrefix(got, "in no collective for 25") || !strings.HasSuffix(got, "since Allreduce (phase gradients)") {
		t.Errorf("after the calls: %q", got)
	}
	rep := peerReport{silent: []int{1}, answers: map[int]string{
		0: "in Allgatherv (phase control) for 3s", 2: "in Bcast (phase control) for 2.9s", 3: "in no collective for 4s since Allgatherv (phase control)"}}
	e := &StallError{Rank: 0, Size: 4, Call: "Allgatherv", Phase: PhaseControl, Waited: 3 * time.Second, Limit: 3 * time.Second,
		Probed: true, Silent: rep.silent, Elsewhere: rep.elsewhere("Allgatherv", PhaseControl)}
	want := "dist: stalled: waited 3s, more than the stall timeout 3s, in Allgatherv (phase control, 4 ranks) for rank 1 of the job, which does not answer (stopped, hung, or its node lost); " +
		"rank 2: in Bcast (phase control) for 2.9s; rank 3: in no collective for 4s since Allgatherv (phase control); ending the job"
	if got := e.Error(); got != want {
		t.Errorf("report\n%s\nwant\n%s", got, want)
	}
	e.Silent, e.Elsewhere = nil, nil
	if got := e.Error(); !strings.Contains(got, "which all answer and wait in it too") {
		t.Errorf("every rank answers, waiting alike: %s", got)
	}
}
