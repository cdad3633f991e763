package sampling

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// teamSpin is how long a member of a team waits for the next pass, or the
// caller for the members to finish one, by polling before it sleeps. A bulk
// runs a few thousand parallel passes of a few milliseconds each, with
// microseconds of serial work between them; a goroutine that sleeps between
// them is woken through the kernel, which on the virtual machines of
// PERF-NOTES.md takes 100-200 µs (165 µs a pass on average, measured at 2
// threads on R-MAT 20: 3% of the run), while a polling one starts at once.
const teamSpin = 200 * time.Microsecond

// team is the helper goroutines of one SampleBulk call, which run every
// parallel pass of the call with the calling goroutine (nw.parallel), so
// that a pass neither starts goroutines nor waits for sleeping threads to
// wake. The zero value is a team without helpers; start and stop bracket
// its use, and a stopped team can start again.
type team struct {
	mu      sync.Mutex
	cond    sync.Cond     // signals a new pass or the stop to sleeping helpers
	gen     atomic.Uint64 // number of passes posted; a change posts job
	stopped atomic.Bool
	job     func()       // the pass every helper runs (written before gen moves)
	pending atomic.Int32 // helpers still running the current pass
	idle    sync.Cond    // signals the caller that pending reached 0
	helpers int
	exited  sync.WaitGroup
}

// start starts n helpers.
func (tm *team) start(n int) {
	tm.cond.L, tm.idle.L = &tm.mu, &tm.mu
	tm.stopped.Store(false)
	tm.helpers = n
	seen := tm.gen.Load()
	tm.exited.Add(n)
	for range n {
		go tm.help(seen)
	}
}

// stop ends the helpers and waits for them to return.
func (tm *team) stop() {
	tm.mu.Lock()
	tm.stopped.Store(true)
	tm.cond.Broadcast()
	tm.mu.Unlock()
	tm.exited.Wait()
	tm.helpers, tm.job = 0, nil
}

// run runs job on every helper and on the calling goroutine, and returns
// when all have returned from it.
func (tm *team) run(job func()) {
	tm.mu.Lock()
	tm.job = job
	tm.pending.Store(int32(tm.helpers))
	tm.gen.Add(1)
	tm.cond.Broadcast()
	tm.mu.Unlock()
	job()
	if spinUntil(func() bool { return tm.pending.Load() == 0 }) {
		return
	}
	tm.mu.Lock()
	for tm.pending.Load() != 0 {
		tm.idle.Wait()
	}
	tm.mu.Unlock()
}

// help is a helper's loop: wait for a pass newer than seen, run it, and
// report it done, until the team stops.
func (tm *team) help(seen uint64) {
	defer tm.exited.Done()
	for {
		if !spinUntil(func() bool { return tm.gen.Load() != seen || tm.stopped.Load() }) {
			tm.mu.Lock()
			for tm.gen.Load() == seen && !tm.stopped.Load() {
				tm.cond.Wait()
			}
			tm.mu.Unlock()
		}
		if tm.stopped.Load() {
			return
		}
		seen = tm.gen.Load()
		tm.job()
		if tm.pending.Add(-1) == 0 {
			tm.mu.Lock()
			tm.idle.Broadcast()
			tm.mu.Unlock()
		}
	}
}

// spinUntil polls cond for up to teamSpin, yielding the processor between
// polls, and reports whether it became true.
func spinUntil(cond func() bool) bool {
	var start time.Time
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		if i&15 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) > teamSpin {
				return false
			}
		}
		runtime.Gosched()
	}
}
