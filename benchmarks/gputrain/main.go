// Command gputrain measures GraphSAGE training on an NVIDIA GPU (issue 29,
// the training part of the GPU bundle): bulksample's step and its phases,
// an end-to-end epoch, and the CPU backend's step on the same minibatches,
// printing one JSON line per measurement for scripts/gpu-run.sh, which
// sets them beside the PyTorch Geometric peers (benchmarks/gpupeer) in one
// run.
//
// Usage:
//
//	gputrain --mode step  [--nodes 150000] [--minibatches 8] [--steps 20] [--cpu-threads 16] [--export DIR]
//	gputrain --mode epoch [--nodes 2449029] [--bulk 64] [--epochs 2] [--export DIR]
//
// Both build a planted-partition graph (dataset.PlantedPartition: 47
// classes, 100 features, average degree 50, 8% training vertices; the
// shape of ogbn-products at --nodes 2449029) and train a 3-layer GraphSAGE
// (hidden 256, fanouts 15,10,5, batch 1024, dropout 0.5, Adam lr 0.01).
//
// step: samples --minibatches minibatches in one bulk with the GPU sampler
// (the blocks stay on the device; the time of the bulk divided by its
// minibatches is the sample phase), keeps the feature matrix in device
// memory, and takes --warmup and then --steps timed steps cycling through
// the minibatches: gather (the input rows by a kernel), forward (with the
// loss), backward, update, each ended by a synchronisation. With
// --cpu-threads it then times the CPU backend's step on the same
// minibatches (downloaded, features gathered on the host) and reports the
// largest difference of the two backends' logits of minibatch 0 without
// dropout. --export writes the minibatches, the feature matrix and the
// initial parameters for the peer (gpupeer/pyg_step.py, the format below).
//
// epoch: trains --epochs epochs end to end through package train, the
// path `bulksample train --device cuda` takes: train.New with the GPU's
// sampler (train.Options.NewSampler: gpu.NewSampler) and backend, the
// features resident in device memory, so that the trainer takes its device
// path (Trainer.DevicePath: bulks of --bulk sampled, their blocks formed
// and their input rows gathered on the device, the next bulk sampled while
// the current one trains), without evaluation. Each epoch's times are the
// trainer's (train.EpochStats: the epoch's wall time and its phases);
// --export writes the graph, features, labels and training vertices for
// the peer (gpupeer/pyg_epoch.py), before training.
//
// --emulator runs on the host emulator instead of a GPU (tiny sizes only:
// for the tests of this program). The export format: a folder with
// manifest.json naming little-endian binary files (int64 row offsets,
// int32 ids, float32 values).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

func main() { benchutil.Main(run) }

