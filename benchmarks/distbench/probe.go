package main

// Calibrating the column's all-to-all in the conditions of a run (the
// machine's load, the other ranks' work): after each exchange of the run,
// every rank of the column joins a set of plain all-to-alls on warm
// huge-page buffers (the send buffer written, as the product's is: see
// buffers.sendBuf), each started from a barrier of the column and timed as
// the traced calls are (trace.go: from the column's last arrival to the
// rank's exit), in an order that rotates from one exchange to the next so
// that no probe always runs first or last.
//
// The uniform probes send the same count to every other rank of the column
// and nothing to the rank itself, as the model assumes (ids spread
// uniformly over the blocks; a rank never asks itself): the id round's and
// the row round's mean count per pair over the column, and the row round's
// 1/2, 1/4 and 1/8. The model's network is the Hockney line through the
// first two (featureRun.network): α and β such that a round of the id
// probe's bytes takes the id probe's mean time and one of the row probe's
// bytes the row probe's. A least-squares line over all five
// (featureRun.fitAll) is reported beside it. The replays send the id and
// row rounds' own per-pair counts again, to show what the uniform pattern
// leaves out; with --feature-diagnose the legacy probe is the calibration
// of the previous version (the column's largest mean per pair, sent to
// every rank of the column, the rank itself included).

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/costmodel"
	"github.com/bulksample/bulksample/dist"
)

// probeKind is one plain all-to-all of the interleaved calibration.
type probeKind int

const (
	probeRows          probeKind = iota // uniform, the row round's mean count per pair
	probeRowsHalf                       // uniform, half of it
	probeRowsQuarter                    // uniform, a quarter
	probeRowsEighth                     // uniform, an eighth
	probeIDs                            // uniform, the id round's mean count per pair
	probeReplayRows                     // the row round's own counts
	probeReplayIDs                      // the id round's own counts
	probeLegacy                         // the column's largest mean row count per pair, to every rank, itself included
	probeReplayWritten                  // the row round's own counts, the send buffer written just before, as the serve step does
	numProbes
)

// uniformProbes are the probes the network fit uses.
var uniformProbes = []probeKind{probeIDs, probeRowsEighth, probeRowsQuarter, probeRowsHalf, probeRows}

// probeSums are one probe kind's sums over the samples of a run.
type probeSums struct {
	Seconds float64 // of the transfers
	Bytes   float64 // sent to the other ranks
	Samples float64
	// Call is the seconds from the rank's entry into the call to its
	// exit; Run and Queue the seconds the calling thread ran and waited
	// for a CPU during Span seconds (as callRecord's).
	Call, Run, Queue, Span float64
}

// interleaved runs and sums the probes of a run.
type interleaved struct {
	col    dist.Comm
	log    *callLog
	legacy bool // run the legacy probe too
	sums   [numProbes]probeSums
	// replayRun is the ns the thread ran in each replay of a row round,
	// exchange by exchange (for the spread of the run's rows against
	// their replays: waitTable).
	replayRun []int64
	exchIdx   int
}

// sample runs the probes of the last exchange, sized by its last two
// logged calls (its id and row rounds).
func (c *interleaved) sample(ctx context.Context, bufs *buffers) error {
	q, me := c.col.Size(), c.col.Rank()
	if q == 1 {
		return nil
	}
	c.log.mu.Lock()
	n := len(c.log.counts)
	if n < 2 {
		c.log.mu.Unlock()
		return nil
	}
	ids, rows := c.log.counts[n-2], c.log.counts[n-1]
	c.log.mu.Unlock()
	var idWords, rowWords int64
	for i := range q {
		if i != me {
			idWords += int64(ids.send[i])
			rowWords += int64(rows.send[i])
		}
	}
	// The column's sums (for the means per pair) and its largest mean
	// per pair (for the legacy probe).
	sum := []int64{idWords, rowWords}
	if err := c.col.Allreduce(ctx, dist.PhaseControl, dist.OpSum, sum); err != nil {
		return err
	}
	most := []int64{rowWords / int64(q-1)}
	if err := c.col.Allreduce(ctx, dist.PhaseControl, dist.OpMax, most); err != nil {
		return err
	}
	pairs := int64(q * (q - 1))
	meanID, meanRow := int(sum[0]/pairs), int(sum[1]/pairs)
	uniform := func(words int, self bool) pairCounts {
		pc := pairCounts{send: make([]int, q), recv: make([]int, q)}
		for i := range q {
			if i != me || self {
				pc.send[i], pc.recv[i] = words, words
			}
		}
		return pc
	}
	counts := [numProbes]pairCounts{
		probeRows:          uniform(meanRow, false),
		probeRowsHalf:      uniform(meanRow/2, false),
		probeRowsQuarter:   uniform(meanRow/4, false),
		probeRowsEighth:    uniform(meanRow/8, false),
		probeIDs:           uniform(meanID, false),
		probeReplayRows:    rows,
		probeReplayIDs:     ids,
		probeLegacy:        uniform(int(most[0]), true),
		probeReplayWritten: rows,
	}
	var in, out [numProbes]int64
	var use [numProbes][3]int64
	for k := range numProbes {
		kind := (int(k) + c.exchIdx) % int(numProbes)
		if (kind == int(probeLegacy) || kind == int(probeReplayWritten)) && !c.legacy {
			continue
		}
		var err error
		if in[kind], out[kind], use[kind], err = c.exchange(ctx, bufs, counts[kind], kind == int(probeReplayWritten)); err != nil {
			return err
		}
	}
	c.exchIdx++
	// Each probe's transfer runs from the column's last arrival, as the
	// traced calls' do.
	last := in[:]
	if err := c.col.Allreduce(ctx, dist.PhaseControl, dist.OpMax, last); err != nil {
		return err
	}
	for kind := range numProbes {
		if (kind == probeLegacy || kind == probeReplayWritten) && !c.legacy {
			continue
		}
		var b int64
		for i, w := range counts[kind].send {
			if i != me {
				b += 4 * int64(w)
			}
		}
		s := &c.sums[kind]
		s.Seconds += float64(max(out[kind]-last[kind], 0)) / 1e9
		s.Bytes += float64(b)
		s.Samples++
		s.Call += float64(out[kind]-in[kind]) / 1e9
		s.Run += float64(use[kind][0]) / 1e9
		s.Queue += float64(use[kind][1]) / 1e9
		s.Span += float64(use[kind][2]) / 1e9
	}
	c.replayRun = append(c.replayRun, use[probeReplayRows][0])
	return nil
}

