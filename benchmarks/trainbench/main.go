package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

func main() { benchutil.Main(run) }

// config is the parsed command line.
type config struct {
	nodes, epochs, threads int
	hidden, batch, bulk    int
	fanouts                []int
	backends               []string
	depths                 []int
	seed                   uint64
	out                    string
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("trainbench", "go run -tags openblas ./benchmarks/trainbench",
		"Times GraphSAGE training epochs with the native and the pure-Go BLAS and writes a\n"+
			"markdown table to --out and standard output.", stderr)
	c := &config{}
	fs.IntVar(&c.nodes, "nodes", 150_000, "vertices of the products-like planted-partition graph")
	fs.IntVar(&c.epochs, "epochs", 2, "rounds: epochs per configuration, taken in turns (the table gives the median)")
	fs.IntVar(&c.threads, "threads", 2, "threads of sampling and the sparse products (and of OpenBLAS)")
	fs.IntVar(&c.hidden, "hidden", 256, "hidden width")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch b")
	fs.IntVar(&c.bulk, "bulk", 32, "minibatches per bulk k")
	fanout := fs.String("fanout", "15,10,5", "fanouts, seeds' layer first")
	blas := fs.String("blas", "native,gonum", "comma-separated BLAS backends: native (the build's) and/or gonum")
	pipeline := fs.String("pipeline", "2", "comma-separated pipeline depths (train.TrainerOptions.PipelineDepth): 1 (none) and/or 2")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graph, the plan, the weights and the sampler")
	fs.StringVar(&c.out, "out", "benchmarks/results/train.md", "markdown output file; empty for standard output only")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) {
		return nil, benchutil.UsageError(fs, format, a...)
	}
	switch {
	case c.nodes < 1000:
		return bad("--nodes %d: want >= 1000", c.nodes)
	case c.epochs < 1:
		return bad("--epochs %d: want >= 1", c.epochs)
	case c.threads < 1:
		return bad("--threads %d: want >= 1", c.threads)
	case c.hidden < 1 || c.batch < 1 || c.bulk < 1:
		return bad("--hidden, --batch and --bulk must be >= 1")
	}
	var err error
	if c.fanouts, err = benchutil.ParseInts(*fanout, 1); err != nil {
		return bad("--fanout %q: want positive integers", *fanout)
	}
	for b := range strings.SplitSeq(*blas, ",") {
		if b != "native" && b != "gonum" {
			return bad("--blas %q: want native and/or gonum", *blas)
		}
		c.backends = append(c.backends, b)
	}
	if c.depths, err = benchutil.ParseInts(*pipeline, 1); err != nil || slices.ContainsFunc(c.depths, func(d int) bool { return d > 2 }) {
		return bad("--pipeline %q: want depths 1 and/or 2", *pipeline)
	}
	return c, nil
}

// result is the measurement of one configuration: a BLAS backend and a
// pipeline depth.
type result struct {
	blas   string
	depth  int
	epochs []train.EpochStats // one per round
	// costs is what each round's Run (its epoch; evaluation is off) cost
	// the process, over one span: the sum of the epoch's phase costs would
	// count the pipeline's overlapping spans twice.
	costs []procstat.Cost
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	if err := bench(ctx, c, stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "trainbench", err)
	}
	return 0
}

func bench(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	load := loadAverage()
	t0 := time.Now()
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: c.nodes, Classes: 47, Features: 100,
		AvgDegree: 50, Split: "random:0.08,0.02,0.9", Seed: c.seed, Threads: c.threads})
	if err != nil {
		return err
	}
	genSec := time.Since(t0).Seconds()
	fmt.Fprintf(stderr, "trainbench: %d vertices, %d edges, %d training vertices (generated in %.1f s)\n",
		ds.NumNodes(), ds.Adj.NNZ(), len(ds.Train), genSec)
	var results []result
	var trainers []*train.Trainer
	var labels []string
	for _, b := range c.backends {
		for _, depth := range c.depths {
			// Epochs 1: each Run trains the first epoch again.
			job, err := train.New(ds, train.Options{Sampler: sampling.SamplerOptions{Fanouts: c.fanouts},
				Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: c.hidden, Dropout: 0.5},
					Plan: train.PlanOptions{BatchSize: c.batch, BulkSize: c.bulk, Epochs: 1}, Seed: c.seed,
					Runtime: train.RuntimeOptions{Threads: c.threads, PureGoBLAS: b == "gonum", PipelineDepth: depth, NoEval: true}}})
			if err != nil {
				return err
			}
			tr := job.Trainer
			trainers = append(trainers, tr)
			labels = append(labels, fmt.Sprintf("%s, pipeline %d", backendLabel(b, tr), depth))
			results = append(results, result{blas: tr.Model().BLAS(), depth: depth})
		}
	}
	var meter procstat.Meter
	for round := range c.epochs {
		for i, tr := range trainers {
			meter.Begin()
			res, err := tr.Run(ctx, nil)
			if err != nil {
				return err
			}
			results[i].costs = append(results[i].costs, meter.End("epoch"))
			st := res.Epochs[0]
			fmt.Fprintf(stderr, "trainbench: %s round %d: %.2f s (wait %.2f s), loss %.3f\n", labels[i], round+1, st.Seconds, st.Phases.Wait.Seconds(), st.Loss)
			results[i].epochs = append(results[i].epochs, st)
		}
	}
	rep := benchutil.Report{Program: "trainbench", Path: c.out, Text: format(c, ds, genSec, load, results)}
	return rep.Write(stdout, stderr)
}

