// Command samplebench measures node-wise sampling throughput in sampled
// edges per second (SEPS, DESIGN.md section 8): the bulk sampler
// (sampling.NodeWise) at several bulk sizes k against the conventional
// per-minibatch sampler (sampling.Baseline), on the same R-MAT graph, seeds
// and thread counts, in one process, and writes a markdown table to --out
// (benchmarks/results/sampling.md, as `make bench` runs it).
//
// Usage:
//
//	go run ./benchmarks/samplebench [--scale 20] [--threads 1,2] [--bulk 1,4,16,64,256]
//
// The workload is issue 4's: Graph500 R-MAT (edge factor 16, symmetrised),
// minibatches of --batch seeds taken from a random permutation of all
// vertices (the first --seeds of it), fanouts --fanout, no replacement,
// uniform. Each configuration samples all seeds --reps times; the table
// gives the median SEPS, its range, the ratio to the baseline at the same
// thread count, and the peak resident memory of the process during that
// configuration (VmHWM, reset before each one where the kernel allows).
// All configurations of one thread count are checked to produce the same
// digest, so the figures compare equal work.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

func main() { benchutil.Main(run) }

// config is the parsed command line.
type config struct {
	scale, edgeFactor int
	threads, bulks    []int
	fanouts           []int
	batch, seeds      int
	reps              int
	seed              uint64
	baseline          bool
	out, cpuProfile   string
	appendOut         bool
	loadAtStart       string // the 1-minute load average when the run began
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("samplebench", "go run ./benchmarks/samplebench",
		"Times bulk node-wise sampling against the per-minibatch baseline on an R-MAT\n"+
			"graph and writes a markdown table of SEPS to --out and standard output.", stderr)
	c := &config{}
	fs.IntVar(&c.scale, "scale", 20, "R-MAT scale: the graph has 2^scale vertices")
	fs.IntVar(&c.edgeFactor, "edge-factor", 16, "R-MAT edges per vertex before symmetrisation")
	threads := fs.String("threads", "1,2", "comma-separated thread counts")
	bulks := fs.String("bulk", "1,4,16,64,256", "comma-separated bulk sizes k of the bulk sampler")
	fanout := fs.String("fanout", "15,10,5", "comma-separated fanouts, seeds' layer first")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch b")
	fs.IntVar(&c.seeds, "seeds", 65536, "number of seeds sampled per repetition")
	fs.IntVar(&c.reps, "reps", 3, "timed repetitions per configuration; the table reports the median")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graph, the seed permutation and the sampler")
	fs.BoolVar(&c.baseline, "baseline", true, "also time the per-minibatch baseline")
	fs.StringVar(&c.out, "out", "benchmarks/results/sampling.md", "file to write the table to; empty for none")
	fs.BoolVar(&c.appendOut, "append", false, "append this run's section to --out instead of replacing the file")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed runs to this file")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) {
		return nil, benchutil.UsageError(fs, format, a...)
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.threads, err = benchutil.ParseInts(*threads, 1); err != nil {
		return bad("--threads: %v", err)
	}
	if c.bulks, err = benchutil.ParseInts(*bulks, 1); err != nil {
		return bad("--bulk: %v", err)
	}
	if c.fanouts, err = benchutil.ParseInts(*fanout, -1); err != nil || slices.Contains(c.fanouts, 0) {
		return bad("--fanout %q: want positive integers or -1", *fanout)
	}
	switch {
	case c.scale < 1 || c.scale > 30:
		return bad("--scale %d outside [1, 30]", c.scale)
	case c.edgeFactor < 1:
		return bad("--edge-factor %d, want >= 1", c.edgeFactor)
	case c.batch < 1:
		return bad("--batch %d, want >= 1", c.batch)
	case c.seeds < 1:
		return bad("--seeds %d, want >= 1", c.seeds)
	case c.reps < 1:
		return bad("--reps %d, want >= 1", c.reps)
	}
	return c, nil
}

