package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/benchmarks/internal/costmodel"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/cliout"
	"github.com/bulksample/bulksample/internal/stats"
)

func main() { benchutil.Main(run) }

type config struct {
	bulksample, mpirun  string
	nodes, np, epochs   int
	rounds              int
	reps                []int
	hidden, batch, bulk int
	fanouts             []int
	threadsOne          int
	fetch               string
	seed                uint64
	bandwidth, latency  float64 // the prediction's injection bandwidth per node (GB/s) and α (µs)
	ranksPerNode        int     // the prediction's ranks per node, which share its bandwidth
	out                 string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := benchutil.NewFlags("dptrainbench", "go run ./benchmarks/dptrainbench --bulksample PATH",
		"Runs `bulksample train` on one process and under mpirun, and appends the epoch time per phase\n"+
			"and the gradient all-reduce model to --out.", stderr)
	c := &config{}
	fs.StringVar(&c.bulksample, "bulksample", "", "bulksample binary built with the mpi tag (make build); required")
	fs.StringVar(&c.mpirun, "mpirun", "mpirun", "the MPI launcher")
	fs.IntVar(&c.nodes, "nodes", 150_000, "vertices of the products-like planted-partition graph (average degree 50, 100 features, 47 classes, 8% training)")
	fs.IntVar(&c.np, "np", 4, "ranks p")
	reps := fs.String("replication", "1,2,4", "replication factors c (each must divide --np)")
	fs.IntVar(&c.epochs, "epochs", 2, "epochs per run (the table gives rank 0's median over every run's epochs)")
	fs.IntVar(&c.rounds, "rounds", 1, "rounds: each runs every configuration once, in turn")
	fs.IntVar(&c.hidden, "hidden", 256, "hidden width")
	fs.IntVar(&c.batch, "batch", 1024, "global minibatch b (split over the ranks)")
	fs.IntVar(&c.bulk, "bulk", 32, "minibatches per bulk k")
	fan := fs.String("fanout", "15,10,5", "fanouts")
	fs.IntVar(&c.threadsOne, "threads", 2, "threads of the single-process run (each rank runs one)")
	fs.StringVar(&c.fetch, "fetch", "push", "the distributed sampler's fetch mode")
	fs.Uint64Var(&c.seed, "seed", 1, "seed")
	fs.Float64Var(&c.bandwidth, "bandwidth", 25, "the papers100M prediction's injection bandwidth per node, GB/s")
	fs.Float64Var(&c.latency, "latency", 2, "the papers100M prediction's latency per message, µs")
	fs.IntVar(&c.ranksPerNode, "ranks-per-node", 4, "the papers100M prediction's ranks per node (one per GPU), which share its bandwidth")
	fs.StringVar(&c.out, "out", "benchmarks/results/dist.md", "markdown report, appended to")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return benchutil.ExitCode(err)
	}
	var err error
	if c.reps, err = benchutil.ParseInts(*reps, 1); err != nil {
		return benchutil.ExitCode(benchutil.UsageError(fs, "--replication: %v", err))
	}
	if c.fanouts, err = benchutil.ParseInts(*fan, 1); err != nil {
		return benchutil.ExitCode(benchutil.UsageError(fs, "--fanout: %v", err))
	}
	switch {
	case c.bulksample == "":
		return benchutil.ExitCode(benchutil.UsageError(fs, "--bulksample is required"))
	case c.np < 2:
		return benchutil.ExitCode(benchutil.UsageError(fs, "--np %d: want >= 2", c.np))
	case c.epochs < 1 || c.rounds < 1 || c.nodes < 100 || c.batch < 1 || c.bulk < 1 || c.hidden < 1 || c.threadsOne < 1:
		return benchutil.ExitCode(benchutil.UsageError(fs, "--epochs, --rounds, --nodes (>= 100), --batch, --bulk, --hidden and --threads must be positive"))
	case !(c.bandwidth > 0) || !(c.latency >= 0) || c.ranksPerNode < 1:
		return benchutil.ExitCode(benchutil.UsageError(fs, "--bandwidth must be > 0, --latency >= 0 and --ranks-per-node >= 1"))
	}
	for _, rc := range c.reps {
		if c.np%rc != 0 {
			return benchutil.ExitCode(benchutil.UsageError(fs, "--replication %d does not divide --np %d", rc, c.np))
		}
	}
	if err := bench(ctx, c, strings.Join(args, " "), stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "dptrainbench", err)
	}
	return 0
}

