package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// teamSpin is how long a member of a team waits for the next pass, or the
// caller for the members to finish one, by polling before it sleeps. A
// sampler's bulk runs a few thousand parallel passes of a few milliseconds
// each, with microseconds of serial work between them; a goroutine that
// sleeps between them is woken through the kernel, which on the virtual
// machines of docs/perf-notes.md takes 100-200 µs (165 µs a pass on
// average, measured at 2 threads on R-MAT 20: 3% of the run), while a
// polling one starts at once.
const teamSpin = 200 * time.Microsecond

// Team runs the parallel passes of one call of a kernel that makes many
// short ones (the samplers: every parallel step of a bulk goes through Run
// or ForRanges). Its members are helper goroutines started once per call
// (Start, Stop), which run each pass with the calling goroutine, so that a
// pass neither starts goroutines nor waits for sleeping threads to wake: the
// fast path of Do. A nil Team, a Team without enough members, and a pass
// started from inside another pass of the same team (nested parallelism)
// run on goroutines started for the pass (Do) instead: the result is the
// same, only slower to start.
//
// The zero value is a team without members; Start and Stop bracket its
// use, and a stopped team can start again. A panic in any goroutine of a
// pass is re-raised on the caller of the pass once all have returned from
// it.
type Team struct {
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
	// Timer, when not nil, times every pass (benchmarks only); Run's
	// only cost without it is the nil test.
	Timer PassTimer
}

// PassTimer measures the passes of a Team (a sampler's benchmark clock).
type PassTimer interface {
	// InPass reports whether a pass is being timed: nested passes are not.
	InPass() bool
	// Pass times job on t goroutines, which it runs by calling run.
	Pass(t int, job func(p int), run func(t int, job func(p int)))
}

// Start starts n helpers.
func (tm *Team) Start(n int) {
	tm.cond.L, tm.idle.L = &tm.mu, &tm.mu
	tm.stopped.Store(false)
	tm.helpers = n
	seen := tm.gen.Load()
	tm.exited.Add(n)
	for range n {
		go tm.help(seen)
	}
}

// Stop ends the helpers and waits for them to return.
func (tm *Team) Stop() {
	tm.mu.Lock()
	tm.stopped.Store(true)
	tm.cond.Broadcast()
	tm.mu.Unlock()
	tm.exited.Wait()
	tm.helpers, tm.job = 0, nil
}

// ForRanges runs body over [0, n) split into contiguous ranges on up to t
// goroutines (t <= 0 means GOMAXPROCS), handing the ranges out dynamically,
// about four a goroutine. tm may be nil.
func (tm *Team) ForRanges(n, t int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	t = min(Threads(t), n)
	if t == 1 {
		body(0, n)
		return
	}
	grain := max(1, n/(4*t))
	var next atomic.Int64
	tm.Run(t, func(int) {
		for {
			lo := int(next.Add(int64(grain)) - int64(grain))
			if lo >= n {
				return
			}
			body(lo, min(lo+grain, n))
		}
	})
}

// Run runs job(p) for p = 0, ..., t-1 at the same time, one goroutine
// each (job may wait for its peers: they all run), and returns when all
// have returned. Goroutine 0 is the caller's; the others are members of tm
// when it has t-1 of them and no pass running, else goroutines started for
// the pass. tm may be nil.
func (tm *Team) Run(t int, job func(p int)) {
	if tm != nil && tm.Timer != nil && !tm.Timer.InPass() && t >= 1 {
		tm.Timer.Pass(t, job, tm.runUntimed)
		return
	}
	tm.runUntimed(t, job)
}

// runUntimed is Run without the timer.
func (tm *Team) runUntimed(t int, job func(p int)) {
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
	Do(t, job)
}

// run is Run on the caller and t-1 of at least as many helpers, which
// all wake for the pass and take the slots p in turn; it returns when all
// have returned. It must not be called from inside a pass of tm (Run
// falls back to fresh goroutines there). The pass is posted in fields of
// tm, so that it allocates nothing.
func (tm *Team) run(t int, job func(p int)) {
	tm.mu.Lock()
	tm.job, tm.width = job, int32(t)
	tm.slot.Store(0)
	tm.failed.Store(nil)
	tm.pending.Store(int32(tm.helpers))
	tm.gen.Add(1)
	tm.cond.Broadcast()
	tm.mu.Unlock()
	tm.take()
	if !SpinUntil(func() bool { return tm.pending.Load() == 0 }) {
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
func (tm *Team) help(seen uint64) {
	defer tm.exited.Done()
	for {
		if !SpinUntil(func() bool { return tm.gen.Load() != seen || tm.stopped.Load() }) {
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
func (tm *Team) take() {
	if p := tm.slot.Add(1) - 1; p < tm.width {
		guard(&tm.failed, func() { tm.job(int(p)) })
	}
}

// SpinUntil polls cond for up to teamSpin, and reports whether it became
// true. It yields the processor after every spinPolls polls, not after
// each: a yield takes the scheduler's global lock twice (the goroutine
// goes through the global run queue), and a poller yielding in a loop
// holds that lock against every other goroutine of the process, such as
// the caller doing the serial end of a bulk while a helper polls.
func SpinUntil(cond func() bool) bool {
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

// spinPolls is the number of polls of SpinUntil between yields, about a
// microsecond of atomic loads.
const spinPolls = 256
