package sampling

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestTeam runs passes on teams of several sizes, with passes far apart
// (the helpers go to sleep) and back to back (they poll), and checks that
// every member runs every pass once and that a stopped team starts again.
func TestTeam(t *testing.T) {
	var tm team
	for _, helpers := range []int{1, 3, 1} {
		tm.start(helpers)
		for pass := range 40 {
			var runs atomic.Int32
			tm.run(func() { runs.Add(1) })
			if got := runs.Load(); got != int32(helpers+1) {
				t.Fatalf("%d helpers, pass %d: the job ran %d times, want %d", helpers, pass, got, helpers+1)
			}
			if pass%10 == 0 {
				time.Sleep(2 * teamSpin) // the helpers stop polling and sleep
			}
		}
		// A member slower than the polling: the caller sleeps until it ends.
		var runs atomic.Int32
		tm.run(func() {
			if runs.Add(1) == int32(helpers+1) {
				time.Sleep(2 * teamSpin)
			}
		})
		if got := runs.Load(); got != int32(helpers+1) {
			t.Fatalf("%d helpers, slow pass: the job ran %d times", helpers, got)
		}
		tm.stop()
	}
}
