package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

func main() { benchutil.Main(run) }

// config is the parsed command line.
type config struct {
	bulksample, bulksampleMPI, mpirun string
	work, out                         string
	parts                             []string // table, papers
	graphs                            []graphSpec
	cases                             map[string][]runCase // per part
	relabels                          []string
	seeds, batch, bulk, reps          int
	fanout                            string
	threads                           int // of gen and of the one process
	budget                            time.Duration
	keep                              bool
	args                              []string
}

// graphSpec is one graph of the benchmark.
type graphSpec struct {
	part       string // table or papers
	scale, ef  int
	seeds, rep int // seeds and passes (--reps) of its runs
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("scalebench", "scalebench --bulksample B --bulksample-mpi BM --mpirun M --work DIR --out DIR",
		"Runs issue 31's scaling table (one process and mpirun, pull, push and replicated, as\n"+
			"generated and relabelled) and its papers100M-sized variant through the CLI, and writes\n"+
			"DIR/scale.md and DIR/scale.json after every run.", stderr)
	c := &config{args: args}
	var parts, relabels, cases, papersCases string
	var scale, ef, pScale, pEF, pSeeds, pReps, budget int
	fs.StringVar(&c.bulksample, "bulksample", "bulksample", "the CLI for gen and the one-process runs (the static build)")
	fs.StringVar(&c.bulksampleMPI, "bulksample-mpi", "", "the CLI built with the mpi tag, as mpirun starts it")
	fs.StringVar(&c.mpirun, "mpirun", "mpirun", "Open MPI's mpirun")
	fs.StringVar(&c.work, "work", "", "folder of the graphs (R-MAT 22: 2.1 GB with its relabelled copy; the papers-sized one 27 GB); required")
	fs.StringVar(&c.out, "out", "", "folder of scale.md and scale.json; required")
	fs.StringVar(&parts, "parts", "table,papers", "which parts: table (R-MAT --scale) and papers (R-MAT --papers-scale)")
	fs.IntVar(&scale, "scale", 22, "R-MAT scale of the table")
	fs.IntVar(&ef, "edge-factor", 16, "R-MAT edge factor of the table")
	fs.IntVar(&pScale, "papers-scale", 27, "R-MAT scale of the papers100M-sized graph (27: 134M vertices)")
	fs.IntVar(&pEF, "papers-edge-factor", 12, "its edge factor (12: 3.2 billion stored edges, a 26.5 GB file)")
	fs.IntVar(&c.seeds, "seeds", 65536, "seeds sampled per run of the table")
	fs.IntVar(&pSeeds, "papers-seeds", 262144, "seeds sampled per run of the papers part")
	fs.IntVar(&c.reps, "reps", 1, "passes of a one-process run of the table (the CLI's --reps: the first is cold, the headline the warm median; a distributed run samples once)")
	fs.IntVar(&pReps, "papers-reps", 2, "passes of a one-process run of the papers part")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch")
	fs.IntVar(&c.bulk, "bulk", 64, "minibatches per bulk")
	fs.StringVar(&c.fanout, "fanout", "15,10,5", "fanouts")
	fs.IntVar(&c.threads, "threads", 16, "threads of gen and of the one-process runs")
	fs.StringVar(&relabels, "relabel", "none,degree", "labellings of each graph: none, random, degree")
	fs.StringVar(&cases, "cases", defaultTableCases, "the table's runs, ';'-separated: NAME=RANKS:THREADS:FLAGS (RANKS 0: one process; FLAGS space-separated)")
	fs.StringVar(&papersCases, "papers-cases", defaultPapersCases, "the papers part's runs, as --cases")
	fs.IntVar(&budget, "budget", 470, "seconds for everything; a run still going then is stopped and the rest skipped")
	fs.BoolVar(&c.keep, "keep", false, "keep the graphs in --work (default: each is removed after its runs, to bound the disk)")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) { return nil, benchutil.UsageError(fs, format, a...) }
	if c.work == "" || c.out == "" {
		return bad("--work and --out are required")
	}
	c.budget = time.Duration(budget) * time.Second
	c.parts = strings.Split(parts, ",")
	c.cases = map[string][]runCase{}
	var err error
	for _, p := range c.parts {
		switch p {
		case "table":
			c.graphs = append(c.graphs, graphSpec{part: p, scale: scale, ef: ef, seeds: c.seeds, rep: c.reps})
			c.cases[p], err = parseCases(cases)
		case "papers":
			c.graphs = append(c.graphs, graphSpec{part: p, scale: pScale, ef: pEF, seeds: pSeeds, rep: pReps})
			c.cases[p], err = parseCases(papersCases)
		default:
			return bad("--parts %q: want table and/or papers", parts)
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	for _, r := range strings.Split(relabels, ",") {
		if r != "none" && r != "random" && r != "degree" {
			return bad("--relabel %q: want none, random or degree", relabels)
		}
		c.relabels = append(c.relabels, r)
	}
	for _, p := range c.parts {
		for _, rc := range c.cases[p] {
			if rc.ranks > 0 && (c.bulksampleMPI == "" || c.mpirun == "") {
				return bad("--cases %s: an mpirun run needs --bulksample-mpi and --mpirun", rc.name)
			}
		}
	}
	return c, nil
}

// result is one run: its case, graph and JSON summary (nil when it
// failed or was skipped).
type result struct {
	Part     string         `json:"part"`
	Graph    string         `json:"graph"`
	Relabel  string         `json:"relabel"`
	Case     string         `json:"case"`
	Command  []string       `json:"command"`
	Seconds  float64        `json:"wall_seconds"`
	Error    string         `json:"error,omitempty"`
	Summary  map[string]any `json:"summary,omitempty"`
	GenNotes string         `json:"gen,omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return benchutil.Fail(stderr, "scalebench", err)
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return benchutil.Fail(stderr, "scalebench", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.budget)
	defer cancel()
	b := &bench{c: c, stderr: stderr, start: time.Now(), load: benchutil.LoadAveragesText()}
	failed := false
	for _, g := range c.graphs {
		for _, rl := range c.relabels {
			if err := b.graph(ctx, g, rl); err != nil {
				fmt.Fprintf(stderr, "scalebench: %v\n", err)
				failed = true
			}
		}
	}
	if err := b.write(stdout); err != nil {
		return benchutil.Fail(stderr, "scalebench", err)
	}
	if failed {
		return 1
	}
	return 0
}

// bench is the state of one invocation: the results so far.
type bench struct {
	c       *config
	stderr  io.Writer
	start   time.Time
	load    string
	results []result
}

// graph generates the graph g relabelled by rl and runs its part's cases
// on it, then removes it unless --keep.
func (b *bench) graph(ctx context.Context, g graphSpec, rl string) error {
	c := b.c
	name := fmt.Sprintf("rmat%d-e%d-%s.bsn", g.scale, g.ef, rl)
	path := filepath.Join(c.work, name)
	if _, err := os.Stat(path); err != nil {
		args := []string{"gen", "rmat", "--scale", strconv.Itoa(g.scale), "--edge-factor", strconv.Itoa(g.ef), "--seed", "1",
			"--threads", strconv.Itoa(c.threads), "--out", path, "--json"}
		if rl != "none" {
			args = append(args, "--relabel", rl)
		}
		fmt.Fprintf(b.stderr, "scalebench: %s (%.0f s of %.0f spent)\n", strings.Join(args, " "), time.Since(b.start).Seconds(), c.budget.Seconds())
		t0 := time.Now()
		s, err := runJSON(ctx, exec.CommandContext(ctx, c.bulksample, args...))
		r := result{Part: g.part, Graph: name, Relabel: rl, Case: "gen", Command: append([]string{c.bulksample}, args...), Seconds: time.Since(t0).Seconds(), Summary: s}
		if err != nil {
			r.Error = err.Error()
			b.results = append(b.results, r)
			return fmt.Errorf("gen %s: %w", name, err)
		}
		b.results = append(b.results, r)
	}
	if !c.keep {
		defer os.Remove(path)
	}
	common := []string{"sample", "--graph", path, "--batch", strconv.Itoa(c.batch), "--bulk", strconv.Itoa(c.bulk),
		"--seeds", strconv.Itoa(g.seeds), "--fanout", c.fanout, "--seed", "1", "--digest", "--json"}
	var errs []error
	for _, rc := range c.cases[g.part] {
		if err := ctx.Err(); err != nil {
			b.results = append(b.results, result{Part: g.part, Graph: name, Relabel: rl, Case: rc.name, Error: "skipped: the budget is spent"})
			errs = append(errs, fmt.Errorf("%s on %s: skipped: the budget is spent", rc.name, name))
			continue
		}
		cmd := rc.command(ctx, c, common, g.rep)
		fmt.Fprintf(b.stderr, "scalebench: %s: %s (%.0f s of %.0f spent)\n", name, rc.name, time.Since(b.start).Seconds(), c.budget.Seconds())
		t0 := time.Now()
		s, err := runJSON(ctx, cmd)
		r := result{Part: g.part, Graph: name, Relabel: rl, Case: rc.name, Command: cmd.Args, Seconds: time.Since(t0).Seconds(), Summary: s}
		if err != nil {
			r.Error = err.Error()
			errs = append(errs, fmt.Errorf("%s on %s: %w", rc.name, name, err))
		} else {
			fmt.Fprintf(b.stderr, "scalebench: %s: %s: %.2fM SEPS\n", name, rc.name, num(s, "seps")/1e6)
		}
		b.results = append(b.results, r)
		if err := b.write(io.Discard); err != nil { // keep what is measured
			return err
		}
	}
	return errors.Join(errs...)
}

// runJSON runs cmd and decodes the last line of its standard output.
func runJSON(ctx context.Context, cmd *exec.Cmd) (map[string]any, error) {
	var errOut strings.Builder
	cmd.Stderr = &errOut
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("stopped: the budget is spent (%w)", err)
		}
		return nil, fmt.Errorf("%v: %s\n%s", err, why(errOut.String()), tail(errOut.String(), 2000))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var s map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return nil, fmt.Errorf("the last line is not the JSON summary: %v\n%s", err, tail(string(out), 2000))
	}
	return s, nil
}

// why returns the line of a failed command's standard error that says
// why: the last one of bulksample's or a rank's error, else the last line.
func why(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "bulksample ") || strings.HasPrefix(lines[i], "rank ") {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// write writes scale.md and scale.json, and scale.md to w.
func (b *bench) write(w io.Writer) error {
	js, err := json.MarshalIndent(struct {
		Args    []string `json:"args"`
		Load    string   `json:"load_at_start"`
		Results []result `json:"runs"`
	}{b.c.args, b.load, b.results}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.c.out, "scale.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	text := b.report()
	if err := os.WriteFile(filepath.Join(b.c.out, "scale.md"), []byte(text), 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}
