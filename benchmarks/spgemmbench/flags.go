package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// config is the parsed command line.
type config struct {
	cases   []benchCase
	threads int
	reps    int
	warmup  int
	minTime time.Duration
	seed    uint64
	qRows   int
	out     string
	json    bool
	profile string // CPU profile file; "" for none
	// unsorted also times GraphBLAS without its final GrB_Matrix_wait, which
	// sorts the rows of the result (graphblas.MulUnfinished).
	unsorted bool
}

// productKind is the shape of a benchmarked product.
type productKind int

const (
	squareA  productKind = iota // A·A
	selectQA                    // Q·A, Q a random row selection
)

// benchCase is one product on one R-MAT graph.
type benchCase struct {
	name  string // as given to --cases, e.g. "aa16"
	kind  productKind
	scale int
}

const (
	defaultCases = "aa14,aa16,qa20,qa22"
	edgeFactor   = 16
	maxScale     = 26 // 2^26 vertices, 2^30 edges: more than this machine holds
)

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("spgemmbench", "go run -tags graphblas ./benchmarks/spgemmbench",
		"Times bulksample's SpGEMM against SuiteSparse:GraphBLAS on R-MAT graphs and\n"+
			"writes the comparison table (markdown) to --out and standard output.", stderr)
	cfg := &config{}
	casesFlag := fs.String("cases", defaultCases, "comma-separated cases: aaS is A·A and qaS is Q·A for the R-MAT graph of scale S")
	fs.IntVar(&cfg.threads, "threads", 2, "threads for both libraries (spgemm.MulOptions.Threads and GxB_NTHREADS)")
	fs.IntVar(&cfg.reps, "reps", 5, "timed runs of each product per library; the table reports the median")
	fs.IntVar(&cfg.warmup, "warmup", 1, "untimed runs per library before timing, each as long as a timed run")
	fs.DurationVar(&cfg.minTime, "mintime", 200*time.Millisecond, "shortest timed run: a shorter product is repeated within each run (same count for both libraries)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the R-MAT graphs and of Q's rows")
	fs.IntVar(&cfg.qRows, "qrows", 32768, "rows of Q, distinct random vertices, for the qa cases")
	fs.StringVar(&cfg.out, "out", "benchmarks/results/spgemm.md", "file to write the markdown table to; empty for none")
	fs.BoolVar(&cfg.unsorted, "unsorted-peer", false, "also time GraphBLAS without its final GrB_Matrix_wait (rows left unsorted), in an extra column")
	fs.StringVar(&cfg.profile, "cpuprofile", "", "write CPU profiles (pprof) of the timed runs of both libraries to FILE.<case>")
	fs.BoolVar(&cfg.json, "json", false, "print the run's figures as one JSON object on the last line of standard output")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) {
		return nil, benchutil.UsageError(fs, format, a...)
	}
	cases, err := parseCases(*casesFlag)
	if err != nil {
		return bad("--cases: %v", err)
	}
	cfg.cases = cases
	switch {
	case cfg.threads < 1:
		return bad("--threads must be at least 1, got %d", cfg.threads)
	case cfg.reps < 1:
		return bad("--reps must be at least 1, got %d", cfg.reps)
	case cfg.warmup < 0:
		return bad("--warmup must not be negative, got %d", cfg.warmup)
	case cfg.minTime < 0:
		return bad("--mintime must not be negative, got %v", cfg.minTime)
	case cfg.qRows < 1:
		return bad("--qrows must be at least 1, got %d", cfg.qRows)
	}
	for _, c := range cases {
		if c.kind == selectQA && cfg.qRows > 1<<c.scale {
			return bad("--qrows %d exceeds the %d vertices of case %s", cfg.qRows, 1<<c.scale, c.name)
		}
	}
	return cfg, nil
}

// parseCases parses a comma-separated list like "aa14,qa20".
func parseCases(s string) ([]benchCase, error) {
	var cases []benchCase
	seen := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		var c benchCase
		switch {
		case strings.HasPrefix(name, "aa"):
			c.kind = squareA
		case strings.HasPrefix(name, "qa"):
			c.kind = selectQA
		default:
			return nil, fmt.Errorf("case %q: want aaS (A·A) or qaS (Q·A) with an R-MAT scale S, e.g. aa14", name)
		}
		scale, err := strconv.Atoi(name[2:])
		if err != nil || scale < 1 || scale > maxScale {
			return nil, fmt.Errorf("case %q: scale %q is not an integer in [1, %d]", name, name[2:], maxScale)
		}
		if seen[name] {
			return nil, fmt.Errorf("case %q given twice", name)
		}
		seen[name] = true
		c.name, c.scale = name, scale
		cases = append(cases, c)
	}
	return cases, nil
}

// command returns the command line that reproduces cfg, every flag spelled
// out, for the report.
func (cfg *config) command(withGraphBLAS bool) string {
	names := make([]string, len(cfg.cases))
	for i, c := range cfg.cases {
		names[i] = c.name
	}
	tags := ""
	if withGraphBLAS {
		tags = "-tags graphblas "
	}
	extra := ""
	if cfg.unsorted {
		extra = " --unsorted-peer"
	}
	return fmt.Sprintf("go run %s./benchmarks/spgemmbench --cases %s --threads %d --reps %d --warmup %d --mintime %v --seed %d --qrows %d%s",
		tags, strings.Join(names, ","), cfg.threads, cfg.reps, cfg.warmup, cfg.minTime, cfg.seed, cfg.qRows, extra)
}
