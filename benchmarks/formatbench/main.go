package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/internal/stats"
)

func main() { benchutil.Main(run) }

// maxRatio is the largest npz/native ratio the issue allows.
const maxRatio = 1.10

// config is the parsed command line.
type config struct {
	bin              string
	scale, aaScale   int
	threads, rounds  int
	selectRows, reps int
	seeds, bulk      int
	sampleReps       int
	out              string
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("formatbench", "go run ./benchmarks/formatbench --bin bin/bulksample",
		"Times the CLI's Q·A and A·A products and node-wise sampling on one R-MAT graph\n"+
			"read from the native format and from a scipy .npz, and writes a markdown table\n"+
			"of the medians and their ratio to --out and standard output.", stderr)
	c := &config{}
	fs.StringVar(&c.bin, "bin", "bin/bulksample", "the bulksample CLI to run")
	fs.IntVar(&c.scale, "scale", 20, "R-MAT scale of the graph for Q·A and sampling")
	fs.IntVar(&c.aaScale, "aa-scale", 14, "R-MAT scale of the graph for A·A")
	fs.IntVar(&c.threads, "threads", 2, "threads of every run")
	fs.IntVar(&c.rounds, "rounds", 5, "runs of each case and format, alternating formats")
	fs.IntVar(&c.selectRows, "select-rows", 32768, "rows of Q for Q·A")
	fs.IntVar(&c.reps, "reps", 10, "products per spgemm run (the CLI's --reps: the first is cold)")
	fs.IntVar(&c.sampleReps, "sample-reps", 3, "passes over the seeds per sample run (the CLI's --reps: the first is cold)")
	fs.IntVar(&c.seeds, "seeds", 65536, "seeds per sample run")
	fs.IntVar(&c.bulk, "bulk", 16, "minibatches per bulk of a sample run")
	fs.StringVar(&c.out, "out", "benchmarks/results/formats.md", "file to write the table to; empty for none")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) {
		return nil, benchutil.UsageError(fs, format, a...)
	}
	switch {
	case c.scale < 10 || c.scale > 26:
		return bad("--scale %d: want 10..26", c.scale)
	case c.aaScale < 4 || c.aaScale > 20:
		return bad("--aa-scale %d: want 4..20", c.aaScale)
	case c.threads < 1 || c.rounds < 1 || c.reps < 2 || c.sampleReps < 2:
		return bad("--threads and --rounds must be at least 1, --reps and --sample-reps at least 2 (a cold run and a warm one)")
	case c.selectRows < 1 || c.selectRows > 1<<c.scale:
		return bad("--select-rows %d: want 1..2^scale", c.selectRows)
	case c.seeds < 1 || c.bulk < 1:
		return bad("--seeds and --bulk must be at least 1")
	}
	return c, nil
}

// benchCase is one workload, run on each format.
type benchCase struct {
	name   string
	graph  string   // base name of the graph files, without extension
	args   []string // CLI arguments after the graph's path
	flag   string   // the flag naming the graph
	metric string   // JSON field of the figure
	faster string   // "lower" (seconds) or "higher" (SEPS)
}

func (c *config) cases() []benchCase {
	t := strconv.Itoa(c.threads)
	return []benchCase{
		{name: "Q·A (spgemm --select-rows)", graph: fmt.Sprintf("r%d", c.scale), flag: "--a",
			args:   []string{"--select-rows", strconv.Itoa(c.selectRows), "--threads", t, "--reps", strconv.Itoa(c.reps), "--json"},
			metric: "seconds", faster: "lower"},
		{name: "A·A (spgemm)", graph: fmt.Sprintf("r%d", c.aaScale), flag: "--a",
			args:   []string{"--threads", t, "--reps", strconv.Itoa(c.reps), "--json"},
			metric: "seconds", faster: "lower"},
		{name: "node-wise sampling (sample)", graph: fmt.Sprintf("r%d", c.scale), flag: "--graph",
			args: []string{"--batch", "1024", "--fanout", "15,10,5", "--seeds", strconv.Itoa(c.seeds),
				"--bulk", strconv.Itoa(c.bulk), "--threads", t, "--reps", strconv.Itoa(c.sampleReps), "--json"},
			metric: "seps", faster: "higher"},
	}
}

// command returns the subcommand of a case.
func (b benchCase) command() string {
	if b.flag == "--graph" {
		return "sample"
	}
	return "spgemm"
}

// result is the figures of one case on both formats.
type result struct {
	native, npz []float64
}

