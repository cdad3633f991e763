package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/cliout"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/spgemm"
)

func main() {
	if os.Getenv(featureEnv) != "" {
		// A rank of the feature benchmark, started by featureBench.
		benchutil.Main(func(ctx context.Context, _ []string, stdout, stderr io.Writer) int {
			return featureChild(ctx, stdout, stderr)
		})
		return
	}
	benchutil.Main(run)
}

type config struct {
	bulksample, mpirun string
	scale, np          int
	reps               []int
	batch, bulk, seeds int
	fanouts            []int
	seed               uint64
	out                string
	args               []string // the command line, for the report
	parts              []string // "sampling", "features"

	// The feature benchmark (features.go).
	self        string // this program, started under mpirun as the ranks; "" means os.Executable()
	fnodes      int
	fdegree     float64
	ffeatures   int
	fbulk       int
	fseeds      int
	fcache      float64
	fcalib      int
	fdiag       bool
	frepeats    int
	finterleave string
	flockstep   bool
	fgraphDir   string
	bind        string    // --bind: "none", "core" or "cpus:LIST"
	place       placement // --bind, parsed
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := benchutil.NewFlags("distbench", "go run ./benchmarks/distbench --bulksample PATH",
		"Runs `bulksample sample` under mpirun for replication factors c, pull, push and a replicated\n"+
			"graph, and compares the sampling bytes with the cost model.", stderr)
	c := &config{args: args}
	fs.StringVar(&c.bulksample, "bulksample", "", "bulksample binary built with the mpi tag (make build); required")
	fs.StringVar(&c.mpirun, "mpirun", "mpirun", "the MPI launcher")
	fs.IntVar(&c.scale, "scale", 22, "R-MAT scale (log2 vertices)")
	fs.IntVar(&c.np, "np", 4, "ranks p")
	reps := fs.String("replication", "1,2,4", "replication factors c (each must divide --np)")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch b")
	fs.IntVar(&c.bulk, "bulk", 64, "minibatches per bulk k")
	fs.IntVar(&c.seeds, "seeds", 0, "seeds sampled (0: one bulk, b·k)")
	fan := fs.String("fanout", "15,10,5", "fanouts")
	fs.Uint64Var(&c.seed, "seed", 1, "seed")
	fs.StringVar(&c.out, "out", "benchmarks/results/dist.md", "markdown report")
	parts := fs.String("parts", "sampling,features", "what to run: sampling (bulksample sample under mpirun), features (featurex.Dist); the features section is appended after the sampling one")
	fs.IntVar(&c.fnodes, "feature-nodes", 2_449_029, "vertices of the feature benchmark's planted-partition graph (default: ogbn-products')")
	fs.Float64Var(&c.fdegree, "feature-degree", 50, "average degree of that graph (default: ogbn-products', 123.7M stored edges)")
	fs.IntVar(&c.ffeatures, "features", 100, "features per vertex")
	fs.IntVar(&c.fbulk, "feature-bulk", 32, "minibatches per bulk of the feature benchmark")
	fs.IntVar(&c.fseeds, "feature-seeds", 3*32*1024, "training seeds of the feature benchmark's epoch, measured --feature-repeats times (default: 3 bulks of 32 minibatches of 1024; 0: the whole training split)")
	fs.IntVar(&c.frepeats, "feature-repeats", 5, "measurements of each feature row whose column has several ranks, each repetition running the rows in an order of its own")
	fs.StringVar(&c.finterleave, "feature-interleave", "c", "which feature rows a repetition runs in its own order: c (those of one replication factor, open together, one c after the other) or all (every c's at once: about twice the memory, 4 GB per rank at the default size)")
	fs.StringVar(&c.fgraphDir, "feature-graph-dir", "", "a directory where the feature benchmark keeps its planted-partition graph (named by its options) between runs: read if there, else generated and saved there (default: generated in a temporary directory and removed)")
	fs.StringVar(&c.bind, "bind", "none", "mpirun's placement of the ranks: none (any CPU, more ranks than CPUs allowed), core (a core of its own per rank, reported) or cpus:LIST (rank r pinned by taskset to the r-th CPU of LIST, several ranks to a CPU allowed: cpus:0,0,1,1 puts ranks 0 and 1 on CPU 0)")
	fs.Float64Var(&c.fcache, "cache", 0.05, "hot-vertex cache budget per rank, a fraction of all the feature bytes")
	fs.IntVar(&c.fcalib, "calibrate-floats", 1<<21, "float32 values per pair of the bandwidth calibration's all-to-all")
	fs.BoolVar(&c.flockstep, "feature-lockstep", false, "hold every rank at a barrier of the whole grid before each feature exchange and before its probes, as a data-parallel trainer's step does, so that the process columns exchange at the same time (default: each column at its own pace)")
	fs.BoolVar(&c.fdiag, "feature-diagnose", false, "replay each feature all-to-all on the probe buffers just before it and repeat it on its own buffers just after it (reported apart)")
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
	for p := range strings.SplitSeq(*parts, ",") {
		if p != "sampling" && p != "features" {
			return benchutil.ExitCode(benchutil.UsageError(fs, "--parts: %q is neither sampling nor features", p))
		}
		c.parts = append(c.parts, p)
	}
	if c.bulksample == "" && slices.Contains(c.parts, "sampling") {
		return benchutil.ExitCode(benchutil.UsageError(fs, "--bulksample is required for --parts sampling"))
	}
	switch {
	case c.fnodes < 1 || c.ffeatures < 1 || c.fbulk < 1 || c.fseeds < 0 || c.fcalib < 1 || c.frepeats < 1:
		return benchutil.ExitCode(benchutil.UsageError(fs, "--feature-nodes, --features, --feature-bulk, --feature-repeats and --calibrate-floats must be positive, --feature-seeds >= 0"))
	case c.finterleave != "c" && c.finterleave != "all":
		return benchutil.ExitCode(benchutil.UsageError(fs, "--feature-interleave %q: want c or all", c.finterleave))
	case c.fdegree <= 0 || c.fcache < 0 || c.fcache > 1:
		return benchutil.ExitCode(benchutil.UsageError(fs, "--feature-degree must be positive and --cache in [0, 1]"))
	}
	if c.place, err = parsePlacement(c.bind, c.np); err != nil {
		return benchutil.ExitCode(benchutil.UsageError(fs, "%v", err))
	}
	if c.seeds == 0 {
		c.seeds = c.batch * c.bulk
	}
	for _, rc := range c.reps {
		if c.np%rc != 0 {
			return benchutil.ExitCode(benchutil.UsageError(fs, "--replication %d does not divide --np %d", rc, c.np))
		}
	}
	if slices.Contains(c.parts, "sampling") {
		if err := bench(ctx, c, stdout, stderr); err != nil {
			return benchutil.Fail(stderr, "distbench", err)
		}
	}
	if slices.Contains(c.parts, "features") {
		if !slices.Contains(c.parts, "sampling") {
			// The section is appended: start the file afresh.
			if err := os.WriteFile(c.out, []byte("# Distributed training: communication (distbench)\n"), 0o644); err != nil {
				return benchutil.Fail(stderr, "distbench", err)
			}
		}
		if err := featureBench(ctx, c, stdout, stderr); err != nil {
			return benchutil.Fail(stderr, "distbench", err)
		}
	}
	return 0
}

