package main

// The flag groups that the commands share: each registers its flags on a
// command's flag set and fills the library's option structs from them
// (sampling.SamplerOptions, distsample.DistSamplerOptions, train.Options),
// whose Validate the commands call. A library option error names a field;
// optionError turns it into a usage error naming the flag that set it.

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/sampling"
)

// fieldFlags maps the last element of an option's field path (without an
// index: Fanouts[1] is Fanouts) to the flag that sets it.
var fieldFlags = map[string]string{
	// sampling.SamplerOptions, DistSamplerOptions
	"Method": "method", "Fanouts": "fanout", "Semibulk": "semibulk", "Weighted": "weighted", "Replace": "replace",
	"Frontier": "frontier", "MaxBulkEdges": "max-bulk-edges", "Normalize": "ladies-matrix", "Threads": "threads",
	"Fetch": "fetch", "Layout": "replicate-graph", "Overlap": "overlap", "PullBatchBytes": "pull-batch", "PushBatchBytes": "push-batch",
	// train.Options, train.TrainerOptions
	"Replication": "replication", "Eval": "eval", "Arch": "model", "Hidden": "hidden", "Dropout": "dropout",
	"GCNNorm": "gcn-norm", "LR": "lr", "WeightDecay": "weight-decay", "BatchSize": "batch", "BulkSize": "bulk",
	"Epochs": "epochs", "PipelineDepth": "pipeline", "Resume": "resume", "Dir": "checkpoint",
	"Every": "checkpoint-every", "Interval": "checkpoint-interval",
}

// pathFlags maps the paths of options whose last element is another
// option's (Eval.Every beside Checkpoint.Every) to the flag that sets them.
var pathFlags = map[string]string{
	"Trainer.Eval.Every": "eval-every", "Trainer.Eval.Patience": "patience", "Trainer.Eval.Metric": "metric",
	"Trainer.Model.Residual": "residual", "Trainer.Model.Norm": "norm",
}

// flagOf returns the flag of fs that sets the option at path (an
// option.Error's field path), or nil.
func flagOf(fs *flag.FlagSet, path string) *flag.Flag {
	if name, ok := pathFlags[path]; ok {
		return fs.Lookup(name)
	}
	last := path[strings.LastIndexByte(path, '.')+1:]
	if i := strings.IndexByte(last, '['); i >= 0 {
		last = last[:i]
	}
	name, ok := fieldFlags[last]
	if !ok {
		return nil
	}
	if name == "method" { // train names it --sampler too
		return fs.Lookup(methodFlag(fs))
	}
	return fs.Lookup(name)
}

// optionError returns err, the error of a library options struct's
// Validate, as a usage error naming the flag that set the refused field,
// with its value, and the flags of the fields that make it invalid
// ("--fetch push: --method ladies: applies to method node ..."). An error
// without a field that a flag sets is returned as a usage error as it is.
func optionError(fs *flag.FlagSet, err error) error {
	path, e := option.Field(err)
	f := flagOf(fs, path)
	if e == nil || f == nil {
		return usageError(fs, "%v", err)
	}
	msg := fmt.Sprintf("--%s %s: ", f.Name, f.Value)
	with := e.WithPaths
	if with == nil {
		with = e.With
	}
	for _, w := range with {
		if wf := flagOf(fs, w); wf != nil {
			msg += fmt.Sprintf("--%s %s: ", wf.Name, wf.Value)
		}
	}
	return usageError(fs, "%s%s", msg, e.Problem)
}

// atLeast returns a usage error naming flag name when v < lo: for flags
// whose 0 the library reads as its default, which a command line must say
// by leaving the flag out.
func atLeast(fs *flag.FlagSet, name string, v, lo int) error {
	if v < lo {
		return usageError(fs, "--%s %d: want >= %d", name, v, lo)
	}
	return nil
}

// samplerFlags is the flag group of the sampler, in sample and train:
// --method (train's --sampler is its alias), --fanout, --ladies-matrix,
// and in sample also --semibulk, --frontier, --weighted, --replace and
// --max-bulk-edges. options fills sampling.SamplerOptions.
type samplerFlags struct {
	method, fanout, ladies, frontier string
	semibulk                         int
	weighted, replace                bool
	maxBulkEdges                     int64
}

