package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

func main() { benchutil.Main(run) }

// config is the parsed command line.
type config struct {
	scale, batch, ladiesBatch int
	fanouts, ks, ladiesK      []int
	budgets                   []int
	stepBatch, stepHidden     int
	stepFeatures, stepNodes   int
	gatherRows                int
	seed                      uint64
	check, json, kernels      bool
	out                       string
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("gpucost", "go run ./benchmarks/gpucost",
		"Runs bulk sampling and a training step on the host emulator and prints what each costs:\n"+
			"launches, blocking copies, allocations, bytes copied, global memory traffic per sampled edge.", stderr)
	c := &config{}
	fs.IntVar(&c.scale, "scale", 15, "R-MAT scale of the sampled graph: 2^scale vertices, edge factor 16")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch, node-wise")
	fanouts := fs.String("fanouts", "15,10,5", "node-wise fanouts, seeds' layer first")
	ks := fs.String("k", "1,16,64,256", "node-wise bulk sizes")
	fs.IntVar(&c.ladiesBatch, "ladies-batch", 512, "seeds per minibatch, LADIES")
	budgets := fs.String("budgets", "512,512", "LADIES' columns per layer")
	ladiesK := fs.String("ladies-k", "1,16", "LADIES bulk sizes")
	fs.IntVar(&c.gatherRows, "gather-rows", 4096, "rows of Q in the row-gather product Q·A")
	fs.IntVar(&c.stepNodes, "step-nodes", 4096, "vertices of the training step's planted-partition graph")
	fs.IntVar(&c.stepBatch, "step-batch", 256, "seeds of the training step's minibatch")
	fs.IntVar(&c.stepHidden, "step-hidden", 32, "hidden width of the training step's GraphSAGE")
	fs.IntVar(&c.stepFeatures, "step-features", 32, "features per vertex of the training step's graph")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graphs, the seeds and the samplers")
	fs.BoolVar(&c.check, "check", false, "exit 1 when a goal of issue 41 fails (see the package documentation)")
	fs.BoolVar(&c.kernels, "kernels", false, "also print each run's costs per kernel")
	fs.StringVar(&c.out, "out", "", "file to write the markdown table to; empty for none")
	fs.BoolVar(&c.json, "json", false, "print the rows as one JSON object on the last line of standard output")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) (*config, error) { return nil, benchutil.UsageError(fs, format, a...) }
	var err error
	if c.fanouts, err = benchutil.ParseInts(*fanouts, 1); err != nil {
		return bad("--fanouts: %v", err)
	}
	if c.ks, err = benchutil.ParseInts(*ks, 1); err != nil {
		return bad("--k: %v", err)
	}
	if c.ladiesK, err = benchutil.ParseInts(*ladiesK, 1); err != nil {
		return bad("--ladies-k: %v", err)
	}
	if c.budgets, err = benchutil.ParseInts(*budgets, 1); err != nil {
		return bad("--budgets: %v", err)
	}
	if c.scale < 4 || c.scale > 24 {
		return bad("--scale %d: want 4 to 24 (the emulator is slow)", c.scale)
	}
	if c.batch < 1 || c.ladiesBatch < 1 || c.stepBatch < 1 || c.stepHidden < 1 || c.stepFeatures < 1 || c.stepNodes < c.stepBatch || c.gatherRows < 1 {
		return bad("--batch, --ladies-batch, --gather-rows, --step-batch, --step-hidden and --step-features must be positive, --step-nodes at least --step-batch")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	rows, err := measure(ctx, c, stderr)
	if err != nil {
		return benchutil.Fail(stderr, "gpucost", err)
	}
	text := table(c, rows)
	if c.kernels {
		text += kernelTables(rows)
	}
	fmt.Fprint(stdout, text)
	if c.out != "" {
		if err := os.WriteFile(c.out, []byte(text), 0o644); err != nil {
			return benchutil.Fail(stderr, "gpucost", err)
		}
	}
	fails := goals(rows)
	for _, f := range fails {
		fmt.Fprintf(stdout, "goal failed: %s\n", f)
	}
	if len(fails) == 0 {
		fmt.Fprintln(stdout, "every goal met")
	}
	if c.json {
		if err := benchutil.WriteJSON(stdout, map[string]any{"rows": rows, "failed": fails}); err != nil {
			return benchutil.Fail(stderr, "gpucost", err)
		}
	}
	if c.check && len(fails) > 0 {
		return 1
	}
	return 0
}

