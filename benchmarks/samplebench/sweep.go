package main

// The sweep through the command line: SEPS and peak memory for every bulk
// size k and thread count, measured as a user measures them, by running
// `bulksample sample ... --json` (issue 14). The sweep runs --reps rounds;
// each round runs every (threads, k) once as its own process, the rows of
// one thread count one after the other in an order shuffled per round with
// a fixed seed (benchutil.SweepOrderByThreads, as ladiesbench's sweep), and
// each process makes --cli-passes passes over the seeds: the first is the
// cold one (fresh memory), the median of the others the warm figure the
// CLI reports as "seps". On a shared VM the speed of the machine drifts by
// more than the differences between k (up to 20% between runs of one
// command), so the table compares configurations by ratios taken within a
// round, where the drift reaches both sides (benchutil.RoundRatios), and
// gives their median over the rounds with a distribution-free 95%
// confidence interval (benchutil.MedianCI); the verdict on the largest k
// is the intervals' (benchutil.GoalVerdict, the same as ladiesbench's).

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

// warmCPUSEPS returns the sampled edges per CPU-second of the median warm
// pass of the CLI's summary r, or 0 when it reported no warm pass costs
// (PassCosts: each pass's, the cold one first, with --reps; their CPU time
// gives CPU-SEPS, which other processes on a shared machine do not inflate
// as they do wall time).
func warmCPUSEPS(r *cliout.Sample) float64 {
	if len(r.PassCosts) < 2 {
		return 0
	}
	cpu := make([]float64, 0, len(r.PassCosts)-1)
	for _, c := range r.PassCosts[1:] {
		cpu = append(cpu, c.CPUSeconds)
	}
	if m := stats.Median(cpu); m > 0 {
		return float64(r.SampledEdges) / m
	}
	return 0
}

// sweepRow is one (threads, k) of the sweep. Its per-run slices are in
// round order: every round runs every row once.
type sweepRow struct {
	benchutil.SweepRow // threads, k and warm SEPS per round
	edges              int64
	cold               []float64 // SEPS per round
	cpu                []float64 // warm CPU-SEPS per round
	rss                []int64   // peak RSS per round
	isWarm             bool
}

// sweepArgs returns the sample command's arguments for one configuration
// (threads and k as they are to be printed).
func sweepArgs(c *config, graph, threads, k string) []string {
	return []string{"sample", "--graph", graph, "--batch", fmt.Sprint(c.batch),
		"--fanout", benchutil.JoinInts(c.fanouts), "--seeds", fmt.Sprint(c.seeds), "--bulk", k,
		"--threads", threads, "--seed", fmt.Sprint(c.seed), "--reps", fmt.Sprint(c.cliPasses), "--json"}
}

