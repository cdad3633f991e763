package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/atomicfile"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/traindata"
	"github.com/bulksample/bulksample/sampling"
)

// trainConfig is the parsed command line of `bulksample train`; each flag
// sets one field.
type trainConfig struct {
	data         string
	split        string
	splitSeed    uint64 // --split-seed
	splitFile    string // --split-file: a split file to train on
	splitOut     string // --split-out: where to write the split used
	normFeatures normMode
	sampler      string
	ladiesMatrix string // --ladies-matrix: normalized or raw
	fanouts      []int  // node-wise fanouts, or layer-wise budgets
	preset       string
	presetAuto   bool // preset is defaultPreset's choice for --data, not --preset's
	batchAll     bool // --batch all: opt.BatchSize is set to the training split's size once loaded
	opt          gnn.TrainOptions
	plot         string
	json         bool
	dist         distFlags // --replication, --fetch, --replicate-graph, --inproc-ranks (train_dist.go)
	evalMode     string    // --eval: distributed (default) or gathered; distributed runs only
	device       deviceFlag
}

// Values of --eval.
const (
	evalDistributed = "distributed"
	evalGathered    = "gathered"
)

// dataEnv names the environment variable of the directory holding cora.npz
// and citeseer.npz.
const dataEnv = dataset.DataEnv

