package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dist/mpitest"
	"github.com/bulksample/bulksample/internal/cliout"
)

func main() { benchutil.Main(run) }

type config struct {
	bulksample, mpirun string
	scale, np, k, reps int
	squareScale        int
	reps15             []int
	out                string
	args               []string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := benchutil.NewFlags("summabench", "go run ./benchmarks/summabench --bulksample PATH",
		"Runs `bulksample spgemm --select-rows K` under mpirun with --grid 2d (Sparse SUMMA) and --grid 1.5d\n"+
			"(rows pulled from their owners) and appends the bytes and times to the report.", stderr)
	c := &config{args: args}
	fs.StringVar(&c.bulksample, "bulksample", "", "bulksample binary built with the mpi tag (make build); required")
	fs.StringVar(&c.mpirun, "mpirun", "mpirun", "the MPI launcher")
	fs.IntVar(&c.scale, "scale", 18, "R-MAT scale (log2 vertices)")
	fs.IntVar(&c.np, "np", 4, "ranks p (a perfect square, for the 2d grid)")
	fs.IntVar(&c.k, "select-rows", 32768, "rows k of the selection Q")
	fs.IntVar(&c.reps, "reps", 5, "products per run (best and median reported)")
	fs.IntVar(&c.squareScale, "square-scale", 14, "R-MAT scale of the general product A·A (2d and 1.5d at c = 1); 0 for none")
	reps := fs.String("replication", "1,2,4", "replication factors c of the 1.5d runs (each must divide --np)")
	fs.StringVar(&c.out, "out", "benchmarks/results/dist.md", "markdown report, appended to")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return benchutil.ExitCode(err)
	}
	var err error
	if c.reps15, err = benchutil.ParseInts(*reps, 1); err != nil {
		return benchutil.ExitCode(benchutil.UsageError(fs, "--replication: %v", err))
	}
	if c.bulksample == "" {
		return benchutil.ExitCode(benchutil.UsageError(fs, "--bulksample is required"))
	}
	if err := bench(ctx, c, stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "summabench", err)
	}
	return 0
}

// summary is what summabench reads of `bulksample spgemm --json`.
type summary struct {
	ANNZ       int64                     `json:"a_nnz"`
	BRows      int                       `json:"b_rows"`
	BNNZ       int64                     `json:"b_nnz"`
	NNZOut     int64                     `json:"nnz_out"`
	Digest     string                    `json:"digest"`
	Seconds    float64                   `json:"seconds"` // the median of the warm products
	BestSecs   float64                   `json:"seconds_best"`
	PeakRSS    int64                     `json:"peak_rss_bytes"`
	PeakRSSMax int64                     `json:"peak_rss_max"`
	Traffic    map[string]cliout.Traffic `json:"traffic"`
}

// times returns the best and the median (warm) product time.
func (s *summary) times() (best, median float64) { return s.BestSecs, s.Seconds }

type result struct {
	grid string
	c    int
	s    *summary
}

func bench(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "summabench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	load, _ := benchutil.LoadAverages()
	qa := []result{{grid: "2d", c: 1}}
	for _, rc := range c.reps15 {
		qa = append(qa, result{grid: "1.5d", c: rc})
	}
	one, err := compare(ctx, c, tmp, c.scale, []string{"--select-rows", strconv.Itoa(c.k)}, qa, stderr)
	if err != nil {
		return err
	}
	text := report(c, one, qa, load)
	if c.squareScale > 0 {
		aa := []result{{grid: "2d", c: 1}, {grid: "1.5d", c: 1}}
		oneAA, err := compare(ctx, c, tmp, c.squareScale, nil, aa, stderr)
		if err != nil {
			return err
		}
		text += reportSquare(c, oneAA, aa)
	}
	return benchutil.Report{Program: "summabench", Path: c.out, Append: true, Text: text}.Write(stdout, stderr)
}