// exchange makes one all-to-all of counts (4-byte words) on warm huge-page
// buffers from a barrier, and returns the wall-clock instants (ns) it
// entered and left the call and the ns the thread ran, waited for a CPU
// and the wall ns they are of (sched, as callRecord's); with write, every value it sends is written just
// before the barrier.
func (c *interleaved) exchange(ctx context.Context, bufs *buffers, counts pairCounts, write bool) (in, out int64, use [3]int64, err error) {
	var ns, nr int
	for i := range counts.send {
		ns += counts.send[i]
		nr += counts.recv[i]
	}
	sb := bufs.sendBuf(ns)
	if write {
		for i := range sb {
			sb[i] = float32(i & 511)
		}
	}
	bufs.recv = bufs.huge(bufs.recv, nr)
	runtime.LockOSThread() // for sched
	defer runtime.UnlockOSThread()
	if err := c.col.Barrier(ctx, dist.PhaseControl); err != nil {
		return 0, 0, use, err
	}
	s0 := time.Now()
	run0, queue0 := sched()
	t0 := time.Now()
	if err := c.col.Alltoallv(ctx, dist.PhaseControl, bufs.send[:ns], counts.send, bufs.recv[:nr], counts.recv); err != nil {
		return 0, 0, use, err
	}
	t1 := time.Now()
	run1, queue1 := sched()
	span := time.Since(s0).Nanoseconds()
	return t0.UnixNano(), t1.UnixNano(), [3]int64{run1 - run0, queue1 - queue0, span}, nil
}

// mean returns the mean bytes a rank sent and the mean seconds of one
// probe of the kind.
func (s probeSums) mean() (bytes, seconds float64) {
	if s.Samples == 0 {
		return 0, 0
	}
	return s.Bytes / s.Samples, s.Seconds / s.Samples
}

// network is the model's network of the run: the Hockney line through
// the mean points of its uniform id-sized and row-sized probes, so that α
// is the latency and β the bandwidth of the column's all-to-all at the
// exchange's own two message sizes per pair.
func (r *featureRun) network() (costmodel.Hockney, error) {
	var bs, ts []float64
	for _, k := range []probeKind{probeIDs, probeRows} {
		b, t := r.Probes[k].mean()
		bs, ts = append(bs, b), append(ts, t)
	}
	return costmodel.FitHockney(bs, ts)
}

// networkRan is network's line for the calling thread's running time
// instead of the wall time: through the mean running seconds (sched) of
// the uniform id-sized and row-sized probes, so that it models the work
// of a round on a CPU, without the time the rank waited for one.
func (r *featureRun) networkRan() (costmodel.Hockney, error) {
	var bs, ts []float64
	for _, k := range []probeKind{probeIDs, probeRows} {
		s := r.Probes[k]
		if s.Samples == 0 {
			return costmodel.Hockney{}, fmt.Errorf("no %d probes", k)
		}
		bs, ts = append(bs, s.Bytes/s.Samples), append(ts, s.Run/s.Samples)
	}
	return costmodel.FitHockney(bs, ts)
}

