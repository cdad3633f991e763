package main

// Timing the feature exchange's all-to-alls apart from the waits: every
// rank records, for each all-to-all of dist.PhaseFeatures, the wall-clock
// instants it entered and left the call and the bytes it sent and received
// (the ranks share one machine, hence one clock). A collective cannot
// finish before its last rank arrives, so for each call the time from the
// last arrival in the column to a rank's exit is the transfer that rank
// saw, and the time from its own arrival to the last arrival is waiting
// for the slowest rank (the skew of the work before the call: sorting the
// ids, serving the rows).
//
// Since each traced call starts from a barrier, that skew mostly shows at
// the barrier: every rank also records when it arrived there (Arrive), so
// that the time from its arrival to the column's last arrival is the wait
// for the slowest rank's work before the call, and the time from the last
// arrival to the rank's entry into the all-to-all is the barrier and its
// exit skew. And it records, from the scheduler's statistics of the
// calling thread (/proc/thread-self/schedstat; the goroutine is locked to
// its thread for the call), how long the thread ran and how long it was
// runnable but waiting for a CPU during the call: the rest of the call it
// slept (blocked in the kernel). That tells whether a slow transfer copied,
// waited for a CPU (four ranks on two cores) or was blocked.

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bulksample/bulksample/dist"
)

// callRecord is one all-to-all of one rank.
type callRecord struct {
	Arrive         int64 // wall clock, ns since the epoch, at the barrier before the call
	In, Out        int64 // wall clock, ns since the epoch
	Sent, Received int64 // bytes to and from other ranks
	// Run is the ns the calling thread ran on a CPU and Queue the ns it
	// was runnable, waiting for one, during Span ns of wall time: the
	// call and the reads of the scheduler's statistics around it (so
	// that a wait between a read and the clock is in both).
	Run, Queue, Span int64
}

// sched returns the calling thread's time on a CPU and time runnable but
// waiting for one so far (ns, /proc/thread-self/schedstat: Linux); zeros
// where it cannot be read. The caller locks its goroutine to the thread.
// The kernel brings the running time up to date at each tick and context
// switch, not at the read: each figure may lack up to a tick (1-4 ms), so
// only sums over many calls mean much.
func sched() (run, queue int64) {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0
	}
	run, _ = strconv.ParseInt(f[0], 10, 64)
	queue, _ = strconv.ParseInt(f[1], 10, 64)
	return run, queue
}

// callLog collects the records of a rank's traced communicators.
type callLog struct {
	mu    sync.Mutex
	calls []callRecord
	// counts are the per-pair counts of each logged call, in 4-byte
	// words (the replays of probe.go send them again).
	counts []pairCounts
	// With diag set, every logged call is preceded by a replay of its
	// counts on the probe buffers of bufs (pre) and followed by a repeat
	// of the call itself on the caller's buffers (rep), each from a
	// barrier and untraced in the phase's counters.
	diag     bool
	bufs     *buffers
	pre, rep []callRecord
	// backs is, with diag, the backing of the last row round's send and
	// receive buffers and of the probes' (smaps.go).
	backs [4]backing
}

// pairCounts are the send and receive counts of one all-to-all, per rank
// of its communicator, in 4-byte words.
type pairCounts struct{ send, recv []int }

// take returns the records so far and empties the log.
func (l *callLog) take() []callRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls
	l.calls, l.counts, l.pre, l.rep = nil, nil, nil, nil
	return c
}

// tracedComm is a Comm whose all-to-alls of phase ph are logged; the
// communicators Split from it are traced into the same log.
type tracedComm struct {
	dist.Comm
	ph  dist.Phase
	log *callLog
}

func newTraced(c dist.Comm, ph dist.Phase, log *callLog) dist.Comm {
	return &tracedComm{Comm: c, ph: ph, log: log}
}