// runSweep runs the sweep through the CLI c.cli and returns its markdown
// and its JSON summary.
func runSweep(ctx context.Context, c *config, stderr io.Writer) (string, *benchutil.SweepSummary, error) {
	var pin *benchutil.Pinner // nil: unpinned
	if c.pin {
		var err error
		if pin, err = benchutil.NewPinner(slices.Max(c.threads)); err != nil {
			return "", nil, fmt.Errorf("--pin: %w", err)
		}
	}
	graph, cleanup, err := benchutil.GraphOrRMAT(ctx, c.cli, c.graph, c.scale, c.edgeFactor, c.seed)
	if err != nil {
		return "", nil, err
	}
	defer cleanup()
	var rows []*sweepRow
	for _, t := range c.threads {
		for _, k := range c.bulks {
			rows = append(rows, &sweepRow{SweepRow: benchutil.SweepRow{Threads: t, K: k}})
		}
	}
	threads := make([]int, len(rows))
	for i, r := range rows {
		threads[i] = r.Threads
	}
	for round := range c.reps {
		for _, i := range benchutil.SweepOrderByThreads(threads, round, c.seed) {
			if err := ctx.Err(); err != nil {
				return "", nil, err
			}
			r := rows[i]
			cmd := pin.Command(ctx, r.Threads, c.cli, sweepArgs(c, graph, fmt.Sprint(r.Threads), fmt.Sprint(r.K))...)
			res, err := benchutil.RunJSON[cliout.Sample](cmd)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
			}
			if r.edges != 0 && res.SampledEdges != r.edges {
				return "", nil, fmt.Errorf("threads=%d k=%d sampled %d edges, before %d", r.Threads, r.K, res.SampledEdges, r.edges)
			}
			r.edges, r.isWarm = res.SampledEdges, res.Warm
			r.Warm = append(r.Warm, res.SEPS)
			r.cold = append(r.cold, res.ColdSEPS)
			r.cpu = append(r.cpu, warmCPUSEPS(res))
			r.rss = append(r.rss, res.PeakRSSBytes)
			fmt.Fprintf(stderr, "samplebench: sweep round %d threads=%d k=%-4d %.2fM SEPS (cold %.2fM, warm CPU-SEPS %.2fM), peak RSS %d MiB\n",
				round+1, r.Threads, r.K, res.SEPS/1e6, res.ColdSEPS/1e6, warmCPUSEPS(res)/1e6, res.PeakRSSBytes>>20)
		}
	}
	for _, r := range rows[1:] {
		if r.edges != rows[0].edges {
			return "", nil, fmt.Errorf("threads=%d k=%d sampled %d edges, threads=%d k=%d %d", r.Threads, r.K, r.edges, rows[0].Threads, rows[0].K, rows[0].edges)
		}
	}
	return sweepMarkdown(c, graph, rows, pin), sweepSummary(c, graph, rows, pin), nil
}