type config struct {
	mode               string
	nodes, features    int
	classes            int
	degree, trainFrac  float64
	seed               uint64
	hidden             int
	fanouts            []int
	batch              int
	dropout            float64
	lr                 float64
	minibatches        int
	warmup, steps      int
	sampleReps         int
	cpuThreads         int
	bulk, epochs       int
	export             string
	emulator           bool
	genThreads, device int
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("gputrain", "gputrain --mode step|epoch",
		"Times bulksample's GraphSAGE training on an NVIDIA GPU (the step and its phases, or an epoch)\n"+
			"and prints JSON lines; see the package documentation.", stderr)
	c := &config{}
	fs.StringVar(&c.mode, "mode", "step", "step (the step and its phases on the same minibatches) or epoch (end to end)")
	fs.IntVar(&c.nodes, "nodes", 0, "vertices of the planted graph; 0 for 150000 (step) or 2449029, ogbn-products' (epoch)")
	fs.IntVar(&c.features, "features", 100, "features per vertex")
	fs.IntVar(&c.classes, "classes", 47, "classes")
	fs.Float64Var(&c.degree, "degree", 50, "average degree of the planted graph")
	fs.Float64Var(&c.trainFrac, "train", 0.08, "fraction of training vertices")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graph, the sampler, the plan and the weights")
	fs.IntVar(&c.hidden, "hidden", 256, "hidden width")
	fanout := fs.String("fanout", "15,10,5", "fanouts, the seeds' layer first")
	fs.IntVar(&c.batch, "batch", 1024, "minibatch size")
	fs.Float64Var(&c.dropout, "dropout", 0.5, "dropout")
	fs.Float64Var(&c.lr, "lr", 0.01, "Adam's learning rate")
	fs.IntVar(&c.minibatches, "minibatches", 8, "step: minibatches sampled (one bulk) and cycled through")
	fs.IntVar(&c.warmup, "warmup", 5, "step: untimed steps first")
	fs.IntVar(&c.steps, "steps", 20, "step: timed steps")
	fs.IntVar(&c.sampleReps, "sample-reps", 5, "step: times the bulk is sampled (the median is reported)")
	fs.IntVar(&c.cpuThreads, "cpu-threads", 0, "step: also time the CPU backend's step with this many threads; 0: no")
	fs.IntVar(&c.bulk, "bulk", 64, "epoch: minibatches per bulk k")
	fs.IntVar(&c.epochs, "epochs", 2, "epoch: epochs, each timed (the first includes the libraries' warm-up)")
	fs.StringVar(&c.export, "export", "", "write what the PyTorch Geometric peer needs into this folder")
	fs.BoolVar(&c.emulator, "emulator", false, "run on the host emulator (tiny sizes; tests)")
	fs.IntVar(&c.genThreads, "gen-threads", 0, "threads of the graph's generation and the host gathers; 0 for GOMAXPROCS")
	fs.IntVar(&c.device, "device", 0, "CUDA device ordinal")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	var err error
	if c.fanouts, err = benchutil.ParseInts(*fanout, 1); err != nil {
		return nil, benchutil.UsageError(fs, "--fanout %q: %v", *fanout, err)
	}
	switch {
	case c.mode != "step" && c.mode != "epoch":
		return nil, benchutil.UsageError(fs, "--mode %q: want step or epoch", c.mode)
	case c.nodes < 0 || c.nodes > 0 && c.nodes < 100:
		return nil, benchutil.UsageError(fs, "--nodes %d: want >= 100", c.nodes)
	case c.minibatches < 1 || c.steps < 1 || c.warmup < 0 || c.sampleReps < 1 || c.bulk < 1 || c.epochs < 1:
		return nil, benchutil.UsageError(fs, "--minibatches, --steps, --sample-reps, --bulk and --epochs must be >= 1, --warmup >= 0")
	case !(c.trainFrac > 0 && c.trainFrac < 0.9):
		return nil, benchutil.UsageError(fs, "--train %g: want in (0, 0.9)", c.trainFrac)
	}
	if c.nodes == 0 {
		c.nodes = map[string]int{"step": 150_000, "epoch": 2_449_029}[c.mode]
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	if err := bench(ctx, c, stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "gputrain", err)
	}
	return 0
}

// setup is what the modes train with: the graph, the device and the
// backend, and for step mode the device sampler, the device feature matrix
// and the plan (epoch mode's trainer makes its own).
type setup struct {
	ds      *dataset.Dataset
	genSec  float64
	dev     *gpu.Device
	be      *gpu.Backend
	sampler *gpu.NodeWise
	feats   *gpu.Features
	plan    *sampling.Plan
}

func (s *setup) close() {
	if s.sampler != nil {
		s.sampler.Close()
	}
	if s.feats != nil {
		s.feats.Close()
	}
	if s.be != nil {
		s.be.Close()
	}
	if s.dev != nil {
		s.dev.Close()
	}
}

