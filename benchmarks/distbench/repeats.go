package main

// Repeating the feature rows: each (c, mode) row whose column has several
// ranks is measured --feature-repeats times, the rows of a repetition in
// an order of their own (featureRank), and the report compares the median
// of the measured transfer times with the median of the model's times, each
// repetition's model evaluated with the α and β of the probes interleaved
// with that repetition (probe.go). One measurement per row let a slow
// stretch of the shared machine fall on whichever row ran then, and the
// row that missed the model by far moved from run to run.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/internal/stats"
)

// label is the run's mode in the report's tables, with its repetition
// when its row has several.
func (r *featureRun) label() string {
	if r.Reps > 1 {
		return fmt.Sprintf("%s (%d/%d)", r.Mode, r.Rep+1, r.Reps)
	}
	return r.Mode
}

// runModel is one run's measured bytes and transfer time beside the
// model's.
type runModel struct {
	bytes     float64      // sent under dist.PhaseFeatures, summed over the ranks
	exchanges float64      // per rank (the busiest's)
	traffic   phaseTraffic // the model's, summed over the ranks
	// rounds and perRank are the model's id and row rounds and bytes of
	// one rank (the status round is not in the measured transfers).
	rounds, perRank float64
	// measured is the transfer time of the run's id and row rounds (each
	// from a barrier, trace.go), mean over the ranks; model the model's
	// time for them, NaN without a network (a column of one rank).
	measured, model float64
	// ran is the calling thread's running time in those rounds and
	// ranModel the CPU-time line's (featureRun.networkRan); NaN without.
	ran, ranModel float64
}

// inputSums are the model's inputs summed over the ranks: distinct inputs
// over the minibatches, over the bulks' unions, and those the cache holds.
func (res *featureResult) inputSums() (inputs, unions, hot float64) {
	for r := range res.P {
		inputs += float64(res.Inputs[r])
		unions += float64(res.Unions[r])
		hot += float64(res.HotInputs[r])
	}
	return inputs, unions, hot
}

// model evaluates the cost model on run's own inputs and network.
func (res *featureResult) model(run *featureRun) runModel {
	p := float64(res.P)
	var m runModel
	for _, r := range run.Ranks {
		m.bytes += float64(r.Bytes)
		m.exchanges = max(m.exchanges, float64(r.Stats.Exchanges))
	}
	inputs, unions, hot := res.inputSums()
	x, h := inputs, 0.0
	switch run.Mode {
	case "bulk":
		x = unions
	case "minibatch+cache":
		h = hot / inputs
	}
	m.traffic = featureTraffic(res.P, run.C, res.F, x, h, m.exchanges*p)
	m.rounds, m.perRank = m.traffic.rounds*2/3/p, m.traffic.bytes/p
	m.measured = run.Times.Transfer[1] + run.Times.Transfer[2]
	m.ran = run.Times.Run[1] + run.Times.Run[2]
	m.model, m.ranModel = math.NaN(), math.NaN()
	if net, err := run.network(); err == nil {
		m.model = net.Seconds(m.rounds, m.perRank)
	}
	if net, err := run.networkRan(); err == nil {
		m.ranModel = net.Seconds(m.rounds, m.perRank)
	}
	return m
}

// relErr is (model - measured) / measured, NaN where either is not a
// positive figure.
func relErr(model, measured float64) float64 {
	if !(measured > 0) || math.IsNaN(model) {
		return math.NaN()
	}
	return (model - measured) / measured
}

// pct formats a relative error as a percentage with digits decimals, "–"
// for NaN.
func pct(e float64, digits int) string {
	if math.IsNaN(e) {
		return "–"
	}
	return fmt.Sprintf("%+.*f%%", digits, 100*e)
}

// spread formats the median of x and its range ("1.234 (1.100-1.500)"
// with format "%.3f"; "+2% (-3% to +5%)" for a signed format), "–" when x
// is empty or holds a NaN.
func spread(x []float64, format string) string {
	if len(x) == 0 || slices.ContainsFunc(x, math.IsNaN) {
		return "–"
	}
	f := func(v float64) string { return fmt.Sprintf(format, v) }
	sep := "-"
	if strings.Contains(format, "+") {
		sep = " to "
	}
	return fmt.Sprintf("%s (%s%s%s)", f(stats.Median(x)), f(slices.Min(x)), sep, f(slices.Max(x)))
}

// rowRepeats are one row's figures over its repetitions, in their order.
type rowRepeats struct {
	c    int
	mode string
	// Per repetition: bytes per rank, the byte model's error, the
	// measured and model transfer seconds, the thread's running seconds
	// and the CPU-time model's.
	bytes, bytesErr, measured, model, ran, ranModel []float64
	exchanges                                       float64
}

