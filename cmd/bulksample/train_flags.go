package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

// trainConfig is the parsed command line of `bulksample train`: the
// library's options the flags fill (opt) and the command's own settings.
type trainConfig struct {
	data         string
	split        string
	splitSeed    uint64 // --split-seed
	splitFile    string // --split-file: a split file to train on
	splitOut     string // --split-out: where to write the split used
	splitIndex   int    // --split-index: which stored split
	symmetryFlag string // --symmetry, parsed into symmetry
	symmetry     dataset.Symmetry
	predictOut   string // --predict-out: where to write every vertex's class probabilities
	normFeatures normMode
	preset       string
	presetAuto   bool // the preset is the default for --data's format (choosePreset)
	plot         string
	json         bool
	opt          train.Options
	ranks        distFlags  // --replication, --fetch, --replicate-graph, --inproc-ranks, --eval (ranks.go)
	device       deviceFlag // --device (train_device.go)
}

// dataEnv names the environment variable of the directory holding cora.npz
// and citeseer.npz.
const dataEnv = dataset.DataEnv

// trainFlags are the flags of train whose values are parsed into options
// after the flag set is.
type trainFlags struct {
	sampler                       samplerFlags
	model, decayLayers, blas, gcn string
	metric, norm                  string
	layers                        int
	dropout                       float64
}

func parseTrainFlags(e *env, args []string) (*trainConfig, error) {
	fs, jsonOut := newFlags(e, "train", "--data PATH|cora|citeseer|synthetic[:k=v,...] [flags]",
		"Trains GraphSAGE or GCN on minibatches sampled in bulk, evaluates it after every epoch (or every\n"+
			"--eval-every epochs) by full-neighbour inference, and reports the test figure of the epoch of the\n"+
			"best valid --metric (ROC AUC for two classes, accuracy otherwise), the epochs' times and the\n"+
			"sampled edges per second (SEPS); -v adds the per-phase times and costs.\n"+builtinDataHelp+
			"synthetic is the labelled planted-partition graph; its options are nodes, classes, degree,\n"+
			"exponent, homophily, features, noise, seed and, last, split (synthetic:nodes=20000,classes=8).\n\n"+
			"Presets (--preset NAME sets these flags; flags given explicitly override them):"+presetHelp())
	c, tf := &trainConfig{}, &trainFlags{}
	c.registerData(fs)
	c.registerTraining(fs, tf)
	c.ranks.add(fs, true)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	c.preset, c.presetAuto = choosePreset(c.preset, c.data)
	if err := applyPreset(fs, c.preset); err != nil {
		return nil, usageError(fs, "--preset %q: %v", c.preset, err)
	}
	c.json = *jsonOut
	if err := c.checkData(fs); err != nil {
		return nil, err
	}
	if err := c.fill(fs, tf); err != nil {
		return nil, err
	}
	return c, nil
}

