package main

// The sweep through the command line: SEPS and peak memory for every bulk
// size k and thread count, measured as a user measures them, by running
// `bulksample sample ... --json` (issue 14). The sweep runs --reps rounds;
// each round runs every (threads, k) once as its own process, in an order
// shuffled per round with a fixed seed (sweepOrder), and each process makes
// --cli-passes passes over the seeds: the first is the cold one (fresh
// memory), the median of the others the warm figure the CLI reports as
// "seps". On a shared VM the speed of the machine drifts by more than the
// differences between k (up to 20% between runs of one command), so the
// table compares configurations by ratios taken within a round, where the
// drift reaches both sides, and gives their median and range over the
// rounds (roundRatios).

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
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

// sweepRow is one (threads, k) of the sweep. Its per-run slices are in
// round order: every round runs every row once.
type sweepRow struct {
	threads, k int
	edges      int64
	warm, cold []float64 // SEPS per round
	cpu        []float64 // warm CPU-SEPS per round
	rss        []int64   // peak RSS per round
	isWarm     bool
}

// sweepArgs returns the sample command's arguments for one configuration
// (threads and k as they are to be printed).
func sweepArgs(c *config, graph, threads, k string) []string {
	return []string{"sample", "--graph", graph, "--batch", fmt.Sprint(c.batch),
		"--fanout", benchutil.JoinInts(c.fanouts), "--seeds", fmt.Sprint(c.seeds), "--bulk", k,
		"--threads", threads, "--seed", fmt.Sprint(c.seed), "--reps", fmt.Sprint(c.cliPasses), "--json"}
}

// sweepOrder returns the order in which round r of the sweep runs its n
// configurations: a permutation drawn from a generator seeded by seed and r.
// A drift of the machine's speed (other tenants of the VM, its neighbours'
// load) then reaches the configurations of a round alike and falls on none
// of them by its place in the order, and a re-run repeats the orders.
func sweepOrder(n, round int, seed uint64) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, uint64(round)))
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// runSweep runs the sweep through the CLI c.cli and returns its markdown.
func runSweep(ctx context.Context, c *config, stderr io.Writer) (string, error) {
	graph, cleanup, err := benchutil.GraphOrRMAT(ctx, c.cli, c.graph, c.scale, c.edgeFactor, c.seed)
	if err != nil {
		return "", err
	}
	defer cleanup()
	var rows []*sweepRow
	for _, t := range c.threads {
		for _, k := range c.bulks {
			rows = append(rows, &sweepRow{threads: t, k: k})
		}
	}
	for round := range c.reps {
		for _, i := range sweepOrder(len(rows), round, c.seed) {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			r := rows[i]
			cmd := exec.CommandContext(ctx, c.cli, sweepArgs(c, graph, fmt.Sprint(r.threads), fmt.Sprint(r.k))...)
			res, err := benchutil.RunJSON[cliResult](cmd)
			if err != nil {
				return "", fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
			}
			if r.edges != 0 && res.SampledEdges != r.edges {
				return "", fmt.Errorf("threads=%d k=%d sampled %d edges, before %d", r.threads, r.k, res.SampledEdges, r.edges)
			}
			r.edges, r.isWarm = res.SampledEdges, res.Warm
			r.warm = append(r.warm, res.SEPS)
			r.cold = append(r.cold, res.ColdSEPS)
			r.cpu = append(r.cpu, res.warmCPUSEPS())
			r.rss = append(r.rss, res.PeakRSSBytes)
			fmt.Fprintf(stderr, "samplebench: sweep round %d threads=%d k=%-4d %.2fM SEPS (cold %.2fM, warm CPU-SEPS %.2fM), peak RSS %d MiB\n",
				round+1, r.threads, r.k, res.SEPS/1e6, res.ColdSEPS/1e6, res.warmCPUSEPS()/1e6, res.PeakRSSBytes>>20)
		}
	}
	for _, r := range rows[1:] {
		if r.edges != rows[0].edges {
			return "", fmt.Errorf("threads=%d k=%d sampled %d edges, threads=%d k=%d %d", r.threads, r.k, r.edges, rows[0].threads, rows[0].k, rows[0].edges)
		}
	}
	return sweepMarkdown(c, graph, rows), nil
}

// sweepRatios holds, per row and round, the ratios that compare rows
// within one round, where a slow or fast stretch of the machine reaches
// both sides of the ratio.
type sweepRatios struct {
	// best is, per thread count, the index of its best row: the one whose
	// SEPS, relative to the mean of the thread count's rows in the same
	// round, has the highest median over the rounds. One row is the
	// reference of every round: the best of each round would be the one
	// that noise favoured there, and every other row would look slower
	// than it is.
	best map[int]int
	// vsBest is the row's warm SEPS over its thread count's best row's in
	// the same round.
	vsBest [][]float64
	// eff is the parallel efficiency at the same k, SEPS(T, k) / (T ·
	// SEPS(1, k)); effBest is SEPS(T, k) / (T · SEPS of the 1-thread best
	// row). eff is nil for a row without a 1-thread row of its k, effBest
	// for a sweep without 1 thread.
	eff, effBest [][]float64
}

