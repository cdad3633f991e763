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

// team runs the parallel passes of one sampling call: every parallel step
// of NodeWise and LayerWise goes through runOn or forRanges. Its members
// are helper goroutines started once per call (start, stop), which run
// each pass with the calling goroutine, so that a pass neither starts
// goroutines nor waits for sleeping threads to wake. A nil team, a team
// without enough members, and a pass started from inside another pass of
// the same team (nested parallelism) run on goroutines started for the pass
// instead: the result is the same, only slower to start.
//
// The zero value is a team without members; start and stop bracket its use,
// and a stopped team can start again. A panic in any goroutine of a pass is
// re-raised on the caller of the pass once all have returned from it.
type team struct {
	mu      sync.Mutex
	cond    sync.Cond     // signals a new pass or the stop to sleeping helpers
	gen     atomic.Uint64 // number of passes posted; a change posts job
	stopped atomic.Bool
	busy    atomic.Bool  // a pass is running on the members
	job     func(p int)  // the current pass (written before gen moves)
	width   int32        // its number of goroutines
	slot    atomic.Int32 // the next p of the pass to hand out
	pending atomic.Int32 // helpers still running the current pass
	idle    sync.Cond    // signals the caller that pending reached 0
	helpers int
	exited  sync.WaitGroup
	failed  atomic.Pointer[any] // the first panic of the current pass
	// clock, when not nil, times every pass (benchmarks only: see
	// phaseClock); runOn's only cost without it is the nil test.
	clock *phaseClock
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

// forRanges runs body over [0, n) split into contiguous ranges on up to t
// goroutines (t <= 0 means GOMAXPROCS), handing the ranges out dynamically,
// about four a goroutine.
func (tm *team) forRanges(n, t int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	t = min(lwThreads(t), n)
	if t == 1 {
		body(0, n)
		return
	}
	grain := max(1, n/(4*t))
	var next atomic.Int64
	tm.runOn(t, func(int) {
		for {
			lo := int(next.Add(int64(grain)) - int64(grain))
			if lo >= n {
				return
			}
			body(lo, min(lo+grain, n))
		}
	})
}

// runOn runs job(p) for p = 0, ..., t-1 at the same time, one goroutine
// each (job may wait for its peers: they all run), and returns when all
// have returned. Goroutine 0 is the caller's; the others are members of tm
// when it has t-1 of them and no pass running, else goroutines started for
// the pass.
func (tm *team) runOn(t int, job func(p int)) {
	if tm != nil && tm.clock != nil && !tm.clock.inPass && t >= 1 {
		tm.clock.pass(t, job, tm.runOnUntimed)
		return
	}
	tm.runOnUntimed(t, job)
}

// runOnUntimed is runOn without the clock.
func (tm *team) runOnUntimed(t int, job func(p int)) {
	if t <= 1 {
		if t == 1 {
			job(0)
		}
		return
	}
	if tm != nil && tm.helpers >= t-1 && tm.busy.CompareAndSwap(false, true) {
		defer tm.busy.Store(false)
		tm.run(t, job)
		return
	}
	var failed atomic.Pointer[any]
	var wg sync.WaitGroup
	for p := 1; p < t; p++ {
		wg.Go(func() { guard(&failed, func() { job(p) }) })
	}
	guard(&failed, func() { job(0) })
	wg.Wait()
	if r := failed.Load(); r != nil {
		panic(*r)
	}
}

// run is runOn on the caller and t-1 of at least as many helpers, which
// all wake for the pass and take the slots p in turn; it returns when all
// have returned. It must not be called from inside a pass of tm (runOn
// falls back to fresh goroutines there). The pass is posted in fields of
// tm, so that it allocates nothing.
func (tm *team) run(t int, job func(p int)) {
	tm.mu.Lock()
	tm.job, tm.width = job, int32(t)
	tm.slot.Store(0)
	tm.failed.Store(nil)
	tm.pending.Store(int32(tm.helpers))
	tm.gen.Add(1)
	tm.cond.Broadcast()
	tm.mu.Unlock()
	tm.take()
	if !spinUntil(func() bool { return tm.pending.Load() == 0 }) {
		tm.mu.Lock()
		for tm.pending.Load() != 0 {
			tm.idle.Wait()
		}
		tm.mu.Unlock()
	}
	if r := tm.failed.Load(); r != nil {
		panic(*r)
	}
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
		tm.take()
		if tm.pending.Add(-1) == 0 {
			tm.mu.Lock()
			tm.idle.Broadcast()
			tm.mu.Unlock()
		}
	}
}

// take runs the current pass for the next slot, if one is left.
func (tm *team) take() {
	if p := tm.slot.Add(1) - 1; p < tm.width {
		guard(&tm.failed, func() { tm.job(int(p)) })
	}
}

// guard runs job, recording in failed the first panic of the pass (a
// panic in a helper would otherwise end the process, and one in the caller
// would leave the helpers' pass unfinished).
func guard(failed *atomic.Pointer[any], job func()) {
	defer func() {
		if r := recover(); r != nil {
			v := r // a variable of its own: &r would move r to the heap on every call
			failed.CompareAndSwap(nil, &v)
		}
	}()
	job()
}

// spinUntil polls cond for up to teamSpin, and reports whether it became
// true. It yields the processor after every spinPolls polls, not after
// each: a yield takes the scheduler's global lock twice (the goroutine
// goes through the global run queue), and a poller yielding in a loop
// holds that lock against every other goroutine of the process, such as
// the caller doing the serial end of a bulk while a helper polls.
func spinUntil(cond func() bool) bool {
	var start time.Time
	for i := 0; ; i++ {
		for range spinPolls {
			if cond() {
				return true
			}
		}
		if i == 0 {
			start = time.Now()
		} else if time.Since(start) > teamSpin {
			return false
		}
		runtime.Gosched()
	}
}

// spinPolls is the number of polls of spinUntil between yields, about a
// microsecond of atomic loads.
const spinPolls = 256