// fitAll is the least-squares Hockney line over the mean points of all
// the run's uniform probes (for a linear law the fit of the means is the
// fit of every sample).
func (r *featureRun) fitAll() (costmodel.Hockney, error) {
	var bs, ts []float64
	for _, k := range uniformProbes {
		if r.Probes[k].Samples == 0 {
			continue
		}
		b, t := r.Probes[k].mean()
		bs, ts = append(bs, b), append(ts, t)
	}
	return costmodel.FitHockney(bs, ts)
}

// probeRow is one run's line of the probe table: its id and row rounds
// beside the probes interleaved with them, summed over the epoch (one
// probe of each kind per exchange), mean over the ranks; the mean time of
// each uniform probe; the model's network; and the least-squares line
// over every size with the model's time and error under it (rounds and
// bytes per rank as the model counts them, measured the transfer time).
func probeRow(run *featureRun, rounds, bytes, measured float64) string {
	pr := &run.Probes
	if pr[probeRows].Samples == 0 {
		return ""
	}
	var pts []string
	for _, k := range uniformProbes {
		by, t := pr[k].mean()
		pts = append(pts, fmt.Sprintf("%.2f: %.2f", by/1e6, 1e3*t))
	}
	line := func(h costmodel.Hockney, err error) string {
		if err != nil {
			return "– | – "
		}
		return fmt.Sprintf("%.0f | %.2f ", 1e6*h.Alpha, h.Beta/1e9)
	}
	all, err := run.fitAll()
	fit := line(all, err)
	if err == nil && measured > 0 {
		ms := all.Seconds(rounds, bytes)
		fit += fmt.Sprintf("| %.3f (%+.0f%%)", ms, 100*(ms-measured)/measured)
	} else {
		fit += "| –"
	}
	legacy := ""
	if pr[probeLegacy].Samples > 0 {
		legacy = fmt.Sprintf(" / %.3f / %.3f", pr[probeLegacy].Seconds, pr[probeReplayWritten].Seconds)
	}
	return fmt.Sprintf("| %d | %s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f%s | %s | %s| %s |\n", run.C, run.label(),
		run.Times.Transfer[1], pr[probeReplayIDs].Seconds, pr[probeIDs].Seconds,
		run.Times.Transfer[2], pr[probeReplayRows].Seconds, pr[probeRows].Seconds, legacy,
		strings.Join(pts, ", "), line(run.network()), fit)
}

// probeHeader heads the probe table (probeRow); legacy adds the legacy
// probe's column.
func probeHeader(legacy bool) string {
	l := ""
	if legacy {
		l = " / legacy / replay written"
	}
	return "\n| c | mode | ids s: run / replay / uniform | rows s: run / replay / uniform" + l + " | uniform probes, MB per rank: ms (ids, rows/8, /4, /2, rows) | model α µs | model β GB/s | 5-size fit α µs | fit β GB/s | fit model s (error) |\n" +
		"|---|---|---|---|---|---:|---:|---:|---:|---|\n"
}

// positionTable is the markdown table of --feature-diagnose: each round of
// the run beside a replay of its counts on the probe buffers just before
// it and a repeat of it on the product's own buffers just after it.
func positionTable(res *featureResult) string {
	var b strings.Builder
	b.WriteString("\n| c | mode | ids s: replay before / run / repeat after | rows s: replay before / run / repeat after | rows ran s: replay before / run / repeat after | rows ran, run / replay before, per call: median (min-max) | row buffers, huge / resident MB: run send, recv; probe send, recv |\n|---|---|---|---|---|---|---|\n")
	n := 0
	for _, run := range res.Runs {
		pre, t, rep := &run.PreTimes, &run.Times, &run.RepTimes
		if pre.Calls[2] == 0 || run.Beta == 0 { // none, or a column of one rank
			continue
		}
		n++
		var bk []string
		for _, x := range run.Backs {
			bk = append(bk, fmt.Sprintf("%d / %d", x.HugeKB>>10, x.RssKB>>10))
		}
		fmt.Fprintf(&b, "| %d | %s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %s | %s |\n", run.C, run.label(),
			pre.Transfer[1], t.Transfer[1], rep.Transfer[1], pre.Transfer[2], t.Transfer[2], rep.Transfer[2],
			pre.Run[2], t.Run[2], rep.Run[2], ratioSpread(t.RunPerCall[2], pre.RunPerCall[2]), strings.Join(bk, "; "))
	}
	if n == 0 {
		return ""
	}
	return b.String()
}

// ratioSpread returns the median, least and greatest of a[i]/b[i] over the
// calls where both are positive, as "1.02 (0.91-1.30)"; "–" if none.
func ratioSpread(a, b []float64) string {
	var r []float64
	for i := range min(len(a), len(b)) {
		if a[i] > 0 && b[i] > 0 {
			r = append(r, a[i]/b[i])
		}
	}
	if len(r) == 0 {
		return "–"
	}
	slices.Sort(r)
	return fmt.Sprintf("%.2f (%.2f-%.2f)", r[len(r)/2], r[0], r[len(r)-1])
}
