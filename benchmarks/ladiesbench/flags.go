package main

import (
	"io"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// config is the parsed command line.
type config struct {
	scale       int
	batch       int
	budgets     []int
	fanouts     []int
	bulks       []int
	methods     []string // layer-wise methods: "ladies", "fastgcn"
	minibatches int
	reps        int
	semibulk    int
	threads     int
	seed        uint64
	out         string
	cpuProfile  string
	json        bool
	// The sweep through the CLI (sweep.go).
	cli          string
	graph        string
	seeds        int
	cliPasses    int
	sweepThreads []int
	ladiesMatrix string
	pin          bool // run each process of T threads on T cores
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("ladiesbench", "go run ./benchmarks/ladiesbench",
		"Times bulk LADIES (and FastGCN) sampling against bulk node-wise sampling of the\n"+
			"same minibatches on an R-MAT graph and writes a markdown section to --out and\n"+
			"standard output.", stderr)
	cfg := &config{}
	fs.IntVar(&cfg.scale, "scale", 20, "R-MAT scale: the graph has 2^scale vertices and about 16·2^scale undirected edges")
	fs.IntVar(&cfg.batch, "batch", 512, "seeds per minibatch, b")
	budgets := fs.String("budgets", "512,512", "layer-wise columns per minibatch per layer, seeds' layer first")
	fanouts := fs.String("fanouts", "15,10", "node-wise fanouts of the comparison, seeds' layer first")
	bulks := fs.String("bulks", "1,16,64", "bulk sizes k to measure")
	methods := fs.String("methods", "ladies", "layer-wise methods to measure: ladies, fastgcn or both")
	fs.IntVar(&cfg.minibatches, "minibatches", 64, "minibatches sampled per timed run (at least k)")
	fs.IntVar(&cfg.reps, "reps", 3, "timed runs per method and bulk size; the table reports the median (--cli: rounds, each running every (threads, k) once)")
	fs.IntVar(&cfg.semibulk, "semibulk", 0, "minibatches per layer-wise extraction chunk (0: the library default)")
	fs.IntVar(&cfg.threads, "threads", 0, "sampler goroutines (0: GOMAXPROCS)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the graph, the plan and the samplers")
	fs.StringVar(&cfg.out, "out", "benchmarks/results/sampling-layerwise.md", "file to write the markdown section to; empty for none")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed runs to this file")
	fs.StringVar(&cfg.cli, "cli", "", "a bulksample binary: sweep --bulks and --sweep-threads through `bulksample sample --method M --json`\n"+
		"(M the first of --methods), one process per run, instead of timing the library in this process")
	fs.StringVar(&cfg.graph, "graph", "", "--cli: the graph file to sample (default: `bulksample gen rmat --scale S --seed SEED` into a temporary file)")
	fs.IntVar(&cfg.seeds, "seeds", 131072, "--cli: seeds sampled per pass (the first of a random permutation of all vertices)")
	fs.IntVar(&cfg.cliPasses, "cli-passes", 4, "--cli: passes over the seeds per process (--reps of the CLI): one cold, the rest warm")
	sweepThreads := fs.String("sweep-threads", "1,2", "--cli: thread counts of the sweep (1,2,4,8,16 on a 16-core machine)")
	fs.StringVar(&cfg.ladiesMatrix, "ladies-matrix", "normalized", "--cli, ladies: the CLI's --ladies-matrix, normalized or raw")
	fs.BoolVar(&cfg.pin, "pin", false, "--cli: run each process of T threads under taskset on T CPUs, one per physical core first\n"+
		"(the 16-core scaling table; fails unless the machine has max(--sweep-threads) CPUs)")
	fs.BoolVar(&cfg.json, "json", false, "print the run's figures as one JSON object on the last line of standard output")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) {
		return nil, benchutil.UsageError(fs, format, a...)
	}
	var err error
	if cfg.budgets, err = benchutil.ParseInts(*budgets, 1); err != nil {
		return bad("--budgets: %v", err)
	}
	if cfg.fanouts, err = benchutil.ParseInts(*fanouts, 1); err != nil {
		return bad("--fanouts: %v", err)
	}
	if cfg.bulks, err = benchutil.ParseInts(*bulks, 1); err != nil {
		return bad("--bulks: %v", err)
	}
	if cfg.sweepThreads, err = benchutil.ParseInts(*sweepThreads, 1); err != nil {
		return bad("--sweep-threads: %v", err)
	}
	for _, m := range strings.Split(*methods, ",") {
		switch m = strings.TrimSpace(m); m {
		case "ladies", "fastgcn":
			cfg.methods = append(cfg.methods, m)
		default:
			return bad("--methods: unknown method %q (want ladies or fastgcn)", m)
		}
	}
	switch {
	case cfg.scale < 1 || cfg.scale > 26:
		return bad("--scale %d outside [1, 26]", cfg.scale)
	case cfg.batch < 1:
		return bad("--batch %d, want > 0", cfg.batch)
	case cfg.minibatches < 1:
		return bad("--minibatches %d, want > 0", cfg.minibatches)
	case cfg.reps < 1:
		return bad("--reps %d, want > 0", cfg.reps)
	case cfg.semibulk < 0:
		return bad("--semibulk %d, want >= 0", cfg.semibulk)
	case cfg.threads < 0:
		return bad("--threads %d, want >= 0", cfg.threads)
	case cfg.seeds < 0:
		return bad("--seeds %d, want >= 0", cfg.seeds)
	case cfg.cliPasses < 2:
		return bad("--cli-passes %d, want >= 2 (a cold pass and at least one warm one)", cfg.cliPasses)
	case cfg.ladiesMatrix != "normalized" && cfg.ladiesMatrix != "raw":
		return bad("--ladies-matrix %q: want normalized or raw", cfg.ladiesMatrix)
	case cfg.pin && cfg.cli == "":
		return bad("--pin applies to the sweep through the CLI (--cli): a process cannot pin its own threads")
	}
	return cfg, nil
}