func bench(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	s := &setup{}
	defer s.close()
	t0 := time.Now()
	var err error
	s.ds, err = dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: c.nodes, Classes: c.classes, Features: c.features,
		AvgDegree: c.degree, Split: fmt.Sprintf("random:%g,0.02,%g", c.trainFrac, 0.98-c.trainFrac), Seed: c.seed, Threads: c.genThreads})
	if err != nil {
		return err
	}
	s.genSec = time.Since(t0).Seconds()
	fmt.Fprintf(stderr, "gputrain: planted graph: %d vertices, %d stored edges, %d training vertices (%.1f s)\n",
		s.ds.NumNodes(), s.ds.Adj.NNZ(), len(s.ds.Train), s.genSec)
	if c.mode == "epoch" && c.export != "" {
		if err := exportGraph(c.export, s.ds); err != nil {
			return fmt.Errorf("--export: %w", err)
		}
	}
	if c.emulator {
		s.dev = gpu.NewEmulator(gpu.EmulatorOptions{MemoryBytes: 4 << 30})
	} else if s.dev, err = gpu.Open(c.device); err != nil {
		return err
	}
	if s.be, err = gpu.NewBackend(s.dev, gpu.BackendOptions{}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "gputrain: %s\n", s.be.Name())
	if c.mode == "epoch" {
		return epochMode(ctx, c, s, stdout, stderr)
	}
	if s.sampler, err = gpu.NewNodeWise(s.dev, s.ds.Adj, sampling.NodeWiseOptions{Fanouts: c.fanouts, Seed: c.seed}); err != nil {
		return err
	}
	if s.feats, err = gpu.NewFeatures(s.dev, s.ds.Features, s.ds.NumFeatures); err != nil {
		return err
	}
	if s.plan, err = sampling.NewPlan(s.ds.Train, sampling.PlanOptions{BatchSize: c.batch, BulkSize: c.minibatches, Seed: c.seed}); err != nil {
		return err
	}
	return stepMode(ctx, c, s, stdout, stderr)
}

// trainer is one model with its optimiser on a backend.
type trainer struct {
	be    gnn.Backend
	model *gnn.Model
	adam  *gnn.Adam
	d     gnn.Buf // dLogits
}

func newTrainer(c *config, be gnn.Backend, features, classes int) (*trainer, error) {
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: len(c.fanouts), Hidden: c.hidden, InFeatures: features,
		Classes: classes, Dropout: float32(c.dropout), Seed: c.seed, Backend: be})
	if err != nil {
		return nil, err
	}
	adam, err := gnn.NewAdam(len(m.Params()), gnn.AdamOptions{LR: c.lr})
	if err != nil {
		return nil, err
	}
	return &trainer{be: be, model: m, adam: adam}, nil
}

// phases are per-step seconds.
type phases struct{ gather, forward, backward, update []float64 }

func (p *phases) step(i int) float64 { return p.forward[i] + p.backward[i] + p.update[i] }

// deviceStep trains one step on the device minibatch dmb (whose host seeds
// and labels are given), synchronising after each phase, and appends the
// phases' times (gather included) to ph when not nil. It returns the loss.
func (tr *trainer) deviceStep(s *setup, dmb *gpu.DeviceMinibatch, seeds, labels []int32, pass gnn.Pass, xcap *gnn.Buf, ph *phases) (float64, error) {
	be := s.be
	t0 := time.Now()
	in := dmb.InputNodes()
	n := int(in.Len()) * s.feats.NumFeatures()
	if xcap.Len() < n {
		if xcap.Len() > 0 {
			be.Free(*xcap)
		}
		*xcap = be.Alloc(n + n/4)
	}
	xb := xcap.Slice(0, n)
	be.GatherRows(xb, s.feats, in)
	if err := be.Sync(); err != nil {
		return 0, err
	}
	t1 := time.Now()
	logits := tr.model.ForwardBuf(&sampling.Minibatch{Index: dmb.Index, Seeds: seeds}, gnn.Input{Buf: xb, Blocks: dmb.GNNBlocks()}, pass)
	if tr.d.Len() != logits.Len() {
		tr.d = be.Alloc(logits.Len())
	}
	loss, _, _ := be.SoftmaxCrossEntropy(tr.d, logits, tr.model.Options().Classes, labels)
	t2 := time.Now()
	tr.model.BackwardBuf(tr.d)
	if err := be.Sync(); err != nil {
		return 0, err
	}
	t3 := time.Now()
	tr.adam.StepOn(be, tr.model.ParamsBuf(), tr.model.GradsBuf())
	if err := be.Sync(); err != nil {
		return 0, err
	}
	t4 := time.Now()
	if ph != nil {
		ph.gather = append(ph.gather, t1.Sub(t0).Seconds())
		ph.forward = append(ph.forward, t2.Sub(t1).Seconds())
		ph.backward = append(ph.backward, t3.Sub(t2).Seconds())
		ph.update = append(ph.update, t4.Sub(t3).Seconds())
	}
	return loss, nil
}