// compare generates R-MAT scale, runs `bulksample spgemm --a graph extra...`
// in one process and under mpirun for each of runs (filling their
// summaries), and returns the single process's summary.
func compare(ctx context.Context, c *config, tmp string, scale int, extra []string, runs []result, stderr io.Writer) (*summary, error) {
	graph := filepath.Join(tmp, fmt.Sprintf("rmat%d.bsg", scale))
	if out, err := exec.CommandContext(ctx, c.bulksample, "gen", "rmat", "--scale", strconv.Itoa(scale), "--out", graph).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("gen: %v\n%s", err, out)
	}
	common := append([]string{"--a", graph, "--reps", strconv.Itoa(c.reps), "--threads", "1", "--digest", "--json"}, extra...)
	one, err := benchutil.RunJSON[summary](exec.CommandContext(ctx, c.bulksample, append([]string{"spgemm"}, common...)...))
	if err != nil {
		return nil, fmt.Errorf("one process: %w", err)
	}
	for i := range runs {
		r := &runs[i]
		args := append(slices.Clone(common), "--grid", r.grid)
		if r.grid == "1.5d" {
			args = append(args, "--replication", strconv.Itoa(r.c))
		}
		start := time.Now()
		if r.s, err = benchutil.RunJSON[summary](mpitest.Command(ctx, c.mpirun, c.np, c.bulksample, append([]string{"spgemm"}, args...)...)); err != nil {
			return nil, fmt.Errorf("mpirun -np %d %v: %w", c.np, args, err)
		}
		best, _ := r.s.times()
		fmt.Fprintf(stderr, "summabench: scale %d %v --grid %s c=%d: %d bytes, best %.4fs (%.1fs wall)\n", scale, extra, r.grid, r.c, r.s.Traffic["sample"].BytesSent, best, time.Since(start).Seconds())
	}
	return one, nil
}

func report(c *config, one *summary, runs []result, load [3]string) string {
	var b strings.Builder
	mc := benchutil.ThisMachine(1)
	fmt.Fprintf(&b, "\n## Q·A: Sparse SUMMA (2D) against the 1.5D pull (summabench)\n\n")
	fmt.Fprintf(&b, "Q selects k = %d random rows of A, R-MAT scale %d (%d vertices, %d stored edges); C = Q·A has %d entries. "+
		"p = %d ranks under `mpirun --oversubscribe`, 1 thread per rank, %d products per run. %s, %d logical CPUs, %s, %s; load average at start %s %s %s.\n\n",
		c.k, c.scale, one.BRows, one.BNNZ, one.NNZOut, c.np, c.reps, mc.CPU, mc.Cores, mc.Go, mc.Date, load[0], load[1], load[2])
	fmt.Fprintf(&b, "Command: `summabench %s` (`make bench` runs it after distbench).\n\n", strings.Join(c.args, " "))
	best, median := one.times()
	b.WriteString("Bytes and messages are those of one product (dist.PhaseSample), summed over ranks and of the busiest rank. " +
		"Times are per product on the slowest rank (best and median); the single process takes " +
		fmt.Sprintf("%.4f s (best; median %.4f s) for the same product, A read whole.\n\n", best, median))
	table(&b, one, runs)
	b.WriteString("\nSUMMA moves every block of A to the sqrt(p) - 1 other ranks of its process column whatever Q selects " +
		"(about (sqrt(p) - 1)·nnz(A)·8 bytes, plus Q's blocks along the rows); the 1.5D pull moves only the rows that Q's rows use, " +
		"from the (p/c) - 1 other blocks of the rank's column, and nothing at c = p. SUMMA is for the general products (A·A, " +
		"custom samplers' products), not for selections.\n")
	return b.String()
}

// table writes the rows of runs against the single process one.
func table(b *strings.Builder, one *summary, runs []result) {
	b.WriteString("| grid | c | bytes (all ranks) | bytes (max rank) | messages | best s | median s | median / 1 process | peak RSS (max rank) | digest |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range runs {
		tr := r.s.Traffic["sample"]
		ok := "= 1 process"
		if r.s.Digest != one.Digest || r.s.NNZOut != one.NNZOut {
			ok = "DIFFERS"
		}
		best, median := r.s.times()
		ratio := "–"
		if _, m := one.times(); m > 0 {
			ratio = fmt.Sprintf("%.2f", median/m)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %.4f | %.4f | %s | %d MiB | %s |\n",
			r.grid, r.c, tr.BytesSent, tr.BytesSentMax, tr.Messages, best, median, ratio, r.s.PeakRSSMax>>20, ok)
	}
}

// reportSquare is the paragraph and table of the general product A·A.
func reportSquare(c *config, one *summary, runs []result) string {
	var b strings.Builder
	best, median := one.times()
	fmt.Fprintf(&b, "\nThe general product A·A, R-MAT scale %d (%d vertices, %d stored edges, C has %d entries), same ranks and settings; "+
		"the single process takes %.4f s (best; median %.4f s):\n\n", c.squareScale, one.BRows, one.BNNZ, one.NNZOut, best, median)
	table(&b, one, runs)
	b.WriteString("\nHere every row of A is used: the 1.5D pull brings in nearly all of A's remote rows to every rank " +
		"(about (1 - 1/p)·nnz(A)·8 bytes per rank), SUMMA sqrt(p) - 1 blocks of A and of B per rank.\n")
	return b.String()
}
