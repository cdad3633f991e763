package sampling

import (
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/internal/par"
)

// phaseClock measures where the wall time of a node-wise bulk goes: in the
// parallel passes of its team, and between them, when only the calling
// goroutine works (the serial fraction that Amdahl's law charges at every
// thread count). It exists for the benchmarks that state that fraction
// (benchmarks/results/sampling.md, "Node-wise serial fraction per phase");
// a sampler has none unless a test of this package sets NodeWise.clock,
// and then it must serve one SampleBulk at a time.
//
// The clock sees a bulk as a sequence of events: marks, which the sampler
// places where a phase of its own ends (mark), and parallel passes, which
// the team reports (Pass), each named by the function that started it and
// its line. The wall time from the previous event to a mark, or to the
// start of a pass, is serial time charged to that event's site; the pass's
// own wall time is parallel time, split into the busy time of each of its
// goroutines (from entering the job to leaving it) and what the team spent
// posting the pass and waiting for its last member.
//
// Costs: nothing in the normal path but a nil test per pass and per mark;
// when set, two clock reads per goroutine of a pass, and a stack walk per
// pass to name it.
type phaseClock struct {
	last   time.Time // the previous event
	inPass bool      // a pass is being timed (nested ones are not)
	sites  map[string]*siteTime
	order  []string    // sites in order of first appearance
	busy   []time.Time // per goroutine of the current pass: when its job ended
	starts []time.Time // when it began
	// log, when logging, gets every pass's site and its busiest
	// goroutine's time, in order.
	logging bool
	log     []passRecord
}

// passRecord is one pass of the log.
type passRecord struct {
	site string
	busy time.Duration // the busiest goroutine's time
}

// siteTime accumulates the time charged to one site.
type siteTime struct {
	serial  time.Duration // wall time before its events, the caller alone
	pass    time.Duration // wall time of its passes
	busy    time.Duration // goroutines' time in its passes' jobs, summed
	maxBusy time.Duration // the busiest goroutine's time, summed over passes
	mean    time.Duration // the mean goroutine's time, summed over passes
	slots   int           // goroutines over all its passes
	passes  int
	marks   int
}

func newPhaseClock() *phaseClock { return &phaseClock{sites: map[string]*siteTime{}} }

// site returns the accumulator of name, adding it on first use.
func (pc *phaseClock) site(name string) *siteTime {
	s := pc.sites[name]
	if s == nil {
		s = new(siteTime)
		pc.sites[name] = s
		pc.order = append(pc.order, name)
	}
	return s
}

// begin starts a bulk: the next event's serial time counts from now.
func (pc *phaseClock) begin() {
	if pc != nil {
		pc.last = time.Now()
	}
}

// mark ends the serial stretch named name.
func (pc *phaseClock) mark(name string) {
	if pc == nil {
		return
	}
	now := time.Now()
	s := pc.site(name)
	s.serial += now.Sub(pc.last)
	s.marks++
	pc.last = now
}

// InPass reports whether a pass is being timed (par.PassTimer).
func (pc *phaseClock) InPass() bool { return pc.inPass }

// Pass times job run on t goroutines by run (the team's Run without the
// clock), charging the serial time before it and the pass itself to the
// site that started it (par.PassTimer).
func (pc *phaseClock) Pass(t int, job func(p int), run func(t int, job func(p int))) {
	start := time.Now()
	name := passSite()
	s := pc.site(name)
	s.serial += start.Sub(pc.last)
	pc.starts, pc.busy = par.Resize(pc.starts, t), par.Resize(pc.busy, t)
	pc.inPass = true
	run(t, func(p int) {
		pc.starts[p] = time.Now()
		job(p)
		pc.busy[p] = time.Now()
	})
	pc.inPass = false
	end := time.Now()
	var sum, most time.Duration
	for p := range t {
		d := pc.busy[p].Sub(pc.starts[p])
		sum += d
		most = max(most, d)
	}
	s.pass += end.Sub(start)
	s.busy += sum
	s.maxBusy += most
	s.mean += sum / time.Duration(t)
	s.slots += t
	s.passes++
	if pc.logging {
		pc.log = append(pc.log, passRecord{name, most})
	}
	pc.last = end
}

// passSite names the code that started a pass: the innermost function of
// the call stack outside the team and the sampler's pass helpers (and
// their closures), with its file's line.
func passSite() string {
	var pcs [12]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		name := f.Function[strings.LastIndexByte(f.Function, '/')+1:]
		if !strings.Contains(name, "par.(*Team)") && !strings.Contains(name, "(*NodeWise).parallel") &&
			!strings.Contains(name, "(*phaseClock)") {
			return strings.TrimPrefix(name, "sampling.") + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}
