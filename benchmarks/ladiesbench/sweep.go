package main

// The sweep through the command line (--cli): SEPS and peak memory of
// layer-wise sampling for every bulk size k of --bulks and thread count of
// --sweep-threads, measured as a user measures them, by running
// `bulksample sample --method ladies ... --json` (issue 14). The sweep runs
// --reps rounds; each round runs every (threads, k) once as its own process,
// the rows of one thread count one after the other in an order shuffled per
// round (benchutil.SweepOrderByThreads), and each process makes --cli-passes
// passes over the seeds: the first is the cold one, the median of the others
// the warm figure the CLI reports. Configurations are compared by ratios
// taken within a round (benchutil.RoundRatios), as samplebench's sweep does,
// and summarised by their median over the rounds with a distribution-free
// 95% confidence interval (benchutil.MedianCI): the verdict on the largest k
// is the intervals' (benchutil.GoalVerdict, which samplebench's sweep
// prints too), so that a few lucky rounds cannot
// decide it, and the interval says how many rounds the machine's noise
// needs.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/internal/cliout"
	"github.com/bulksample/bulksample/internal/stats"
)

// sweepRow is one (threads, k) of the sweep: per round, the warm and cold
// SEPS, the warm passes' CPU seconds per wall second, and peak RSS.
type sweepRow struct {
	benchutil.SweepRow
	edges  int64
	digest string
	cold   []float64
	busy   []float64
	// cpu is the sampled edges per CPU second of the process (the median
	// of the warm passes): at one thread the sampler's own time, without
	// the time the VM gave to other processes or tenants (steal, which
	// this kernel subtracts), the part of the noise that wall time has and
	// CPU time has not.
	cpu []float64
	rss []float64
}

// sweepArgs returns the sample command's arguments for one configuration
// (threads and k as they are to be printed).
func sweepArgs(c *config, graph, threads, k string) []string {
	args := []string{"sample", "--graph", graph, "--method", c.methods[0], "--batch", fmt.Sprint(c.batch),
		"--fanout", benchutil.JoinInts(c.budgets), "--seeds", fmt.Sprint(c.seeds), "--bulk", k,
		"--threads", threads, "--seed", fmt.Sprint(c.seed), "--reps", fmt.Sprint(c.cliPasses), "--digest", "--json"}
	if c.methods[0] == "ladies" {
		args = append(args, "--ladies-matrix", c.ladiesMatrix)
	}
	return args
}

// runSweep runs the sweep through the CLI c.cli and returns its markdown
// and its JSON summary.
func runSweep(ctx context.Context, c *config, progress io.Writer) (string, *benchutil.SweepSummary, error) {
	load := benchutil.LoadAveragesText()
	var pin *benchutil.Pinner // nil: unpinned
	if c.pin {
		var err error
		if pin, err = benchutil.NewPinner(slices.Max(c.sweepThreads)); err != nil {
			return "", nil, fmt.Errorf("--pin: %w", err)
		}
	}
	graph, cleanup, err := benchutil.GraphOrRMAT(ctx, c.cli, c.graph, c.scale, 0, c.seed)
	if err != nil {
		return "", nil, err
	}
	defer cleanup()
	var rows []*sweepRow
	for _, t := range c.sweepThreads {
		for _, k := range c.bulks {
			rows = append(rows, &sweepRow{SweepRow: benchutil.SweepRow{Threads: t, K: k}})
		}
	}
	threads := make([]int, len(rows))
	for i, r := range rows {
		threads[i] = r.Threads
	}
	var first *sweepRow // the first row to run: the reference digest
	for rep := range c.reps {
		for _, i := range benchutil.SweepOrderByThreads(threads, rep, c.seed) {
			if err := ctx.Err(); err != nil {
				return "", nil, err
			}
			r := rows[i]
			cmd := pin.Command(ctx, r.Threads, c.cli, sweepArgs(c, graph, fmt.Sprint(r.Threads), fmt.Sprint(r.K))...)
			res, err := benchutil.RunJSON[cliout.Sample](cmd)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
			}
			if r.digest == "" {
				r.digest, r.edges = res.Digest, res.SampledEdges
			}
			if first == nil {
				first = r
			}
			if res.Digest != first.digest {
				return "", nil, fmt.Errorf("threads=%d k=%d: digest %s differs from threads=%d k=%d's %s: the sample depends on k or the threads",
					r.Threads, r.K, res.Digest, first.Threads, first.K, first.digest)
			}
			var cpu, wall float64
			var passCPU []float64
			for _, p := range res.PassCosts[min(1, len(res.PassCosts)-1):] {
				cpu, wall = cpu+p.CPUSeconds, wall+p.Seconds
				passCPU = append(passCPU, p.CPUSeconds)
			}
			r.cpu = append(r.cpu, float64(res.SampledEdges)/stats.Median(passCPU))
			r.Warm = append(r.Warm, res.SEPS)
			r.cold = append(r.cold, res.ColdSEPS)
			r.busy = append(r.busy, cpu/wall)
			r.rss = append(r.rss, float64(res.PeakRSSBytes))
			fmt.Fprintf(progress, "ladiesbench: sweep round %d threads=%d k=%-4d %.3fM SEPS (cold %.3fM), %.2f CPUs busy, peak RSS %d MiB\n",
				rep+1, r.Threads, r.K, res.SEPS/1e6, res.ColdSEPS/1e6, cpu/wall, res.PeakRSSBytes>>20)
		}
	}
	return sweepMarkdown(c, graph, rows, load, pin), sweepSummary(c, graph, rows, load, pin), nil
}