// registerData adds the flags of the data: what is read, its split and
// preparation, and what is written besides the summary.
func (c *trainConfig) registerData(fs *flag.FlagSet) {
	fs.StringVar(&c.preset, "preset", "", "a named set of flag values (see above): "+presetNames()+"; explicit flags override it.\n"+
		"Planetoid data (cora and citeseer when their Planetoid files are found, or a path to such files) gets\n"+
		presetPlanetoidSAGE+" when --preset is not given; none keeps the general defaults")
	fs.StringVar(&c.data, "data", "", "dataset: a path (any format bulksample reads), cora, citeseer or synthetic[:k=v,...]; required")
	fs.StringVar(&c.split, "split", "", `split of a dataset read from a file: "" keeps the stored one or the default, planetoid[:T,V,E], random:a,b,c`)
	fs.Uint64Var(&c.splitSeed, "split-seed", 0, "seed of the split that --split draws, or the default split of a file that stores none (a stored\n"+
		"split is kept without --split); independent of --seed, so that training seeds can be varied on\n"+
		"one split and splits varied for one training seed")
	fs.IntVar(&c.splitIndex, "split-index", 0, splitIndexUsage)
	fs.StringVar(&c.symmetryFlag, "symmetry", "default", symmetryUsage)
	fs.StringVar(&c.splitFile, "split-file", "", "train on the split in this JSON file, {\"train\": [ids], \"valid\": [ids], \"test\": [ids]}, the\n"+
		"0-based rows of --data's graph (for example Planetoid's public split mapped to the file's node order)")
	fs.StringVar(&c.splitOut, "split-out", "", "write the split trained on to this JSON file (the --split-file format), for a peer\n"+
		"implementation or another run to use the same vertices")
	fs.Var(&c.normFeatures, "norm-features", "scale every feature row to sum 1, the Planetoid protocol for bag-of-words features\n"+
		"(PyG's NormalizeFeatures): auto (on for cora and citeseer, by name or file name, off otherwise), on or off;\n"+
		"the bare flag means on; give the others as --norm-features=off (default auto)")
	fs.StringVar(&c.plot, "plot", "", "write loss and accuracy curves to this PNG file")
	fs.StringVar(&c.predictOut, "predict-out", "", "write every vertex's class probabilities (the softmax of its logits) under the best epoch's\n"+
		"weights to this file: FILE.npy (float32, nodes x classes) or FILE.csv (a header line, then node,p_0,...,p_{C-1})")
}

// registerTraining adds the flags of the sampler, the model, the optimiser,
// the plan, the runtime and the checkpoints.
func (c *trainConfig) registerTraining(fs *flag.FlagSet, tf *trainFlags) {
	o := &c.opt.Trainer
	tf.sampler.register(fs, "25,10", "per-layer fanouts (node) or column budgets (ladies, fastgcn: "+budgetsText()+" when not given), seeds' layer first;\n"+
		"one value is repeated --layers times; -1 takes all neighbours"+fanoutOrder, false)
	fs.StringVar(&tf.model, "model", "sage", "model: sage (GraphSAGE mean), gcn, or linear (features only)")
	fs.IntVar(&tf.layers, "layers", 0, "number of layers L; 0 for the number of --fanout values")
	fs.IntVar(&o.Model.Hidden, "hidden", gnn.DefaultHidden, "hidden width H")
	fs.Float64Var(&tf.dropout, "dropout", 0.5, "dropout probability on every layer's input, in [0, 1)")
	fs.BoolVar(&o.Model.Residual, "residual", false, "the residual architecture of Platonov et al. (ICLR 2023): an input linear map to --hidden and GELU,\n"+
		"then per layer a block of --norm, the --model conv, dropout, GELU, a linear map and dropout, added to the\n"+
		"block's input (the skip connection), then --norm and the output linear map")
	fs.StringVar(&tf.norm, "norm", "none", "normalisation of the residual architecture's blocks and output layer: none or layer (layer\n"+
		"normalisation); layer alone (without --residual) gives the blocks without the skip connection")
	fs.StringVar(&tf.metric, "metric", "auto", "the metric that picks the best epoch (whose test figure is reported and whose weights\n"+
		"--predict-out uses): auto (auc for two classes, accuracy otherwise), accuracy, auc (ROC AUC of class 1's\n"+
		"score) or macro-f1")
	fs.IntVar(&o.Eval.Every, "eval-every", 1, "evaluate after every N-th epoch only, and after the last (evaluation is inference over the whole graph)")
	fs.IntVar(&o.Eval.Patience, "patience", 0, "stop after N evaluations in a row without a better valid --metric (early stopping); 0 trains every epoch")
	fs.StringVar(&tf.gcn, "gcn-norm", "graph", "degrees of GCN's D^-1/2 (A+I) D^-1/2: graph (the graph's, which node-wise blocks carry:\n"+
		"full-neighbour training equals full-batch GCN) or block (the sampled block's own, DGL's GraphConv on blocks)")
	o.Plan.BatchSize = 512
	fs.Var(batchFlag{&o.Plan.BatchSize, &c.opt.BatchAll}, "batch", "seeds per minibatch b, or all: every training vertex in one minibatch")
	fs.IntVar(&o.Plan.BulkSize, "bulk", 16, "minibatches sampled together k")
	fs.IntVar(&o.Plan.Epochs, "epochs", train.DefaultEpochs, "epochs E")
	fs.Float64Var(&o.Optimizer.Adam.LR, "lr", gnn.DefaultLR, "Adam learning rate")
	fs.Float64Var(&o.Optimizer.Adam.WeightDecay, "weight-decay", 0, "L2 weight decay of Adam")
	fs.StringVar(&tf.decayLayers, "weight-decay-layers", "all", "parameters --weight-decay applies to: all, or first (the first layer's weights and bias only,\n"+
		"as Kipf and Welling's GCN and PyG's GCN example do)")
	fs.IntVar(&o.Runtime.Threads, "threads", 0, "threads; 0 for GOMAXPROCS")
	c.device.addTrain(fs)
	fs.IntVar(&o.Runtime.PipelineDepth, "pipeline", 0, "pipeline depth: 2 samples the next bulk and gathers the next minibatch's features while the\n"+
		"current minibatch trains (at most 2 bulks in memory); 1 runs the phases in turn; the weights are the same bit for bit;\n"+
		"0 for the default, 2")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the permutations, weights, dropout and sampler")
	fs.StringVar(&tf.blas, "blas", "native", "dense BLAS: native (the build's, "+gnn.BLAS+") or gonum (pure Go)")
	fs.StringVar(&o.Checkpoint.Dir, "checkpoint", "", "directory where the model and optimiser state are saved after every epoch; one that\n"+
		"already holds a checkpoint needs --resume (a fresh run would overwrite it); one run at a time: the run claims the\n"+
		"folder (its lock file .checkpoint.lock), and a second run in it exits at once, naming the first one's process")
	fs.BoolVar(&o.Checkpoint.Resume, "resume", false, "continue from the checkpoint in --checkpoint (start afresh when there is none)")
	fs.IntVar(&o.Checkpoint.Every, "checkpoint-every", 0, "save the checkpoint after every N-th epoch only (and after the last, and when stopped); 0 for every epoch\n"+
		"(unless --checkpoint-interval is given); a resumed run trains the epochs after the last save again, to the same result")
	fs.DurationVar(&o.Checkpoint.Interval, "checkpoint-interval", 0, "save the checkpoint after an epoch that ends at least this long (90s, 10m, 1h) after the last save;\n"+
		"with --checkpoint-every, either one saves; 0 for none")
	fs.BoolVar(&o.Runtime.NoEval, "no-eval", false, "skip the evaluation after each epoch (valid and test accuracy stay 0), for benchmarks of the training loop")
}