// ratio is the npz figure over the native one, as a slowdown: above 1 means
// the npz-loaded graph is slower.
func (b benchCase) ratio(r result) float64 {
	n, z := stats.Median(r.native), stats.Median(r.npz)
	if b.faster == "higher" {
		return n / z
	}
	return z / n
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	dir, err := os.MkdirTemp("", "formatbench")
	if err != nil {
		return benchutil.Fail(stderr, "formatbench", err)
	}
	defer os.RemoveAll(dir)
	loadStart, _ := benchutil.LoadAverages()
	cases := cfg.cases()
	for _, s := range []int{cfg.scale, cfg.aaScale} {
		g := filepath.Join(dir, fmt.Sprintf("r%d", s))
		if _, err := os.Stat(g + ".bsn"); err == nil {
			continue
		}
		if _, err := cli(ctx, cfg.bin, "gen", "rmat", "--scale", strconv.Itoa(s), "--seed", "1", "--out", g+".bsn"); err != nil {
			return benchutil.Fail(stderr, "formatbench", err)
		}
		if _, err := cli(ctx, cfg.bin, "convert", g+".bsn", g+".npz"); err != nil {
			return benchutil.Fail(stderr, "formatbench", err)
		}
	}
	results := make([]result, len(cases))
	for round := range cfg.rounds {
		formats := []string{"bsn", "npz"}
		if round%2 == 1 {
			formats = []string{"npz", "bsn"}
		}
		for i, b := range cases {
			for _, f := range formats {
				path := filepath.Join(dir, b.graph+"."+f)
				v, err := figure(ctx, cfg.bin, b, path)
				if err != nil {
					return benchutil.Fail(stderr, "formatbench", err)
				}
				fmt.Fprintf(stderr, "formatbench: round %d/%d: %s on %s: %s %g\n", round+1, cfg.rounds, b.name, f, b.metric, v)
				if f == "bsn" {
					results[i].native = append(results[i].native, v)
				} else {
					results[i].npz = append(results[i].npz, v)
				}
			}
		}
	}
	loadEnd, _ := benchutil.LoadAverages()
	text := report(cfg, cases, results, loadStart, loadEnd)
	if err := (benchutil.Report{Program: "formatbench", Path: cfg.out, Text: text}).Write(stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "formatbench", err)
	}
	return 0
}

// figure runs case b on the graph at path and returns its metric.
func figure(ctx context.Context, bin string, b benchCase, path string) (float64, error) {
	args := append([]string{b.command(), b.flag, path}, b.args...)
	out, err := cli(ctx, bin, args...)
	if err != nil {
		return 0, err
	}
	return metric(out, b.metric)
}

// metric returns field key of the JSON object on the last line of out.
func metric(out []byte, key string) (float64, error) {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var m map[string]any
	if err := json.Unmarshal(lines[len(lines)-1], &m); err != nil {
		return 0, fmt.Errorf("the last line of the output is not a JSON summary: %w", err)
	}
	v, ok := m[key].(float64)
	if !ok {
		return 0, fmt.Errorf("the JSON summary has no number %q", key)
	}
	return v, nil
}

// cli runs the bulksample CLI and returns its standard output.
func cli(ctx context.Context, bin string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", bin, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// report renders the markdown table.
func report(cfg *config, cases []benchCase, results []result, loadStart, loadEnd [3]string) string {
	var w strings.Builder
	m := benchutil.ThisMachine(cfg.threads)
	fmt.Fprintf(&w, "## Kernels by input format: native vs scipy .npz (%s)\n\n", benchutil.Today())
	fmt.Fprintf(&w, "The same R-MAT graph (scale %d; A·A on scale %d), written by `bulksample gen rmat --seed 1` and\n", cfg.scale, cfg.aaScale)
	fmt.Fprintf(&w, "`bulksample convert` to .npz, each run a fresh CLI process, formats alternating, %d runs each;\n", cfg.rounds)
	fmt.Fprintf(&w, "the figure of a run is the CLI's warm headline (spgemm: median of the %d products after the first;\n", cfg.reps-1)
	fmt.Fprintf(&w, "sample: median SEPS of the %d passes after the first), the table the median\n", cfg.sampleReps-1)
	fmt.Fprintf(&w, "over runs. Ratio: npz-loaded over native-loaded cost (above 1: npz slower); goal at most %.2f.\n\n", maxRatio)
	fmt.Fprintf(&w, "Machine: %s, %d logical CPUs, %d threads, %s. Load average (1, 5, 15 min) %s at the start, %s at the end.\n\n",
		m.CPU, m.Cores, cfg.threads, m.Go, strings.Join(loadStart[:], " "), strings.Join(loadEnd[:], " "))
	fmt.Fprintf(&w, "Command: `make build && go run ./benchmarks/formatbench --bin bin/bulksample --scale %d --aa-scale %d --threads %d --rounds %d --select-rows %d --reps %d --sample-reps %d --seeds %d --bulk %d` (this run's CLI: %s)\n\n",
		cfg.scale, cfg.aaScale, cfg.threads, cfg.rounds, cfg.selectRows, cfg.reps, cfg.sampleReps, cfg.seeds, cfg.bulk, cfg.bin)
	fmt.Fprintln(&w, "| case | figure | native (median, range) | npz (median, range) | npz / native |")
	fmt.Fprintln(&w, "|---|---|---|---|---|")
	for i, b := range cases {
		unit, scale := "ms", 1e3
		if b.metric == "seps" {
			unit, scale = "M SEPS", 1e-6
		}
		mark := ""
		if b.ratio(results[i]) > maxRatio {
			mark = " (over the goal)"
		}
		fmt.Fprintf(&w, "| %s | %s | %s | %s | %.2f%s |\n", b.name, unit,
			span(results[i].native, scale), span(results[i].npz, scale), b.ratio(results[i]), mark)
	}
	return w.String()
}

// span formats the median and range of x times scale.
func span(x []float64, scale float64) string {
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	return fmt.Sprintf("%.2f (%.2f-%.2f)", stats.Median(x)*scale, lo*scale, hi*scale)
}