// sweepSummary returns the --json object of the sweep: every round's
// figures of every row.
func sweepSummary(c *config, graph string, rows []*sweepRow, load string, pin *benchutil.Pinner) *benchutil.SweepSummary {
	type jsonRow struct {
		benchutil.SweepJSONRow
		SampledEdges int64     `json:"sampled_edges"`
		ColdSEPS     []float64 `json:"cold_seps"`
		BusyCPUs     []float64 `json:"busy_cpus"`
		PeakRSS      []float64 `json:"peak_rss_bytes"`
		CPUSEPS      []float64 `json:"cpu_seps"` // sampled edges per CPU second
	}
	q := benchutil.RoundRatiosOf(rows)
	out := make([]jsonRow, len(rows))
	for j, r := range rows {
		out[j] = jsonRow{q.JSONRow(j, r.SweepRow), r.edges, r.cold, r.busy, r.rss, r.cpu}
	}
	return &benchutil.SweepSummary{Program: "ladiesbench --cli", Machine: benchutil.ThisMachine(0), Load: load,
		Command: "bulksample " + strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "), PinnedCPUs: pin.CPULists(c.sweepThreads), Rows: out}
}

func sweepMarkdown(c *config, graph string, rows []*sweepRow, load string, pin *benchutil.Pinner) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Layer-wise (%s) bulk size and thread sweep through the CLI, R-MAT scale %d\n\n", c.methods[0], c.scale)
	fmt.Fprintf(&b, "Written by `benchmarks/ladiesbench --cli` on %s, %s, %s, %d CPUs; load average at the start %s.\n\n",
		benchutil.Today(), benchutil.CPUModel(), runtime.Version(), runtime.NumCPU(), load)
	fmt.Fprintf(&b, "The sweep runs in %d rounds; each round runs every row once, as its own process of the command below, "+
		"the rows of one thread count one after the other in an order shuffled per round (fixed seed %d), so that a slow stretch "+
		"of the machine reaches the rows that a ratio compares alike. "+
		"Seeds: the first %d of a random permutation of all vertices, b = %d, %s columns per layer, LADIES matrix %s. "+
		"SEPS is the CLI's headline, the median of its %d warm passes; cold is the first pass. Peak RSS is the process's "+
		"(getrusage; it includes the graph's mapping and, for the normalised matrix, its copy). Busy CPUs is CPU time over wall time "+
		"of the warm passes (at most T; under T when a phase is serial or the machine is shared). SEPS, cold SEPS, busy CPUs and "+
		"peak RSS are medians over the rounds. %s: \"vs best k\" is the row's SEPS over the best k's at the same T in that round (the best k, marked *, is the one "+
		"whose SEPS relative to the mean of its T's rows in a round has the highest median); efficiency is SEPS(T, k) / (T · SEPS(1, k)). "+
		"\"CPU time\" is the same ratio of sampled edges per CPU second (the median of the warm passes), against the best k by that "+
		"measure: at one thread the sampler's own time, without the time the VM gave to other processes or, as steal, to other tenants "+
		"(this kernel subtracts steal from CPU time); at more threads it leaves out idle waits, so only SEPS reads the goal there. "+
		"Every run's digest is the same.\n\n",
		c.reps, c.seed, c.seeds, c.batch, benchutil.JoinInts(c.budgets), c.ladiesMatrix, c.cliPasses-1, benchutil.RatioCILegend)
	fmt.Fprintf(&b, "%s\n\n", pin.Describe(c.sweepThreads))
	fmt.Fprintf(&b, "```\nbulksample %s\n```\n\n", strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "))
	b.WriteString("| T | k | SEPS (M/s) | min-max (M/s) | cold SEPS (M/s) | vs best k [95% CI] | vs best k, CPU time [95% CI] | efficiency [95% CI] | busy CPUs | peak RSS MiB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	q := benchutil.RoundRatiosOf(rows)
	byCPU := make([]benchutil.SweepRow, len(rows))
	for j, r := range rows {
		byCPU[j] = benchutil.SweepRow{Threads: r.Threads, K: r.K, Warm: r.cpu}
	}
	qCPU := benchutil.RoundRatios(byCPU)
	for j, r := range rows {
		k := q.KCell(j, r.SweepRow)
		fmt.Fprintf(&b, "| %d | %s | %.3f | %.3f-%.3f | %.3f | %s | %s | %s | %.2f | %.0f |\n", r.Threads, k,
			stats.Median(r.Warm)/1e6, slices.Min(r.Warm)/1e6, slices.Max(r.Warm)/1e6, stats.Median(r.cold)/1e6,
			benchutil.RatioCICell(q.VsBest[j]), benchutil.RatioCICell(qCPU.VsBest[j]), benchutil.RatioCICell(q.Eff[j]), stats.Median(r.busy), stats.Median(r.rss)/(1<<20))
	}
	b.WriteString("\n" + benchutil.GoalVerdict(benchutil.SweepRows(rows), byCPU) + "\n")
	fmt.Fprintf(&b, "\nSampled edges per pass: %d; digest of every run: %s. Command of the table: `go run ./benchmarks/ladiesbench --cli BULKSAMPLE --scale %d --batch %d --budgets %s "+
		"--bulks %s --sweep-threads %s --seeds %d --cli-passes %d --reps %d --ladies-matrix %s%s`\n",
		rows[0].edges, rows[0].digest, c.scale, c.batch, benchutil.JoinInts(c.budgets), benchutil.JoinInts(c.bulks), benchutil.JoinInts(c.sweepThreads),
		c.seeds, c.cliPasses, c.reps, c.ladiesMatrix, pin.Flag())
	return b.String()
}