// row is one measured call: a bulk or a training step.
type row struct {
	Kind   string `json:"kind"` // "node", "ladies", "fastgcn" or "step"
	K      int    `json:"k"`    // minibatches of the bulk (1 for a step)
	Layers int    `json:"layers"`
	gpu.Costs
	Edges int64 `json:"sampled_edges"`
}

// perLayer returns x per layer.
func (r row) perLayer(x int64) float64 { return float64(x) / float64(max(r.Layers, 1)) }

// bytesPerEdge returns the traffic per sampled edge (0 without edges).
func (r row) bytesPerEdge() float64 {
	if r.Edges == 0 {
		return 0
	}
	return float64(r.Traffic()) / float64(r.Edges)
}

// perThreadWork is the most bytes a thread of a launch of at most k+1
// threads may move for the launch not to count as work run one thread per
// minibatch (a minibatch's sizes and offsets are a few words).
const perThreadWork = 1024

// blockThreadWork is the most bytes one thread of a kernel with a block
// per minibatch may move between two barriers: a minibatch's work done by
// one thread of its block (a row of P's serial pass) moves far more.
const blockThreadWork = 4 << 10

// blockSize is the threads of a block kernel's block (package kernels).
const blockSize = 256

// blockPerMinibatch returns the kernels of the rows of kind that ran a
// block per minibatch at every k measured (blockSize·k threads a launch):
// a row-tiled kernel's tiles follow the rows, and differ. It needs two
// values of k to tell the two apart (at k = 1 a one-tile kernel has a
// minibatch's block too), and returns none with fewer.
func blockPerMinibatch(rows []row, kind string) map[string]bool {
	ks := map[int]bool{}
	for _, r := range rows {
		if r.Kind == kind {
			ks[r.K] = true
		}
	}
	if len(ks) < 2 {
		return nil
	}
	out := map[string]bool{}
	for _, r := range rows {
		if r.Kind != kind {
			continue
		}
		for name, kc := range r.Kernels {
			if _, seen := out[name]; !seen {
				out[name] = true
			}
			out[name] = out[name] && kc.Threads == blockSize*int64(r.K)*kc.Launches
		}
	}
	return out
}