// summary is what the benchmark reads of train's --json.
type summary struct {
	Nodes  int   `json:"nodes"`
	Edges  int64 `json:"edges"`
	Ranks  int   `json:"ranks"`
	Epochs []struct {
		Minibatches int                                  `json:"minibatches"`
		Seconds     float64                              `json:"seconds"`
		Phases      map[string]struct{ Seconds float64 } `json:"phases"`
		WaitSeconds map[string]float64                   `json:"wait_seconds"`
	} `json:"epochs"`
	Traffic      map[string]cliout.Traffic `json:"traffic"`
	PeakRSSBytes int64                     `json:"peak_rss_bytes"`
	PeakRSSMax   int64                     `json:"peak_rss_max"`
	ParamHash    string                    `json:"param_hash"`
	Features     string                    `json:"features"`
}

// row is one run's figures: medians over its epochs, of rank 0.
type row struct {
	name          string
	c             int
	epoch         float64
	phase         map[string]float64 // sample, extract, forward, backward, communicate, update
	wait          map[string]float64 // per communication phase
	bytesPerEpoch map[string]float64 // all ranks
	minibatches   int
	peakRSS       int64
	features      string
}

var phases = []string{"sample", "extract", "forward", "backward", "communicate", "update"}
var commPhases = []string{"sample", "features", "gradients"}

func bench(ctx context.Context, c *config, cmdline string, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "dptrainbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "products-like.bsn")
	t0 := time.Now()
	if out, err := exec.CommandContext(ctx, c.bulksample, "gen", "sbm", "--nodes", strconv.Itoa(c.nodes), "--classes", "47",
		"--avg-degree", "50", "--features", "100", "--split", "random:0.08,0.02,0.9", "--seed", strconv.FormatUint(c.seed, 10),
		"--out", data).CombinedOutput(); err != nil {
		return fmt.Errorf("gen sbm: %v\n%s", err, out)
	}
	fmt.Fprintf(stderr, "dptrainbench: %d-vertex planted partition generated in %.1f s\n", c.nodes, time.Since(t0).Seconds())
	common := []string{"train", "--data", data, "--model", "sage", "--fanout", benchutil.JoinInts(c.fanouts),
		"--hidden", strconv.Itoa(c.hidden), "--batch", strconv.Itoa(c.batch), "--bulk", strconv.Itoa(c.bulk),
		"--epochs", strconv.Itoa(c.epochs), "--dropout", "0.5", "--seed", strconv.FormatUint(c.seed, 10), "--no-eval", "--json"}
	load, _ := benchutil.LoadAverages()
	// The configurations take turns in each round, so that a change of the
	// machine's load hits them alike; each row merges its rounds' epochs.
	type run struct {
		name string
		c    int
		cmd  func() *exec.Cmd
		runs []*summary
	}
	runs := []*run{{name: fmt.Sprintf("1 process, %d threads", c.threadsOne), cmd: func() *exec.Cmd {
		return exec.CommandContext(ctx, c.bulksample, append(slices.Clone(common), "--threads", strconv.Itoa(c.threadsOne))...)
	}}}
	for _, rc := range c.reps {
		args := append(slices.Clone(common), "--threads", "1", "--replication", strconv.Itoa(rc), "--fetch", c.fetch)
		full := append([]string{"--oversubscribe", "--bind-to", "none", "-np", strconv.Itoa(c.np), c.bulksample}, args...)
		runs = append(runs, &run{name: fmt.Sprintf("p = %d, c = %d, %s", c.np, rc, c.fetch), c: rc, cmd: func() *exec.Cmd {
			cmd := exec.CommandContext(ctx, c.mpirun, full...)
			cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
				"OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo", "PMIX_MCA_gds=hash")
			return cmd
		}})
	}
	for round := range c.rounds {
		for _, r := range runs {
			s, err := runJSON(r.cmd())
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			fmt.Fprintf(stderr, "dptrainbench: round %d, %s: epochs %.2f s\n", round+1, r.name, s.Epochs[0].Seconds)
			r.runs = append(r.runs, s)
		}
	}
	var rows []row
	for _, r := range runs {
		rows = append(rows, rowOf(r.name, r.c, merge(r.runs)))
	}
	one := runs[0].runs[0]
	params, err := paramCount(100, 47, c.hidden, len(c.fanouts))
	if err != nil {
		return err
	}
	papers, err := paramCount(128, 172, 256, 3)
	if err != nil {
		return err
	}
	text := report(c, cmdline, one, rows, params, papers, load)
	return benchutil.Report{Program: "dptrainbench", Path: c.out, Append: true, Text: text}.Write(stdout, stderr)
}