// checkData checks the flags of the data and the outputs, before any
// work: a typo in an output written at the end must not cost the run.
func (c *trainConfig) checkData(fs *flag.FlagSet) error {
	switch {
	case fs.NArg() > 0 && isNormMode(fs.Arg(0)):
		return usageError(fs, "unexpected argument %q (write --norm-features=%s)", fs.Arg(0), fs.Arg(0))
	case fs.NArg() > 0:
		return usageError(fs, "unexpected argument %q", fs.Arg(0))
	case c.data == "":
		return usageError(fs, "--data is required")
	case c.plot != "" && !strings.EqualFold(filepath.Ext(c.plot), ".png"):
		return usageError(fs, "--plot %q: want a .png file", c.plot)
	case c.splitFile != "" && isSet(fs, "split"):
		return usageError(fs, "--split-file %q and --split %q: give one split", c.splitFile, c.split)
	case c.splitFile != "" && isSet(fs, "split-seed"):
		return usageError(fs, "--split-seed %d: --split-file %q gives the split, which has no seed", c.splitSeed, c.splitFile)
	case isSet(fs, "split-seed") && strings.HasPrefix(c.data, "synthetic"):
		return usageError(fs, "--split-seed %d: the synthetic dataset's split follows its own seed option (--data synthetic:seed=N)", c.splitSeed)
	case strings.HasPrefix(c.data, "synthetic") && (c.splitIndex != 0 || isSet(fs, "symmetry")):
		return usageError(fs, "--split-index and --symmetry apply to data read from a file; the synthetic dataset is generated undirected with one split")
	case c.splitFile != "" && c.splitIndex != 0:
		return usageError(fs, "--split-file %q and --split-index %d: give one split", c.splitFile, c.splitIndex)
	}
	var err error
	if c.symmetry, err = parseSymmetry(fs, c.symmetryFlag); err != nil {
		return err
	}
	if err := checkSplitIndex(fs, c.splitIndex, c.split); err != nil {
		return err
	}
	if ext := strings.ToLower(filepath.Ext(c.predictOut)); c.predictOut != "" && ext != ".npy" && ext != ".csv" {
		return usageError(fs, "--predict-out %q: want a .npy or .csv file", c.predictOut)
	}
	for _, o := range []struct{ flag, path string }{{"--plot", c.plot}, {"--split-out", c.splitOut}, {"--predict-out", c.predictOut}} {
		if err := checkOutputFile(o.path); err != nil {
			return usageError(fs, "%s: %v", o.flag, err)
		}
	}
	if err := clobbers(c.outputs(), c.inputs()); err != nil {
		return usageError(fs, "%v", err)
	}
	ck := c.opt.Trainer.Checkpoint
	dir := ck.Dir
	if (ck.Every != 0 || ck.Interval != 0) && dir == "" {
		return usageError(fs, "--checkpoint-every and --checkpoint-interval need --checkpoint DIR")
	}
	if st, err := os.Stat(dir); dir != "" && err == nil && !st.IsDir() {
		return usageError(fs, "--checkpoint %s: not a folder", dir)
	}
	// A run started afresh overwrites the folder's checkpoint after its
	// first epoch: a job resubmitted without --resume lost the hours
	// the checkpoint held, without a word.
	if file := filepath.Join(dir, train.CheckpointFile); dir != "" && !ck.Resume {
		if _, err := os.Stat(file); err == nil {
			return usageError(fs, "--checkpoint %s already holds a checkpoint (%s): add --resume to continue it; to start afresh, move it away or give another folder", dir, file)
		}
	}
	if err := checkDataSpec(c.data); err != nil {
		return usageError(fs, "--data %q: %v", c.data, err)
	}
	return nil
}