// result is one mpirun run's figures, from its --json summary.
type result struct {
	c                  int
	fetch              string
	bytes, maxBytes    int64
	msgs, maxMsgs      int64
	seconds, seps      float64
	peakRSS            int64
	modelBytes         float64
	wall               time.Duration
	sampledEdges       int64
	digest, oneProcess string
}

func bench(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "distbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	graph := filepath.Join(tmp, fmt.Sprintf("rmat%d.bsg", c.scale))
	t0 := time.Now()
	if out, err := exec.CommandContext(ctx, c.bulksample, "gen", "rmat", "--scale", strconv.Itoa(c.scale), "--out", graph).CombinedOutput(); err != nil {
		return fmt.Errorf("gen: %v\n%s", err, out)
	}
	fmt.Fprintf(stderr, "distbench: R-MAT scale %d generated in %.1fs\n", c.scale, time.Since(t0).Seconds())
	d, err := dataset.Load(graph, nil)
	if err != nil {
		return err
	}
	common := []string{"sample", "--graph", graph, "--batch", strconv.Itoa(c.batch), "--bulk", strconv.Itoa(c.bulk),
		"--seeds", strconv.Itoa(c.seeds), "--fanout", benchutil.JoinInts(c.fanouts), "--seed", strconv.FormatUint(c.seed, 10),
		"--digest", "--json", "--threads", "1"}
	one, err := benchutil.RunJSON[cliout.DistSample](exec.CommandContext(ctx, c.bulksample, common...))
	if err != nil {
		return fmt.Errorf("one process: %w", err)
	}
	model, err := costModel(ctx, d.Adj, c)
	if err != nil {
		return err
	}
	load, _ := benchutil.LoadAverages()
	var rows []result
	for _, rc := range c.reps {
		if c.np%rc != 0 {
			return fmt.Errorf("--replication %d does not divide --np %d", rc, c.np)
		}
		for _, fetch := range []string{"pull", "push", "replicated"} {
			args := append(slices.Clone(common), "--replication", strconv.Itoa(rc))
			if fetch == "replicated" {
				args = append(args, "--replicate-graph")
			} else {
				args = append(args, "--fetch", fetch)
			}
			cmd := mpirunCommand(ctx, c.mpirun, c.np, c.place, c.bulksample, args...)
			start := time.Now()
			s, err := benchutil.RunJSON[cliout.DistSample](cmd)
			if err != nil {
				return fmt.Errorf("mpirun -np %d --replication %d %s: %w", c.np, rc, fetch, err)
			}
			ph := s.Traffic["sample"]
			r := result{c: rc, fetch: fetch, bytes: ph.BytesSent, maxBytes: ph.BytesSentMax, msgs: ph.Messages, maxMsgs: ph.MessagesMax,
				seconds: s.Seconds, seps: s.SEPS, peakRSS: s.PeakRSSMax, wall: time.Since(start), sampledEdges: s.SampledEdges,
				digest: s.Digest, oneProcess: one.Digest, modelBytes: model.bytes(fetch, c.np, rc)}
			fmt.Fprintf(stderr, "distbench: c=%d %-10s %12d bytes (model %.0f), %.1fs\n", rc, fetch, r.bytes, r.modelBytes, r.wall.Seconds())
			rows = append(rows, r)
		}
	}
	text := report(c, d.Adj, rows, model, load)
	return benchutil.Report{Program: "distbench", Path: c.out, Text: text}.Write(stdout, stderr)
}

