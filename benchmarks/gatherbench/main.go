package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

func main() { benchutil.Main(run) }

// config is the parsed command line.
type config struct {
	scale, features, batch, minibatches, reps int
	density                                   float64
	fanouts, threads                          []int
	seed                                      uint64
	out                                       string
	appendOut, json                           bool
	pin                                       bool // each T in its own process on T CPUs
	// flags is the parsed command line, whose set flags --pin passes on
	// to the process of each thread count (childArgs).
	flags *flag.FlagSet
}

// parentFlags are the flags that the parent of --pin's processes handles
// itself: every other flag the user set is passed on to them as it is.
func parentFlags() []string { return []string{"pin", "threads", "out", "append", "json"} }

// childArgs returns the arguments of --pin's process for t threads: the
// flags the user set but parentFlags, then --threads t, no markdown file,
// and the JSON summary, which the parent reads.
func childArgs(c *config, t int) []string {
	return append(benchutil.ForwardFlags(c.flags, parentFlags()...), "--threads", strconv.Itoa(t), "--out", "", "--json")
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("gatherbench", "go run ./benchmarks/gatherbench",
		"Times featurex's local gather (dense Gather and sparse GatherCSR) of the input rows of\n"+
			"sampled minibatches at several thread counts and writes a markdown section to --out.", stderr)
	c := &config{flags: fs}
	fs.IntVar(&c.scale, "scale", 20, "R-MAT scale: 2^scale vertices")
	fs.IntVar(&c.features, "features", 128, "features per vertex, f")
	fs.Float64Var(&c.density, "density", 0.05, "fraction of nonzero values of the sparse features")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch")
	fanouts := fs.String("fanouts", "15,10,5", "node-wise fanouts, seeds' layer first")
	fs.IntVar(&c.minibatches, "minibatches", 4, "minibatches whose input rows each repetition gathers")
	threads := fs.String("threads", "1,2", "thread counts (featurex.LocalOptions.Threads) to measure; 1 is added if missing")
	fs.IntVar(&c.reps, "reps", 5, "timed repetitions; the table reports medians")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graph, the features, the plan and the sampler")
	fs.StringVar(&c.out, "out", "benchmarks/results/gather.md", "file to write the markdown section to; empty for none")
	fs.BoolVar(&c.appendOut, "append", false, "append the section to --out instead of replacing the file")
	fs.BoolVar(&c.json, "json", false, "print the figures as one JSON object on the last line of standard output")
	fs.BoolVar(&c.pin, "pin", false, "measure each thread count T in its own process (this program again) under taskset on T CPUs,\n"+
		"one per physical core first; each also times 1 thread for its speedup (fails unless the machine has max(--threads) CPUs)")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) { return nil, benchutil.UsageError(fs, format, a...) }
	var err error
	if c.fanouts, err = benchutil.ParseInts(*fanouts, 1); err != nil {
		return bad("--fanouts: %v", err)
	}
	if c.threads, err = benchutil.ParseInts(*threads, 1); err != nil {
		return bad("--threads: %v", err)
	}
	if c.threads[0] != 1 {
		c.threads = append([]int{1}, c.threads...)
	}
	switch {
	case c.scale < 1 || c.scale > 26:
		return bad("--scale %d outside [1, 26]", c.scale)
	case c.features < 1:
		return bad("--features %d, want > 0", c.features)
	case !(c.density > 0 && c.density <= 1):
		return bad("--density %v outside (0, 1]", c.density)
	case c.batch < 1:
		return bad("--batch %d, want > 0", c.batch)
	case c.minibatches < 1:
		return bad("--minibatches %d, want > 0", c.minibatches)
	case c.reps < 1:
		return bad("--reps %d, want > 0", c.reps)
	}
	return c, nil
}