// backendLabel names the backend of a trainer for progress lines.
func backendLabel(flagName string, tr *train.Trainer) string {
	return fmt.Sprintf("%s (%s)", flagName, tr.Model().BLAS())
}

func format(c *config, ds *dataset.Dataset, genSec float64, load string, results []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# GraphSAGE training epochs\n\n")
	fmt.Fprintf(&b, "Written by `benchmarks/trainbench` (`make bench`) on %s, GOMAXPROCS %d, %s, %d threads.\n\n",
		benchutil.Today(), runtime.GOMAXPROCS(0), runtime.Version(), c.threads)
	fmt.Fprintf(&b, "Graph: products-like planted partition (average degree 50, 100 features, 47 classes, 8%% training "+
		"vertices) at %d vertices, %d stored edges, %d training vertices (generated in %.1f s). ogbn-products "+
		"(2.45M vertices) does not fit the benchmark's 5-minute budget on 2 cores; this is the largest scale that does.\n\n",
		ds.NumNodes(), ds.Adj.NNZ(), len(ds.Train), genSec)
	fmt.Fprintf(&b, "Workload: 3-layer GraphSAGE (mean), hidden %d, fanouts %v, batch %d, k = %d minibatches per bulk, "+
		"dropout 0.5, Adam; %d rounds in which each configuration trains one epoch in turn (median; evaluation skipped). Load average at the start: %s.\n\n",
		c.hidden, c.fanouts, c.batch, c.bulk, c.epochs, load)
	b.WriteString(benchutil.CostLegend + "\n")
	b.WriteString("| BLAS | pipeline | epoch (s) | sample | extract | forward | backward | update | wait | SEPS (M) | sampled edges | vs first | paired |" + benchutil.CostColumns + "\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + benchutil.CostRule + "\n")
	var first float64
	for i, r := range results {
		med := func(f func(train.EpochStats) float64) float64 {
			v := make([]float64, len(r.epochs))
			for j, st := range r.epochs {
				v[j] = f(st)
			}
			return stats.Median(v)
		}
		epoch := med(func(s train.EpochStats) float64 { return s.Seconds })
		if i == 0 {
			first = epoch
		}
		// paired: the median over rounds of this row's epoch time over the
		// first row's in the same round.
		paired := make([]float64, len(r.epochs))
		for j, st := range r.epochs {
			paired[j] = st.Seconds / results[0].epochs[j].Seconds
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %d | %.2fx | %.3fx |%s\n", r.blas, r.depth, epoch,
			med(func(s train.EpochStats) float64 { return s.Phases.Sample.Seconds() }),
			med(func(s train.EpochStats) float64 { return s.Phases.Extract.Seconds() }),
			med(func(s train.EpochStats) float64 { return s.Phases.Forward.Seconds() }),
			med(func(s train.EpochStats) float64 { return s.Phases.Backward.Seconds() }),
			med(func(s train.EpochStats) float64 { return s.Phases.Update.Seconds() }),
			med(func(s train.EpochStats) float64 { return s.Phases.Wait.Seconds() }),
			med(func(s train.EpochStats) float64 { return s.SEPS })/1e6,
			r.epochs[0].SampledEdges, epoch/first, stats.Median(paired), benchutil.CostCells(benchutil.MedianCost(r.costs)))
	}
	b.WriteString("\nPhase columns are seconds per epoch; SEPS divides the sampled edges by the sampling phase's time. " +
		"\"vs first\" is the median epoch time relative to the first row's, measured in the same process; \"paired\" is the " +
		"median over the rounds of the epoch time over the first row's in the same round. With pipeline 2, sample and extract " +
		"run on their own goroutines beside the training phases (their times overlap the others), and wait is the time the " +
		"training goroutine waited for them; with pipeline 1 every phase runs in turn.\n")
	return b.String()
}

// loadAverage returns the 1-minute load average with the CPU count, or
// "unknown".
func loadAverage() string {
	avg, ok := benchutil.LoadAverages()
	if !ok {
		return "unknown"
	}
	return fmt.Sprintf("%s (the machine has %d CPUs)", avg[0], runtime.NumCPU())
}