// modelInputs are the sums over ranks, layers and bulks of the model's
// inputs.
type modelInputs struct {
	distinct, degSum float64 // Σ D_l, Σ deg over D_l
	rows, pickSum    float64 // Σ N_l, Σ min(s_l, deg) over the rows
	bulks, layers    int
}

// bytes returns the model's total sampling bytes over all ranks.
func (m *modelInputs) bytes(fetch string, p, c int) float64 {
	if fetch == "replicated" {
		return 0
	}
	// The sums are over ranks: every rank sends the headers.
	header := float64(p) * distsample.SampleHeaderBytes(p, c, (m.layers+1)*m.bulks)
	if fetch == "pull" {
		return distsample.PullSampleBytes(p, c, m.distinct, m.degSum) + header
	}
	return distsample.PushSampleBytes(p, c, m.rows, m.pickSum) + header
}

// costModel samples the minibatches of each rank in one process (the
// sample is the same, docs/design.md 3.3) and sums the model's inputs.
func costModel(ctx context.Context, a *spgemm.CSR, c *config) (*modelInputs, error) {
	vertices := make([]int32, a.Rows)
	for i := range vertices {
		vertices[i] = int32(i)
	}
	plan, err := sampling.NewPlan(vertices, sampling.PlanOptions{BatchSize: c.batch, BulkSize: c.bulk, Seed: c.seed})
	if err != nil {
		return nil, err
	}
	ep := plan.Epoch(0)
	ep.Truncate(c.seeds)
	nw, err := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: c.fanouts, Seed: c.seed})
	if err != nil {
		return nil, err
	}
	m := &modelInputs{layers: len(c.fanouts), bulks: ep.NumBulks()}
	seen := make([]bool, a.Rows)
	deg := func(v int32) float64 { return float64(a.Indptr[v+1] - a.Indptr[v]) }
	for i := range ep.NumBulks() {
		first, seeds := ep.Bulk(i)
		for r := range c.np {
			lo, hi := dist.BlockRange(len(seeds), c.np, r)
			b, err := nw.SampleBulk(ctx, 0, first+lo, seeds[lo:hi])
			if err != nil {
				return nil, err
			}
			for l, s := range c.fanouts {
				var touched []int32
				for mb := range b.Len() {
					blk := b.Minibatch(mb).Blocks[l]
					for _, v := range blk.Dst() {
						m.rows++
						m.pickSum += math.Min(float64(s), deg(v))
						if !seen[v] {
							seen[v] = true
							touched = append(touched, v)
						}
					}
				}
				for _, v := range touched {
					m.distinct++
					m.degSum += deg(v)
					seen[v] = false
				}
			}
			// Read: the sampler reuses its arrays for the next bulk.
			b.Release()
		}
	}
	return m, nil
}

