package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/gnn"
)

func main() { benchutil.Main(run) }

// config is the parsed command line.
type config struct {
	configs               []string
	nodes                 int
	cora                  string
	minibatches           int
	rounds, steps, warmup int
	threads               int
	seed                  uint64
	python, peer          string
	dir                   string
	out                   string
	profile               string
}

// specs are the configurations by name.
var specs = map[string]configSpec{
	"products": {Name: "products", Layers: 3, Hidden: 256, Fanouts: []int{15, 10, 5}, Batch: 1024, Dropout: 0.5, LR: 0.01},
	"cora":     {Name: "cora", Layers: 2, Hidden: 64, Fanouts: []int{25, 10}, Batch: 64, Dropout: 0.5, LR: 0.01},
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("torchpeer", "go run -tags openblas ./benchmarks/torchpeer",
		"Times GraphSAGE training steps (forward, backward, update) of bulksample and of a tuned\n"+
			"PyTorch peer on the same minibatches and writes a markdown table to --out.", stderr)
	c := &config{}
	which := fs.String("config", "products,cora", "comma-separated configurations: products and/or cora")
	fs.IntVar(&c.nodes, "nodes", 150_000, "vertices of the products-like planted-partition graph")
	fs.StringVar(&c.cora, "cora", "../shared/data/cora.npz", "the Cora dataset (gnn-benchmark .npz)")
	fs.IntVar(&c.minibatches, "minibatches", 8, "minibatches sampled and cycled through")
	fs.IntVar(&c.rounds, "rounds", 3, "rounds; each times --steps steps of bulksample and then of the peer")
	fs.IntVar(&c.steps, "steps", 20, "timed steps per side and round")
	fs.IntVar(&c.warmup, "warmup", 5, "untimed steps before the first round (the peer: before each round)")
	fs.IntVar(&c.threads, "threads", 2, "threads of both sides (sparse products, OpenMP, OpenBLAS)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graph, the sampler, the plan and the weights")
	fs.StringVar(&c.python, "python", defaultPython(), "the Python interpreter of the peer")
	fs.StringVar(&c.peer, "peer", "benchmarks/torchpeer/peer.py", "the peer script; empty to time bulksample alone")
	fs.StringVar(&c.dir, "dir", "", "directory for the exported minibatches; empty for a temporary one")
	fs.StringVar(&c.profile, "cpuprofile", "", "write a CPU profile of bulksample's timed steps to this file")
	fs.StringVar(&c.out, "out", "benchmarks/results/training.md", "markdown output file; empty for standard output only")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) {
		return nil, benchutil.UsageError(fs, format, a...)
	}
	switch {
	case c.nodes < 1000:
		return bad("--nodes %d: want >= 1000", c.nodes)
	case c.minibatches < 1:
		return bad("--minibatches %d: want >= 1", c.minibatches)
	case c.rounds < 1 || c.steps < 1 || c.warmup < 0:
		return bad("--rounds and --steps must be >= 1 and --warmup >= 0")
	case c.threads < 1:
		return bad("--threads %d: want >= 1", c.threads)
	}
	for name := range strings.SplitSeq(*which, ",") {
		if _, ok := specs[name]; !ok {
			return bad("--config %q: want products and/or cora", *which)
		}
		c.configs = append(c.configs, name)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	if err := bench(ctx, c, stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "torchpeer", err)
	}
	return 0
}

// outcome is one configuration's measurement.
type outcome struct {
	w          *workload
	ours, peer phaseTimes
	// Per round: the median step of each side.
	roundOurs, roundPeer  []float64
	peerInfo              peerResult
	peerNote              string // why there is no peer figure
	digest                string // of our parameters after the warm-up
	loss0                 float64
	loadBefore, loadAfter string
}