// labelsOf returns the labels of seeds.
func labelsOf(ds *dataset.Dataset, seeds []int32) []int32 {
	y := make([]int32, len(seeds))
	featurex.Labels(y, ds.Labels, seeds)
	return y
}

// runInfo is what both modes' JSON lines start with.
type runInfo struct {
	Mode        string  `json:"mode"`
	Device      string  `json:"device"`
	Backend     string  `json:"backend"`
	Nodes       int     `json:"nodes"`
	StoredEdges int64   `json:"stored_edges"`
	GenSeconds  float64 `json:"gen_seconds"`
	// Fallbacks are the library calls the backend replaced by its own
	// kernels (gpu.Backend.Fallbacks); normally none.
	Fallbacks []string `json:"fallbacks,omitempty"`
}

func (s *setup) info(mode string) runInfo {
	return runInfo{Mode: mode, Device: s.dev.Name(), Backend: s.be.Name(), Nodes: s.ds.NumNodes(), StoredEdges: s.ds.Adj.NNZ(), GenSeconds: s.genSec}
}

// stepResult is step mode's JSON line.
type stepResult struct {
	runInfo
	Minibatches int     `json:"minibatches"`
	Steps       int     `json:"steps"`
	EdgesPerMB  float64 `json:"edges_per_minibatch"`
	InputsPerMB float64 `json:"inputs_per_minibatch"`
	// Median milliseconds per minibatch: sampling (the bulk's time over
	// its minibatches), gather, forward with the loss, backward, update,
	// and step = forward + backward + update.
	SampleMs   float64 `json:"sample_ms"`
	GatherMs   float64 `json:"gather_ms"`
	ForwardMs  float64 `json:"forward_ms"`
	BackwardMs float64 `json:"backward_ms"`
	UpdateMs   float64 `json:"update_ms"`
	StepMs     float64 `json:"step_ms"`
	Loss0      float64 `json:"loss0"`
	// The CPU backend on the same minibatches (--cpu-threads).
	CPUThreads    int     `json:"cpu_threads,omitempty"`
	CPUBLAS       string  `json:"cpu_blas,omitempty"`
	CPUForwardMs  float64 `json:"cpu_forward_ms,omitempty"`
	CPUBackwardMs float64 `json:"cpu_backward_ms,omitempty"`
	CPUUpdateMs   float64 `json:"cpu_update_ms,omitempty"`
	CPUStepMs     float64 `json:"cpu_step_ms,omitempty"`
	// MaxLogitDiff is the largest |GPU - CPU| logit of minibatch 0 without
	// dropout, from the same initial weights.
	MaxLogitDiff float64 `json:"max_logit_diff_cpu,omitempty"`
}

func ms(x []float64) float64 { return stats.Median(x) * 1e3 }

