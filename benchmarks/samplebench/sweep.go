package main

// The sweep through the command line: SEPS and peak memory for every bulk
// size k and thread count, measured as a user measures them, by running
// `bulksample sample ... --json` (issue 14). Each (threads, k) runs
// --reps times as its own process, the configurations interleaved (every
// repetition runs them all in turn, so that drift in the machine's load
// reaches all alike), and each process makes --cli-passes passes over the
// seeds: the first is the cold one (fresh memory), the median of the
// others the warm figure the CLI reports as "seps".

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// cliResult is what the sweep reads from the CLI's JSON summary.
type cliResult struct {
	SampledEdges int64   `json:"sampled_edges"`
	SEPS         float64 `json:"seps"`
	ColdSEPS     float64 `json:"cold_seps"`
	Warm         bool    `json:"warm"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	// PassCosts are the costs of each pass over the seeds, the cold one
	// first (a CLI with --reps); their CPU time gives CPU-SEPS, which other
	// processes on a shared machine do not inflate as they do wall time.
	PassCosts []struct {
		CPUSeconds float64 `json:"cpu_seconds"`
	} `json:"pass_costs"`
}

// warmCPUSEPS returns the sampled edges per CPU-second of the median warm
// pass, or 0 when the CLI reported no warm pass costs.
func (r *cliResult) warmCPUSEPS() float64 {
	if len(r.PassCosts) < 2 {
		return 0
	}
	cpu := make([]float64, 0, len(r.PassCosts)-1)
	for _, c := range r.PassCosts[1:] {
		cpu = append(cpu, c.CPUSeconds)
	}
	if m := benchutil.Median(cpu); m > 0 {
		return float64(r.SampledEdges) / m
	}
	return 0
}

// sweepRow is one (threads, k) of the sweep.
type sweepRow struct {
	threads, k int
	edges      int64
	warm, cold []float64 // SEPS per repetition
	cpu        []float64 // warm CPU-SEPS per repetition
	rss        []int64   // peak RSS per repetition
	isWarm     bool
}

// sweepArgs returns the sample command's arguments for one configuration
// (threads and k as they are to be printed).
func sweepArgs(c *config, graph, threads, k string) []string {
	return []string{"sample", "--graph", graph, "--batch", fmt.Sprint(c.batch),
		"--fanout", benchutil.JoinInts(c.fanouts), "--seeds", fmt.Sprint(c.seeds), "--bulk", k,
		"--threads", threads, "--seed", fmt.Sprint(c.seed), "--reps", fmt.Sprint(c.cliPasses), "--json"}
}

// runSweep runs the sweep through the CLI c.cli and returns its markdown.
func runSweep(ctx context.Context, c *config, stderr io.Writer) (string, error) {
	graph := c.graph
	if graph == "" {
		dir, err := os.MkdirTemp("", "samplebench")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		graph = filepath.Join(dir, fmt.Sprintf("rmat%d.bsn", c.scale))
		gen := exec.CommandContext(ctx, c.cli, "gen", "rmat", "--scale", fmt.Sprint(c.scale),
			"--edge-factor", fmt.Sprint(c.edgeFactor), "--seed", fmt.Sprint(c.seed), "--out", graph)
		if out, err := gen.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %w\n%s", strings.Join(gen.Args, " "), err, out)
		}
	}
	var rows []*sweepRow
	for _, t := range c.threads {
		for _, k := range c.bulks {
			rows = append(rows, &sweepRow{threads: t, k: k})
		}
	}
	for rep := range c.reps {
		for _, r := range rows {
			cmd := exec.CommandContext(ctx, c.cli, sweepArgs(c, graph, fmt.Sprint(r.threads), fmt.Sprint(r.k))...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				return "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, errb.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var res cliResult
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
				return "", fmt.Errorf("%s: the last line is not its JSON summary: %w", strings.Join(cmd.Args, " "), err)
			}
			if r.edges != 0 && res.SampledEdges != r.edges {
				return "", fmt.Errorf("threads=%d k=%d sampled %d edges, before %d", r.threads, r.k, res.SampledEdges, r.edges)
			}
			r.edges, r.isWarm = res.SampledEdges, res.Warm
			r.warm = append(r.warm, res.SEPS)
			r.cold = append(r.cold, res.ColdSEPS)
			r.cpu = append(r.cpu, res.warmCPUSEPS())
			r.rss = append(r.rss, res.PeakRSSBytes)
			fmt.Fprintf(stderr, "samplebench: sweep rep %d threads=%d k=%-4d %.2fM SEPS (cold %.2fM, warm CPU-SEPS %.2fM), peak RSS %d MiB\n",
				rep+1, r.threads, r.k, res.SEPS/1e6, res.ColdSEPS/1e6, res.warmCPUSEPS()/1e6, res.PeakRSSBytes>>20)
		}
	}
	for _, r := range rows[1:] {
		if r.edges != rows[0].edges {
			return "", fmt.Errorf("threads=%d k=%d sampled %d edges, threads=%d k=%d %d", r.threads, r.k, r.edges, rows[0].threads, rows[0].k, rows[0].edges)
		}
	}
	return sweepMarkdown(c, graph, rows), nil
}

func sweepMarkdown(c *config, graph string, rows []*sweepRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Bulk size sweep through the CLI, R-MAT scale %d\n\n", c.scale)
	fmt.Fprintf(&b, "Written by `benchmarks/samplebench --cli` (`make bench`) on %s, %s, %s; load average at the start %s (%d CPUs).\n\n",
		benchutil.Today(), benchutil.CPUModel(), runtime.Version(), c.loadAtStart, runtime.NumCPU())
	seeds := "all vertices"
	if c.seeds > 0 {
		seeds = fmt.Sprintf("the first %d vertices", c.seeds)
	}
	fmt.Fprintf(&b, "Each row is %d runs of the command below (one process each, the rows interleaved), "+
		"seeds: %s of a random permutation, b = %d, fanouts %s. "+
		"SEPS is the CLI's headline: the median of its warm passes over the seeds (`--reps %d`: %d warm after the cold one); "+
		"cold is the first pass, which pays for fresh memory. Peak RSS is the process's (`peak_rss_bytes`, getrusage; "+
		"it includes the graph's mapping). CPU-SEPS divides by the CPU time of the warm passes (all threads), "+
		"which other processes on a shared machine inflate far less than wall time. The table gives medians over the runs; "+
		"\"vs best\" compares with the best k at the same thread count.\n\n",
		c.reps, seeds, c.batch, benchutil.JoinInts(c.fanouts), c.cliPasses, c.cliPasses-1)
	fmt.Fprintf(&b, "```\nbulksample %s\n```\n\n", strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "))
	fmt.Fprintf(&b, "(T and K are the row's threads and k; the graph from `bulksample gen rmat --scale %d --edge-factor %d --seed %d --out %s`)\n\n",
		c.scale, c.edgeFactor, c.seed, filepath.Base(graph))
	fmt.Fprintf(&b, "| threads | k | sampled edges | SEPS (M) | min-max (M) | vs best | cold SEPS (M) | warm CPU-SEPS (M) | peak RSS (MiB) |\n")
	fmt.Fprintf(&b, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	best := map[int]float64{}
	for _, r := range rows {
		best[r.threads] = max(best[r.threads], benchutil.Median(r.warm))
	}
	for _, r := range rows {
		med := benchutil.Median(r.warm)
		rss := make([]float64, len(r.rss))
		for i, x := range r.rss {
			rss[i] = float64(x)
		}
		fmt.Fprintf(&b, "| %d | %d | %d | %.2f | %.2f-%.2f | %.2f | %.2f | %.2f | %.0f |\n", r.threads, r.k, r.edges,
			med/1e6, slices.Min(r.warm)/1e6, slices.Max(r.warm)/1e6, med/best[r.threads],
			benchutil.Median(r.cold)/1e6, benchutil.Median(r.cpu)/1e6, benchutil.Median(rss)/(1<<20))
	}
	if !rows[0].isWarm {
		fmt.Fprintf(&b, "\nThe CLI reported no warm passes (a version without `--reps`): SEPS is the cold pass.\n")
	}
	b.WriteString("\n")
	return b.String()
}