func bench(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	var outs []outcome
	for _, name := range c.configs {
		spec := specs[name]
		if name == "cora" {
			if _, err := os.Stat(c.cora); err != nil {
				fmt.Fprintf(stderr, "torchpeer: skipping cora: %v\n", err)
				continue
			}
		}
		o, err := measure(ctx, c, spec, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		outs = append(outs, *o)
	}
	if len(outs) == 0 {
		return errors.New("no configuration could run")
	}
	rep := benchutil.Report{Program: "torchpeer", Path: c.out, Text: format(c, args(c), outs)}
	return rep.Write(stdout, stderr)
}

// args returns the command line that reproduces c, for the report.
func args(c *config) string {
	return fmt.Sprintf("go run -tags openblas ./benchmarks/torchpeer --config %s --rounds %d --steps %d --warmup %d --threads %d",
		strings.Join(c.configs, ","), c.rounds, c.steps, c.warmup, c.threads)
}

func measure(ctx context.Context, c *config, spec configSpec, stderr io.Writer) (*outcome, error) {
	o := &outcome{loadBefore: loadAverage()}
	w, err := sample(ctx, c, spec, c.minibatches)
	if err != nil {
		return nil, err
	}
	o.w = w
	fmt.Fprintf(stderr, "torchpeer: %s: %d vertices, %d minibatches, %d sampled edges\n", spec.Name, w.ds.NumNodes(), len(w.mbs), w.edges)
	us, err := newOurs(w, c.seed, c.threads)
	if err != nil {
		return nil, err
	}
	params, logits := us.reference()
	dir := c.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "torchpeer"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else {
		dir = filepath.Join(dir, spec.Name)
	}
	if c.peer != "" {
		if err := export(dir, w, params, logits); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	var losses []float64
	us.run(c.warmup, &losses)
	o.digest = us.digest()
	if len(losses) > 0 {
		o.loss0 = losses[0]
	}
	for r := range c.rounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		stop, err := startProfile(c.profile)
		if err != nil {
			return nil, err
		}
		p := us.run(c.steps, nil)
		if err := stop(); err != nil {
			return nil, err
		}
		o.ours.add(p)
		o.roundOurs = append(o.roundOurs, medianMs(p.total()))
		fmt.Fprintf(stderr, "torchpeer: %s round %d: bulksample %.2f ms per step\n", spec.Name, r+1, o.roundOurs[r])
		if c.peer == "" || o.peerNote != "" {
			continue
		}
		pr, err := runPeer(ctx, c, dir)
		if err != nil {
			o.peerNote = err.Error()
			fmt.Fprintf(stderr, "torchpeer: %s: no peer: %v\n", spec.Name, err)
			continue
		}
		o.peerInfo = *pr
		o.peer.add(pr.Times)
		o.roundPeer = append(o.roundPeer, medianMs(pr.Times.total()))
		fmt.Fprintf(stderr, "torchpeer: %s round %d: peer %.2f ms per step (forward max |logit difference| %.2g)\n",
			spec.Name, r+1, o.roundPeer[r], pr.MaxLogitDiff)
	}
	if c.peer == "" {
		o.peerNote = "not run (--peer empty)"
	}
	o.loadAfter = loadAverage()
	return o, nil
}

// startProfile starts a CPU profile into path (appending nothing when path
// is empty) and returns the function that stops it. Each round overwrites
// the file: the last round's profile remains.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// peerMalloc is the glibc malloc tuning of the peer's process (see runPeer).
const peerMalloc = "GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736:glibc.malloc.hugetlb=1"

// peerResult is the JSON line peer.py prints.
type peerResult struct {
	Torch        string     `json:"torch"`
	Threads      int        `json:"threads"`
	BLAS         string     `json:"blas"`
	Times        phaseTimes `json:"times"`
	MaxLogitDiff float64    `json:"max_logit_diff"`
	Loss0        float64    `json:"loss0"`
}

// runPeer runs one round of the peer on the exported directory.
func runPeer(ctx context.Context, c *config, dir string) (*peerResult, error) {
	cmd := exec.CommandContext(ctx, c.python, c.peer, "--dir", dir, "--steps", strconv.Itoa(c.steps),
		"--warmup", strconv.Itoa(max(c.warmup, 1)), "--threads", strconv.Itoa(c.threads))
	t := strconv.Itoa(c.threads)
	// Passive OpenMP waiting: spinning workers would steal the cores of
	// the OpenBLAS threads (and of the other process on a shared machine).
	cmd.Env = append(os.Environ(), "OMP_WAIT_POLICY=PASSIVE", "OMP_NUM_THREADS="+t, "OPENBLAS_NUM_THREADS="+t,
		// glibc hands allocations over 32 MiB out as fresh mappings and
		// unmaps them when freed, so every step of the peer would fault in
		// its large temporaries page by page (about 500,000 minor faults
		// per 8 steps on the products configuration, against 32,000 with
		// these settings). No mappings and no trimming keep the freed memory
		// for reuse, in transparent huge pages: the reuse a caching
		// allocator gives, and what bulksample's buffers do.
		peerMalloc)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("%s %s: %w: %s", c.python, c.peer, err, msg)
	}
	var last string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); strings.HasPrefix(s, "{") {
			last = s
		}
	}
	var pr peerResult
	if err := json.Unmarshal([]byte(last), &pr); err != nil {
		return nil, fmt.Errorf("%s printed no result line: %w", c.peer, err)
	}
	if len(pr.Times.Forward) != c.steps || len(pr.Times.Backward) != c.steps || len(pr.Times.Update) != c.steps || len(pr.Times.CPU) != c.steps {
		return nil, fmt.Errorf("%s timed %d steps, want %d", c.peer, len(pr.Times.Forward), c.steps)
	}
	return &pr, nil
}