// repeatRows groups res.Runs by row (c, mode), in their order.
func repeatRows(res *featureResult) []*rowRepeats {
	var rows []*rowRepeats
	for i := range res.Runs {
		run := &res.Runs[i]
		j := slices.IndexFunc(rows, func(r *rowRepeats) bool { return r.c == run.C && r.mode == run.Mode })
		if j < 0 {
			rows = append(rows, &rowRepeats{c: run.C, mode: run.Mode})
			j = len(rows) - 1
		}
		r, m := rows[j], res.model(run)
		r.exchanges = m.exchanges
		r.bytes = append(r.bytes, m.bytes/float64(res.P))
		r.bytesErr = append(r.bytesErr, relErr(m.traffic.bytes, m.bytes))
		r.measured = append(r.measured, m.measured)
		r.model = append(r.model, m.model)
		r.ran = append(r.ran, m.ran)
		r.ranModel = append(r.ranModel, m.ranModel)
	}
	return rows
}

// cells are the row's cells of the repetition table after c and mode.
func (r *rowRepeats) cells() []string {
	mib := func(v float64) string { return fmt.Sprintf("%.1f", v/(1<<20)) }
	bytes := mib(slices.Min(r.bytes))
	if hi := mib(slices.Max(r.bytes)); hi != bytes {
		bytes += "-" + hi
	}
	errB := pct(slices.Min(r.bytesErr), 1)
	if hi := pct(slices.Max(r.bytesErr), 1); hi != errB {
		errB += " to " + hi
	}
	perRep := make([]float64, len(r.measured))
	for i := range perRep {
		perRep[i] = relErr(r.model[i], r.measured[i])
	}
	medMeasured, medModel := stats.Median(r.measured), stats.Median(r.model)
	medRan, medRanModel := stats.Median(r.ran), stats.Median(r.ranModel)
	ran := "–"
	if !math.IsNaN(medRanModel) {
		ran = fmt.Sprintf("%.3f / %.3f (%s)", medRan, medRanModel, pct(relErr(medRanModel, medRan), 0))
	}
	within := "–"
	if e := relErr(medModel, medMeasured); !math.IsNaN(e) {
		within = "no"
		if math.Abs(e) <= 0.10 {
			within = "yes"
		}
	}
	pcts := make([]float64, len(perRep))
	for i, e := range perRep {
		pcts[i] = 100 * e
	}
	return []string{strconv.Itoa(len(r.measured)), fmt.Sprintf("%.0f", r.exchanges), bytes + " MiB", errB,
		spread(r.measured, "%.3f"), spread(r.model, "%.3f"), pct(relErr(medModel, medMeasured), 0), within,
		spread(pcts, "%+.0f%%"), ran}
}

// repeatTable is the markdown table of the rows over their repetitions.
func repeatTable(res *featureResult) string {
	var b strings.Builder
	b.WriteString("| c | mode | repetitions | exchanges per repetition | feature bytes per rank per repetition | byte model's error (every repetition) | " +
		"transfer s (ids + rows): median (min-max) | model s: median (min-max) | error of the medians | within 10% | error per repetition: median (min-max) | " +
		"ran s: median / CPU-time model median (error) |\n")
	b.WriteString("|---|---|---:|---:|---:|---|---|---|---:|---|---|---|\n")
	for _, r := range repeatRows(res) {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", r.c, r.mode, strings.Join(r.cells(), " | "))
	}
	return b.String()
}

// cpuMask returns cpus as a set of CPUs below 64, a bit per CPU, the form
// in which the ranks gather their affinities; a CPU of 64 or more is an
// error (the benchmark's machines have fewer).
func cpuMask(cpus []int) (uint64, error) {
	var mask uint64
	for _, c := range cpus {
		if c < 0 || c >= 64 {
			return 0, fmt.Errorf("CPU %d outside 0-63", c)
		}
		mask |= 1 << c
	}
	return mask, nil
}

// maskCPUs returns the CPUs of a set made by cpuMask, ascending.
func maskCPUs(mask uint64) []int {
	var cpus []int
	for c := range 64 {
		if mask&(1<<c) != 0 {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// bindings describes the ranks' CPU sets (masks[r] is rank r's) and
// whether each rank has a CPU of its own: one CPU each and no two ranks
// on the same one.
func bindings(masks []uint64) (text string, ownCore bool) {
	var parts []string
	var seen uint64
	ownCore = len(masks) > 0
	for r, m := range masks {
		list := "none"
		if m != 0 {
			list = benchutil.FormatCPUList(maskCPUs(m))
		}
		parts = append(parts, fmt.Sprintf("rank %d: CPU %s", r, list))
		if m == 0 || m&(m-1) != 0 || seen&m != 0 {
			ownCore = false
		}
		seen |= m
	}
	return strings.Join(parts, "; "), ownCore
}