// roundRatios returns the ratios of rows, whose warm SEPS are per round.
func roundRatios(rows []*sweepRow) sweepRatios {
	rounds := len(rows[0].warm)
	mean := map[int][]float64{} // per thread count, per round: the mean of its rows
	one := map[int]*sweepRow{}  // 1-thread row per k
	for _, r := range rows {
		m := mean[r.threads]
		if m == nil {
			m = make([]float64, rounds)
			mean[r.threads] = m
		}
		for i, x := range r.warm {
			m[i] += x
		}
		if r.threads == 1 {
			one[r.k] = r
		}
	}
	q := sweepRatios{best: map[int]int{}, vsBest: make([][]float64, len(rows)), eff: make([][]float64, len(rows)), effBest: make([][]float64, len(rows))}
	score := make([]float64, len(rows))
	for j, r := range rows {
		rel := make([]float64, rounds)
		for i, x := range r.warm {
			rel[i] = x / mean[r.threads][i] // the row count cancels in the comparison
		}
		score[j] = benchutil.Median(rel)
		if b, ok := q.best[r.threads]; !ok || score[j] > score[b] {
			q.best[r.threads] = j
		}
	}
	for j, r := range rows {
		t := float64(r.threads)
		best := rows[q.best[r.threads]]
		for i, x := range r.warm {
			q.vsBest[j] = append(q.vsBest[j], x/best.warm[i])
			if b1, ok := q.best[1]; ok {
				q.effBest[j] = append(q.effBest[j], x/(t*rows[b1].warm[i]))
			}
			if r1 := one[r.k]; r1 != nil {
				q.eff[j] = append(q.eff[j], x/(t*r1.warm[i]))
			}
		}
	}
	return q
}

// ratioCell writes the median of x and its range, or "-" for none.
func ratioCell(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%.2f-%.2f)", benchutil.Median(x), slices.Min(x), slices.Max(x))
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
	fmt.Fprintf(&b, "The sweep runs in %d rounds; each round runs every row once, as its own process of the command below, "+
		"in an order shuffled per round (fixed seed %d), so that a slow stretch of the machine reaches the rows of a round alike. "+
		"Seeds: %s of a random permutation, b = %d, fanouts %s. "+
		"SEPS is the CLI's headline: the median of its warm passes over the seeds (`--reps %d`: %d warm after the cold one); "+
		"cold is the first pass, which pays for fresh memory. Peak RSS is the process's (`peak_rss_bytes`, getrusage; "+
		"it includes the graph's mapping). CPU-SEPS divides by the CPU time of the warm passes (all threads), "+
		"which other processes on a shared machine inflate far less than wall time. SEPS, cold SEPS, CPU-SEPS and peak RSS "+
		"are medians over the rounds. The ratios are taken within each round, then their median and range (min-max) over the rounds: "+
		"\"vs best k\" is the row's SEPS over the best k's at the same thread count in that round (the best k, marked *, is the one "+
		"whose SEPS relative to the mean of its thread count's rows in a round has the highest median: one k is the reference of every round, "+
		"not the k that noise favoured in each); efficiency is SEPS(T, k) / (T · SEPS(1, k)); \"vs 1-thread best\" is "+
		"SEPS(T, k) / (T · SEPS(1, best k)).\n\n",
		c.reps, c.seed, seeds, c.batch, benchutil.JoinInts(c.fanouts), c.cliPasses, c.cliPasses-1)
	fmt.Fprintf(&b, "```\nbulksample %s\n```\n\n", strings.Join(sweepArgs(c, filepath.Base(graph), "T", "K"), " "))
	fmt.Fprintf(&b, "(T and K are the row's threads and k; the graph from `bulksample gen rmat --scale %d --edge-factor %d --seed %d --out %s`; "+
		"the table from `go run ./benchmarks/samplebench --cli bin/bulksample --graph %s --scale %d --seeds %d --threads %s --bulk %s --reps %d --cli-passes %d`)\n\n",
		c.scale, c.edgeFactor, c.seed, filepath.Base(graph), filepath.Base(graph), c.scale, c.seeds,
		benchutil.JoinInts(c.threads), benchutil.JoinInts(c.bulks), c.reps, c.cliPasses)
	fmt.Fprintf(&b, "| threads | k | sampled edges | SEPS (M) | min-max (M) | vs best k | efficiency | vs 1-thread best | cold SEPS (M) | warm CPU-SEPS (M) | peak RSS (MiB) |\n")
	fmt.Fprintf(&b, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	q := roundRatios(rows)
	for j, r := range rows {
		k := strconv.Itoa(r.k)
		if q.best[r.threads] == j {
			k += "*"
		}
		rss := make([]float64, len(r.rss))
		for i, x := range r.rss {
			rss[i] = float64(x)
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %.2f | %.2f-%.2f | %s | %s | %s | %.2f | %.2f | %.0f |\n", r.threads, k, r.edges,
			benchutil.Median(r.warm)/1e6, slices.Min(r.warm)/1e6, slices.Max(r.warm)/1e6,
			ratioCell(q.vsBest[j]), ratioCell(q.eff[j]), ratioCell(q.effBest[j]),
			benchutil.Median(r.cold)/1e6, benchutil.Median(r.cpu)/1e6, benchutil.Median(rss)/(1<<20))
	}
	if !rows[0].isWarm {
		fmt.Fprintf(&b, "\nThe CLI reported no warm passes (a version without `--reps`): SEPS is the cold pass.\n")
	}
	b.WriteString("\n")
	return b.String()
}