func parseTrainFlags(e *env, args []string) (*trainConfig, error) {
	fs, jsonOut := newFlags(e, "train", "--data PATH|cora|citeseer|synthetic[:k=v,...] [flags]",
		"Trains GraphSAGE or GCN on minibatches sampled in bulk, evaluates it after every epoch by\n"+
			"full-neighbour inference, and reports the test accuracy of the best-valid epoch, the\n"+
			"per-phase times and the sampled edges per second (SEPS).\n"+builtinDataHelp+
			"synthetic is the labelled planted-partition graph; its options are nodes, classes, degree,\n"+
			"exponent, homophily, features, noise, seed and, last, split (synthetic:nodes=20000,classes=8).\n\n"+
			"Presets (--preset NAME sets these flags; flags given explicitly override them):"+presetHelp())
	c := &trainConfig{}
	fs.StringVar(&c.preset, "preset", "", "a named set of flag values (see above): "+presetNames()+"; explicit flags override it.\n"+
		"Planetoid data (cora and citeseer when their Planetoid files are found, or a path to such files) gets\n"+
		presetPlanetoidSAGE+" when --preset is not given; none keeps the general defaults")
	fs.StringVar(&c.data, "data", "", "dataset: a path (any format bulksample reads), cora, citeseer or synthetic[:k=v,...]; required")
	fs.StringVar(&c.split, "split", "", `split of a dataset read from a file: "" keeps the stored one or the default, planetoid[:T,V,E], random:a,b,c`)
	fs.Uint64Var(&c.splitSeed, "split-seed", 0, "seed of the split that --split draws, or the default split of a file that stores none (a stored\n"+
		"split is kept without --split); independent of --seed, so that training seeds can be varied on\n"+
		"one split and splits varied for one training seed")
	fs.StringVar(&c.splitFile, "split-file", "", "train on the split in this JSON file, {\"train\": [ids], \"valid\": [ids], \"test\": [ids]}, the\n"+
		"0-based rows of --data's graph (for example Planetoid's public split mapped to the file's node order)")
	fs.StringVar(&c.splitOut, "split-out", "", "write the split trained on to this JSON file (the --split-file format), for a peer\n"+
		"implementation or another run to use the same vertices")
	fs.Var(&c.normFeatures, "norm-features", "scale every feature row to sum 1, the Planetoid protocol for bag-of-words features\n"+
		"(PyG's NormalizeFeatures): auto (on for cora and citeseer, by name or file name, off otherwise), on or off;\n"+
		"the bare flag means on; give the others as --norm-features=off (default auto)")
	model := fs.String("model", "sage", "model: sage (GraphSAGE mean), gcn, or linear (features only)")
	fs.StringVar(&c.sampler, "sampler", "node", "sampler: node (node-wise), ladies or fastgcn (layer-wise)")
	fs.StringVar(&c.ladiesMatrix, "ladies-matrix", "normalized", ladiesMatrixUsage)
	layers := fs.Int("layers", 0, "number of layers L; 0 for the number of --fanout values")
	fanout := fs.String("fanout", "25,10", "per-layer fanouts (node) or column budgets (ladies, fastgcn: "+budgetsText()+" when not given), seeds' layer first;\n"+
		"one value is repeated --layers times; -1 takes all neighbours"+fanoutOrder)
	fs.IntVar(&c.opt.Hidden, "hidden", gnn.DefaultHidden, "hidden width H")
	c.opt.BatchSize = 512
	fs.Var(batchFlag{&c.opt.BatchSize, &c.batchAll}, "batch", "seeds per minibatch b, or all: every training vertex in one minibatch")
	fs.IntVar(&c.opt.BulkSize, "bulk", 16, "minibatches sampled together k")
	fs.IntVar(&c.opt.Epochs, "epochs", gnn.DefaultEpochs, "epochs E")
	fs.Float64Var(&c.opt.Adam.LR, "lr", gnn.DefaultLR, "Adam learning rate")
	fs.Float64Var(&c.opt.Adam.WeightDecay, "weight-decay", 0, "L2 weight decay of Adam")
	decayLayers := fs.String("weight-decay-layers", "all", "parameters --weight-decay applies to: all, or first (the first layer's weights and bias only,\n"+
		"as Kipf and Welling's GCN and PyG's GCN example do)")
	dropout := fs.Float64("dropout", 0.5, "dropout probability on every layer's input, in [0, 1)")
	fs.IntVar(&c.opt.Threads, "threads", 0, "threads; 0 for GOMAXPROCS")
	c.device.addTrain(fs)
	fs.IntVar(&c.opt.PipelineDepth, "pipeline", 0, "pipeline depth: 2 samples the next bulk and gathers the next minibatch's features while the\n"+
		"current minibatch trains (at most 2 bulks in memory); 1 runs the phases in turn; the weights are the same bit for bit;\n"+
		"0 for the default, 2")
	fs.Uint64Var(&c.opt.Seed, "seed", 1, "seed of the permutations, weights, dropout and sampler")
	blas := fs.String("blas", "native", "dense BLAS: native (the build's, "+gnn.BLAS+") or gonum (pure Go)")
	fs.StringVar(&c.opt.CheckpointDir, "checkpoint", "", "directory where the model and optimiser state are saved after every epoch; one that\n"+
		"already holds a checkpoint needs --resume (a fresh run would overwrite it)")
	fs.BoolVar(&c.opt.Resume, "resume", false, "continue from the checkpoint in --checkpoint (start afresh when there is none)")
	fs.IntVar(&c.opt.CheckpointEvery, "checkpoint-every", 0, "save the checkpoint after every N-th epoch only (and after the last, and when stopped); 0 for every epoch\n"+
		"(unless --checkpoint-interval is given); a resumed run trains the epochs after the last save again, to the same result")
	fs.DurationVar(&c.opt.CheckpointInterval, "checkpoint-interval", 0, "save the checkpoint after an epoch that ends at least this long (90s, 10m, 1h) after the last save;\n"+
		"with --checkpoint-every, either one saves; 0 for none")
	fs.StringVar(&c.plot, "plot", "", "write loss and accuracy curves to this PNG file")
	fs.BoolVar(&c.opt.NoEval, "no-eval", false, "skip the evaluation after each epoch (valid and test accuracy stay 0), for benchmarks of the training loop")
	gcnNorm := fs.String("gcn-norm", "graph", "degrees of GCN's D^-1/2 (A+I) D^-1/2: graph (the graph's, which node-wise blocks carry:\n"+
		"full-neighbour training equals full-batch GCN) or block (the sampled block's own, DGL's GraphConv on blocks)")
	c.dist.add(fs)
	fs.StringVar(&c.evalMode, "eval", evalDistributed, "distributed runs: distributed (each rank infers its row block, fetching remote rows from their owners) or\n"+
		"gathered (rank 0 infers the whole graph, which every rank loads, and broadcasts the accuracies)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	c.preset, c.presetAuto = choosePreset(c.preset, c.data)
	if err := applyPreset(fs, c.preset); err != nil {
		return nil, usageError(fs, "--preset %q: %v", c.preset, err)
	}
	c.json = *jsonOut
	c.opt.Dropout = float32(*dropout)
	var err error
	switch {
	case fs.NArg() > 0 && isNormMode(fs.Arg(0)):
		return nil, usageError(fs, "unexpected argument %q (write --norm-features=%s)", fs.Arg(0), fs.Arg(0))
	case fs.NArg() > 0:
		return nil, usageError(fs, "unexpected argument %q", fs.Arg(0))
	case c.data == "":
		return nil, usageError(fs, "--data is required")
	case *layers < 0:
		return nil, usageError(fs, "--layers %d: want >= 1 (or 0 for the number of --fanout values)", *layers)
	case c.opt.Hidden < 1:
		return nil, usageError(fs, "--hidden %d: want >= 1", c.opt.Hidden)
	case c.opt.BatchSize < 1 && !c.batchAll:
		return nil, usageError(fs, "--batch %d: want >= 1", c.opt.BatchSize)
	case c.opt.BulkSize < 1:
		return nil, usageError(fs, "--bulk %d: want >= 1", c.opt.BulkSize)
	case c.opt.Epochs < 1:
		return nil, usageError(fs, "--epochs %d: want >= 1", c.opt.Epochs)
	case !(c.opt.Adam.LR > 0 && c.opt.Adam.LR <= math.MaxFloat64):
		return nil, usageError(fs, "--lr %g: want a finite value > 0", c.opt.Adam.LR)
	case !(c.opt.Adam.WeightDecay >= 0 && c.opt.Adam.WeightDecay <= math.MaxFloat64):
		return nil, usageError(fs, "--weight-decay %g: want a finite value >= 0", c.opt.Adam.WeightDecay)
	case !(*dropout >= 0 && *dropout < 1):
		return nil, usageError(fs, "--dropout %g: want a probability in [0, 1)", *dropout)
	case c.opt.Threads < 0:
		return nil, usageError(fs, "--threads %d: want >= 0", c.opt.Threads)
	case c.opt.PipelineDepth < 0 || c.opt.PipelineDepth > 2:
		return nil, usageError(fs, "--pipeline %d: want 1 (no overlap) or 2 (or 0 for the default, 2)", c.opt.PipelineDepth)
	case c.opt.Resume && c.opt.CheckpointDir == "":
		return nil, usageError(fs, "--resume needs --checkpoint DIR")
	case c.opt.CheckpointEvery < 0:
		return nil, usageError(fs, "--checkpoint-every %d: want >= 1 (or 0 for every epoch)", c.opt.CheckpointEvery)
	case c.opt.CheckpointInterval < 0:
		return nil, usageError(fs, "--checkpoint-interval %v: want a duration >= 0", c.opt.CheckpointInterval)
	case (c.opt.CheckpointEvery != 0 || c.opt.CheckpointInterval != 0) && c.opt.CheckpointDir == "":
		return nil, usageError(fs, "--checkpoint-every and --checkpoint-interval need --checkpoint DIR")
	case c.plot != "" && !strings.EqualFold(filepath.Ext(c.plot), ".png"):
		return nil, usageError(fs, "--plot %q: want a .png file", c.plot)
	}
	// Outputs written only at the end of a run (or of its first epoch) are
	// checked now, so that a typo does not cost the whole run.
	for _, o := range []struct{ flag, path string }{{"--plot", c.plot}, {"--split-out", c.splitOut}} {
		if err := checkOutputFile(o.path); err != nil {
			return nil, usageError(fs, "%s: %v", o.flag, err)
		}
		if sameFile(o.path, c.data) || sameFile(o.path, c.splitFile) {
			return nil, usageError(fs, "%s %s is an input of the run (--data or --split-file): it would be overwritten", o.flag, o.path)
		}
	}
	if st, err := os.Stat(c.opt.CheckpointDir); c.opt.CheckpointDir != "" && err == nil && !st.IsDir() {
		return nil, usageError(fs, "--checkpoint %s: not a folder", c.opt.CheckpointDir)
	}
	// A run started afresh overwrites the folder's checkpoint after its
	// first epoch: a job resubmitted without --resume lost the hours
	// the checkpoint held, without a word.
	if ck := filepath.Join(c.opt.CheckpointDir, gnn.CheckpointFile); c.opt.CheckpointDir != "" && !c.opt.Resume {
		if _, err := os.Stat(ck); err == nil {
			return nil, usageError(fs, "--checkpoint %s already holds a checkpoint (%s): add --resume to continue it; to start afresh, move it away or give another folder", c.opt.CheckpointDir, ck)
		}
	}
	if err := checkDataSpec(c.data); err != nil {
		return nil, usageError(fs, "--data %q: %v", c.data, err)
	}
	switch *decayLayers {
	case "all":
	case "first":
		c.opt.WeightDecayFirstLayer = true
	default:
		return nil, usageError(fs, "--weight-decay-layers %q: want all or first", *decayLayers)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case c.splitFile != "" && set["split"]:
		return nil, usageError(fs, "--split-file %q and --split %q: give one split", c.splitFile, c.split)
	case c.splitFile != "" && set["split-seed"]:
		return nil, usageError(fs, "--split-seed %d: --split-file %q gives the split, which has no seed", c.splitSeed, c.splitFile)
	case set["split-seed"] && strings.HasPrefix(c.data, "synthetic"):
		return nil, usageError(fs, "--split-seed %d: the synthetic dataset's split follows its own seed option (--data synthetic:seed=N)", c.splitSeed)
	}
	if c.opt.Arch, err = gnn.ParseArch(*model); err != nil {
		return nil, usageError(fs, "--model %q: want sage, gcn or linear", *model)
	}
	if c.opt.GCNNorm, err = gnn.ParseGCNNorm(*gcnNorm); err != nil {
		return nil, usageError(fs, "--gcn-norm %q: want graph or block", *gcnNorm)
	}
	switch c.sampler {
	case "node", "ladies", "fastgcn":
	default:
		return nil, usageError(fs, "--sampler %q: want node, ladies or fastgcn", c.sampler)
	}
	if c.opt.Arch == gnn.Linear && c.sampler != "node" {
		// It was ignored: the linear model samples no neighbours.
		return nil, usageError(fs, "--sampler %s: --model linear trains on the seeds' own features and samples no neighbours", c.sampler)
	}
	if err := checkLadiesMatrix(fs, c.ladiesMatrix, c.sampler); err != nil {
		return nil, err
	}
	if err := c.dist.validate(fs, c.sampler); err != nil {
		return nil, err
	}
	switch {
	case c.evalMode != evalDistributed && c.evalMode != evalGathered:
		return nil, usageError(fs, "--eval %q: want %s or %s", c.evalMode, evalDistributed, evalGathered)
	case c.evalMode == evalDistributed && c.opt.Arch == gnn.GCN && c.opt.GCNNorm == gnn.GCNBlockNorm && c.dist.distributed():
		return nil, usageError(fs, "--gcn-norm block: --eval distributed needs the graph's degrees (--gcn-norm graph), or use --eval gathered")
	}
	if c.device.name != "cpu" && c.device.name != "cuda" {
		return nil, usageError(fs, "--device %q: want cpu or cuda", c.device.name)
	}
	if c.device.cuda() && set["blas"] {
		return nil, usageError(fs, "--device cuda: --blas applies to the CPU only")
	}
	switch *blas {
	case "native":
	case "gonum":
		c.opt.PureGoBLAS = true
	default:
		return nil, usageError(fs, "--blas %q: want native or gonum", *blas)
	}
	if c.fanouts, err = sampleFanouts(*fanout); err != nil {
		return nil, usageError(fs, "--fanout %q: %v", *fanout, err)
	}
	if c.sampler != "node" && !isSet(fs, "fanout") {
		c.fanouts = sampling.DefaultBudgets() // not the node-wise fanouts as column budgets
		if *layers > 0 {
			c.fanouts = c.fanouts[:1]
		}
	}
	if c.sampler != "node" && slices.Contains(c.fanouts, -1) {
		return nil, usageError(fs, "--fanout %q: a layer-wise budget must be > 0", *fanout)
	}
	if *layers > 0 {
		switch len(c.fanouts) {
		case *layers:
		case 1:
			c.fanouts = slices.Repeat(c.fanouts, *layers)
		default:
			return nil, usageError(fs, "--layers %d but --fanout %q has %d values", *layers, *fanout, len(c.fanouts))
		}
	}
	return c, nil
}

// trainSummary is the --json object of `bulksample train`. Times are
// seconds; the run-level per-epoch figures are medians over the epochs
// trained in this run, and Epochs lists every epoch. Fields that do not
// apply to the model (the linear model has no graph layers, fanouts,
// hidden width or sampled edges) are left out.
type trainSummary struct {
	Data         string `json:"data"`
	Nodes        int    `json:"nodes"`
	Edges        int64  `json:"edges"`
	Model        string `json:"model"`
	Sampler      string `json:"sampler"`
	LadiesMatrix string `json:"ladies_matrix,omitempty"` // ladies only: normalized or raw
	Layers       int    `json:"layers,omitempty"`
	Fanouts      []int  `json:"fanouts,omitempty"`
	Hidden       int    `json:"hidden,omitempty"`
	Batch        int    `json:"batch"`
	Bulk         int    `json:"bulk"`
	Threads      int    `json:"threads"` // threads used (GOMAXPROCS for --threads 0)
	BLAS         string `json:"blas"`
	ResumedFrom  int    `json:"resumed_from"`
	// ResumedMinibatches are the minibatches of epoch ResumedFrom+1 that
	// the checkpoint held (a stopped run's), 0 when it held whole epochs.
	ResumedMinibatches int          `json:"resumed_minibatches"`
	BestEpoch          int          `json:"best_epoch"` // 1-based, like the progress lines
	ValAcc             float64      `json:"val_acc"`
	TestAcc            float64      `json:"test_acc"`
	FinalLoss          float64      `json:"final_loss"`
	EpochSeconds       float64      `json:"epoch_seconds"`
	SEPS               float64      `json:"seps,omitempty"`
	Phases             phaseSeconds `json:"phase_seconds"`
	LoadSeconds        float64      `json:"load_seconds"`
	// NormFeatures says whether the feature rows were scaled to sum 1
	// (--norm-features).
	NormFeatures bool   `json:"norm_features"`
	PeakRSSBytes int64  `json:"peak_rss_bytes"`
	Version      string `json:"version"`
	// Preset is the --preset applied, if any; GCNNorm GCN's --gcn-norm.
	Preset  string `json:"preset,omitempty"`
	GCNNorm string `json:"gcn_norm,omitempty"`
	// WeightDecayLayers is --weight-decay-layers: all or first.
	WeightDecayLayers string `json:"weight_decay_layers"`
	// SplitSeed is --split-seed, the seed of a drawn split; SplitFile the
	// --split-file trained on instead, if any.
	SplitSeed uint64 `json:"split_seed"`
	SplitFile string `json:"split_file,omitempty"`
	// PipelineDepth is the input pipeline's depth the run used (--pipeline,
	// or 1 where gnn turned it off: PipelineReason says why).
	PipelineDepth  int    `json:"pipeline_depth"`
	PipelineReason string `json:"pipeline_reason,omitempty"`
	// Epochs holds one record per epoch, those loaded from a checkpoint
	// included, in order.
	Epochs []epochRecord `json:"epochs"`
	// Costs is what each phase cost the process over the whole run: load,
	// then each training phase summed over the epochs trained in this run
	// (gnn.EpochStats.Costs).
	Costs gnn.PhaseCosts `json:"phases"`
}

// epochRecord is one epoch of trainSummary.Epochs. Times are seconds.
// Figures that later work measures per epoch are added here as fields.
type epochRecord struct {
	Epoch        int     `json:"epoch"` // 1-based, like the progress lines
	Loss         float64 `json:"loss"`
	TrainAcc     float64 `json:"train_acc"`
	ValAcc       float64 `json:"val_acc"`
	TestAcc      float64 `json:"test_acc"`
	Minibatches  int     `json:"minibatches"`
	SampledEdges int64   `json:"sampled_edges,omitempty"`
	SEPS         float64 `json:"seps,omitempty"`
	// Seconds is the epoch's training time, without evaluation (Phases.Eval).
	Seconds float64      `json:"seconds"`
	Phases  phaseSeconds `json:"phase_seconds"`
	// Costs is what each phase of the epoch cost the process
	// (gnn.EpochStats.Costs): wall and CPU time, page faults, heap
	// allocation, GC, peak resident memory.
	Costs gnn.PhaseCosts `json:"phases"`
	// Resumed marks an epoch loaded from the checkpoint, not trained by
	// this run.
	Resumed bool `json:"resumed,omitempty"`
	// RSSBytes (the resident set size, -1 where unknown) and HeapBytes (the
	// Go heap's allocated bytes) are read at the end of the epoch, after its
	// evaluation: the memory curve of the run (scripts/soak.sh).
	RSSBytes  int64 `json:"rss_bytes"`
	HeapBytes int64 `json:"heap_bytes"`
	// WaitSeconds is, in a distributed run, the time rank 0 spent in each
	// communication phase's calls during the epoch (its training and its
	// evaluation), the wait for the other ranks included.
	WaitSeconds map[string]float64 `json:"wait_seconds,omitempty"`
}

// normMode is the value of --norm-features: "auto" (the zero value), "on"
// or "off". It is a boolean flag, so the bare --norm-features means on.
type normMode string

func (m *normMode) String() string {
	if m == nil || *m == "" {
		return "auto"
	}
	return string(*m)
}

// isNormMode reports whether s is a value of --norm-features other than true
// and false.
func isNormMode(s string) bool { return s == "auto" || s == "on" || s == "off" }

func (m *normMode) Set(s string) error {
	switch {
	case isNormMode(s):
		*m = normMode(s)
	case s == "true":
		*m = "on"
	case s == "false":
		*m = "off"
	default:
		return fmt.Errorf("want auto, on or off")
	}
	return nil
}

func (m *normMode) IsBoolFlag() bool { return true }

// applies reports whether the features of the dataset called name (as
// dataset.Load names it: the file name without extensions) are normalised.
// auto normalises the gnn-benchmark bag-of-words datasets cora and citeseer,
// as PyG users' Planetoid datasets with NormalizeFeatures are.
func (m normMode) applies(name string) bool {
	switch m {
	case "on":
		return true
	case "off":
		return false
	}
	name = strings.ToLower(name)
	return name == "cora" || name == "citeseer"
}

// phaseSeconds are gnn.PhaseTimes in seconds. With --pipeline 2, sample
// and extract (the feature gathering, or exchange) run beside the training
// goroutine's phases, and wait is the time it waited for them.
type phaseSeconds struct {
	Sample   float64 `json:"sample"`
	Extract  float64 `json:"extract"`
	Forward  float64 `json:"forward"`
	Backward float64 `json:"backward"`
	Reduce   float64 `json:"reduce"` // the gradient all-reduce (data-parallel runs)
	Update   float64 `json:"update"`
	Wait     float64 `json:"wait"`
	Eval     float64 `json:"eval"`
}

func runTrain(ctx context.Context, e *env, args []string) error {
	c, err := parseTrainFlags(e, args)
	if err != nil {
		return err
	}
	if c.dist.distributed() {
		return runTrainDist(ctx, e, c)
	}
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	be, release, err := c.trainBackend(e)
	if err != nil {
		return err
	}
	defer release()
	c.opt.Backend = be
	ts, err := setupTrain(ctx, e, c)
	if err != nil {
		return err
	}
	s, err := newTrainSampler(ts.ds, c)
	if err != nil {
		return err
	}
	announceTrain(e, c, ts, "")
	bar := newEpochProgress(e.stderr, c.opt.Epochs)
	c.opt.OnResume = announceResume(e.stderr, c)
	c.opt.OnMinibatch = bar.minibatch
	data, err := traindata.FromDataset(ts.ds, s, traindata.Options{Threads: c.opt.Threads})
	if err != nil {
		return err
	}
	defer deviceFeatures(e, be, &data, ts.ds)()
	c.opt.ResumeConfig = c.resumeConfig(ts.normalized)
	tr, err := gnn.NewTrainer(data, c.opt)
	if err != nil {
		return err
	}
	res, err := tr.Run(ctx, func(st gnn.EpochStats) {
		bar.done()
		printEpoch(e.stdout, c.opt.Epochs, st, c.opt.Arch != gnn.Linear)
		for _, p := range st.Costs {
			notePhase(e.stderr, fmt.Sprintf("epoch %d/%d", st.Epoch+1, c.opt.Epochs), p.Name, p.Cost)
		}
	})
	bar.done()
	if err == nil && nothingToTrain(e.stderr, c, res) {
		return nil
	}
	if err != nil {
		return err
	}
	sum := ts.summary(c, res)
	if err := finishTrain(e, c, res, &sum); err != nil {
		return err
	}
	if c.json {
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// trainSetup is what a run prepares before training, on one process and
// on every rank of a distributed run alike: the dataset (loaded, checked,
// its feature rows normalised when asked) and what loading cost.
type trainSetup struct {
	ds         *dataset.Dataset
	loadSec    float64
	loadCost   procstat.Cost
	normalized bool
	normMode   normMode // --norm-features, for its errors
}

// setupTrain loads and checks --data (with --split-file's split, writing
// --split-out's), sets --batch all's size and, on one process, normalises
// the feature rows when --norm-features says so.
func setupTrain(ctx context.Context, e *env, c *trainConfig) (*trainSetup, error) {
	var meter procstat.Meter
	meter.Begin()
	t0 := time.Now()
	ds, err := loadTrainData(ctx, e, c)
	if err != nil {
		return nil, err
	}
	if c.splitFile != "" {
		if err := dataset.ReadSplitFile(c.splitFile, ds); err != nil {
			return nil, fmt.Errorf("--split-file: %w", err)
		}
	}
	ts := &trainSetup{ds: ds, loadSec: time.Since(t0).Seconds(), loadCost: meter.End("load")}
	notePhase(e.stderr, "train", "load", ts.loadCost)
	if err := checkTrainData(c, ds); err != nil {
		return nil, err
	}
	if c.splitOut != "" {
		if err := dataset.WriteSplitFile(c.splitOut, ds); err != nil {
			return nil, fmt.Errorf("--split-out: %w", err)
		}
		fmt.Fprintf(e.stderr, "wrote the split to %s\n", c.splitOut)
	}
	if c.batchAll {
		c.opt.BatchSize = max(len(ds.Train), 1)
	}
	c.opt.Notes = e.stderr // gnn's notes: pure-Go BLAS, stale checkpoint temporaries removed
	ts.normalized = c.normFeatures.applies(ds.Name) && ds.NumFeatures > 0
	ts.normMode = c.normFeatures
	if !c.dist.distributed() {
		if err := ts.normalizeRows(0, ds.NumNodes()); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// normalizeRows scales the feature rows [lo, hi) to sum 1 when
// --norm-features says so. A rank of a distributed run normalises only
// the rows it reads, so that it touches no other page of a mapped file.
// Features with a negative (or non-finite) entry are refused, naming the
// row: normalising them is not the Planetoid preprocessing and can blow a
// row up, and a run trained on them scored at chance.
func (ts *trainSetup) normalizeRows(lo, hi int) error {
	if !ts.normalized {
		return nil
	}
	f := ts.ds.NumFeatures
	err := featurex.NormalizeRows(ts.ds.Features[lo*f:hi*f], f)
	var re *featurex.RowError
	if errors.As(err, &re) {
		return fmt.Errorf("--norm-features %s: %s: feature row %d has the value %v at column %d; row normalisation is for non-negative (bag-of-words) features: give --norm-features=off",
			ts.normMode.String(), ts.ds.Name, lo+re.Row, re.Value, re.Col)
	}
	return err
}

// announceTrain prints the run's header lines on stderr; where, when not
// empty, says how the run is distributed.
func announceTrain(e *env, c *trainConfig, ts *trainSetup, where string) {
	ds := ts.ds
	samplerName := c.sampler
	if c.sampler == "ladies" {
		samplerName += " (" + c.ladiesMatrix + " matrix)"
	}
	if c.opt.Arch == gnn.Linear {
		samplerName = "seeds-only"
	}
	if c.preset != "" {
		fmt.Fprintf(e.stderr, "preset %s%s: %s\n", c.preset, presetNote(c), trainCommand(c))
	}
	fmt.Fprintf(e.stderr, "training %s with the %s sampler on %s (%d nodes, %d edges, %d train / %d valid / %d test)%s, BLAS %s, feature rows normalised: %v\n",
		c.opt.Arch, samplerName, ds.Name, ds.NumNodes(), ds.Adj.NNZ(), len(ds.Train), len(ds.Valid), len(ds.Test), where, blasName(c.opt), ts.normalized)
}

// summary returns the JSON summary of res (summarize) with the run-level
// figures of the setup: load cost, memory, version, preset.
func (ts *trainSetup) summary(c *trainConfig, res *gnn.Result) trainSummary {
	sum := summarize(c, ts.ds, res, ts.loadSec)
	sum.Costs.Add("load", ts.loadCost)
	for _, st := range res.Epochs[min(res.ResumedFrom, len(res.Epochs)):] {
		for _, p := range st.Costs {
			sum.Costs.Add(p.Name, p.Cost)
		}
	}
	sum.NormFeatures = ts.normalized
	sum.PeakRSSBytes, sum.Version = procstat.PeakRSS(), version()
	sum.Preset = c.preset
	sum.WeightDecayLayers, sum.SplitSeed, sum.SplitFile = "all", c.splitSeed, c.splitFile
	if c.opt.WeightDecayFirstLayer {
		sum.WeightDecayLayers = "first"
	}
	if c.opt.Arch == gnn.GCN {
		sum.GCNNorm = c.opt.GCNNorm.String()
	}
	return sum
}

// finishTrain prints the run's result line and writes --plot.
func finishTrain(e *env, c *trainConfig, res *gnn.Result, sum *trainSummary) error {
	fmt.Fprintf(e.stdout, "best epoch %d: valid accuracy %.4f, test accuracy %.4f; median epoch %.3f s (sample %.3f, extract %.3f, forward %.3f, backward %.3f, update %.3f; eval %.3f)%s, BLAS %s\n",
		sum.BestEpoch, sum.ValAcc, sum.TestAcc, sum.EpochSeconds, sum.Phases.Sample, sum.Phases.Extract, sum.Phases.Forward,
		sum.Phases.Backward, sum.Phases.Update, sum.Phases.Eval, sepsText(", ", sum.SEPS, c.opt.Arch != gnn.Linear), sum.BLAS)
	if c.plot != "" {
		if err := plotCurves(c.plot, res); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", c.plot)
	}
	return nil
}

// checkTrainData returns an error naming --data's file when ds cannot be
// trained on: an empty graph, a graph without edges for a model that reads
// them, no features or labels, or an empty train, valid or test split.
func checkTrainData(c *trainConfig, ds *dataset.Dataset) error {
	switch {
	case ds.NumNodes() == 0:
		return fmt.Errorf("%s: empty graph (0 vertices): nothing to train on", c.data)
	case ds.Adj.NNZ() == 0 && c.opt.Arch != gnn.Linear:
		return fmt.Errorf("%s: the graph has no edges, which --model %s aggregates over (--model linear trains on the features alone)", c.data, c.opt.Arch)
	case ds.NumFeatures == 0:
		return fmt.Errorf("%s has no node features; train needs features, labels and a split (a gnn-benchmark .npz, an OGB folder, a native file from `bulksample gen sbm`)", c.data)
	case ds.NumClasses == 0:
		return fmt.Errorf("%s has no labels; train needs features, labels and a split", c.data)
	case c.splitFile != "" && (len(ds.Train) == 0 || len(ds.Valid) == 0 || len(ds.Test) == 0):
		return fmt.Errorf("--split-file %s: the split has %d train, %d valid and %d test vertices; training needs all three",
			c.splitFile, len(ds.Train), len(ds.Valid), len(ds.Test))
	case len(ds.Train) == 0 || len(ds.Valid) == 0 || len(ds.Test) == 0:
		return fmt.Errorf("%s: the split has %d train, %d valid and %d test vertices; training needs all three (set one with --split planetoid[:T,V,E] or random:a,b,c)",
			c.data, len(ds.Train), len(ds.Valid), len(ds.Test))
	}
	return nil
}

// nothingToTrain reports whether a resumed run found a checkpoint that
// already holds --epochs epochs or more, and then says so on w: the run
// trained nothing and left the checkpoint as it was, as PyTorch Lightning's
// fit does when max_epochs is already reached. Its summary would report
// medians over no epochs, so the caller prints none.
func nothingToTrain(w io.Writer, c *trainConfig, res *gnn.Result) bool {
	if !c.opt.Resume || res == nil || res.ResumedFrom == 0 || res.ResumedFrom < c.opt.Epochs {
		return false
	}
	s := "s"
	if res.ResumedFrom == 1 {
		s = ""
	}
	fmt.Fprintf(w, "train: nothing to train: the checkpoint %s already holds %d epoch%s and --epochs is %d; it is left unchanged (give --epochs above %d to train on)\n",
		filepath.Join(c.opt.CheckpointDir, gnn.CheckpointFile), res.ResumedFrom, s, c.opt.Epochs, res.ResumedFrom)
	return true
}

// announceResume says, for --resume, where the run resumes from: at once
// when there is no checkpoint (the run starts afresh), otherwise when the
// returned function is called, as gnn.TrainOptions.OnResume, with what the
// checkpoint holds: the epochs complete and the minibatches of the next
// one (a stopped run's), as the JSON's resumed_from and
// resumed_minibatches say. A checkpoint that holds every epoch is left to
// nothingToTrain.
func announceResume(w io.Writer, c *trainConfig) func(epochsDone, minibatches, total int) {
	if !c.opt.Resume {
		return nil
	}
	path := filepath.Join(c.opt.CheckpointDir, gnn.CheckpointFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(w, "--resume: no checkpoint at %s; starting from epoch 1\n", path)
		return nil
	}
	return func(epochsDone, minibatches, total int) {
		if epochsDone < c.opt.Epochs {
			fmt.Fprintln(w, resumeMessage(path, epochsDone, minibatches, total, c.opt.Epochs))
		}
	}
}

// resumeMessage says where a run resumes: after epoch epochsDone, or in the
// next epoch after minibatches of its total (a stopped run's checkpoint,
// which may hold all of them when the run stopped after the last one,
// before the epoch's evaluation).
func resumeMessage(path string, epochsDone, minibatches, total, epochs int) string {
	if minibatches == 0 {
		return fmt.Sprintf("resumed from %s after epoch %d of %d", path, epochsDone, epochs)
	}
	s := "s"
	if epochsDone == 1 {
		s = ""
	}
	return fmt.Sprintf("resumed from %s in epoch %d of %d, after %d of its %d minibatches (%d epoch%s complete)",
		path, epochsDone+1, epochs, minibatches, total, epochsDone, s)
}

func blasName(o gnn.TrainOptions) string {
	if o.PureGoBLAS {
		return gnn.PureGoBLAS
	}
	return gnn.BLAS
}

// checkDataSpec returns an error naming the bad option of a --data value
// that names a built-in dataset (cora:..., synthetic:nodes=abc).
func checkDataSpec(data string) error {
	name, opts, _ := strings.Cut(data, ":")
	switch name {
	case "synthetic":
		p, err := plantedOptions(opts)
		if err != nil {
			return err
		}
		// Out-of-range values too (nodes=-5 was a run error, exit 1).
		return p.Validate()
	case "cora", "citeseer":
		if opts != "" {
			return fmt.Errorf("%s takes no options", name)
		}
	}
	return nil
}

// loadTrainData resolves --data: cora and citeseer by name, synthetic
// through the planted-partition generator, anything else as a path.
func loadTrainData(ctx context.Context, e *env, c *trainConfig) (*dataset.Dataset, error) {
	name, opts, _ := strings.Cut(c.data, ":")
	switch name {
	case "synthetic":
		p, err := plantedOptions(opts)
		if err != nil {
			return nil, fmt.Errorf("--data %q: %w", c.data, err)
		}
		p.Threads = c.opt.Threads
		fmt.Fprintf(e.stderr, "generating the planted-partition dataset %q\n", c.data)
		return dataset.PlantedPartition(p)
	case "cora", "citeseer":
		if opts != "" {
			return nil, fmt.Errorf("--data %q: %s takes no options", c.data, name)
		}
		path, err := findBuiltinData(name)
		if err != nil {
			return nil, err
		}
		return dataset.LoadContext(ctx, path, c.loadOptions(e))
	}
	ds, err := dataset.LoadContext(ctx, c.data, c.loadOptions(e))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(c.data); errors.Is(serr, fs.ErrNotExist) {
			// A misspelt built-in name (coraa) is no file either: say both.
			return nil, fmt.Errorf("--data %q: no such file or folder, nor a built-in dataset (cora, citeseer, synthetic[:k=v,...]): %w", c.data, err)
		}
	}
	return ds, err
}

// loadOptions are the options of loading --data from a file: the split of
// --split and --split-seed.
func (c *trainConfig) loadOptions(e *env) *dataset.LoadOptions {
	return &dataset.LoadOptions{Split: c.split, Seed: c.splitSeed, Threads: c.opt.Threads, Progress: e.stderr}
}

// plantedOptions parses "nodes=20000,classes=8": the options of the
// synthetic dataset. split, whose value may hold commas, must come last.
func plantedOptions(s string) (dataset.PlantedPartitionOptions, error) {
	p := dataset.PlantedPartitionOptions{Seed: 1}
	for s != "" {
		var kv string
		if strings.HasPrefix(s, "split=") {
			kv, s = s, ""
		} else {
			kv, s, _ = strings.Cut(s, ",")
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("option %q: want key=value", kv)
		}
		var err error
		atoi := func(dst *int) {
			if *dst, err = strconv.Atoi(v); err != nil {
				err = errors.New("want an integer")
			}
		}
		atof := func(dst *float64) {
			if *dst, err = strconv.ParseFloat(v, 64); err != nil {
				err = errors.New("want a number")
			}
		}
		switch k {
		case "nodes":
			atoi(&p.Nodes)
		case "classes":
			atoi(&p.Classes)
		case "features":
			atoi(&p.Features)
		case "degree":
			atof(&p.AvgDegree)
		case "exponent":
			atof(&p.Exponent)
		case "homophily":
			atof(&p.Homophily)
		case "noise":
			atof(&p.Noise)
		case "seed":
			if p.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
				err = errors.New("want an integer >= 0")
			}
		case "split":
			p.Split = v
		default:
			return p, fmt.Errorf("unknown option %q (want nodes, classes, features, degree, exponent, homophily, noise, seed or split)", k)
		}
		if err != nil {
			return p, fmt.Errorf("option %s=%q: %w", k, v, err)
		}
	}
	return p, nil
}

// findSharedData returns the path of the first of files as
// dataset.FindShared finds it.
func findSharedData(files ...string) (string, error) { return dataset.FindShared(files...) }

// newTrainSampler returns the sampler of --sampler for ds; the linear model
// reads no edge and gets minibatches of seeds only.
func newTrainSampler(ds *dataset.Dataset, c *trainConfig) (sampling.Sampler, error) {
	if ds.Adj == nil {
		return nil, fmt.Errorf("%s has no graph", c.data)
	}
	if c.opt.Arch == gnn.Linear {
		return gnn.SeedsOnly{}, nil
	}
	a, err := layerWiseMatrix(ds.Adj, c.sampler, c.ladiesMatrix, c.opt.Threads)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.data, err)
	}
	// GCN normalises with the graph's degrees, which node-wise blocks carry.
	s, err := sampling.NewSampler(a, sampling.SamplerOptions{Method: c.sampler, Fanouts: c.fanouts, Seed: c.opt.Seed, Threads: c.opt.Threads,
		Degrees: c.opt.Arch == gnn.GCN && c.sampler == sampling.MethodNode})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.data, err)
	}
	return s, nil
}