func (c *tracedComm) Alltoallv(ctx context.Context, ph dist.Phase, send any, sendCounts []int, recv any, recvCounts []int) error {
	if ph != c.ph {
		return c.Comm.Alltoallv(ctx, ph, send, sendCounts, recv, recvCounts)
	}
	runtime.LockOSThread() // for sched
	defer runtime.UnlockOSThread()
	// Every rank of the communicator starts the all-to-all together, so
	// that its time is the transfer alone: the barrier absorbs the wait
	// for the slowest rank (a latency more per call, and no data moving
	// while ranks still arrive, which would blur the two).
	arrive := time.Now()
	if err := c.Comm.Barrier(ctx, dist.PhaseControl); err != nil {
		return err
	}
	sz := int64(elemSize(send))
	var pre callRecord
	if c.log.diag {
		pc := pairCounts{send: make([]int, len(sendCounts)), recv: make([]int, len(recvCounts))}
		for i := range sendCounts {
			pc.send[i], pc.recv[i] = sendCounts[i]*int(sz)/4, recvCounts[i]*int(sz)/4
		}
		cal := interleaved{col: c.Comm}
		i, o, use, err := cal.exchange(ctx, c.log.bufs, pc, false)
		if err != nil {
			return err
		}
		pre = callRecord{In: i, Out: o, Run: use[0], Queue: use[1], Span: use[2]}
		if err := c.Comm.Barrier(ctx, dist.PhaseControl); err != nil {
			return err
		}
	}
	s0 := time.Now()
	run0, queue0 := sched()
	in := time.Now()
	err := c.Comm.Alltoallv(ctx, ph, send, sendCounts, recv, recvCounts)
	out := time.Now()
	run1, queue1 := sched()
	s1 := time.Now()
	if err == nil && c.log.diag {
		if err := c.Comm.Barrier(ctx, dist.PhaseControl); err != nil {
			return err
		}
		s0 := time.Now()
		r0, q0 := sched()
		i := time.Now()
		if err := c.Comm.Alltoallv(ctx, dist.PhaseControl, send, sendCounts, recv, recvCounts); err != nil {
			return err
		}
		o := time.Now()
		r1, q1 := sched()
		span := time.Since(s0)
		var backs [4]backing
		if sb, ok := send.([]float32); ok {
			backs = [4]backing{backingOf(sb), backingOf(recv.([]float32)), backingOf(c.log.bufs.send), backingOf(c.log.bufs.recv)}
		}
		c.log.mu.Lock()
		if backs[0].RssKB > 0 {
			c.log.backs = backs
		}
		c.log.pre = append(c.log.pre, pre)
		c.log.rep = append(c.log.rep, callRecord{In: i.UnixNano(), Out: o.UnixNano(), Run: r1 - r0, Queue: q1 - q0, Span: span.Nanoseconds()})
		c.log.mu.Unlock()
	}
	me := c.Rank()
	var s, r int64
	pc := pairCounts{send: make([]int, len(sendCounts)), recv: make([]int, len(recvCounts))}
	for i := range sendCounts {
		if i != me {
			s += int64(sendCounts[i])
			r += int64(recvCounts[i])
		}
		pc.send[i], pc.recv[i] = sendCounts[i]*int(sz)/4, recvCounts[i]*int(sz)/4
	}
	c.log.mu.Lock()
	c.log.calls = append(c.log.calls, callRecord{Arrive: arrive.UnixNano(), In: in.UnixNano(), Out: out.UnixNano(), Sent: s * sz, Received: r * sz,
		Run: run1 - run0, Queue: queue1 - queue0, Span: s1.Sub(s0).Nanoseconds()})
	c.log.counts = append(c.log.counts, pc)
	c.log.mu.Unlock()
	return err
}

func (c *tracedComm) Split(ctx context.Context, color, key int) (dist.Comm, error) {
	s, err := c.Comm.Split(ctx, color, key)
	if err != nil {
		return nil, err
	}
	return newTraced(s, c.ph, c.log), nil
}

// elemSize is the size of an element of a Comm buffer.
func elemSize(buf any) int {
	switch buf.(type) {
	case []byte:
		return 1
	case []int32, []float32:
		return 4
	}
	return 8 // []int64, []float64
}

// exchangeTimes are the all-to-alls of a run, split by the round of the
// exchange they carry (featurex.Dist: status, ids, rows), summed over the
// calls and averaged over the ranks.
type exchangeTimes struct {
	// Transfer is the time from the column's last arrival to the rank's
	// exit; Wait from the rank's arrival to the last arrival (after the
	// barrier: its exit skew).
	Transfer, Wait [3]float64
	// Skew is the time from the rank's arrival at the barrier before the
	// call to the column's last arrival there: the wait for the slowest
	// rank's work before the call. Barrier is the time from that last
	// arrival to the rank's entry into the call (the barrier's own cost
	// and its exit skew: Wait is part of it).
	Skew, Barrier [3]float64
	// Run is the seconds the calling thread ran during the calls, Queue
	// those it waited for a CPU, Span the wall seconds they are of (the
	// calls and the reads around them; sums over the calls, mean over
	// the ranks): the rest of Span it slept.
	Run, Queue, Span [3]float64
	// RunPerCall is Run call by call: the j-th call of each round, mean
	// over the ranks (for the spread of the sums above).
	RunPerCall [3][]float64
	// Calls is the number of calls of each round per rank.
	Calls [3]int
	// MeanBytes sums, over the calls, the bytes a rank sent and received
	// (the larger), averaged over the column; BusiestBytes the largest of
	// those over the column's ranks (the rank the call waits for).
	MeanBytes, BusiestBytes [3]float64
}