// paramCount returns the parameter count of a GraphSAGE model.
func paramCount(in, classes, hidden, layers int) (int, error) {
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: layers, Hidden: hidden, InFeatures: in, Classes: classes, Seed: 1})
	if err != nil {
		return 0, err
	}
	return len(m.Params()), nil
}

// runJSON runs one training and decodes its summary, which must hold an
// epoch.
func runJSON(cmd *exec.Cmd) (*summary, error) {
	s, err := benchutil.RunJSON[summary](cmd)
	if err != nil {
		return nil, err
	}
	if len(s.Epochs) == 0 {
		return nil, fmt.Errorf("no epoch in the summary of %s", cmd)
	}
	return s, nil
}

// merge returns the runs of one configuration as one: their epochs in
// order, their traffic summed, the largest peak memory.
func merge(runs []*summary) *summary {
	m := *runs[0]
	m.Traffic = maps.Clone(m.Traffic)
	for _, s := range runs[1:] {
		m.Epochs = append(m.Epochs, s.Epochs...)
		for ph, t := range s.Traffic {
			mt := m.Traffic[ph]
			mt.BytesSent += t.BytesSent
			m.Traffic[ph] = mt
		}
		m.PeakRSSBytes, m.PeakRSSMax = max(m.PeakRSSBytes, s.PeakRSSBytes), max(m.PeakRSSMax, s.PeakRSSMax)
	}
	return &m
}

func rowOf(name string, c int, s *summary) row {
	r := row{name: name, c: c, phase: map[string]float64{}, wait: map[string]float64{}, bytesPerEpoch: map[string]float64{},
		minibatches: s.Epochs[0].Minibatches, peakRSS: max(s.PeakRSSBytes, s.PeakRSSMax), features: s.Features}
	med := func(f func(i int) float64) float64 {
		x := make([]float64, len(s.Epochs))
		for i := range x {
			x[i] = f(i)
		}
		return stats.Median(x)
	}
	r.epoch = med(func(i int) float64 { return s.Epochs[i].Seconds })
	for _, ph := range phases {
		r.phase[ph] = med(func(i int) float64 { return s.Epochs[i].Phases[ph].Seconds })
	}
	for _, ph := range commPhases {
		r.wait[ph] = med(func(i int) float64 { return s.Epochs[i].WaitSeconds[ph] })
		r.bytesPerEpoch[ph] = float64(s.Traffic[ph].BytesSent) / float64(len(s.Epochs))
	}
	return r
}