// epochProgress shows the minibatches of the current epoch: a progress bar
// when w is a terminal, otherwise a plain line every few seconds. The rate
// and the time left are measured from the end of the epoch's first
// minibatch (which also waits for the first bulk's sampling), so the first
// tick shows none rather than one minibatch over a few microseconds.
type epochProgress struct {
	w      io.Writer
	epochs int
	bar    *progressbar.ProgressBar
	tty    bool
	last   time.Time
	first  time.Time        // when the current epoch's first minibatch ended
	now    func() time.Time // the clock; time.Now outside tests
}

func newEpochProgress(w io.Writer, epochs int) *epochProgress {
	p := &epochProgress{w: w, epochs: epochs, last: time.Now(), now: time.Now}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// rate describes the minibatches per second after the first one and the
// time the epoch has left, or returns "" after the first minibatch.
func (p *epochProgress) rate(done, total int) string {
	dt := p.now().Sub(p.first).Seconds()
	if done < 2 || !(dt > 0) {
		return ""
	}
	r := float64(done-1) / dt
	left := time.Duration(float64(total-done) / r * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf(", %.3g minibatches/s, %v left", r, left)
}

func (p *epochProgress) minibatch(epoch, done, total int) {
	if done == 1 {
		p.first = p.now()
	}
	if p.tty {
		desc := fmt.Sprintf("epoch %d/%d%s", epoch+1, p.epochs, p.rate(done, total))
		if p.bar == nil {
			p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(false), progressbar.OptionSetElapsedTime(false),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		} else {
			p.bar.Describe(desc)
		}
		p.bar.Set(done)
		return
	}
	if time.Since(p.last) >= 5*time.Second {
		p.last = time.Now()
		fmt.Fprintf(p.w, "epoch %d/%d: %d/%d minibatches%s\n", epoch+1, p.epochs, done, total, p.rate(done, total))
	}
}

// done ends the current epoch's bar.
func (p *epochProgress) done() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}

// printEpoch prints an epoch's line; sampled says whether the model reads
// sampled edges (all but the linear one), whose SEPS it then gives.
func printEpoch(w io.Writer, epochs int, st gnn.EpochStats, sampled bool) {
	ph := st.Phases
	fmt.Fprintf(w, "epoch %d/%d: loss %.4f, train %.4f, valid %.4f, test %.4f | %.3f s: sample %.3f, extract %.3f, forward %.3f, backward %.3f, update %.3f%s; eval %.3f s%s | RSS %.1f MB, heap %.1f MB\n",
		st.Epoch+1, epochs, st.Loss, st.TrainAcc, st.ValAcc, st.TestAcc, st.Seconds, ph.Sample.Seconds(), ph.Extract.Seconds(),
		ph.Forward.Seconds(), ph.Backward.Seconds(), ph.Update.Seconds(), waitText(ph), ph.Eval.Seconds(), sepsText(" | ", st.SEPS, sampled),
		float64(st.RSSBytes)/1e6, float64(st.HeapBytes)/1e6)
}

// waitText formats the reduce and wait phases for the progress lines, when
// the run has them.
func waitText(ph gnn.PhaseTimes) string {
	s := ""
	if ph.Reduce > 0 {
		s += fmt.Sprintf(", reduce %.3f", ph.Reduce.Seconds())
	}
	if ph.Wait > 0 {
		s += fmt.Sprintf(", wait %.3f", ph.Wait.Seconds())
	}
	return s
}

// sepsText formats SEPS after sep for the progress lines, or returns ""
// for a model that samples no edge.
func sepsText(sep string, seps float64, sampled bool) string {
	if !sampled {
		return ""
	}
	return fmt.Sprintf("%s%.3gM SEPS", sep, seps/1e6)
}

// summarize returns the JSON summary of a run: per-epoch figures are medians
// over the epochs trained in this run (not those loaded from a checkpoint).
func summarize(c *trainConfig, ds *dataset.Dataset, res *gnn.Result, loadSec float64) trainSummary {
	sum := trainSummary{Data: c.data, Nodes: ds.NumNodes(), Edges: ds.Adj.NNZ(), Model: c.opt.Arch.String(), Sampler: c.sampler,
		Layers: len(c.fanouts), Fanouts: c.fanouts, Hidden: c.opt.Hidden, Batch: c.opt.BatchSize, Bulk: c.opt.BulkSize,
		Threads: threadsUsed(c.opt.Threads), BLAS: res.BLAS, PipelineDepth: res.PipelineDepth, PipelineReason: res.PipelineReason,
		ResumedFrom: res.ResumedFrom, ResumedMinibatches: res.ResumedMinibatches, BestEpoch: res.BestEpoch + 1, ValAcc: res.BestValAcc, TestAcc: res.TestAcc, LoadSeconds: loadSec,
		Epochs: make([]epochRecord, len(res.Epochs))}
	if c.sampler == "ladies" && c.opt.Arch != gnn.Linear {
		sum.LadiesMatrix = c.ladiesMatrix
	}
	for i, st := range res.Epochs {
		sum.Epochs[i] = epochRecord{Epoch: st.Epoch + 1, Loss: st.Loss, TrainAcc: st.TrainAcc, ValAcc: st.ValAcc, TestAcc: st.TestAcc,
			Minibatches: st.Minibatches, SampledEdges: st.SampledEdges, SEPS: st.SEPS, Seconds: st.Seconds,
			Phases: phasesOf(st.Phases), Costs: st.Costs, Resumed: i < res.ResumedFrom, RSSBytes: st.RSSBytes, HeapBytes: st.HeapBytes}
	}
	if c.opt.Arch == gnn.Linear {
		// Softmax regression on the seeds' own features: no graph layer,
		// no hidden width, no sampled edge.
		sum.Sampler, sum.Layers, sum.Fanouts, sum.Hidden = "seeds-only", 0, nil, 0
		for i := range sum.Epochs {
			sum.Epochs[i].SampledEdges, sum.Epochs[i].SEPS = 0, 0
		}
	}
	if n := len(res.Epochs); n > 0 {
		sum.FinalLoss = res.Epochs[n-1].Loss
	}
	run := res.Epochs[min(res.ResumedFrom, len(res.Epochs)):]
	med := func(f func(gnn.EpochStats) float64) float64 {
		v := make([]float64, len(run))
		for i, st := range run {
			v[i] = f(st)
		}
		return median(v)
	}
	sum.EpochSeconds = med(func(s gnn.EpochStats) float64 { return s.Seconds })
	if c.opt.Arch != gnn.Linear {
		sum.SEPS = med(func(s gnn.EpochStats) float64 { return s.SEPS })
	}
	sum.Phases = phaseSeconds{
		Sample:   med(func(s gnn.EpochStats) float64 { return s.Phases.Sample.Seconds() }),
		Extract:  med(func(s gnn.EpochStats) float64 { return s.Phases.Extract.Seconds() }),
		Forward:  med(func(s gnn.EpochStats) float64 { return s.Phases.Forward.Seconds() }),
		Backward: med(func(s gnn.EpochStats) float64 { return s.Phases.Backward.Seconds() }),
		Reduce:   med(func(s gnn.EpochStats) float64 { return s.Phases.Reduce.Seconds() }),
		Update:   med(func(s gnn.EpochStats) float64 { return s.Phases.Update.Seconds() }),
		Wait:     med(func(s gnn.EpochStats) float64 { return s.Phases.Wait.Seconds() }),
		Eval:     med(func(s gnn.EpochStats) float64 { return s.Phases.Eval.Seconds() }),
	}
	return sum
}

// phasesOf returns the phase times of one epoch in seconds.
func phasesOf(p gnn.PhaseTimes) phaseSeconds {
	return phaseSeconds{Sample: p.Sample.Seconds(), Extract: p.Extract.Seconds(), Forward: p.Forward.Seconds(),
		Backward: p.Backward.Seconds(), Reduce: p.Reduce.Seconds(), Update: p.Update.Seconds(), Wait: p.Wait.Seconds(),
		Eval: p.Eval.Seconds()}
}

// plotCurves writes the training curves to a PNG file: the training loss
// in the upper panel and the train, valid and test accuracies in the lower
// one, over the same epoch axis. (On one axis the loss, often near 2 to 10,
// flattened the accuracies in [0, 1].)
func plotCurves(path string, res *gnn.Result) error {
	loss, acc, err := curvePlots(res)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	img := vgimg.New(8*vg.Inch, 7*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{loss}, {acc}}, tiles, dc)
	loss.Draw(canvases[0][0])
	acc.Draw(canvases[1][0])
	// Through a temporary file, so that a failed write keeps the previous plot.
	err = atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// curvePlots returns the two panels of plotCurves: the loss per epoch, and
// the accuracies per epoch on a fixed [0, 1] axis. Both span the same
// epochs.
func curvePlots(res *gnn.Result) (loss, acc *plot.Plot, err error) {
	series := func(f func(gnn.EpochStats) float64) plotter.XYs {
		xy := make(plotter.XYs, len(res.Epochs))
		for i, st := range res.Epochs {
			xy[i].X, xy[i].Y = float64(st.Epoch+1), f(st)
		}
		return xy
	}
	loss = plot.New()
	loss.Title.Text = "bulksample train"
	loss.Y.Label.Text = "training loss"
	loss.Legend.Top = true // the loss falls: the upper right stays clear
	line, points, err := plotter.NewLinePoints(series(func(s gnn.EpochStats) float64 { return s.Loss }))
	if err != nil {
		return nil, nil, err
	}
	// Black, so that it is not taken for the train accuracy (plotutil's
	// first colour) below.
	line.Color, points.Color, points.Shape = color.Black, color.Black, draw.CircleGlyph{}
	loss.Add(line, points)
	loss.Legend.Add("training loss", line, points)
	acc = plot.New()
	acc.X.Label.Text = "epoch"
	acc.Y.Label.Text = "accuracy"
	acc.Legend.Top = false // the accuracies rise: the lower right stays clear
	if err := plotutil.AddLinePoints(acc,
		"train accuracy", series(func(s gnn.EpochStats) float64 { return s.TrainAcc }),
		"valid accuracy", series(func(s gnn.EpochStats) float64 { return s.ValAcc }),
		"test accuracy", series(func(s gnn.EpochStats) float64 { return s.TestAcc }),
	); err != nil {
		return nil, nil, err
	}
	acc.Y.Min, acc.Y.Max = 0, 1
	// One epoch axis for both panels.
	lo, hi := min(loss.X.Min, acc.X.Min), max(loss.X.Max, acc.X.Max)
	loss.X.Min, loss.X.Max, acc.X.Min, acc.X.Max = lo, hi, lo, hi
	return loss, acc, nil
}

// resumeConfig returns the options of a run that a resume must share and
// the trainer cannot see (gnn.TrainOptions.ResumeConfig): the sampler, its
// fanouts or budgets and matrix, and whether the feature rows were
// normalised. A resume with another --fanout used to go on silently, then
// overwrite the checkpoint with a mix of two runs.
func (c *trainConfig) resumeConfig(normalized bool) map[string]string {
	fanouts := make([]string, len(c.fanouts))
	for i, f := range c.fanouts {
		fanouts[i] = strconv.Itoa(f)
	}
	cfg := map[string]string{
		"sampler":       c.sampler,
		"fanout":        strings.Join(fanouts, ","),
		"norm-features": strconv.FormatBool(normalized),
	}
	if c.sampler != "node" {
		cfg["ladies-matrix"] = c.ladiesMatrix
	}
	return cfg
}