func stepMode(ctx context.Context, c *config, s *setup, stdout, stderr io.Writer) error {
	first, seeds := s.plan.Epoch(0).Bulk(0)
	res := stepResult{runInfo: s.info("step")}
	var sampleSec []float64
	var db *gpu.DeviceBulk
	for range c.sampleReps {
		t0 := time.Now()
		var err error
		if db, err = s.sampler.SampleDevice(ctx, 0, first, seeds); err != nil {
			return err
		}
		sampleSec = append(sampleSec, time.Since(t0).Seconds()/float64(db.Len()))
	}
	// The minibatches with a full batch of seeds (a short last one would
	// skew the medians), their host seeds and labels.
	var mbs []gpu.DeviceMinibatch
	var hostSeeds, labels [][]int32
	var edges, inputs float64
	for i := range db.Len() {
		dmb := db.Minibatch(i)
		if int(dmb.Seeds.Len()) < c.batch {
			break
		}
		sd := make([]int32, dmb.Seeds.Len())
		if err := gpu.CopyToHost(s.dev, sd, dmb.Seeds); err != nil {
			return err
		}
		mbs = append(mbs, dmb)
		hostSeeds = append(hostSeeds, sd)
		labels = append(labels, labelsOf(s.ds, sd))
		for _, b := range dmb.Blocks {
			edges += float64(b.NNZ())
		}
		inputs += float64(dmb.InputNodes().Len())
	}
	if len(mbs) == 0 {
		return fmt.Errorf("no full minibatch of %d seeds (%d training vertices)", c.batch, len(s.ds.Train))
	}
	res.Minibatches, res.Steps = len(mbs), c.steps
	res.EdgesPerMB, res.InputsPerMB = edges/float64(len(mbs)), inputs/float64(len(mbs))
	fmt.Fprintf(stderr, "gputrain: %d minibatches, %.0f sampled edges and %.0f input vertices each\n", len(mbs), res.EdgesPerMB, res.InputsPerMB)

	tr, err := newTrainer(c, s.be, s.ds.NumFeatures, s.ds.NumClasses)
	if err != nil {
		return err
	}
	hb, err := s.sampler.Download(db)
	if err != nil {
		return err
	}
	store, err := featurex.NewLocal(s.ds.Features, s.ds.NumFeatures, featurex.LocalOptions{Threads: c.cpuThreads})
	if err != nil {
		return err
	}
	cpuInput := func(i int) (gnn.Input, error) {
		mb := hb.Minibatch(i)
		in := mb.InputNodes()
		x := make([]float32, len(in)*s.ds.NumFeatures)
		return gnn.Input{Dense: x}, store.Gather(ctx, x, in)
	}
	var ref []float32
	if c.export != "" || c.cpuThreads > 0 {
		// Logits of minibatch 0 without dropout on the device, before any
		// step: the reference of the CPU backend and of the peer.
		var xb gnn.Buf
		in := mbs[0].InputNodes()
		xb = s.be.Alloc(int(in.Len()) * s.ds.NumFeatures)
		s.be.GatherRows(xb, s.feats, in)
		ref = make([]float32, len(hostSeeds[0])*s.ds.NumClasses)
		s.be.Download(ref, tr.model.ForwardBuf(&sampling.Minibatch{Index: mbs[0].Index, Seeds: hostSeeds[0]},
			gnn.Input{Buf: xb, Blocks: mbs[0].GNNBlocks()}, gnn.Pass{}))
		s.be.Free(xb)
		if err := s.be.Err(); err != nil {
			return err
		}
	}
	if c.export != "" {
		if err := exportStep(c, s, hb, len(mbs), labels, tr.model.Params(), ref); err != nil {
			return fmt.Errorf("--export: %w", err)
		}
	}
	var cpuTr *trainer
	if c.cpuThreads > 0 {
		if cpuTr, err = newTrainer(c, gnn.NewCPU(gnn.CPUOptions{Threads: c.cpuThreads}), s.ds.NumFeatures, s.ds.NumClasses); err != nil {
			return err
		}
		x, err := cpuInput(0)
		if err != nil {
			return err
		}
		mb := hb.Minibatch(0)
		logits := cpuTr.model.ForwardInput(&mb, x, gnn.Pass{})
		for e := range logits {
			res.MaxLogitDiff = max(res.MaxLogitDiff, math.Abs(float64(logits[e])-float64(ref[e])))
		}
	}

	var ph phases
	var xb gnn.Buf
	for st := range c.warmup + c.steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := st % len(mbs)
		pass := gnn.Pass{Train: true, Epoch: st / len(mbs), Minibatch: mbs[i].Index}
		var p *phases
		if st >= c.warmup {
			p = &ph
		}
		loss, err := tr.deviceStep(s, &mbs[i], hostSeeds[i], labels[i], pass, &xb, p)
		if err != nil {
			return err
		}
		if st == 0 {
			res.Loss0 = loss
		}
	}
	res.SampleMs = ms(sampleSec)
	res.GatherMs, res.ForwardMs, res.BackwardMs, res.UpdateMs = ms(ph.gather), ms(ph.forward), ms(ph.backward), ms(ph.update)
	steps := make([]float64, len(ph.forward))
	for i := range steps {
		steps[i] = ph.step(i)
	}
	res.StepMs = ms(steps)
	res.Fallbacks = s.be.Fallbacks()
	fmt.Fprintf(stderr, "gputrain: GPU step %.3f ms (forward %.3f, backward %.3f, update %.3f), gather %.3f, sample %.3f\n",
		res.StepMs, res.ForwardMs, res.BackwardMs, res.UpdateMs, res.GatherMs, res.SampleMs)

	if cpuTr != nil {
		var cph phases
		inputs := make([]gnn.Input, len(mbs))
		for i := range inputs {
			if inputs[i], err = cpuInput(i); err != nil {
				return err
			}
		}
		d := []float32(nil)
		cpuSteps := max(2, c.steps/4)
		for st := range 1 + cpuSteps {
			if err := ctx.Err(); err != nil {
				return err
			}
			i := st % len(mbs)
			mb := hb.Minibatch(i)
			t0 := time.Now()
			logits := cpuTr.model.ForwardInput(&mb, inputs[i], gnn.Pass{Train: true, Epoch: st / len(mbs), Minibatch: mb.Index})
			d = slices.Grow(d[:0], len(logits))[:len(logits)]
			gnn.CrossEntropy(d, logits, s.ds.NumClasses, labels[i])
			t1 := time.Now()
			cpuTr.model.Backward(d)
			t2 := time.Now()
			cpuTr.adam.StepOn(cpuTr.be, cpuTr.model.ParamsBuf(), cpuTr.model.GradsBuf())
			t3 := time.Now()
			if st > 0 {
				cph.forward = append(cph.forward, t1.Sub(t0).Seconds())
				cph.backward = append(cph.backward, t2.Sub(t1).Seconds())
				cph.update = append(cph.update, t3.Sub(t2).Seconds())
			}
		}
		cs := make([]float64, len(cph.forward))
		for i := range cs {
			cs[i] = cph.step(i)
		}
		res.CPUThreads, res.CPUBLAS = c.cpuThreads, cpuTr.be.Name()
		res.CPUForwardMs, res.CPUBackwardMs, res.CPUUpdateMs, res.CPUStepMs = ms(cph.forward), ms(cph.backward), ms(cph.update), ms(cs)
		fmt.Fprintf(stderr, "gputrain: CPU (%d threads) step %.2f ms; logits of minibatch 0 differ by at most %.2g\n", c.cpuThreads, res.CPUStepMs, res.MaxLogitDiff)
	}
	return benchutil.WriteJSON(stdout, res)
}