// perMinibatchKernels returns the kernels of r whose work ran one thread
// per minibatch: launches of at most k+1 threads that moved more than
// perThreadWork bytes a thread, or kernels of a block per minibatch
// (perMB) one of whose threads moved more than blockThreadWork between
// two barriers.
func (r row) perMinibatchKernels(perMB map[string]bool) []string {
	var out []string
	for name, kc := range r.Kernels {
		if kc.Launches == 0 {
			continue
		}
		if kc.Threads <= int64(r.K+1)*kc.Launches && (kc.Read+kc.Written)/max(kc.Threads, 1) > perThreadWork ||
			perMB[name] && kc.MaxThread > blockThreadWork {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func measure(ctx context.Context, c *config, stderr io.Writer) ([]row, error) {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: c.scale, Seed: c.seed})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "gpucost: R-MAT %d: %d vertices, %d entries\n", c.scale, a.Rows, a.NNZ())
	var rows []row
	for _, k := range c.ks {
		r, err := measureBulk(ctx, a, "node", k, c.batch, c.seed, func(d *gpu.Device) (gpu.Sampler, error) {
			return gpu.NewNodeWise(d, a, sampling.NodeWiseOptions{Fanouts: c.fanouts, Seed: c.seed})
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
		fmt.Fprintf(stderr, "gpucost: node-wise k = %d: %d sampled edges\n", k, r.Edges)
	}
	norm := spgemm.SymNormalizeWithSelfLoops(a, 0) // FastGCN's operator (LADIES normalises its own: Normalize)
	for _, m := range []sampling.LayerWiseMethod{sampling.LADIES, sampling.FastGCN} {
		kind := strings.ToLower(m.String())
		for _, k := range c.ladiesK {
			r, err := measureBulk(ctx, a, kind, k, c.ladiesBatch, c.seed, func(d *gpu.Device) (gpu.Sampler, error) {
				if m == sampling.FastGCN {
					return gpu.NewLayerWise(d, norm, sampling.LayerWiseOptions{Method: m, Budgets: c.budgets, Seed: c.seed})
				}
				return gpu.NewLayerWise(d, a, sampling.LayerWiseOptions{Method: m, Budgets: c.budgets, Normalize: true, Seed: c.seed})
			})
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
			fmt.Fprintf(stderr, "gpucost: %s k = %d: %d sampled edges\n", kind, k, r.Edges)
		}
	}
	qa, err := measureGather(a, c.gatherRows, c.seed)
	if err != nil {
		return nil, err
	}
	rows = append(rows, qa)
	r, err := measureStep(ctx, c)
	if err != nil {
		return nil, err
	}
	return append(rows, r), nil
}

// measureGather runs the row-gather product Q·A of n random rows of a
// three times on a fresh emulator and returns the costs of the third; its
// "sampled edges" are C's entries.
func measureGather(a *spgemm.CSR, n int, seed uint64) (row, error) {
	dev := gpu.NewEmulator(gpu.EmulatorOptions{MemoryBytes: 16 << 30})
	defer dev.Close()
	sel, err := sampling.RandomRows(a.Rows, n, seed)
	if err != nil {
		return row{}, err
	}
	pr, err := dev.NewProduct(sampling.QPerEntry([][]int32{sel}, a.Rows), a, gpu.ProductOptions{})
	if err != nil {
		return row{}, err
	}
	defer pr.Close()
	for range 3 {
		dev.ResetCosts()
		if err := pr.Run(); err != nil {
			return row{}, err
		}
	}
	return row{Kind: "qa", K: 1, Layers: 1, Costs: dev.Costs(), Edges: pr.NNZ()}, nil
}

// minibatchSeeds returns k minibatches of b distinct vertices of 0..n-1
// each (min(b, n)), drawn with seed.
func minibatchSeeds(n, k, b int, seed uint64) [][]int32 {
	rng := rand.New(rand.NewPCG(seed, 41))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	out := make([][]int32, k)
	for m := range out {
		for i := range min(b, n) { // a partial Fisher-Yates shuffle
			j := i + rng.IntN(n-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		out[m] = slices.Clone(perm[:min(b, n)])
	}
	return out
}

// measureBulk samples three bulks of k minibatches of b seeds on a fresh
// emulator with the sampler of mk and returns the costs of the third: the
// first two make the buffers.
func measureBulk(ctx context.Context, a *spgemm.CSR, kind string, k, b int, seed uint64, mk func(*gpu.Device) (gpu.Sampler, error)) (row, error) {
	dev := gpu.NewEmulator(gpu.EmulatorOptions{MemoryBytes: 16 << 30})
	defer dev.Close()
	s, err := mk(dev)
	if err != nil {
		return row{}, err
	}
	defer s.Close()
	var db *gpu.DeviceBulk
	for i := range 3 {
		seeds := minibatchSeeds(a.Rows, k, b, seed+uint64(i))
		dev.ResetCosts()
		if db, err = s.SampleDevice(ctx, 0, i*k, seeds); err != nil {
			return row{}, fmt.Errorf("%s, k = %d: %w", kind, k, err)
		}
	}
	return row{Kind: kind, K: k, Layers: s.NumLayers(), Costs: dev.Costs(), Edges: db.SampledEdges()}, nil
}

// stepEpochs is how many epochs measureStep trains: the first grow every
// buffer, the last's warm steps are measured.
const stepEpochs = 3

// measureStep trains GraphSAGE through package train's device path (the
// device's sampler through train.Options.NewSampler, its backend, the
// features resident: what `train --device cuda` runs), one bulk an
// epoch, and returns the costs of the last epoch's second step: a warm
// step, which samples and evaluates nothing. Its edges are the mean
// sampled edges of the epoch's minibatches.
func measureStep(ctx context.Context, c *config) (_ row, err error) {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: c.stepNodes, Classes: 8, Features: c.stepFeatures,
		Split: "random:0.5,0.2,0.3", Seed: c.seed})
	if err != nil {
		return row{}, err
	}
	dev := gpu.NewEmulator(gpu.EmulatorOptions{MemoryBytes: 16 << 30})
	defer dev.Close()
	be, err := gpu.NewBackend(dev, gpu.BackendOptions{})
	if err != nil {
		return row{}, err
	}
	defer be.Close()
	perEpoch := (len(ds.Train) + c.stepBatch - 1) / c.stepBatch
	if perEpoch < 2 {
		return row{}, fmt.Errorf("gpucost: the step: %d training vertices make one minibatch of %d; want at least two (a warm one)", len(ds.Train), c.stepBatch)
	}
	var warm, last gpu.Costs
	opt := train.Options{Sampler: sampling.SamplerOptions{Fanouts: c.fanouts},
		Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: c.stepHidden, Dropout: 0.5},
			Plan: train.PlanOptions{BatchSize: c.stepBatch, BulkSize: perEpoch, Epochs: stepEpochs}, Seed: c.seed,
			Runtime: train.RuntimeOptions{Backend: be, PipelineDepth: 1, NoEval: true},
			Hooks: train.Hooks{OnMinibatch: func(epoch, done, _ int) {
				now := dev.Costs()
				if epoch == stepEpochs-1 && done == 2 {
					warm = now.Sub(last)
				}
				last = now
			}}},
		NewSampler: func(a *spgemm.CSR, so sampling.SamplerOptions) (sampling.Sampler, error) {
			return gpu.NewSampler(dev, a, so)
		}}
	job, err := train.New(ds, opt)
	if err != nil {
		return row{}, err
	}
	defer func() { err = errors.Join(err, job.Close()) }()
	if !job.Trainer.DevicePath() {
		return row{}, fmt.Errorf("gpucost: the step is not on the trainer's device path")
	}
	res, err := job.Trainer.Run(ctx, nil)
	if err != nil {
		return row{}, err
	}
	edges := res.Epochs[len(res.Epochs)-1].SampledEdges / int64(perEpoch)
	return row{Kind: "step", K: 1, Layers: len(c.fanouts), Costs: warm, Edges: edges}, nil
}