// row is one line of the table.
type row struct {
	sampler      string
	threads, k   int
	seps         []float64 // per repetition
	cpuSEPS      []float64 // sampled edges per CPU-second of the process, per repetition
	edges        int64
	peakRSS      int64           // bytes, -1 when unknown
	costs        []procstat.Cost // per repetition
	digest       string
	baselineSEPS float64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	c.loadAtStart = "unknown"
	if avg, ok := benchutil.LoadAverages(); ok {
		c.loadAtStart = avg[0]
	}
	rows, gen, a, err := bench(ctx, c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "samplebench: %v\n", err)
		return 1
	}
	rep := benchutil.Report{Program: "samplebench", Path: c.out, Append: c.appendOut, Text: markdown(c, rows, gen, a)}
	if err := rep.Write(stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "samplebench: %v\n", err)
		return 1
	}
	for _, r := range rows {
		if r.digest != rows[0].digest {
			fmt.Fprintf(stderr, "samplebench: %s k=%d threads=%d sampled differently (digest %s, want %s)\n",
				r.sampler, r.k, r.threads, r.digest[:16], rows[0].digest[:16])
			return 1
		}
	}
	return 0
}

func bench(ctx context.Context, c *config, stderr io.Writer) ([]row, time.Duration, *spgemm.CSR, error) {
	t0 := time.Now()
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: c.scale, EdgeFactor: c.edgeFactor, Seed: c.seed})
	if err != nil {
		return nil, 0, nil, err
	}
	gen := time.Since(t0)
	fmt.Fprintf(stderr, "samplebench: R-MAT scale %d: %d vertices, %d edges (%.1fs)\n", c.scale, a.Rows, a.NNZ(), gen.Seconds())
	all := make([]int32, a.Rows)
	for i := range all {
		all[i] = int32(i)
	}
	plan, err := sampling.NewPlan(all, sampling.PlanOptions{BatchSize: c.batch, Seed: c.seed})
	if err != nil {
		return nil, 0, nil, err
	}
	ep := plan.Epoch(0)
	nmb := min((c.seeds+c.batch-1)/c.batch, len(ep.Minibatches))
	mbs := ep.Minibatches[:nmb]
	if last := c.seeds - (nmb-1)*c.batch; last < len(mbs[nmb-1]) {
		mbs[nmb-1] = mbs[nmb-1][:last]
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, 0, nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var rows []row
	for _, t := range c.threads {
		opt := sampling.NodeWiseOptions{Fanouts: c.fanouts, Seed: c.seed, Threads: t}
		type cfg struct {
			name string
			k    int
			mk   func() (sampling.Sampler, error)
		}
		var cfgs []cfg
		if c.baseline {
			cfgs = append(cfgs, cfg{"baseline", 1, func() (sampling.Sampler, error) { return sampling.NewBaseline(a, opt) }})
		}
		for _, k := range c.bulks {
			cfgs = append(cfgs, cfg{"bulk", k, func() (sampling.Sampler, error) { return sampling.NewNodeWise(a, opt) }})
		}
		var baseSEPS float64
		for _, cf := range cfgs {
			s, err := cf.mk()
			if err != nil {
				return nil, 0, nil, err
			}
			r := row{sampler: cf.name, threads: t, k: cf.k}
			// The baseline samples one minibatch at a time; with t threads it
			// takes t minibatches per call so that each thread has one.
			k := cf.k
			if cf.name == "baseline" {
				k, r.k = t, 1
			}
			// An untimed pass computes the digest and fills the sampler's
			// worker pools; timed passes do not hash their output.
			if r.edges, r.digest, err = sampleAll(ctx, s, mbs, k, true); err != nil {
				return nil, 0, nil, err
			}
			procstat.ResetPeakRSS()
			for rep := range c.reps {
				runtime.GC()
				var m procstat.Meter
				m.Begin()
				cpu0 := benchutil.CPUSeconds()
				start := time.Now()
				edges, _, err := sampleAll(ctx, s, mbs, k, false)
				if err != nil {
					return nil, 0, nil, err
				}
				sec := time.Since(start).Seconds()
				r.costs = append(r.costs, m.End("sample"))
				r.seps = append(r.seps, float64(edges)/sec)
				r.cpuSEPS = append(r.cpuSEPS, float64(edges)/(benchutil.CPUSeconds()-cpu0))
				fmt.Fprintf(stderr, "samplebench: %-8s threads=%d k=%-3d rep %d: %d edges in %.2fs, %.2fM SEPS\n",
					cf.name, t, r.k, rep+1, edges, sec, float64(edges)/sec/1e6)
			}
			r.peakRSS = procstat.PeakRSS()
			if cf.name == "baseline" {
				baseSEPS = benchutil.Median(r.seps)
			}
			r.baselineSEPS = baseSEPS
			rows = append(rows, r)
		}
	}
	return rows, gen, a, nil
}