// sweepSummary returns the --json object of the sweep: every round's
// figures of every row.
func sweepSummary(c *config, graph string, rows []*sweepRow, pin *benchutil.Pinner) *benchutil.SweepSummary {
	type jsonRow struct {
		benchutil.SweepJSONRow
		SampledEdges int64     `json:"sampled_edges"`
		ColdSEPS     []float64 `json:"cold_seps"`
		WarmCPUSEPS  []float64 `json:"warm_cpu_seps"`
		PeakRSS      []int64   `json:"peak_rss_bytes"`
	}
	q := benchutil.RoundRatiosOf(rows)
	out := make([]jsonRow, len(rows))
	for j, r := range rows {
		out[j] = jsonRow{q.JSONRow(j, r.SweepRow), r.edges, r.cold, r.cpu, r.rss}
	}
	return &benchutil.SweepSummary{Program: "samplebench --cli", Machine: benchutil.ThisMachine(0), Load: c.loadAtStart,
		Command: "bulksample " + strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "), PinnedCPUs: pin.CPULists(c.threads), Rows: out}
}

func sweepMarkdown(c *config, graph string, rows []*sweepRow, pin *benchutil.Pinner) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Bulk size sweep through the CLI, R-MAT scale %d\n\n", c.scale)
	fmt.Fprintf(&b, "Written by `benchmarks/samplebench --cli` (`make bench`) on %s, %s, %s; load average at the start %s (%d CPUs).\n\n",
		benchutil.Today(), benchutil.CPUModel(), runtime.Version(), c.loadAtStart, runtime.NumCPU())
	seeds := "all vertices"
	if c.seeds > 0 {
		seeds = fmt.Sprintf("the first %d vertices", c.seeds)
	}
	fmt.Fprintf(&b, "The sweep runs in %d rounds; each round runs every row once, as its own process of the command below, "+
		"the rows of one thread count one after the other in an order shuffled per round (fixed seed %d), so that a slow stretch "+
		"of the machine reaches the rows that a ratio compares alike. "+
		"Seeds: %s of a random permutation, b = %d, fanouts %s. "+
		"SEPS is the CLI's headline: the median of its warm passes over the seeds (`--reps %d`: %d warm after the cold one); "+
		"cold is the first pass, which pays for fresh memory. Peak RSS is the process's (`peak_rss_bytes`, getrusage; "+
		"it includes the graph's mapping). CPU-SEPS divides by the CPU time of the warm passes (all threads), "+
		"which other processes on a shared machine inflate far less than wall time. SEPS, cold SEPS, CPU-SEPS and peak RSS "+
		"are medians over the rounds. %s: "+
		"\"vs best k\" is the row's SEPS over the best k's at the same thread count in that round (the best k, marked *, is the one "+
		"whose SEPS relative to the mean of its thread count's rows in a round has the highest median: one k is the reference of every round, "+
		"not the k that noise favoured in each); efficiency is SEPS(T, k) / (T · SEPS(1, k)); \"vs 1-thread best\" is "+
		"SEPS(T, k) / (T · SEPS(1, best k)).\n\n",
		c.reps, c.seed, seeds, c.batch, benchutil.JoinInts(c.fanouts), c.cliPasses, c.cliPasses-1, benchutil.RatioCILegend)
	fmt.Fprintf(&b, "%s\n\n", pin.Describe(c.threads))
	fmt.Fprintf(&b, "```\nbulksample %s\n```\n\n", strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "))
	fmt.Fprintf(&b, "(T and K are the row's threads and k; the graph from `bulksample gen rmat --scale %d --edge-factor %d --seed %d --out %s`; "+
		"the table from `go run ./benchmarks/samplebench --cli bin/bulksample --graph %s --scale %d --edge-factor %d --seed %d --batch %d --fanout %s "+
		"--seeds %d --threads %s --bulk %s --reps %d --cli-passes %d%s`)\n\n",
		c.scale, c.edgeFactor, c.seed, filepath.Base(graph), filepath.Base(graph), c.scale, c.edgeFactor, c.seed, c.batch, benchutil.JoinInts(c.fanouts),
		c.seeds, benchutil.JoinInts(c.threads), benchutil.JoinInts(c.bulks), c.reps, c.cliPasses, pin.Flag())
	b.WriteString("| threads | k | sampled edges | SEPS (M) | min-max (M) | vs best k [95% CI] | efficiency [95% CI] | vs 1-thread best [95% CI] | cold SEPS (M) | warm CPU-SEPS (M) | peak RSS (MiB) |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	q := benchutil.RoundRatiosOf(rows)
	for j, r := range rows {
		k := q.KCell(j, r.SweepRow)
		rss := make([]float64, len(r.rss))
		for i, x := range r.rss {
			rss[i] = float64(x)
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %.2f | %.2f-%.2f | %s | %s | %s | %.2f | %.2f | %.0f |\n", r.Threads, k, r.edges,
			stats.Median(r.Warm)/1e6, slices.Min(r.Warm)/1e6, slices.Max(r.Warm)/1e6,
			benchutil.RatioCICell(q.VsBest[j]), benchutil.RatioCICell(q.Eff[j]), benchutil.RatioCICell(q.EffBest[j]),
			stats.Median(r.cold)/1e6, stats.Median(r.cpu)/1e6, stats.Median(rss)/(1<<20))
	}
	b.WriteString("\n" + benchutil.GoalVerdict(benchutil.SweepRows(rows), cpuRows(rows)) + "\n")
	if !rows[0].isWarm {
		fmt.Fprintf(&b, "\nThe CLI reported no warm passes (a version without `--reps`): SEPS is the cold pass.\n")
	}
	b.WriteString("\n")
	return b.String()
}

// cpuRows returns rows with their warm CPU-SEPS as Warm, for the verdict
// by CPU time; nil when a run reported no CPU time (a CLI without
// pass_costs), where there is no such verdict.
func cpuRows(rows []*sweepRow) []benchutil.SweepRow {
	out := make([]benchutil.SweepRow, len(rows))
	for j, r := range rows {
		if slices.Min(r.cpu) <= 0 {
			return nil
		}
		out[j] = benchutil.SweepRow{Threads: r.Threads, K: r.K, Warm: r.cpu}
	}
	return out
}