// table writes the rows as a markdown table.
func table(c *config, rows []row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Costs on the host emulator (package gpu's Costs), warm: R-MAT %d (edge factor 16, symmetrised), node-wise "+
		"b = %d, fanouts %s; LADIES and FastGCN on the normalised adjacency, b = %d, budgets %s; the step: a warm step "+
		"of GraphSAGE, %d layers, hidden %d, through package train's device path (train --device cuda's) on a %d-vertex "+
		"planted-partition graph with %d features, b = %d, its sampled edges the mean of the epoch's minibatches; Q·A: the row gather of %d random rows of the graph. Traffic: the global memory the sampling kernels' loads and stores declare (element sizes); the GNN "+
		"backend's kernels are not counted.\n\n",
		c.scale, c.batch, benchutil.JoinInts(c.fanouts), c.ladiesBatch, benchutil.JoinInts(c.budgets), len(c.fanouts), c.stepHidden,
		c.stepNodes, c.stepFeatures, c.stepBatch, c.gatherRows)
	b.WriteString("| run | k | launches | per layer | blocking copies | per layer | uploads | allocations | bytes to device | bytes to host | sampled edges | traffic (MB) | bytes per edge |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		traffic, perEdge := fmt.Sprintf("%.2f", float64(r.Traffic())/1e6), fmt.Sprintf("%.1f", r.bytesPerEdge())
		kind := r.Kind
		if kind == "qa" {
			kind = "Q·A (entries of C)"
		}
		if r.Kind == "step" {
			traffic, perEdge = "-", "-"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f | %d | %.1f | %d | %d | %d | %d | %d | %s | %s |\n", kind, r.K, r.Launches,
			r.perLayer(r.Launches), r.Downloads, r.perLayer(r.Downloads), r.Uploads, r.Allocs, r.UploadBytes, r.DownloadBytes,
			r.Edges, traffic, perEdge)
	}
	for _, r := range rows {
		if pm := r.perMinibatchKernels(blockPerMinibatch(rows, r.Kind)); len(pm) > 0 && r.Kind != "step" {
			fmt.Fprintf(&b, "\n%s at k = %d: work run one thread per minibatch in %s.", r.Kind, r.K, strings.Join(pm, ", "))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// kernelTables writes each run's costs per kernel.
func kernelTables(rows []row) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "\n%s, k = %d:\n\n| kernel | launches | threads | read (B) | written (B) | bytes per edge | most by one thread between barriers (B) |\n|---|---:|---:|---:|---:|---:|---:|\n", r.Kind, r.K)
		names := make([]string, 0, len(r.Kernels))
		for name := range r.Kernels {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			kc := r.Kernels[name]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f | %d |\n", name, kc.Launches, kc.Threads, kc.Read, kc.Written,
				float64(kc.Read+kc.Written)/float64(max(r.Edges, 1)), kc.MaxThread)
		}
	}
	return b.String()
}