func report(c *config, cmdline string, one *summary, rows []row, params, papers int, load [3]string) string {
	var b strings.Builder
	m := benchutil.ThisMachine(1)
	fmt.Fprintf(&b, "\n# Data-parallel training: epoch time per phase (dptrainbench)\n\n")
	fmt.Fprintf(&b, "Products-like planted partition (average degree 50, 100 features, 47 classes, 8%% training vertices) at %d vertices, %d stored edges; "+
		"3-layer GraphSAGE (mean), hidden %d, fanouts %s, global batch %d (split over the ranks), k = %d, dropout 0.5, Adam, %d epochs per run "+
		"(rank 0's median epoch over %d round(s), the configurations taking turns in each; no evaluation). p = %d ranks under `mpirun --oversubscribe`, one thread each; the single process uses %d threads. "+
		"%s, %d logical CPUs, %s, %s; load average at start %s.\n\n",
		one.Nodes, one.Edges, c.hidden, benchutil.JoinInts(c.fanouts), c.batch, c.bulk, c.epochs, c.rounds, c.np, c.threadsOne,
		m.CPU, m.Cores, m.Go, m.Date, strings.Join(load[:], " "))
	fmt.Fprintf(&b, "Command: `dptrainbench %s` (`make bench` runs it on a bulksample built with the mpi tag).\n\n", cmdline)
	fmt.Fprintf(&b, "Phases are seconds per epoch on rank 0: sample (the sampler, its exchanges included), extract (feature rows: the "+
		"feature exchange when the store is distributed), forward + backward + update (compute), communicate (the gradient all-reduce, "+
		"waiting for the slowest rank included). The wait columns are the time rank 0 spent inside each communication phase's calls "+
		"(transfer and wait for the other ranks). Bytes are per epoch, summed over the ranks, as package dist counts them.\n\n")
	b.WriteString("| run | epoch s | vs 1 process | sample | extract | forward | backward | communicate | update | wait: sample | wait: features | wait: gradients | sample MB | feature MB | gradient MB | minibatches | peak RSS MiB |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.2f | %.2fx | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %d | %d |\n",
			r.name, r.epoch, r.epoch/rows[0].epoch, r.phase["sample"], r.phase["extract"], r.phase["forward"], r.phase["backward"],
			r.phase["communicate"], r.phase["update"], r.wait["sample"], r.wait["features"], r.wait["gradients"],
			r.bytesPerEpoch["sample"]/1e6, r.bytesPerEpoch["features"]/1e6, r.bytesPerEpoch["gradients"]/1e6, r.minibatches, r.peakRSS>>20)
	}
	if len(rows) > 1 {
		fmt.Fprintf(&b, "\nFeatures on the ranks: %s.\n", rows[1].features)
	}
	// The gradient term against the counters.
	bytes := costmodel.GradientBytes(params)
	steps := rows[0].minibatches
	p := c.np
	fmt.Fprintf(&b, "\n**Gradient all-reduce term.** The model has %d parameters: one step all-reduces B = 4·(%d + 3) = %.0f bytes. "+
		"Per epoch (%d steps) package dist counts (p-1)·B per rank, %.1f MB over the %d ranks;", params, params, bytes, steps,
		float64(p)*float64(p-1)*bytes*float64(steps)/1e6, p)
	for _, r := range rows[1:] {
		fmt.Fprintf(&b, " measured (c = %d): %.1f MB (%+.1f%%);", r.c, r.bytesPerEpoch["gradients"]/1e6,
			100*(r.bytesPerEpoch["gradients"]/(float64(p)*float64(p-1)*bytes*float64(steps))-1))
	}
	fmt.Fprintf(&b, " a ring all-reduce moves 2(p-1)/p·B = %.0f bytes per rank per step instead. ", costmodel.RingAllreduceBytes(p, bytes))
	for _, r := range rows[1:] {
		if r.wait["gradients"] > 0 {
			eff := costmodel.RingAllreduceBytes(p, bytes) * float64(steps) / r.wait["gradients"]
			fmt.Fprintf(&b, "Here (c = %d) the all-reduce took %.3f s per epoch, %.2f ms per step, an effective %.1f MB/s of ring traffic per rank: "+
				"on 2 oversubscribed cores the time is mostly waiting for the slowest rank's compute, not transfer. ",
				r.c, r.wait["gradients"], 1e3*r.wait["gradients"]/float64(steps), eff/1e6)
			break
		}
	}
	// papers100M.
	bw, alpha := c.bandwidth*1e9/float64(c.ranksPerNode), c.latency*1e-6
	pb := costmodel.GradientBytes(papers)
	const train100M = 1_207_179
	fmt.Fprintf(&b, "\n\n**ogbn-papers100M prediction of the gradient term** (3-layer GraphSAGE, hidden 256, 128 features, 172 classes: %d parameters, "+
		"B = %.2f MB per step), ring all-reduce with %g GB/s of injection bandwidth per node shared by its %d ranks (β = %.2f GB/s per rank) "+
		"and α = %g µs per message, p = 128 (the cluster of distbench's feature prediction):\n\n", papers, pb/1e6, c.bandwidth, c.ranksPerNode, bw/1e9, c.latency)
	b.WriteString("| global batch | steps per epoch | bandwidth term s | latency term s | T_grad s per epoch |\n|---:|---:|---:|---:|---:|\n")
	for _, gb := range []int{1024, 128 * 1024} {
		st := (train100M + gb - 1) / gb
		bwT := costmodel.GradientSeconds(128, papers, train100M, gb, bw, 0)
		latT := costmodel.GradientSeconds(128, papers, train100M, gb, math.Inf(1), alpha)
		fmt.Fprintf(&b, "| %d | %d | %.3f | %.3f | %.3f |\n", gb, st, bwT, latT, costmodel.GradientSeconds(128, papers, train100M, gb, bw, alpha))
	}
	b.WriteString("\nWith the paper's setting (batch 1024 per GPU, so 131072 per step on 128 ranks) the term is a few milliseconds per epoch; " +
		"with a global batch of 1024 split over 128 ranks (8 seeds each) the 1179 latency-bound all-reduces cost about " +
		strconv.FormatFloat(costmodel.GradientSeconds(128, papers, train100M, 1024, bw, alpha), 'f', 2, 64) +
		" s per epoch, which such small parts would not amortise.\n")
	return b.String()
}