// sampleAll samples the minibatches in bulks of k and returns the sampled
// edges and, when digest is set, the digest of all minibatches.
func sampleAll(ctx context.Context, s sampling.Sampler, mbs [][]int32, k int, digest bool) (int64, string, error) {
	d := sampling.NewDigest()
	var edges int64
	for lo := 0; lo < len(mbs); lo += k {
		b, err := s.SampleBulk(ctx, 0, lo, mbs[lo:min(lo+k, len(mbs))])
		if err != nil {
			return 0, "", err
		}
		edges += b.SampledEdges()
		if digest {
			d.AddBulk(b)
		}
		b.Release()
	}
	return edges, d.Sum(), nil
}

func markdown(c *config, rows []row, gen time.Duration, a *spgemm.CSR) string {
	var b strings.Builder
	if !c.appendOut {
		fmt.Fprintf(&b, "# Node-wise sampling throughput\n\n")
		fmt.Fprintf(&b, "`make bench` writes the scale-%d section; a larger scale is appended with\n"+
			"`go run ./benchmarks/samplebench --scale 22 --append`.\n\n", c.scale)
	}
	fmt.Fprintf(&b, "## R-MAT scale %d\n\n", c.scale)
	fmt.Fprintf(&b, "Written by `benchmarks/samplebench` (`make bench`) on %s, GOMAXPROCS %d, %s.\n\n",
		benchutil.Today(), runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Fprintf(&b, "Graph: R-MAT scale %d, edge factor %d, symmetrised: %d vertices, %d edges (generated in %.1fs).\n",
		c.scale, c.edgeFactor, a.Rows, a.NNZ(), gen.Seconds())
	fmt.Fprintf(&b, "Workload: %d seeds from a random permutation of all vertices, b = %d, fanouts %v, "+
		"uniform, without replacement, FrontierAll; %d repetitions per row (median, min-max).\n\n",
		c.seeds, c.batch, c.fanouts, c.reps)
	fmt.Fprintf(&b, "SEPS is wall-clock; CPU-SEPS divides by the process's CPU time (all threads), which\n"+
		"other processes on a shared machine do not inflate. Load average at the start: %s (the machine has %d CPUs).\n\n", c.loadAtStart, runtime.NumCPU())
	fmt.Fprint(&b, benchutil.CostLegend+"\n")
	fmt.Fprintf(&b, "| sampler | threads | k | sampled edges | SEPS (M) | min-max (M) | vs baseline | CPU-SEPS (M) | peak RSS (MiB) |%s\n", benchutil.CostColumns)
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|%s\n", benchutil.CostRule)
	for _, r := range rows {
		med := benchutil.Median(r.seps)
		ratio := "-"
		if r.baselineSEPS > 0 {
			ratio = fmt.Sprintf("%.2fx", med/r.baselineSEPS)
		}
		rss := "-"
		if r.peakRSS >= 0 {
			rss = fmt.Sprintf("%d", r.peakRSS>>20)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.2f | %.2f-%.2f | %s | %.2f | %s |%s\n", r.sampler, r.threads, r.k, r.edges,
			med/1e6, slices.Min(r.seps)/1e6, slices.Max(r.seps)/1e6, ratio, benchutil.Median(r.cpuSEPS)/1e6, rss,
			benchutil.CostCells(benchutil.MedianCost(r.costs)))
	}
	fmt.Fprintf(&b, "\nAll rows produced the same samples (digest %s).\n\n", rows[0].digest[:16])
	return b.String()
}
