package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// sampleConfig is the parsed command line of `bulksample sample`.
type sampleConfig struct {
	graph    string
	plan     sampling.PlanOptions
	nw       sampling.NodeWiseOptions
	seeds    int
	epoch    int
	method   string // node, ladies or fastgcn
	ladies   string // --ladies-matrix: normalized or raw
	semibulk int
	reps     int // passes over the seeds; the first is the cold one
	baseline bool
	digest   bool
	json     bool
	dist     distFlags  // --replication, --fetch, --replicate-graph (sample_dist.go)
	device   deviceFlag // --device (device.go)
}

func parseSampleFlags(e *env, args []string) (*sampleConfig, error) {
	fs, jsonOut := newFlags(e, "sample", "--graph PATH [flags]",
		"Samples minibatches in bulk as sparse matrix products, node-wise (GraphSAGE) or layer-wise\n"+
			"(LADIES, FastGCN), and reports sampled edges per second (SEPS). The seeds are a random\n"+
			"permutation (by --seed) of the training vertices when the dataset has a split, otherwise of\n"+
			"all vertices.")
	c := &sampleConfig{}
	fs.StringVar(&c.method, "method", "node", "node (GraphSAGE neighbour sampling), ladies or fastgcn (layer-wise; --fanout is then the per-layer column budget)")
	fs.StringVar(&c.ladies, "ladies-matrix", "normalized", ladiesMatrixUsage)
	fs.IntVar(&c.semibulk, "semibulk", 0, "layer-wise only: minibatches whose blocks are extracted together (0: the default); does not change the result")
	fs.StringVar(&c.graph, "graph", "", "graph or dataset to sample (any format bulksample reads); required")
	fs.IntVar(&c.plan.BatchSize, "batch", 1024, "seeds per minibatch b")
	fanout := fs.String("fanout", "15,10,5", "comma-separated fanouts, seeds' layer first; -1 takes all neighbours; with --method ladies or fastgcn the\n"+
		"column budgets, "+budgetsText()+" when not given"+fanoutOrder)
	fs.IntVar(&c.plan.BulkSize, "bulk", 16, "minibatches sampled together, k")
	fs.IntVar(&c.seeds, "seeds", 0, "sample only the first N seeds of the permutation; 0 for all")
	fs.IntVar(&c.nw.Threads, "threads", 0, "threads; 0 for GOMAXPROCS")
	fs.Uint64Var(&c.nw.Seed, "seed", 1, "seed of the seed permutation and of the sampler")
	fs.IntVar(&c.epoch, "epoch", 0, "epoch whose minibatches are sampled")
	fs.IntVar(&c.reps, "reps", 1, "passes over the seeds: the first is the cold pass (fresh memory, empty buffers), reported\n"+
		"on its own; with 2 or more, SEPS is the median of the warm passes that follow it, the steady state of a\n"+
		"caller that samples epoch after epoch")
	frontier := fs.String("frontier", "all", "all: expand every frontier vertex at every layer (DGL blocks); new: only vertices first reached at the previous hop (PyG NeighborLoader)")
	fs.BoolVar(&c.nw.Weighted, "weighted", false, "sample proportionally to edge weights (default uniform)")
	fs.BoolVar(&c.nw.Replace, "replace", false, "sample with replacement")
	fs.BoolVar(&c.baseline, "baseline", false, "use the conventional per-minibatch sampler instead of the bulk sampler")
	fs.BoolVar(&c.digest, "digest", false, "hash all blocks and vertex lists in minibatch order (the same for any --bulk and --threads)")
	fs.Int64Var(&c.nw.MaxBulkEdges, "max-bulk-edges", 0, "cap on entries selected at once; a bulk over it is sampled in groups (0: the default)")
	c.dist.add(fs)
	c.device.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	c.json = *jsonOut
	if err := c.dist.validate(fs, c.method); err != nil {
		return nil, err
	}
	if err := c.device.validate(fs, c.dist.distributed(), c.cpuOnlyFlags()...); err != nil {
		return nil, err
	}
	if c.dist.distributed() && c.baseline {
		return nil, usageError(fs, "--baseline: not in a distributed run")
	}
	var err error
	switch {
	case fs.NArg() > 0:
		return nil, usageError(fs, "unexpected argument %q", fs.Arg(0))
	case c.graph == "":
		return nil, usageError(fs, "--graph is required")
	case c.plan.BatchSize < 1:
		return nil, usageError(fs, "--batch %d: want >= 1", c.plan.BatchSize)
	case c.plan.BulkSize < 1:
		return nil, usageError(fs, "--bulk %d: want >= 1", c.plan.BulkSize)
	case c.seeds < 0:
		return nil, usageError(fs, "--seeds %d: want >= 0", c.seeds)
	case c.nw.Threads < 0:
		return nil, usageError(fs, "--threads %d: want >= 0", c.nw.Threads)
	case c.nw.MaxBulkEdges < 0:
		return nil, usageError(fs, "--max-bulk-edges %d: want >= 0", c.nw.MaxBulkEdges)
	case c.epoch < 0:
		return nil, usageError(fs, "--epoch %d: want >= 0", c.epoch)
	case c.reps < 1:
		return nil, usageError(fs, "--reps %d: want >= 1", c.reps)
	case c.reps > 1 && c.dist.distributed():
		return nil, usageError(fs, "--reps %d: applies to one process only (a distributed run samples once)", c.reps)
	case c.method != "node" && c.method != "ladies" && c.method != "fastgcn":
		return nil, usageError(fs, "--method %q: want node, ladies or fastgcn", c.method)
	case c.semibulk < 0:
		return nil, usageError(fs, "--semibulk %d: want >= 0", c.semibulk)
	case c.semibulk > 0 && c.method == "node":
		return nil, usageError(fs, "--semibulk applies to --method ladies and fastgcn only")
	case c.method != "node" && (c.baseline || c.nw.Weighted):
		return nil, usageError(fs, "--method %s: --baseline and --weighted apply to --method node only", c.method)
	case c.method != "node" && c.nw.MaxBulkEdges != 0:
		return nil, usageError(fs, "--method %s: --max-bulk-edges applies to --method node only", c.method)
	}
	if err := checkLadiesMatrix(fs, c.ladies, c.method); err != nil {
		return nil, err
	}
	if c.nw.Fanouts, err = sampleFanouts(*fanout); err != nil {
		return nil, usageError(fs, "--fanout %q: %v", *fanout, err)
	}
	if c.method != "node" && !isSet(fs, "fanout") {
		c.nw.Fanouts = sampling.DefaultBudgets() // not the node-wise fanouts as column budgets
	}
	if c.method != "node" && slices.Contains(c.nw.Fanouts, -1) {
		return nil, usageError(fs, "--fanout %q: --method %s needs a column budget > 0 per layer", *fanout, c.method)
	}
	if c.nw.Frontier, err = sampling.ParseFrontierMode(*frontier); err != nil {
		return nil, usageError(fs, "--frontier %q: want all or new", *frontier)
	}
	if c.method != "node" && c.nw.Frontier != sampling.FrontierAll {
		return nil, usageError(fs, "--method %s: --frontier %s applies to --method node only (layer-wise samplers expand the whole frontier)", c.method, *frontier)
	}
	c.plan.Seed = c.nw.Seed
	return c, nil
}

