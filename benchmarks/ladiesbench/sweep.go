package main

// The sweep through the command line (--cli): SEPS and peak memory of
// layer-wise sampling for every bulk size k of --bulks and thread count of
// --sweep-threads, measured as a user measures them, by running
// `bulksample sample --method ladies ... --json` (issue 14). Each (threads,
// k) runs --reps times as its own process, the configurations interleaved,
// and each process makes --cli-passes passes over the seeds: the first is
// the cold one, the median of the others the warm figure the CLI reports.

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// cliSummary is what the sweep reads from the CLI's JSON summary.
type cliSummary struct {
	SampledEdges int64   `json:"sampled_edges"`
	Seconds      float64 `json:"seconds"`
	SEPS         float64 `json:"seps"`
	ColdSEPS     float64 `json:"cold_seps"`
	Digest       string  `json:"digest"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	PassCosts    []struct {
		Seconds    float64 `json:"seconds"`
		CPUSeconds float64 `json:"cpu_seconds"`
	} `json:"pass_costs"`
}

// sweepRow is one (threads, k) of the sweep: per repetition, the warm and
// cold SEPS, the warm passes' CPU seconds per wall second, and peak RSS.
type sweepRow struct {
	threads, k int
	edges      int64
	digest     string
	warm, cold []float64
	busy       []float64
	rss        []float64
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

// runSweep runs the sweep through the CLI c.cli and returns its markdown.
func runSweep(ctx context.Context, c *config, progress io.Writer) (string, error) {
	load := benchutil.LoadAveragesText()
	graph, cleanup, err := benchutil.GraphOrRMAT(ctx, c.cli, c.graph, c.scale, 0, c.seed)
	if err != nil {
		return "", err
	}
	defer cleanup()
	var rows []*sweepRow
	for _, t := range c.sweepThreads {
		for _, k := range c.bulks {
			rows = append(rows, &sweepRow{threads: t, k: k})
		}
	}
	for rep := range c.reps {
		for _, r := range rows {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			cmd := exec.CommandContext(ctx, c.cli, sweepArgs(c, graph, fmt.Sprint(r.threads), fmt.Sprint(r.k))...)
			res, err := benchutil.RunJSON[cliSummary](cmd)
			if err != nil {
				return "", fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
			}
			if r.digest == "" {
				r.digest, r.edges = res.Digest, res.SampledEdges
			}
			if res.Digest != rows[0].digest { // rows[0] runs first
				return "", fmt.Errorf("threads=%d k=%d: digest %s differs from threads=%d k=%d's %s: the sample depends on k or the threads",
					r.threads, r.k, res.Digest, rows[0].threads, rows[0].k, rows[0].digest)
			}
			var cpu, wall float64
			for _, p := range res.PassCosts[min(1, len(res.PassCosts)-1):] {
				cpu, wall = cpu+p.CPUSeconds, wall+p.Seconds
			}
			r.warm = append(r.warm, res.SEPS)
			r.cold = append(r.cold, res.ColdSEPS)
			r.busy = append(r.busy, cpu/wall)
			r.rss = append(r.rss, float64(res.PeakRSSBytes))
			fmt.Fprintf(progress, "ladiesbench: sweep rep %d threads=%d k=%-4d %.3fM SEPS (cold %.3fM), %.2f CPUs busy, peak RSS %d MiB\n",
				rep+1, r.threads, r.k, res.SEPS/1e6, res.ColdSEPS/1e6, cpu/wall, res.PeakRSSBytes>>20)
		}
	}
	return sweepMarkdown(c, graph, rows, load), nil
}

func sweepMarkdown(c *config, graph string, rows []*sweepRow, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Layer-wise (%s) bulk size and thread sweep through the CLI, R-MAT scale %d\n\n", c.methods[0], c.scale)
	fmt.Fprintf(&b, "Written by `benchmarks/ladiesbench --cli` on %s, %s, %s, %d CPUs; load average at the start %s.\n\n",
		benchutil.Today(), benchutil.CPUModel(), runtime.Version(), runtime.NumCPU(), load)
	fmt.Fprintf(&b, "Each row is %d runs of the command below (one process each, the rows interleaved): the first %d seeds "+
		"of a random permutation of all vertices, b = %d, %s columns per layer, LADIES matrix %s. SEPS is the CLI's headline, "+
		"the median of its %d warm passes; cold is the first pass. Peak RSS is the process's (getrusage; it includes the graph's "+
		"mapping and, for the normalised matrix, its copy). Busy CPUs is CPU time over wall time of the warm passes "+
		"(at most T; under T when a phase is serial or the machine is shared). Efficiency is SEPS(T) / (T · SEPS(1)) at the same k; "+
		"\"vs best\" compares with the best k at the same T. Medians over the runs; every run's digest is the same.\n\n",
		c.reps, c.seeds, c.batch, benchutil.JoinInts(c.budgets), c.ladiesMatrix, c.cliPasses-1)
	fmt.Fprintf(&b, "```\nbulksample %s\n```\n\n", strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "))
	b.WriteString("| T | k | SEPS (M/s) | cold SEPS (M/s) | vs best k | efficiency | busy CPUs | peak RSS MiB |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	best := map[int]float64{}
	one := map[int]float64{}
	for _, r := range rows {
		m := benchutil.Median(r.warm)
		best[r.threads] = max(best[r.threads], m)
		if r.threads == 1 {
			one[r.k] = m
		}
	}
	for _, r := range rows {
		m := benchutil.Median(r.warm)
		eff := "-"
		if s1, ok := one[r.k]; ok && s1 > 0 {
			eff = fmt.Sprintf("%.2f", m/(float64(r.threads)*s1))
		}
		fmt.Fprintf(&b, "| %d | %d | %.3f | %.3f | %.2f | %s | %.2f | %.0f |\n", r.threads, r.k, m/1e6, benchutil.Median(r.cold)/1e6,
			m/best[r.threads], eff, benchutil.Median(r.busy), benchutil.Median(r.rss)/(1<<20))
	}
	fmt.Fprintf(&b, "\nSampled edges per pass: %d; digest of every run: %s. Command of the table: `go run ./benchmarks/ladiesbench --cli BULKSAMPLE --scale %d --batch %d --budgets %s "+
		"--bulks %s --sweep-threads %s --seeds %d --cli-passes %d --reps %d --ladies-matrix %s`\n",
		rows[0].edges, rows[0].digest, c.scale, c.batch, benchutil.JoinInts(c.budgets), benchutil.JoinInts(c.bulks), benchutil.JoinInts(c.sweepThreads),
		c.seeds, c.cliPasses, c.reps, c.ladiesMatrix)
	return b.String()
}