// splitTimes computes the exchangeTimes of per-rank records: calls[r] is
// rank r's log and column[r] its process column (every rank of a column
// makes the same calls in the same order).
func splitTimes(calls [][]callRecord, column []int) exchangeTimes {
	var t exchangeTimes
	cols := map[int][]int{}
	for r, c := range column {
		cols[c] = append(cols[c], r)
	}
	p := float64(len(calls))
	for _, ranks := range cols {
		n := len(calls[ranks[0]])
		for _, r := range ranks {
			n = min(n, len(calls[r]))
		}
		for k := range n {
			round := k % 3
			var last, lastArrive int64
			var sum, most float64
			for _, r := range ranks {
				c := calls[r][k]
				last = max(last, c.In)
				lastArrive = max(lastArrive, c.Arrive)
				b := float64(max(c.Sent, c.Received))
				sum += b
				most = max(most, b)
			}
			for _, r := range ranks {
				c := calls[r][k]
				t.Transfer[round] += float64(max(c.Out-last, 0)) / 1e9 / p
				t.Wait[round] += float64(last-c.In) / 1e9 / p
				if c.Arrive > 0 {
					t.Skew[round] += float64(lastArrive-c.Arrive) / 1e9 / p
					t.Barrier[round] += float64(max(c.In-lastArrive, 0)) / 1e9 / p
				}
				t.Run[round] += float64(c.Run) / 1e9 / p
				for len(t.RunPerCall[round]) <= k/3 {
					t.RunPerCall[round] = append(t.RunPerCall[round], 0)
				}
				t.RunPerCall[round][k/3] += float64(c.Run) / 1e9 / p
				t.Queue[round] += float64(c.Queue) / 1e9 / p
				t.Span[round] += float64(c.Span) / 1e9 / p
			}
			// Per column, averaged over the columns like the times.
			share := float64(len(ranks)) / p
			t.MeanBytes[round] += sum / float64(len(ranks)) * share
			t.BusiestBytes[round] += most * share
			if ranks[0] == 0 {
				t.Calls[round]++
			}
		}
	}
	return t
}

// gatherTimes collects every rank's records on every rank (with its
// process column) and splits them.
func gatherTimes(ctx context.Context, world dist.Comm, column int, calls []callRecord) (exchangeTimes, error) {
	v := []int64{int64(column)}
	for _, c := range calls {
		v = append(v, c.Arrive, c.In, c.Out, c.Sent, c.Received, c.Run, c.Queue, c.Span)
	}
	all, counts, err := dist.Allgather(ctx, world, dist.PhaseControl, v)
	if err != nil {
		return exchangeTimes{}, err
	}
	per := make([][]callRecord, world.Size())
	cols := make([]int, world.Size())
	off := 0
	for r, n := range counts {
		w := all[off : off+n]
		off += n
		cols[r] = int(w[0])
		for i := 1; i+7 < len(w); i += 8 {
			per[r] = append(per[r], callRecord{Arrive: w[i], In: w[i+1], Out: w[i+2], Sent: w[i+3], Received: w[i+4], Run: w[i+5], Queue: w[i+6], Span: w[i+7]})
		}
	}
	return splitTimes(per, cols), nil
}

// transferTable is the markdown table of what explains the runs'
// transfer times: the waits the barriers absorbed, the bytes per call (the
// mean rank's and the busiest's, which the collective waits for), the page
// faults of the warm-up and of the timed epoch, the store's buffers grown
// (and pre-faulted, outside the transfers) in the epoch, the CPU time the
// hypervisor stole from the machine during it, the Go heap bytes and
// kernel time of the epoch, and the bandwidth of the column's all-to-all
// at the fixed calibration size and at the run's message size.
func transferTable(res *featureResult) string {
	var b strings.Builder
	b.WriteString("\n| c | mode | calls (ids + rows) | wait s (status / ids / rows) | transfer s (ids / rows) | MB per call (mean / busiest) | faults per rank (warm-up / epoch) | buffers grown per rank in the epoch: count / MB | steal s (machine) | heap MB | sys s | fixed-size calibration: α µs / β GB/s |\n")
	b.WriteString("|---|---|---:|---|---|---|---:|---:|---:|---:|---:|---|\n")
	p := float64(res.P)
	for _, run := range res.Runs {
		t := run.Times
		calls := t.Calls[1] + t.Calls[2]
		if run.Beta == 0 || calls == 0 {
			continue
		}
		var faults, warm, sys, alloc, grows, grown, steal float64
		for _, r := range run.Ranks {
			steal += r.StealSeconds / p
			grows += float64(r.Stats.Grows) / p
			grown += float64(r.Stats.GrowBytes) / p
			alloc += float64(r.AllocBytes) / p
			faults += float64(r.MinorFaults) / p
			warm += float64(r.WarmFaults) / p
			sys += r.SysSeconds / p
		}
		mean := t.MeanBytes[1] + t.MeanBytes[2]
		busy := t.BusiestBytes[1] + t.BusiestBytes[2]
		fmt.Fprintf(&b, "| %d | %s | %d | %.3f / %.3f / %.3f | %.3f / %.3f | %.1f / %.1f | %.0f / %.0f | %.1f / %.1f | %.2f | %.0f | %.2f | %.0f / %.2f |\n",
			run.C, run.label(), calls, t.Wait[0], t.Wait[1], t.Wait[2], t.Transfer[1], t.Transfer[2], mean/float64(calls)/1e6, busy/float64(calls)/1e6,
			warm, faults, grows, grown/1e6, steal, alloc/1e6, sys, 1e6*run.Alpha, run.Beta/1e9)
	}
	return b.String()
}

