package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

// sampleConfig is the parsed command line of `bulksample sample`: the
// library's options the flags fill, and the command's own settings.
type sampleConfig struct {
	graph      string
	plan       sampling.PlanOptions
	sampler    sampling.SamplerOptions
	seeds      int
	epoch      int
	reps       int // passes over the seeds; the first is the cold one
	baseline   bool
	digest     bool
	json       bool
	symmetry   dataset.Symmetry  // --symmetry
	splitIndex int               // --split-index
	dist       train.DistOptions // --replication, --fetch, --replicate-graph
	ranks      distFlags         // the distribution flags as given (ranks.go)
	device     deviceFlag        // --device (device.go)
}

func parseSampleFlags(e *env, args []string) (*sampleConfig, error) {
	fs, jsonOut := newFlags(e, "sample", "--graph PATH [flags]",
		"Samples minibatches in bulk as sparse matrix products, node-wise (GraphSAGE) or layer-wise\n"+
			"(LADIES, FastGCN), and reports sampled edges per second (SEPS). The seeds are a random\n"+
			"permutation (by --seed) of the training vertices when the dataset has a split, otherwise of\n"+
			"all vertices.")
	c := &sampleConfig{}
	var sf samplerFlags
	sf.register(fs, "15,10,5", "comma-separated fanouts, seeds' layer first; -1 takes all neighbours; with --method ladies or fastgcn the\n"+
		"column budgets, "+budgetsText()+" when not given"+fanoutOrder, true)
	fs.StringVar(&c.graph, "graph", "", "graph or dataset to sample (any format bulksample reads); required")
	symmetry := fs.String("symmetry", "default", symmetryUsage)
	fs.IntVar(&c.splitIndex, "split-index", 0, splitIndexUsage+"; its training vertices are the seeds")
	fs.IntVar(&c.plan.BatchSize, "batch", 1024, "seeds per minibatch b")
	fs.IntVar(&c.plan.BulkSize, "bulk", 16, "minibatches sampled together, k")
	fs.IntVar(&c.seeds, "seeds", 0, "sample only the first N seeds of the permutation; 0 for all")
	threads := fs.Int("threads", 0, "threads; 0 for GOMAXPROCS")
	seed := fs.Uint64("seed", 1, "seed of the seed permutation and of the sampler")
	fs.IntVar(&c.epoch, "epoch", 0, "epoch whose minibatches are sampled")
	fs.IntVar(&c.reps, "reps", 1, "passes over the seeds: the first is the cold pass (fresh memory, empty buffers), reported\n"+
		"on its own; with 2 or more, SEPS is the median of the warm passes that follow it, the steady state of a\n"+
		"caller that samples epoch after epoch")
	fs.BoolVar(&c.baseline, "baseline", false, "use the conventional per-minibatch sampler instead of the bulk sampler")
	fs.BoolVar(&c.digest, "digest", false, "hash all blocks and vertex lists in minibatch order (the same for any --bulk and --threads)")
	c.ranks.add(fs, false)
	c.device.add(fs)
	err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	c.json = *jsonOut
	if c.symmetry, err = parseSymmetry(fs, *symmetry); err != nil {
		return nil, err
	}
	if err := checkSplitIndex(fs, c.splitIndex, ""); err != nil {
		return nil, err
	}
	if err := c.check(fs, &sf, *threads, *seed); err != nil {
		return nil, err
	}
	return c, nil
}

// check fills the options from the flags and checks them: the command's
// own rules here, the options' rules by their Validate.
func (c *sampleConfig) check(fs *flag.FlagSet, sf *samplerFlags, threads int, seed uint64) error {
	var err error
	if c.dist, err = c.ranks.options(fs); err != nil {
		return err
	}
	distributed := c.ranks.distributed()
	switch {
	case fs.NArg() > 0:
		return usageError(fs, "unexpected argument %q", fs.Arg(0))
	case c.graph == "":
		return usageError(fs, "--graph is required")
	case c.seeds < 0:
		return usageError(fs, "--seeds %d: want >= 0", c.seeds)
	case c.epoch < 0:
		return usageError(fs, "--epoch %d: want >= 0", c.epoch)
	case c.reps < 1:
		return usageError(fs, "--reps %d: want >= 1", c.reps)
	case c.reps > 1 && distributed:
		return usageError(fs, "--reps %d: applies to one process only (a distributed run samples once)", c.reps)
	case c.baseline && distributed:
		return usageError(fs, "--baseline: not in a distributed run")
	case c.baseline && sf.method != sampling.MethodNode:
		return usageError(fs, "--method %s: --baseline applies to --method node only", sf.method)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"batch", c.plan.BatchSize}, {"bulk", c.plan.BulkSize}} {
		if err := atLeast(fs, f.name, f.v, 1); err != nil {
			return err
		}
	}
	if c.sampler, err = sf.options(fs); err != nil {
		return err
	}
	c.sampler.Seed, c.sampler.Threads, c.plan.Seed = seed, threads, seed
	so := c.dist.SamplerOptions(c.sampler)
	if !distributed {
		err = c.sampler.Validate()
	} else {
		err = so.Validate()
	}
	if err != nil {
		return optionError(fs, err)
	}
	return c.device.validate(fs, distributed, c.cpuOnlyFlags()...)
}

// loadOptions are the options of loading --graph: --symmetry and
// --split-index, with the sampler's threads and progress on w.
func (c *sampleConfig) loadOptions(w io.Writer) *dataset.LoadOptions {
	return &dataset.LoadOptions{Symmetry: c.symmetry, SplitIndex: c.splitIndex, Threads: c.sampler.Threads, Progress: w}
}

// describe names the sampler in the output and the JSON: bulk (node-wise),
// baseline, ladies or fastgcn.
func (c *sampleConfig) describe() string {
	switch {
	case c.baseline:
		return "baseline"
	case c.sampler.Method == "" || c.sampler.Method == sampling.MethodNode:
		return "bulk"
	}
	return c.sampler.Method
}

// ladiesMatrix is the JSON's ladies_matrix: normalized or raw for LADIES,
// "" otherwise.
func (c *sampleConfig) ladiesMatrix() string {
	if c.sampler.Method != sampling.MethodLADIES {
		return ""
	}
	if c.sampler.Normalize {
		return "normalized"
	}
	return "raw"
}

// epochPlan returns the minibatches that sample draws: the plan of --epoch
// over train (every one of the graph's n vertices when train is empty),
// cut to the first --seeds seeds. One process and every rank of a
// distributed run use it, so that they sample the same minibatches.
func (c *sampleConfig) epochPlan(train []int32, n int) (*sampling.EpochPlan, error) {
	nseeds := len(train)
	if nseeds == 0 {
		nseeds = n
	}
	if c.seeds > nseeds {
		return nil, fmt.Errorf("--seeds %d: %s has only %d seed vertices", c.seeds, c.graph, nseeds)
	}
	var plan *sampling.Plan
	var err error
	if len(train) == 0 {
		plan, err = sampling.NewPlanAll(n, c.plan) // one n-entry permutation, no list of all vertices
	} else {
		plan, err = sampling.NewPlan(train, c.plan)
	}
	if err != nil {
		return nil, err
	}
	ep := plan.Epoch(c.epoch)
	ep.Truncate(c.seeds) // 0: the whole epoch
	return ep, nil
}