// epochResult is epoch mode's JSON line: per epoch, the trainer's figures
// (train.EpochStats). scripts/device-run.sh reads epoch_seconds and
// gpupeer/train_report.py also nodes, stored_edges, train, minibatches,
// bulk and sample_seconds.
type epochResult struct {
	runInfo
	Train       int `json:"train"`
	Minibatches int `json:"minibatches"`
	Bulk        int `json:"bulk"`
	// DevicePath says whether the trainer kept the bulks in device memory
	// (train.Trainer.DevicePath), as `bulksample train --device cuda` does
	// when the features fit there; PipelineDepth is its pipeline's depth.
	DevicePath    bool `json:"device_path"`
	PipelineDepth int  `json:"pipeline_depth"`
	// Seconds is each epoch's wall time (EpochStats.Seconds). With the
	// pipeline, sampling and gathering run beside the training goroutine:
	// SampleSec and GatherSec (Phases.Sample and Extract) overlap
	// ComputeSec (forward, backward and update), and WaitSec is the part
	// of them the training goroutine waited for.
	Seconds      []float64 `json:"epoch_seconds"`
	SampleSec    []float64 `json:"sample_seconds"`
	GatherSec    []float64 `json:"gather_seconds"`
	ComputeSec   []float64 `json:"compute_seconds"`
	WaitSec      []float64 `json:"wait_seconds"`
	SampledEdges int64     `json:"sampled_edges"` // of the last epoch
	Loss         []float64 `json:"loss"`          // mean over the labelled seeds
}