func report(c *config, a *spgemm.CSR, rows []result, m *modelInputs, load [3]string) string {
	var b strings.Builder
	mc := benchutil.ThisMachine(1)
	fmt.Fprintf(&b, "# Distributed sampling: communication (distbench)\n\n")
	fmt.Fprintf(&b, "R-MAT scale %d (%d vertices, %d stored edges), b = %d, fanouts %s, k = %d, %d seeds (%d bulk(s)), "+
		"p = %d ranks under `mpirun --oversubscribe`, 1 thread per rank. %s, %d logical CPUs, %s, %s; load average at start %s %s %s.\n\n",
		c.scale, a.Rows, a.NNZ(), c.batch, benchutil.JoinInts(c.fanouts), c.bulk, c.seeds, m.bulks, c.np, mc.CPU, mc.Cores, mc.Go, mc.Date, load[0], load[1], load[2])
	fmt.Fprintf(&b, "Command: `distbench %s` (`make bench` runs it on a bulksample built with the mpi tag).\n\n", strings.Join(c.args, " "))
	fmt.Fprintf(&b, "Bytes and messages are those of the sampling phase (dist.PhaseSample), summed over ranks and of the busiest rank; "+
		"the model is the cost model of benchmarks/distbench (package doc), evaluated on the frontiers of this very sample. "+
		"Every run's digest equals the single-process digest.\n\n")
	b.WriteString("| c | fetch | bytes (all ranks) | bytes (max rank) | messages (all / max) | model bytes | model error | sampling s (max rank) | SEPS | peak RSS (max rank) | digest |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		errS := "–"
		if r.bytes > 0 {
			errS = fmt.Sprintf("%+.1f%%", 100*(r.modelBytes-float64(r.bytes))/float64(r.bytes))
		}
		ok := "= 1 process"
		if r.digest != r.oneProcess {
			ok = "DIFFERS"
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d / %d | %.0f | %s | %.2f | %.2fM | %d MiB | %s |\n",
			r.c, r.fetch, r.bytes, r.maxBytes, r.msgs, r.maxMsgs, r.modelBytes, errS, r.seconds, r.seps/1e6, r.peakRSS>>20, ok)
	}
	b.WriteString("\nPush / pull sampling bytes:")
	for _, rc := range c.reps {
		var pull, push int64
		for _, r := range rows {
			if r.c == rc && r.fetch == "pull" {
				pull = r.bytes
			}
			if r.c == rc && r.fetch == "push" {
				push = r.bytes
			}
		}
		if pull > 0 {
			fmt.Fprintf(&b, " c = %d: %.3f;", rc, float64(push)/float64(pull))
		}
	}
	b.WriteString(" (the goal of issue 10 is at most 0.3 at fanout 15).\n\n")
	b.WriteString("Cost model, in 4-byte words sent per rank (as requester and as owner, equal in expectation), with N_l the rank's " +
		"expanded frontier rows at layer l, D_l the distinct vertices among them, s_l the fanout and q = p/c the ranks of its process " +
		"column (a vertex is remote with probability 1 - c/p; R-MAT ids are permuted):\n\n" +
		"    pull: (1 - c/p) · Σ_l (2·D_l + Σ_{v∈D_l} deg v)            ids out, lengths and rows back\n" +
		"    push: (1 - c/p) · Σ_l (3·N_l + Σ_{rows} min(s_l, deg v))   (id, minibatch) out, counts and picks back\n\n" +
		"plus 12 words of header to each of the q - 1 others per exchange round (L rounds and a closing one per bulk); nothing with a " +
		"replicated graph. Pull pays the degree of every distinct row, push the fanout of every row: push wins when the sampled " +
		"vertices' degrees exceed the fanout by more than the duplication N/D, which frontier sampling makes likely (neighbours " +
		"are reached in proportion to their degree).")
	fmt.Fprintf(&b, "\n\nModel inputs (sums over ranks, layers and bulks): Σ N_l = %.0f rows, Σ D_l = %.0f distinct rows, "+
		"Σ deg over D_l = %.0f, Σ min(s_l, deg) = %.0f.\n", m.rows, m.distinct, m.degSum, m.pickSum)
	return b.String()
}