// row is the measurement of one store at one thread count.
type row struct {
	Kind    string  `json:"kind"` // dense or sparse
	Threads int     `json:"threads"`
	Rows    int64   `json:"rows"`  // per repetition
	Bytes   int64   `json:"bytes"` // written per repetition
	Seconds float64 `json:"seconds"`
	RowsPS  float64 `json:"rows_per_second"`
	GBPS    float64 `json:"gb_per_second"`
	Speedup float64 `json:"speedup"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	load := benchutil.LoadAveragesText()
	var rows []row
	var ids int64
	var pin *benchutil.Pinner // nil: measured in this process
	if c.pin {
		rows, ids, pin, err = measurePinned(ctx, c, stderr)
	} else {
		rows, ids, err = measure(ctx, c, stderr)
	}
	if err != nil {
		return benchutil.Fail(stderr, "gatherbench", err)
	}
	rep := benchutil.Report{Program: "gatherbench", Path: c.out, Append: c.appendOut, Text: markdown(c, rows, ids, load, pin)}
	if c.json {
		rep.Summary = summary{c.scale, c.features, rows}
	}
	if err := rep.Write(stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "gatherbench", err)
	}
	return 0
}

// summary is the --json object.
type summary struct {
	Scale    int   `json:"scale"`
	Features int   `json:"features"`
	Rows     []row `json:"rows"`
}

// measurePinned measures each thread count T of c in its own process: this
// program again, with --threads T and --json, under taskset on T CPUs. It
// returns the rows of T from each process (dense first, as measure orders
// them), the number of rows one repetition gathers, and the Pinner.
func measurePinned(ctx context.Context, c *config, progress io.Writer) ([]row, int64, *benchutil.Pinner, error) {
	pin, err := benchutil.NewPinner(slices.Max(c.threads))
	if err != nil {
		return nil, 0, nil, fmt.Errorf("--pin: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("--pin: this program's path, to run it per thread count: %w", err)
	}
	var dense, sparse []row
	var ids int64
	for _, t := range c.threads {
		cmd := pin.Command(ctx, t, self, childArgs(c, t)...)
		fmt.Fprintf(progress, "gatherbench: T = %d on CPUs %s\n", t, pin.CPUList(t))
		res, err := benchutil.RunJSON[summary](cmd)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("threads %d: %s: %w", t, strings.Join(cmd.Args, " "), err)
		}
		n := 0
		for _, r := range res.Rows {
			switch {
			case r.Threads != t:
			case r.Kind == "dense":
				dense, n = append(dense, r), n+1
			case r.Kind == "sparse":
				sparse, n = append(sparse, r), n+1
			}
			ids = r.Rows
		}
		if n != 2 {
			return nil, 0, nil, fmt.Errorf("threads %d: %s: %d rows of %d threads in its summary, want dense and sparse", t, strings.Join(cmd.Args, " "), n, t)
		}
	}
	return append(dense, sparse...), ids, pin, nil
}

// measure samples the minibatches and times the gathers; it returns the
// rows of the table and the number of rows one repetition gathers.
func measure(ctx context.Context, c *config, progress io.Writer) ([]row, int64, error) {
	t0 := time.Now()
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: c.scale, Seed: c.seed})
	if err != nil {
		return nil, 0, fmt.Errorf("generate R-MAT scale %d: %w", c.scale, err)
	}
	all := make([]int32, a.Rows)
	for v := range all {
		all[v] = int32(v)
	}
	plan, err := sampling.NewPlan(all, sampling.PlanOptions{BatchSize: c.batch, Seed: c.seed})
	if err != nil {
		return nil, 0, err
	}
	ep := plan.Epoch(0)
	if len(ep.Minibatches) < c.minibatches {
		return nil, 0, fmt.Errorf("--minibatches %d: the graph has %d minibatches of %d", c.minibatches, len(ep.Minibatches), c.batch)
	}
	s, err := sampling.NewSampler(a, sampling.SamplerOptions{Fanouts: c.fanouts, Seed: c.seed})
	if err != nil {
		return nil, 0, err
	}
	bulk, err := s.SampleBulk(ctx, 0, 0, ep.Minibatches[:c.minibatches])
	if err != nil {
		return nil, 0, err
	}
	var inputs [][]int32
	var total int64
	maxIDs := 0
	for m := range bulk.Len() {
		mb := bulk.Minibatch(m)
		inputs = append(inputs, mb.InputNodes())
		total += int64(len(mb.InputNodes()))
		maxIDs = max(maxIDs, len(mb.InputNodes()))
	}
	f := c.features
	dense, sparse := makeFeatures(a.Rows, f, c.density, c.seed)
	fmt.Fprintf(progress, "gatherbench: R-MAT scale %d, %d minibatches with %d input rows in all, f = %d (%.1fs)\n",
		c.scale, c.minibatches, total, f, time.Since(t0).Seconds())

	type store struct {
		kind    string
		threads int
		local   *featurex.Local
	}
	var stores []store
	for _, kind := range []string{"dense", "sparse"} {
		for _, t := range c.threads {
			x, mode := dense, featurex.SparseNever
			if kind == "sparse" {
				x, mode = sparse, featurex.SparseAlways
			}
			l, err := featurex.NewLocal(x, f, featurex.LocalOptions{Threads: t, Sparse: mode})
			if err != nil {
				return nil, 0, err
			}
			stores = append(stores, store{kind, t, l})
		}
	}
	// Destinations sized once and touched by an untimed gather, so that
	// the timed ones write to warm memory, as a trainer's reused buffers.
	dst := make([]float32, maxIDs*f)
	var csr spgemm.CSR
	times := make([][]float64, len(stores))
	bytes := make([]int64, len(stores))
	for rep := -1; rep < c.reps; rep++ {
		for i := range stores {
			j := (i + max(rep, 0)) % len(stores) // rotate who goes first
			st := stores[j]
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			var written int64
			start := time.Now()
			for _, ids := range inputs {
				if st.kind == "dense" {
					if err := st.local.Gather(ctx, dst[:len(ids)*f], ids); err != nil {
						return nil, 0, err
					}
					written += int64(len(ids)) * int64(f) * 4
				} else {
					if err := st.local.GatherCSR(ctx, &csr, ids); err != nil {
						return nil, 0, err
					}
					written += 8*csr.NNZ() + 8*int64(len(ids)+1)
				}
			}
			sec := time.Since(start).Seconds()
			if rep >= 0 {
				times[j] = append(times[j], sec)
				bytes[j] = written
			}
		}
		if rep >= 0 {
			fmt.Fprintf(progress, "gatherbench: repetition %d/%d done\n", rep+1, c.reps)
		}
	}
	var out []row
	base := map[string]float64{}
	for i, st := range stores {
		sec := stats.Median(times[i])
		r := row{Kind: st.kind, Threads: st.threads, Rows: total, Bytes: bytes[i], Seconds: sec,
			RowsPS: float64(total) / sec, GBPS: float64(bytes[i]) / sec / 1e9}
		if st.threads == 1 {
			base[st.kind] = sec
		}
		r.Speedup = base[st.kind] / sec
		out = append(out, r)
	}
	return out, total, nil
}

// makeFeatures returns n x f dense features uniform in [-1, 1) and a sparse
// array keeping each of them with probability density.
func makeFeatures(n, f int, density float64, seed uint64) (dense, sparse []float32) {
	dense = make([]float32, n*f)
	sparse = make([]float32, n*f)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for i := range dense {
		dense[i] = 2*rng.Float32() - 1
		if rng.Float64() < density {
			sparse[i] = dense[i]
		}
	}
	return dense, sparse
}

func markdown(c *config, rows []row, ids int64, load string, pin *benchutil.Pinner) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Feature gathering (featurex.Local), R-MAT scale %d, f = %d\n\n", c.scale, c.features)
	fmt.Fprintf(&b, "Written by `benchmarks/gatherbench` on %s, %s, %s, %d CPUs; load average at the start %s.\n\n",
		benchutil.Today(), benchutil.CPUModel(), runtime.Version(), runtime.NumCPU(), load)
	fmt.Fprintf(&b, "Each repetition gathers the input rows (the sources of the last block) of %d node-wise minibatches "+
		"(b = %d, fanouts %s; %d rows in all) from a local store with `LocalOptions.Threads` = T: dense rows into a dense block "+
		"(`Gather`, f·4 bytes a row) and, for features with %.0f%% nonzeros, rows of the store's CSR copy into a CSR matrix "+
		"(`GatherCSR`, 8 bytes an entry and a row). Destinations are reused across repetitions (warm memory); "+
		"the thread counts are interleaved; medians of %d repetitions. Efficiency is speedup / T.\n\n",
		c.minibatches, c.batch, benchutil.JoinInts(c.fanouts), ids, 100*c.density, c.reps)
	if pin != nil {
		fmt.Fprintf(&b, "%s Each T ran in its own process (this program again, `--threads T`), which also timed the 1-thread gather, "+
			"interleaved with T's: the speedup is against that 1-thread figure of the same process; the ms of T = 1 is its own process's.\n\n",
			pin.Describe(c.threads))
	}
	b.WriteString("| store | T | ms / repetition | M rows/s | GB/s | speedup | efficiency |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.1f | %.2f | %.2f | %.2f |\n",
			r.Kind, r.Threads, 1e3*r.Seconds, r.RowsPS/1e6, r.GBPS, r.Speedup, r.Speedup/float64(r.Threads))
	}
	fmt.Fprintf(&b, "\nCommand: `go run ./benchmarks/gatherbench --scale %d --features %d --density %g --batch %d --fanouts %s --minibatches %d --threads %s --reps %d%s`\n",
		c.scale, c.features, c.density, c.batch, benchutil.JoinInts(c.fanouts), c.minibatches, benchutil.JoinInts(c.threads), c.reps, pin.Flag())
	return b.String()
}
