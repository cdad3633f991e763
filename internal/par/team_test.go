package par

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestTeam runs passes on teams of several sizes, with passes far apart
// (the helpers go to sleep) and back to back (they poll), and checks that
// every member runs every pass once and that a stopped team starts again.
func TestTeam(t *testing.T) {
	start := runtime.NumGoroutine()
	var tm Team
	for _, helpers := range []int{1, 3, 1} {
		tm.Start(helpers)
		for pass := range 40 {
			var runs atomic.Int32
			tm.run(helpers+1, func(int) { runs.Add(1) })
			if got := runs.Load(); got != int32(helpers+1) {
				t.Fatalf("%d helpers, pass %d: the job ran %d times, want %d", helpers, pass, got, helpers+1)
			}
			if pass%10 == 0 {
				time.Sleep(2 * teamSpin) // the helpers stop polling and sleep
			}
		}
		// A member slower than the polling: the caller sleeps until it ends.
		var runs atomic.Int32
		tm.run(helpers+1, func(int) {
			if runs.Add(1) == int32(helpers+1) {
				time.Sleep(2 * teamSpin)
			}
		})
		if got := runs.Load(); got != int32(helpers+1) {
			t.Fatalf("%d helpers, slow pass: the job ran %d times", helpers, got)
		}
		tm.Stop()
	}
	checkGoroutines(t, start)
}

// TestTeamRun checks that Run runs job(p) once for each p < t, all at
// the same time (each waits for the others), on a nil team, a team with
// enough members, one with too few, and from inside a pass (nested), and
// that ForRanges covers [0, n) once.
func TestTeamRun(t *testing.T) {
	start := runtime.NumGoroutine()
	var tm Team
	tm.Start(3)
	for _, tc := range []struct {
		name   string
		tm     *Team
		t      int
		nested bool
	}{
		{"nil team", nil, 3, false},
		{"members", &tm, 4, false},
		{"fewer members than t", &tm, 6, false},
		{"one goroutine", &tm, 1, false},
		{"nested", &tm, 3, true},
	} {
		check := func() {
			runs := make([]atomic.Int32, tc.t)
			var arrived atomic.Int32
			tc.tm.Run(tc.t, func(p int) {
				runs[p].Add(1)
				arrived.Add(1)
				deadline := time.Now().Add(10 * time.Second)
				for arrived.Load() < int32(tc.t) && time.Now().Before(deadline) {
					runtime.Gosched()
				}
			})
			if got := arrived.Load(); got != int32(tc.t) {
				t.Errorf("%s: %d of %d goroutines arrived", tc.name, got, tc.t)
			}
			for p := range runs {
				if got := runs[p].Load(); got != 1 {
					t.Errorf("%s: job(%d) ran %d times, want 1", tc.name, p, got)
				}
			}
		}
		if tc.nested {
			tm.Run(2, func(p int) {
				if p == 1 {
					check()
				}
			})
		} else {
			check()
		}
	}
	for _, n := range []int{0, 1, 7, 100, 1001} {
		for _, threads := range []int{1, 2, 4, 9} {
			seen := make([]atomic.Int32, n)
			tm.ForRanges(n, threads, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if got := seen[i].Load(); got != 1 {
					t.Fatalf("ForRanges(%d, %d): index %d visited %d times", n, threads, i, got)
				}
			}
		}
	}
	tm.Stop()
	checkGoroutines(t, start)
}

// TestTeamPanic checks that a panic in any goroutine of a pass reaches the
// caller of the pass, once the others have returned, and that the team
// runs passes afterwards.
func TestTeamPanic(t *testing.T) {
	start := runtime.NumGoroutine()
	var tm Team
	tm.Start(2)
	for _, tc := range []struct {
		tm *Team
		t  int
	}{{&tm, 3}, {nil, 3}, {&tm, 5}} {
		for bad := range tc.t {
			var done atomic.Int32
			got := func() (r any) {
				defer func() { r = recover() }()
				tc.tm.Run(tc.t, func(p int) {
					if p == bad {
						panic(fmt.Sprint("job ", p))
					}
					time.Sleep(time.Millisecond)
					done.Add(1)
				})
				return nil
			}()
			if want := fmt.Sprint("job ", bad); got != want {
				t.Errorf("team %v, t = %d: recovered %v, want %q", tc.tm != nil, tc.t, got, want)
			}
			if n := done.Load(); n != int32(tc.t-1) {
				t.Errorf("team %v, t = %d, panic in %d: %d others returned before the panic, want %d", tc.tm != nil, tc.t, bad, n, tc.t-1)
			}
		}
	}
	var runs atomic.Int32
	tm.Run(3, func(int) { runs.Add(1) })
	if runs.Load() != 3 {
		t.Errorf("after the panics a pass ran %d times, want 3", runs.Load())
	}
	tm.Stop()
	checkGoroutines(t, start)
}

// checkGoroutines fails the test unless the number of goroutines comes
// back to start or below (within a second: a goroutine that has returned
// from its function may take a moment to leave the count; fewer means an
// earlier test's were still ending when start was read).
func checkGoroutines(t *testing.T, start int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > start && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > start {
		t.Errorf("%d goroutines, %d at the start: some were leaked", n, start)
	}
}