// register adds the group's flags to fs; all adds sample's.
func (s *samplerFlags) register(fs *flag.FlagSet, fanout, fanoutHelp string, all bool) {
	methodHelp := "node (GraphSAGE neighbour sampling), ladies or fastgcn (layer-wise; --fanout is then the per-layer column budget)"
	fs.StringVar(&s.method, "method", sampling.MethodNode, methodHelp)
	if !all {
		fs.StringVar(&s.method, "sampler", sampling.MethodNode, "the same as --method")
	}
	fs.StringVar(&s.fanout, "fanout", fanout, fanoutHelp)
	fs.StringVar(&s.ladies, "ladies-matrix", "normalized", ladiesMatrixUsage)
	if !all {
		return
	}
	fs.IntVar(&s.semibulk, "semibulk", 0, "layer-wise only: minibatches whose blocks are extracted together (0: the default); does not change the result")
	fs.StringVar(&s.frontier, "frontier", "all", "all: expand every frontier vertex at every layer (DGL blocks); new: only vertices first reached at the previous hop (PyG NeighborLoader)")
	fs.BoolVar(&s.weighted, "weighted", false, "sample proportionally to edge weights (default uniform)")
	fs.BoolVar(&s.replace, "replace", false, "sample with replacement")
	fs.Int64Var(&s.maxBulkEdges, "max-bulk-edges", 0, "cap on entries selected at once; a bulk over it is sampled in groups (0: the default)")
}

// methodFlag names the flag that chose the sampler: --sampler when train's
// command line used that name, else --method.
func methodFlag(fs *flag.FlagSet) string {
	if fs.Lookup("sampler") != nil && isSet(fs, "sampler") && !isSet(fs, "method") {
		return "sampler"
	}
	return "method"
}

// options returns the sampler's options of the flags (Seed and Threads are
// the command's), or a usage error naming a flag whose value cannot be
// parsed or does not apply; the options' own rules are Validate's.
func (s *samplerFlags) options(fs *flag.FlagSet) (sampling.SamplerOptions, error) {
	o := sampling.SamplerOptions{Method: s.method, Semibulk: s.semibulk, Weighted: s.weighted, Replace: s.replace, MaxBulkEdges: s.maxBulkEdges}
	var err error
	if o.Fanouts, err = parseFanouts(s.fanout); err != nil {
		return o, usageError(fs, "--fanout %q: %v", s.fanout, err)
	}
	if s.method != sampling.MethodNode && !isSet(fs, "fanout") {
		o.Fanouts = sampling.DefaultBudgets() // not the node-wise fanouts as column budgets
	}
	if s.frontier != "" {
		if o.Frontier, err = sampling.ParseFrontierMode(s.frontier); err != nil {
			return o, usageError(fs, "--frontier %q: want all or new", s.frontier)
		}
	}
	switch {
	case s.ladies != "normalized" && s.ladies != "raw":
		return o, usageError(fs, "--ladies-matrix %q: want normalized or raw", s.ladies)
	case isSet(fs, "ladies-matrix") && s.method != sampling.MethodLADIES:
		// A flag that would be ignored is an error, not a no-op.
		return o, usageError(fs, "--ladies-matrix applies to ladies only, not %s", s.method)
	}
	o.Normalize = s.method == sampling.MethodLADIES && s.ladies == "normalized"
	return o, nil
}

// parseFanouts parses "15,10,5": integers > 0 or -1.
func parseFanouts(s string) ([]int, error) {
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

// withLayers returns fanouts repeated to layers values when it holds one
// (--layers L --fanout 10), or an error when its length is another.
func withLayers(fanouts []int, layers int) ([]int, error) {
	switch {
	case layers == 0 || len(fanouts) == layers:
		return fanouts, nil
	case len(fanouts) == 1:
		return slices.Repeat(fanouts, layers), nil
	}
	return nil, fmt.Errorf("%d values for %d layers", len(fanouts), layers)
}

// ladiesMatrixUsage is the help of --ladies-matrix (train and sample).
const ladiesMatrixUsage = "the matrix LADIES samples from and whose values its blocks carry: normalized, the LADIES\n" +
	"paper's D^-1/2 (A+I) D^-1/2 with D the degrees plus one, or raw, the adjacency as loaded\n" +
	"(p_v then grows with v's number of frontier neighbours); ladies only"

// byteSize is a flag of a number of bytes: digits, optionally followed by
// KiB, MiB, GiB or TiB (powers of 1024) or B.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	num, mult := s, int64(1)
	for i, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if strings.HasSuffix(s, unit) {
			num, mult = strings.TrimSuffix(s, unit), int64(1)<<(10*(i+1))
			break
		}
	}
	if mult == 1 {
		num = strings.TrimSuffix(s, "B")
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 || num == "" || num[0] == '+' {
		return fmt.Errorf("want a size in bytes: digits, optionally followed by KiB, MiB, GiB or TiB")
	}
	if v > math.MaxInt64/mult {
		return fmt.Errorf("more than %d bytes", int64(math.MaxInt64))
	}
	*b = byteSize(v * mult)
	return nil
}