// waitTable is the markdown table of where each round's time went, per
// rank (means over the ranks, sums over the epoch): waiting at the barrier
// before the call for the column's slowest rank (the skew of the work
// before it), the barrier itself, the transfer; and what the calling
// thread did inside the call: ran, waited for a CPU, or slept, for the
// run's rounds and for the replays of their counts interleaved with them;
// and ran, by the index of the run in res.Runs, the thread's
// running time in the id and row rounds against the CPU-time line's
// (featureRun.networkRan) with its error.
func waitTable(res *featureResult, ran map[int]string) string {
	var b strings.Builder
	b.WriteString("\n| c | mode | waited for the slowest s (status / ids / rows) | barrier s (ids / rows) | transfer s (ids / rows) | ids in the call, ran / queued / slept s: run; replay | rows in the call, ran / queued / slept s: run; replay; uniform | rows ran, run / replay, per exchange: median (min-max) | ids + rows ran s: run / CPU-time model (error) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	split := func(run, queue, wall float64) string {
		return fmt.Sprintf("%.3f / %.3f / %.3f", run, queue, wall-run-queue)
	}
	probe := func(s probeSums) string { return split(s.Run, s.Queue, s.Span) }
	n := 0
	for i, run := range res.Runs {
		t, pr := run.Times, &run.Probes
		if run.Beta == 0 || t.Calls[2] == 0 {
			continue
		}
		n++
		r, ok := ran[i]
		if !ok {
			r = "–"
		}
		fmt.Fprintf(&b, "| %d | %s | %.3f / %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %s; %s | %s; %s; %s | %s | %s |\n",
			run.C, run.label(), t.Skew[0], t.Skew[1], t.Skew[2], t.Barrier[1], t.Barrier[2], t.Transfer[1], t.Transfer[2],
			split(t.Run[1], t.Queue[1], t.Span[1]), probe(pr[probeReplayIDs]),
			split(t.Run[2], t.Queue[2], t.Span[2]), probe(pr[probeReplayRows]), probe(pr[probeRows]),
			ratioSpread(t.RunPerCall[2], run.ReplayRunPerCall), r)
	}
	if n == 0 {
		return ""
	}
	b.WriteString("\nWhere each id and row round's time went (trace.go), seconds summed over the epoch, mean over the ranks: *waited for the " +
		"slowest* runs from the rank's arrival at the barrier before the call to the column's last arrival there (the skew of the " +
		"work before the call: pack, serve; for the status round, everything since the last exchange), *barrier* from that last " +
		"arrival to the rank's entry into the all-to-all, *transfer* from the column's last entry to the rank's exit (what the model " +
		"describes; the model's error above is against it). *In the call*: the calling thread's time inside the all-to-all (from its " +
		"entry to its exit, and the reads around it) split by the scheduler's statistics (/proc/thread-self/schedstat) into running " +
		"on a CPU, runnable but waiting for one (four ranks share two cores), and the rest, asleep (blocked in the kernel; the kernel " +
		"updates the running time at ticks, so each part may be off by a few ms); for the run's rounds, and for the " +
		"replays of their own counts and the uniform row probe interleaved with them (probe.go); and the ratio of the run's row " +
		"round to its replay, exchange by exchange (the thread's running time, mean over the ranks): its median and range show " +
		"whether a gap between the sums is every exchange's or a few's. *Ran*: the thread's running time in " +
		"the run's id and row rounds beside the model's formula, 2·E·α + bytes/β, with α and β the line through the uniform id and " +
		"row probes' mean running times instead of their wall times: the work of the rounds on a CPU, without the waits for one " +
		"(the time model above is of the wall time, queueing included).\n")
	return b.String()
}