// sampleFanouts parses "15,10,5": integers > 0 or -1.
func sampleFanouts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v == 0 || v < -1 {
			return nil, fmt.Errorf("fanout %q: want an integer > 0, or -1 for all neighbours", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// sampleSummary is the --json object of `bulksample sample`.
type sampleSummary struct {
	Graph        string `json:"graph"`
	Vertices     int    `json:"vertices"`
	Edges        int64  `json:"edges"`
	Sampler      string `json:"sampler"`
	LadiesMatrix string `json:"ladies_matrix,omitempty"` // ladies only: normalized or raw
	Frontier     string `json:"frontier"`
	Fanouts      []int  `json:"fanouts"`
	Batch        int    `json:"batch"`
	Bulk         int    `json:"bulk"`
	Threads      int    `json:"threads"`
	Seeds        int    `json:"seeds"`
	Minibatches  int    `json:"minibatches"`
	Bulks        int    `json:"bulks"`
	// SampledEdges is the edges of one pass over the seeds (every pass
	// samples the same ones).
	SampledEdges int64 `json:"sampled_edges"`
	// Seconds and SEPS are the headline: the median of the warm passes
	// when --reps is 2 or more, else the one (cold) pass.
	Seconds float64 `json:"seconds"`
	SEPS    float64 `json:"seps"`
	// Reps is the passes over the seeds (--reps); Warm says whether Seconds
	// and SEPS are those of warm passes. ColdSeconds and ColdSEPS are the
	// first pass's, which pays for fresh memory and empty buffers;
	// PassSeconds and PassCosts give every pass, in order.
	Reps         int             `json:"reps,omitempty"`
	Warm         bool            `json:"warm"`
	ColdSeconds  float64         `json:"cold_seconds,omitempty"`
	ColdSEPS     float64         `json:"cold_seps,omitempty"`
	PassSeconds  []float64       `json:"pass_seconds,omitempty"`
	PassCosts    []procstat.Cost `json:"pass_costs,omitempty"`
	LoadSeconds  float64         `json:"load_seconds"`
	Digest       string          `json:"digest,omitempty"`
	PeakRSSBytes int64           `json:"peak_rss_bytes"`
	Version      string          `json:"version"`
	// Phases is what each phase cost the process: load, setup (plan and
	// sampler), sample (the sampler's calls only, every pass) and digest.
	Phases procstat.Phases `json:"phases"`
}

func runSample(ctx context.Context, e *env, args []string) error {
	c, err := parseSampleFlags(e, args)
	if err != nil {
		return err
	}
	if c.dist.distributed() {
		return runSampleDist(ctx, e, c)
	}
	if c.device.cuda() {
		return runSampleDevice(ctx, e, c)
	}
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	var meter procstat.Meter
	meter.Begin()
	t0 := time.Now()
	d, err := dataset.LoadContext(ctx, c.graph, &dataset.LoadOptions{Threads: c.nw.Threads, Progress: e.stderr})
	if err != nil {
		return err
	}
	loadSec := time.Since(t0).Seconds()
	if d.NumNodes() == 0 || d.Adj.NNZ() == 0 {
		return fmt.Errorf("%s: empty graph (%d vertices, %d edges): nothing to sample", c.graph, d.NumNodes(), d.Adj.NNZ())
	}
	notePhase(e.stderr, "sample", "load", meter.End("load"))
	ep, err := c.epochPlan(d.Train, d.NumNodes())
	if err != nil {
		return err
	}
	var s sampling.Sampler
	name := "bulk"
	switch {
	case c.baseline:
		name = "baseline"
		s, err = sampling.NewBaseline(d.Adj, c.nw)
	default:
		if c.method != sampling.MethodNode {
			name = c.method
		}
		var a *spgemm.CSR
		if a, err = layerWiseMatrix(d.Adj, c.method, c.ladies, c.nw.Threads); err == nil {
			s, err = sampling.NewSampler(a, sampling.SamplerOptions{Method: c.method, Fanouts: c.nw.Fanouts,
				Replace: c.nw.Replace, Seed: c.nw.Seed, Threads: c.nw.Threads, Weighted: c.nw.Weighted,
				Frontier: c.nw.Frontier, MaxBulkEdges: c.nw.MaxBulkEdges, Semibulk: c.semibulk})
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.graph, err)
	}
	if eq, ok := s.(interface{ EqualWeights() bool }); ok && eq.EqualWeights() {
		fmt.Fprintf(e.stderr, "--weighted: every edge of %s has the same weight, so the weighted law is the uniform one: sampled as fast as without --weighted, with the same picks\n", c.graph)
	}
	sum := sampleSummary{Graph: c.graph, Vertices: d.NumNodes(), Edges: d.Adj.NNZ(), Sampler: name,
		Frontier: c.nw.Frontier.String(), Fanouts: c.nw.Fanouts, Batch: c.plan.BatchSize, Bulk: c.plan.BulkSize,
		Threads: threadsUsed(c.nw.Threads), Minibatches: len(ep.Minibatches), Bulks: ep.NumBulks(), LoadSeconds: loadSec}
	if c.method == "ladies" {
		sum.LadiesMatrix = c.ladies
	}
	for _, mb := range ep.Minibatches {
		sum.Seeds += len(mb)
	}
	meter.End("setup")
	sum.Phases = meter.Phases()
	if err := sampleEpoch(ctx, e.stderr, s, ep, c.reps, c.digest, &sum); err != nil {
		return err
	}
	notePhase(e.stderr, "sample", "sample", sum.Phases.Get("sample"))
	if c.reps > 1 {
		notePhase(e.stderr, "sample", "cold pass", sum.PassCosts[0])
	}
	fmt.Fprintf(e.stdout, "%s sampler: %d minibatches (%d seeds) in %d bulks of %d; %d sampled edges per pass\n",
		name, sum.Minibatches, sum.Seeds, sum.Bulks, c.plan.BulkSize, sum.SampledEdges)
	if sum.Warm {
		fmt.Fprintf(e.stdout, "warm: median of %d passes %.3fs: %.2fM SEPS; cold (first pass): %.3fs: %.2fM SEPS\n",
			c.reps-1, sum.Seconds, sum.SEPS/1e6, sum.ColdSeconds, sum.ColdSEPS/1e6)
	} else {
		fmt.Fprintf(e.stdout, "cold (one pass): %.3fs: %.2fM SEPS (--reps 3 adds warm passes, the steady state)\n",
			sum.Seconds, sum.SEPS/1e6)
	}
	if c.digest {
		fmt.Fprintf(e.stdout, "digest %s\n", sum.Digest)
	}
	if c.json {
		sum.PeakRSSBytes, sum.Version = procstat.PeakRSS(), version()
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// epochPlan returns the minibatches that sample draws: the plan of --epoch
// over train (every one of the graph's n vertices when train is empty),
// cut to the first --seeds seeds. One process and every rank of a
// distributed run use it, so that they sample the same minibatches.
func (c *sampleConfig) epochPlan(train []int32, n int) (*sampling.EpochPlan, error) {
	vertices := train
	if len(vertices) == 0 {
		vertices = make([]int32, n)
		for i := range vertices {
			vertices[i] = int32(i)
		}
	}
	if c.seeds > len(vertices) {
		return nil, fmt.Errorf("--seeds %d: %s has only %d seed vertices", c.seeds, c.graph, len(vertices))
	}
	plan, err := sampling.NewPlan(vertices, c.plan)
	if err != nil {
		return nil, err
	}
	ep := plan.Epoch(c.epoch)
	ep.Truncate(c.seeds) // 0: the whole epoch
	return ep, nil
}

// sampleEpoch samples every bulk of ep reps times (at least once), timing
// only the sampler (not the digest), with a progress line on stderr every
// few seconds, and fills sum's figures: the first pass is the cold one, and
// with reps >= 2 the headline is the median of the others. It adds what the
// sampler's calls cost to sum.Phases as phase "sample", and the digest's (of
// the first pass: every pass samples the same) as "digest".
func sampleEpoch(ctx context.Context, stderr io.Writer, s sampling.Sampler, ep *sampling.EpochPlan, reps int, digest bool, sum *sampleSummary) error {
	reps = max(reps, 1)
	var m procstat.Meter
	var dg *sampling.Digest
	if digest {
		dg = sampling.NewDigest()
	}
	sum.Reps, sum.PassSeconds, sum.PassCosts = reps, nil, nil
	lastReport := time.Now()
	for pass := range reps {
		var busy time.Duration
		var edges int64
		var cost procstat.Cost
		for i := range ep.NumBulks() {
			first, seeds := ep.Bulk(i)
			m.Begin()
			start := time.Now()
			b, err := s.SampleBulk(ctx, ep.Epoch, first, seeds)
			if err != nil {
				return fmt.Errorf("bulk %d (minibatches %d..%d): %w", i, first, first+len(seeds)-1, err)
			}
			busy += time.Since(start)
			cost.Add(m.End("sample"))
			edges += b.SampledEdges()
			if dg != nil && pass == 0 {
				dg.AddBulk(b)
				m.End("digest")
			}
			b.Release() // its arrays serve the next bulk
			if time.Since(lastReport) > 2*time.Second {
				lastReport = time.Now()
				line := fmt.Sprintf("sample: pass %d/%d: %d/%d bulks, %d sampled edges, %.2fM SEPS",
					pass+1, reps, i+1, ep.NumBulks(), edges, float64(edges)/busy.Seconds()/1e6)
				if n := cost.Note(); n != "" {
					line += "; " + n
				}
				fmt.Fprintln(stderr, line)
			}
		}
		if pass > 0 && edges != sum.SampledEdges {
			return fmt.Errorf("pass %d sampled %d edges, the first %d: the sampler is not deterministic", pass+1, edges, sum.SampledEdges)
		}
		sum.SampledEdges = edges
		sum.PassSeconds = append(sum.PassSeconds, busy.Seconds())
		sum.PassCosts = append(sum.PassCosts, cost)
	}
	seps := func(sec float64) float64 {
		if sec <= 0 {
			return 0
		}
		return float64(sum.SampledEdges) / sec
	}
	f := summarizeReps(sum.PassSeconds)
	sum.Seconds, sum.Warm, sum.ColdSeconds = f.Seconds, f.Warm, f.Cold
	sum.SEPS, sum.ColdSEPS = seps(f.Seconds), seps(f.Cold)
	if dg != nil {
		sum.Digest = dg.Sum()
	}
	for _, pc := range m.Phases() {
		sum.Phases.Add(pc.Name, pc.Cost)
	}
	return nil
}