func format(c *config, cmdline string, outs []outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Training compute per minibatch: bulksample vs a tuned PyTorch\n\n")
	fmt.Fprintf(&b, "Written by `benchmarks/torchpeer` (`make bench`) on %s: `%s`. Machine: %s, %d CPUs, GOMAXPROCS %d, %s, BLAS %s, %d threads on both sides.\n\n",
		benchutil.Today(), cmdline, benchutil.CPUModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), gnn.BLAS, c.threads)
	fmt.Fprintf(&b, "Both sides train the same GraphSAGE (mean) on the same %d sampled minibatches per configuration, cycled: "+
		"a step is forward with the loss, backward, and the Adam update (lr 0.01), with dropout 0.5 on every layer's input. "+
		"The peer (`benchmarks/torchpeer/peer.py`) starts from bulksample's initial weights and checks its logits against "+
		"bulksample's before timing. Rounds alternate: %d steps of bulksample, then a fresh peer process (%d untimed steps, then %d timed). "+
		"Figures are medians over all timed steps, in milliseconds per minibatch: wall time per phase and step, "+
		"and the CPU time of the whole process (all threads) per step, which the load of a shared machine inflates less.\n\n", c.minibatches, c.steps, max(c.warmup, 1), c.steps)
	for _, o := range outs {
		w := o.w
		fmt.Fprintf(&b, "## %s\n\n", w.cfg.Name)
		fmt.Fprintf(&b, "%d vertices, %d stored edges, %d features, %d classes; %d layers, hidden %d, fanouts %s, batch %d; "+
			"%.0f sampled edges and %.0f input vertices per minibatch (mean). Load average before and after: %s; %s.\n\n",
			w.ds.NumNodes(), w.ds.Adj.NNZ(), w.cfg.Features, w.cfg.Classes, w.cfg.Layers, w.cfg.Hidden,
			benchutil.JoinInts(w.cfg.Fanouts), w.cfg.Batch, float64(w.edges)/float64(len(w.mbs)), meanInt(w.srcRows),
			o.loadBefore, o.loadAfter)
		b.WriteString("| side | forward | backward | update | step | vs peer | CPU per step | vs peer |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		ourStep := medianMs(o.ours.total())
		peerStep := medianMs(o.peer.total())
		ratio := "-"
		if len(o.peer.Forward) > 0 {
			ratio = fmt.Sprintf("%.2fx", ourStep/peerStep)
		}
		ourCPU, peerCPU := medianMs(o.ours.CPU), medianMs(o.peer.CPU)
		cpuRatio := "-"
		if len(o.peer.CPU) > 0 {
			cpuRatio = fmt.Sprintf("%.2fx", ourCPU/peerCPU)
		}
		fmt.Fprintf(&b, "| bulksample (%s) | %s | %s | %s | %s | %s | %s | %s |\n", gnn.BLAS, fmtMs(medianMs(o.ours.Forward)),
			fmtMs(medianMs(o.ours.Backward)), fmtMs(medianMs(o.ours.Update)), fmtMs(ourStep), ratio, fmtMs(ourCPU), cpuRatio)
		if len(o.peer.Forward) > 0 {
			fmt.Fprintf(&b, "| PyTorch %s | %s | %s | %s | %s | 1.00x | %s | 1.00x |\n", o.peerInfo.Torch, fmtMs(medianMs(o.peer.Forward)),
				fmtMs(medianMs(o.peer.Backward)), fmtMs(medianMs(o.peer.Update)), fmtMs(peerStep), fmtMs(peerCPU))
		} else {
			fmt.Fprintf(&b, "| PyTorch | - | - | - | - | (%s) | - | - |\n", o.peerNote)
		}
		var rounds []string
		for r := range o.roundOurs {
			if r < len(o.roundPeer) {
				rounds = append(rounds, fmt.Sprintf("%s/%s ms (%.2fx)", fmtMs(o.roundOurs[r]), fmtMs(o.roundPeer[r]), o.roundOurs[r]/o.roundPeer[r]))
			} else {
				rounds = append(rounds, fmtMs(o.roundOurs[r])+" ms")
			}
		}
		fmt.Fprintf(&b, "\nPer round (bulksample/peer step medians): %s. ", strings.Join(rounds, ", "))
		fmt.Fprintf(&b, "bulksample's parameters after the %d warm-up steps: digest %s (first loss %.4f)", c.warmup, o.digest, o.loss0)
		if len(o.peer.Forward) > 0 {
			fmt.Fprintf(&b, "; the peer's logits of minibatch 0 without dropout differ from bulksample's by at most %.2g, its first loss %.4f; "+
				"peer threads %d, BLAS %s", o.peerInfo.MaxLogitDiff, o.peerInfo.Loss0, o.peerInfo.Threads, o.peerInfo.BLAS)
		}
		b.WriteString(".\n\n")
	}
	return b.String()
}

func meanInt(x []int) float64 {
	s := 0
	for _, v := range x {
		s += v
	}
	return float64(s) / float64(max(len(x), 1))
}

// loadAverage returns the 1-minute load average with the time, or
// "unknown".
func loadAverage() string {
	avg, ok := benchutil.LoadAverages()
	if !ok {
		return "unknown"
	}
	return fmt.Sprintf("%s at %s", avg[0], time.Now().UTC().Format("15:04"))
}

// debianPython is the interpreter Debian's python3-torch installs for; a
// python3 earlier on PATH (pyenv, a virtual environment) may lack torch.
const debianPython = "/usr/bin/python3"

// defaultPython returns Debian's python3 where it exists, else python3 from
// PATH.
func defaultPython() string {
	if _, err := os.Stat(debianPython); err == nil {
		return debianPython
	}
	return "python3"
}