// goals returns the goals of issue 41 that rows fail, one line each.
func goals(rows []row) []string {
	var fails []string
	var nodeLaunches []int64
	for _, r := range rows {
		name := fmt.Sprintf("%s at k = %d", r.Kind, r.K)
		if r.Allocs > 0 {
			fails = append(fails, fmt.Sprintf("%s: %d allocations in a warm call (want none)", name, r.Allocs))
		}
		switch r.Kind {
		case "node":
			nodeLaunches = append(nodeLaunches, r.Launches)
			if r.perLayer(r.Launches) > 6 {
				fails = append(fails, fmt.Sprintf("%s: %.1f launches per layer (want at most 6)", name, r.perLayer(r.Launches)))
			}
			if r.Downloads > int64(r.Layers) {
				fails = append(fails, fmt.Sprintf("%s: %d blocking copies for %d layers (want at most one a layer)", name, r.Downloads, r.Layers))
			}
			if pe := r.bytesPerEdge(); pe > 100 {
				fails = append(fails, fmt.Sprintf("%s: %.1f bytes of global memory per sampled edge (want at most 100)", name, pe))
			}
		case "step":
			if r.Syncs > 0 {
				fails = append(fails, fmt.Sprintf("%s: %d device-wide syncs in a warm step (want none: it waits for its own stream)", name, r.Syncs))
			}
		case "ladies":
			if pm := r.perMinibatchKernels(blockPerMinibatch(rows, r.Kind)); len(pm) > 0 {
				fails = append(fails, fmt.Sprintf("%s: work run one thread per minibatch in %s", name, strings.Join(pm, ", ")))
			}
		}
	}
	if len(nodeLaunches) > 1 && slices.Min(nodeLaunches) != slices.Max(nodeLaunches) {
		fails = append(fails, fmt.Sprintf("node-wise launches per bulk depend on k: %v", nodeLaunches))
	}
	return fails
}