// inputs are the files the run reads: --data's (every file of a folder
// dataset) and --split-file; the checkpoint that --resume reads is among
// the outputs, which it is too.
func (c *trainConfig) inputs() []namedFile {
	return append(datasetFiles("--data", dataPath(c.data)), namedFile{"--split-file", c.splitFile})
}

// outputs are the files the run writes: --plot, --split-out and the
// checkpoint, which --resume reads first.
func (c *trainConfig) outputs() []namedFile {
	var outs []namedFile
	if ck := c.opt.Trainer.Checkpoint; ck.Dir != "" {
		what := "--checkpoint " + ck.Dir + "'s checkpoint"
		if ck.Resume {
			what = "the checkpoint that --resume reads and rewrites"
		}
		outs = append(outs, namedFile{what, filepath.Join(ck.Dir, train.CheckpointFile)})
	}
	return append(outs, namedFile{"--plot", c.plot}, namedFile{"--split-out", c.splitOut})
}

// fill parses the remaining flags into c.opt and checks the options by
// their Validate (ValidateDist for a distributed run), naming the flag of
// a refused option.
func (c *trainConfig) fill(fs *flag.FlagSet, tf *trainFlags) error {
	o := &c.opt.Trainer
	var err error
	if o.Model.Arch, err = gnn.ParseArch(tf.model); err != nil {
		return usageError(fs, "--model %q: want sage, gcn or linear", tf.model)
	}
	if o.Model.GCNNorm, err = gnn.ParseGCNNorm(tf.gcn); err != nil {
		return usageError(fs, "--gcn-norm %q: want graph or block", tf.gcn)
	}
	if o.Model.Norm, err = gnn.ParseNorm(tf.norm); err != nil {
		return usageError(fs, "--norm %q: want none or layer", tf.norm)
	}
	if o.Eval.Metric, err = gnn.ParseMetric(tf.metric); err != nil {
		return usageError(fs, "--metric %q: want auto, accuracy, auc or macro-f1", tf.metric)
	}
	if c.device.gpuBackend() && (o.Model.Residual || o.Model.Norm != gnn.NormNone) {
		return usageError(fs, "--device %s: --residual and --norm layer run on the CPU only (the CUDA backend has no layer normalisation or GELU yet)", c.device.name)
	}
	if c.predictOut != "" && c.ranks.distributed() {
		return usageError(fs, "--predict-out %s: a single-process option (a rank of a distributed run holds its block of the graph)", c.predictOut)
	}
	o.Model.Dropout = float32(tf.dropout)
	if !(tf.dropout >= 0 && tf.dropout < 1) { // float32 would round 0.99999999 to 1
		return usageError(fs, "--dropout %g: want a probability in [0, 1)", tf.dropout)
	}
	switch tf.decayLayers {
	case "all", "first":
		o.Optimizer.WeightDecayFirstLayer = tf.decayLayers == "first"
	default:
		return usageError(fs, "--weight-decay-layers %q: want all or first", tf.decayLayers)
	}
	switch {
	case c.device.name != "cpu" && !c.device.gpuBackend():
		return usageError(fs, "--device %q: want cpu or cuda (or emulator, for tests)", c.device.name)
	case c.device.gpuBackend() && isSet(fs, "blas"):
		return usageError(fs, "--device %s: --blas applies to the CPU only", c.device.name)
	}
	if err := c.device.validateTrain(fs); err != nil {
		return err
	}
	switch tf.blas {
	case "native", "gonum":
		o.Runtime.PureGoBLAS = tf.blas == "gonum"
	default:
		return usageError(fs, "--blas %q: want native or gonum", tf.blas)
	}
	if err := c.checkCounts(fs, tf); err != nil {
		return err
	}
	if c.opt.Sampler, err = tf.sampler.options(fs); err != nil {
		return err
	}
	if tf.layers > 0 && c.opt.Sampler.Method != sampling.MethodNode && !isSet(fs, "fanout") {
		c.opt.Sampler.Fanouts = c.opt.Sampler.Fanouts[:1] // the default budget on every layer
	}
	if c.opt.Sampler.Fanouts, err = withLayers(c.opt.Sampler.Fanouts, tf.layers); err != nil {
		return usageError(fs, "--layers %d but --fanout %q: %v", tf.layers, tf.sampler.fanout, err)
	}
	if c.opt.Dist, err = c.ranks.options(fs); err != nil {
		return err
	}
	c.opt.SplitFile, c.opt.Name = c.splitFile, c.data
	validate := c.opt.Validate
	if c.ranks.distributed() {
		validate = c.opt.ValidateDist
	}
	if err := validate(); err != nil {
		return optionError(fs, err)
	}
	return nil
}

// checkCounts refuses 0 for the flags whose 0 the library reads as its
// default: a command line says so by leaving the flag out.
func (c *trainConfig) checkCounts(fs *flag.FlagSet, tf *trainFlags) error {
	o := &c.opt.Trainer
	if tf.layers < 0 {
		return usageError(fs, "--layers %d: want >= 1 (or 0 for the number of --fanout values)", tf.layers)
	}
	if o.Optimizer.Adam.LR == 0 {
		return usageError(fs, "--lr 0: want a finite value > 0")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"hidden", o.Model.Hidden}, {"bulk", o.Plan.BulkSize}, {"epochs", o.Plan.Epochs}, {"eval-every", o.Eval.Every}} {
		if err := atLeast(fs, f.name, f.v, 1); err != nil {
			return err
		}
	}
	if !c.opt.BatchAll {
		return atLeast(fs, "batch", o.Plan.BatchSize, 1)
	}
	return nil
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