// epochOptions are the options of epoch mode's training run, built as
// `bulksample train --device cuda` builds them on one process
// (cmd/bulksample/train_device.go): the GPU's sampler and backend, no
// evaluation.
func epochOptions(c *config, s *setup) train.Options {
	return train.Options{
		Sampler: sampling.SamplerOptions{Method: sampling.MethodNode, Fanouts: c.fanouts},
		NewSampler: func(a *spgemm.CSR, opt sampling.SamplerOptions) (sampling.Sampler, error) {
			gs, err := gpu.NewSampler(s.dev, a, opt)
			if err != nil {
				return nil, fmt.Errorf("the GPU's sampler: %w", err)
			}
			return gs, nil
		},
		Trainer: train.TrainerOptions{
			Model:     train.ModelOptions{Arch: gnn.SAGE, Hidden: c.hidden, Dropout: float32(c.dropout)},
			Optimizer: train.OptimizerOptions{Adam: gnn.AdamOptions{LR: c.lr}},
			Plan:      train.PlanOptions{BatchSize: c.batch, BulkSize: c.bulk, Epochs: c.epochs},
			Seed:      c.seed,
			Runtime:   train.RuntimeOptions{Threads: c.genThreads, Backend: s.be, NoEval: true},
		},
	}
}

func epochMode(ctx context.Context, c *config, s *setup, stdout, stderr io.Writer) (err error) {
	job, err := train.New(s.ds, epochOptions(c, s))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, job.Close()) }()
	res := epochResult{runInfo: s.info("epoch"), Train: len(job.Train), Bulk: c.bulk, DevicePath: job.Trainer.DevicePath()}
	res.PipelineDepth, _ = job.Trainer.PipelineDepth()
	if !res.DevicePath {
		fmt.Fprintf(stderr, "gputrain: note: the trainer is not on its device path: each bulk crosses to the host\n")
	}
	out, err := job.Trainer.Run(ctx, func(st train.EpochStats) {
		ph := st.Phases
		fmt.Fprintf(stderr, "gputrain: epoch %d: %.2f s (sample %.2f, gather %.2f, steps %.2f, wait %.2f), %d minibatches, loss %.4f\n",
			st.Epoch, st.Seconds, ph.Sample.Seconds(), ph.Extract.Seconds(), ph.Compute().Seconds(), ph.Wait.Seconds(), st.Minibatches, st.Loss)
	})
	if err != nil {
		return err
	}
	for _, st := range out.Epochs {
		ph := st.Phases
		res.Seconds = append(res.Seconds, st.Seconds)
		res.SampleSec = append(res.SampleSec, ph.Sample.Seconds())
		res.GatherSec = append(res.GatherSec, ph.Extract.Seconds())
		res.ComputeSec = append(res.ComputeSec, ph.Compute().Seconds())
		res.WaitSec = append(res.WaitSec, ph.Wait.Seconds())
		res.Loss = append(res.Loss, st.Loss)
		res.Minibatches, res.SampledEdges = st.Minibatches, st.SampledEdges
	}
	res.Fallbacks = s.be.Fallbacks()
	return benchutil.WriteJSON(stdout, res)
}

// writeArray writes v to dir/name as its little-endian bytes (those of
// amd64's memory, written at once) and returns name.
func writeArray[T int32 | int64 | float32](dir, name string, v []T) (string, error) {
	var b []byte
	if len(v) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}

// exportBlock names a block's files (rows = destinations).
type exportBlock struct {
	Rows    int    `json:"rows"`
	Cols    int    `json:"cols"`
	Indptr  string `json:"indptr"`  // int64, rows+1
	Indices string `json:"indices"` // int32 local source ids
}

// stepManifest is manifest.json of step mode's export.
type stepManifest struct {
	Layers   int     `json:"layers"`
	Hidden   int     `json:"hidden"`
	Features int     `json:"features"`
	Classes  int     `json:"classes"`
	Dropout  float64 `json:"dropout"`
	LR       float64 `json:"lr"`
	Nodes    int     `json:"nodes"`
	X        string  `json:"x"` // float32 nodes x features
	// The graph and the sampler's settings, for the peer's own sampler.
	Graph   graphManifest `json:"graph"`
	Fanouts []int         `json:"fanouts"`
	Batch   int           `json:"batch"`
	// Per minibatch: blocks in the order the model applies them (the
	// input layer's first), the input vertices and the seeds' labels.
	Minibatches []struct {
		Blocks []exportBlock `json:"blocks"`
		Seeds  string        `json:"seeds"`  // int32 global ids
		Input  string        `json:"input"`  // int32 global ids of the input vertices
		Labels string        `json:"labels"` // int32 per seed
	} `json:"minibatches"`
	Params    string `json:"params"`     // float32, gnn.Model.Params' layout
	RefLogits string `json:"ref_logits"` // float32, minibatch 0 without dropout
}

func exportStep(c *config, s *setup, hb *sampling.Bulk, n int, labels [][]int32, params, ref []float32) error {
	dir := c.export
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := stepManifest{Layers: len(c.fanouts), Hidden: c.hidden, Features: s.ds.NumFeatures, Classes: s.ds.NumClasses,
		Dropout: c.dropout, LR: c.lr, Nodes: s.ds.NumNodes()}
	var err error
	if m.Graph, err = writeGraph(dir, s.ds); err != nil {
		return err
	}
	m.X, m.Fanouts, m.Batch = m.Graph.X, c.fanouts, c.batch
	m.Minibatches = make([]struct {
		Blocks []exportBlock `json:"blocks"`
		Seeds  string        `json:"seeds"`
		Input  string        `json:"input"`
		Labels string        `json:"labels"`
	}, n)
	for i := range n {
		mb := hb.Minibatch(i)
		e := &m.Minibatches[i]
		for l := len(mb.Blocks) - 1; l >= 0; l-- {
			a := &mb.Blocks[l].Adj
			eb := exportBlock{Rows: a.Rows, Cols: a.Cols}
			prefix := fmt.Sprintf("mb%d_layer%d", i, len(mb.Blocks)-1-l)
			if eb.Indptr, err = writeArray(dir, prefix+"_indptr.i64", a.Indptr[:a.Rows+1]); err != nil {
				return err
			}
			if eb.Indices, err = writeArray(dir, prefix+"_indices.i32", a.Indices); err != nil {
				return err
			}
			e.Blocks = append(e.Blocks, eb)
		}
		if e.Seeds, err = writeArray(dir, fmt.Sprintf("mb%d_seeds.i32", i), mb.Seeds); err != nil {
			return err
		}
		if e.Input, err = writeArray(dir, fmt.Sprintf("mb%d_input.i32", i), mb.InputNodes()); err != nil {
			return err
		}
		if e.Labels, err = writeArray(dir, fmt.Sprintf("mb%d_labels.i32", i), labels[i]); err != nil {
			return err
		}
	}
	if m.Params, err = writeArray(dir, "params.f32", params); err != nil {
		return err
	}
	if m.RefLogits, err = writeArray(dir, "ref_logits.f32", ref); err != nil {
		return err
	}
	return writeManifest(dir, m)
}

// graphManifest is manifest.json of epoch mode's export.
type graphManifest struct {
	Nodes    int    `json:"nodes"`
	Features int    `json:"features"`
	Classes  int    `json:"classes"`
	Indptr   string `json:"indptr"`  // int64, nodes+1
	Indices  string `json:"indices"` // int32
	X        string `json:"x"`       // float32 nodes x features
	Labels   string `json:"labels"`  // int32 per vertex
	Train    string `json:"train"`   // int32 training vertices
}

func exportGraph(dir string, ds *dataset.Dataset) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m, err := writeGraph(dir, ds)
	if err != nil {
		return err
	}
	return writeManifest(dir, m)
}

// writeGraph writes ds's graph, features, labels and training vertices
// into dir and returns their manifest.
func writeGraph(dir string, ds *dataset.Dataset) (m graphManifest, err error) {
	m = graphManifest{Nodes: ds.NumNodes(), Features: ds.NumFeatures, Classes: ds.NumClasses}
	if m.Indptr, err = writeArray(dir, "indptr.i64", ds.Adj.Indptr); err != nil {
		return m, err
	}
	if m.Indices, err = writeArray(dir, "indices.i32", ds.Adj.Indices[:ds.Adj.NNZ()]); err != nil {
		return m, err
	}
	if m.X, err = writeArray(dir, "x.f32", ds.Features); err != nil {
		return m, err
	}
	if m.Labels, err = writeArray(dir, "labels.i32", ds.Labels); err != nil {
		return m, err
	}
	m.Train, err = writeArray(dir, "train.i32", ds.Train)
	return m, err
}

func writeManifest(dir string, m any) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644)
}
