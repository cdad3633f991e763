package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/progress"
)

// loadFlags are the flags of every command that reads a dataset with
// dataset.Load; each sets one LoadOptions field.
type loadFlags struct {
	opt      dataset.LoadOptions
	symmetry string
	verify   string
}

// symmetryUsage is the text of the --symmetry flag of every command that
// reads a dataset.
const symmetryUsage = "reverse edges: default (per format: added for gnn-benchmark, OGB CSV, heterophilous-graphs and MUSAE files\n" +
	"and for edge lists whose comments say undirected), symmetrize (add them, drop self loops) or stored (as the file has them)"

// splitIndexUsage is the text of the --split-index flag.
const splitIndexUsage = "which of the splits a file stores to use (the 10 official splits of the heterophilous-graphs files), from 0"

// parseSymmetry returns the dataset.Symmetry of a --symmetry value.
func parseSymmetry(fs *flag.FlagSet, s string) (dataset.Symmetry, error) {
	switch s {
	case "default":
		return dataset.SymmetryDefault, nil
	case "symmetrize":
		return dataset.Symmetrize, nil
	case "stored":
		return dataset.AsStored, nil
	}
	return 0, usageError(fs, "--symmetry %q: want default, symmetrize or stored", s)
}

// checkSplitIndex returns a usage error for a --split-index that is
// negative or given with --split.
func checkSplitIndex(fs *flag.FlagSet, index int, split string) error {
	switch {
	case index < 0:
		return usageError(fs, "--split-index %d: want >= 0", index)
	case index > 0 && split != "":
		return usageError(fs, "--split-index %d and --split %q: use a stored split or draw one, not both", index, split)
	}
	return nil
}

func (l *loadFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.opt.Split, "split", "", `split: "" keeps the stored one (or the default for labelled data), none, planetoid[:T,V,E] or random:a,b,c`)
	fs.Uint64Var(&l.opt.Seed, "split-seed", 0, "seed of the split that --split draws, or the default split of a file that stores none")
	fs.IntVar(&l.opt.SplitIndex, "split-index", 0, splitIndexUsage)
	fs.StringVar(&l.symmetry, "symmetry", "default", symmetryUsage)
	fs.StringVar(&l.verify, "verify", "structure", "checks of a native file before use: structure (CSR offsets, sorted in-range column ids,\nlabels, splits), checksums (structure and the CRC-32C of every array: reads the whole file)\nor none (trust the file)")
	fs.BoolVar(&l.opt.SkipVerify, "no-verify", false, "the same as --verify none")
	fs.IntVar(&l.opt.Threads, "threads", 0, "threads; 0 for GOMAXPROCS")
}

// finish checks the flag values, reporting a bad one as a usage error.
func (l *loadFlags) finish(fs *flag.FlagSet) error {
	var err error
	if l.opt.Symmetry, err = parseSymmetry(fs, l.symmetry); err != nil {
		return err
	}
	if err := checkSplitIndex(fs, l.opt.SplitIndex, l.opt.Split); err != nil {
		return err
	}
	switch l.verify {
	case "structure":
		l.opt.Verify = dataset.VerifyStructure
	case "checksums":
		l.opt.Verify = dataset.VerifyChecksums
	case "none":
		l.opt.Verify = dataset.VerifyNone
	default:
		return usageError(fs, "--verify %q: want structure, checksums or none", l.verify)
	}
	if l.opt.SkipVerify {
		if l.opt.Verify != dataset.VerifyNone && isSet(fs, "verify") {
			// The checks asked for would be skipped without a word.
			return usageError(fs, "--no-verify and --verify %s: give one", l.verify)
		}
		l.opt.Verify = dataset.VerifyNone
	}
	if l.opt.Threads < 0 {
		return usageError(fs, "--threads %d: want >= 0", l.opt.Threads)
	}
	return nil
}

// parse registers the load flags on fs, parses args (flags may follow the
// positional arguments), checks that there are n positional arguments
// (want names them in the usage error) and the flags' values, and starts
// the profile: the command line of a command that loads its input.
func (l *loadFlags) parse(e *env, fs *flag.FlagSet, args []string, n int, want string) ([]string, error) {
	l.register(fs)
	pos, err := parsePositional(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		return nil, usageError(fs, "want %s, have %d arguments", want, len(pos))
	}
	if err := l.finish(fs); err != nil {
		return nil, err
	}
	if err := e.startProfile(0, 1); err != nil {
		return nil, err
	}
	return pos, nil
}

// load detects path's format and loads it with the flags' options,
// reporting progress on e.stderr, and returns it with its format and the
// seconds it took; meter's current span is the load.
func (l *loadFlags) load(ctx context.Context, e *env, path string, meter *procstat.Meter) (*dataset.Dataset, string, float64, error) {
	format, err := dataset.Detect(path)
	if err != nil {
		return nil, "", 0, err
	}
	var bar *progress.Bar
	l.opt.Progress, bar = e.loading(false, path)
	defer bar.Finish()
	meter.Begin()
	start := time.Now()
	d, err := dataset.LoadContext(ctx, path, &l.opt)
	if err != nil {
		return nil, "", 0, err
	}
	return d, format, time.Since(start).Seconds(), nil
}

// parsePositional parses args into fs, allowing flags after positional
// arguments (bulksample info g.npz --json), and returns the positionals.
func parsePositional(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// infoSummary is the JSON object of `bulksample info`.
type infoSummary struct {
	Path         string  `json:"path"`
	Format       string  `json:"format"`
	Name         string  `json:"name"`
	Nodes        int     `json:"nodes"`
	Edges        int64   `json:"edges"`
	Weighted     bool    `json:"weighted"`
	DegreeMin    int64   `json:"degree_min"`
	DegreeMean   float64 `json:"degree_mean"`
	DegreeMedian int64   `json:"degree_median"`
	DegreeMax    int64   `json:"degree_max"`
	Features     int     `json:"features"`
	Classes      int     `json:"classes"`
	Labelled     int     `json:"labelled"`
	Train        int     `json:"train"`
	Valid        int     `json:"valid"`
	Test         int     `json:"test"`
	LoadSeconds  float64 `json:"load_seconds"`
	Threads      int     `json:"threads"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Version      string  `json:"version"`
	Verify       string  `json:"verify"` // the checks of a native file: structure, checksums or none
	// Phases is what each phase cost the process: load, and stats (the
	// degree statistics, which read every row offset).
	Phases procstat.Phases `json:"phases"`
	// Relabel and RelabelSeed: the vertex relabelling the file records.
	Relabel     string `json:"relabel,omitempty"`
	RelabelSeed uint64 `json:"relabel_seed,omitempty"`
	// Blocks is the balance of the stored entries over the contiguous row
	// blocks of a distributed run, for each --blocks count.
	Blocks []blockBalance `json:"blocks,omitempty"`
	dataFacts
}

// blockBalance is the stored entries of the B contiguous row blocks a
// distributed run with p/c = B cuts the graph into (dist.BlockRange).
type blockBalance struct {
	Blocks      int     `json:"blocks"`
	EdgesMin    int64   `json:"edges_min"`
	EdgesMax    int64   `json:"edges_max"`
	MaxOverMean float64 `json:"max_over_mean"`
}

// blockBalances returns the balance of a graph with row offsets indptr
// over each count of blocks.
func blockBalances(indptr []int64, counts []int) []blockBalance {
	n := len(indptr) - 1
	var out []blockBalance
	for _, b := range counts {
		bb := blockBalance{Blocks: b, EdgesMin: indptr[n]}
		for i := range b {
			lo, hi := dist.BlockRange(n, b, i)
			e := indptr[hi] - indptr[lo]
			bb.EdgesMin, bb.EdgesMax = min(bb.EdgesMin, e), max(bb.EdgesMax, e)
		}
		if indptr[n] > 0 {
			bb.MaxOverMean = float64(bb.EdgesMax) * float64(b) / float64(indptr[n])
		}
		out = append(out, bb)
	}
	return out
}

func runInfo(ctx context.Context, e *env, args []string) error {
	fs, jsonOut := newFlags(e, "info", "PATH [flags]",
		"Loads a graph or dataset (scipy or gnn-benchmark .npz, OGB folder, Planetoid folder, native file,\n"+
			"edge list, Matrix Market) and prints its size, degree statistics (row lengths of the adjacency),\n"+
			"features, classes, split sizes and the peak memory of the load.")
	var lf loadFlags
	facts := fs.Bool("facts", true, "check whether the graph is symmetric and count its self loops and connected components:\n"+
		"one pass over every entry, about 1 s per 30M entries here; --facts=false skips it on a huge graph")
	blocks := fs.String("blocks", "", "comma-separated block counts (p/c of a distributed run): print how evenly the stored edges\nfall into that many contiguous row blocks (min, max, max over mean)")
	pos, err := lf.parse(e, fs, args, 1, "exactly one PATH")
	if err != nil {
		return err
	}
	path := pos[0]
	var counts []int
	if *blocks != "" {
		for f := range strings.SplitSeq(*blocks, ",") {
			b, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || b < 1 {
				return usageError(fs, "--blocks %q: want comma-separated counts >= 1", *blocks)
			}
			counts = append(counts, b)
		}
	}
	var meter procstat.Meter
	d, format, loadSec, err := lf.load(ctx, e, path, &meter)
	if err != nil {
		return err
	}
	defer d.Close()
	if d.NumNodes() == 0 || d.Adj.NNZ() == 0 {
		// A bad input file, as for sample and train (exit 1).
		return fmt.Errorf("%s: empty graph (%d vertices, %d edges)", path, d.NumNodes(), d.Adj.NNZ())
	}
	s := infoSummary{
		Path: path, Format: format, Name: d.Name, Nodes: d.NumNodes(), Edges: d.Adj.NNZ(), Weighted: d.Weighted,
		Features: d.NumFeatures, Classes: d.NumClasses,
		Train: len(d.Train), Valid: len(d.Valid), Test: len(d.Test),
		LoadSeconds: loadSec, PeakRSSBytes: procstat.PeakRSS(), Verify: lf.opt.Verify.String(),
		Threads: par.Threads(lf.opt.Threads), Version: version(),
	}
	notePhase(e.notes(), "info", "load", meter.End("load"))
	s.DegreeMin, s.DegreeMean, s.DegreeMedian, s.DegreeMax, err = degreeStats(d.Adj.Indptr, d.Adj.NNZ())
	if err != nil {
		// Only --verify none lets such a file through.
		return fmt.Errorf("%s: %w: the file is corrupt (--verify %s trusts it; --verify structure checks it)", path, err, lf.opt.Verify)
	}
	for _, l := range d.Labels {
		if l >= 0 {
			s.Labelled++
		}
	}
	if d.Relabel != nil {
		s.Relabel, s.RelabelSeed = d.Relabel.Method, d.Relabel.Seed
	}
	for _, b := range counts {
		if b > s.Nodes {
			return usageError(fs, "--blocks %d: more blocks than the %d nodes", b, s.Nodes)
		}
	}
	s.Blocks = blockBalances(d.Adj.Indptr, counts)
	s.dataFacts = factsOf(d, lf.opt, *facts)
	notePhase(e.notes(), "info", "stats", meter.End("stats"))
	s.Phases = meter.Phases()
	w := e.stdout
	fmt.Fprintf(w, "%s (%s): %s\n", path, format, d.Name)
	fmt.Fprintf(w, "  nodes     %d\n", s.Nodes)
	fmt.Fprintf(w, "  edges     %d stored entries (weighted: %v)\n", s.Edges, s.Weighted)
	fmt.Fprintf(w, "  degree    min %d, mean %.2f, median %d, max %d\n", s.DegreeMin, s.DegreeMean, s.DegreeMedian, s.DegreeMax)
	s.dataFacts.printGraph(w)
	fmt.Fprintf(w, "  features  %d%s\n", s.Features, s.featureNote())
	fmt.Fprintf(w, "  classes   %d (%d labelled nodes)%s\n", s.Classes, s.Labelled, s.classNote())
	fmt.Fprintf(w, "  split     train %d, valid %d, test %d%s%s\n", s.Train, s.Valid, s.Test, splitNote(format, lf.opt.Split), s.splitsNote())
	switch s.Relabel {
	case "":
		fmt.Fprintf(w, "  relabel   none (the source's ids)\n")
	case dataset.RelabelRandom:
		fmt.Fprintf(w, "  relabel   random, seed %d (orig_ids maps ids back)\n", s.RelabelSeed)
	default:
		fmt.Fprintf(w, "  relabel   %s (orig_ids maps ids back)\n", s.Relabel)
	}
	for _, b := range s.Blocks {
		fmt.Fprintf(w, "  blocks    %d: %d to %d stored edges per row block, max/mean %.3f\n", b.Blocks, b.EdgesMin, b.EdgesMax, b.MaxOverMean)
	}
	fmt.Fprintf(w, "  load      %.3f s, peak memory %s\n", s.LoadSeconds, formatBytes(s.PeakRSSBytes))
	if *jsonOut {
		return writeJSON(w, s)
	}
	return nil
}

// degreeStats returns the minimum, mean, median and maximum row length
// given the row offsets of nnz entries, by a histogram of the lengths
// (O(n + max)). Offsets that do not run from 0 up to nnz are an error: a
// file loaded without checks can hold any, and a negative or huge length
// would size the histogram.
func degreeStats(indptr []int64, nnz int64) (lo int64, mean float64, median int64, hi int64, err error) {
	n := len(indptr) - 1
	if n <= 0 {
		return 0, 0, 0, 0, nil
	}
	if indptr[0] != 0 || indptr[n] != nnz {
		return 0, 0, 0, 0, fmt.Errorf("row offsets (indptr) run from %d to %d, want 0 to the %d entries", indptr[0], indptr[n], nnz)
	}
	lo = indptr[1] - indptr[0]
	for i := range n {
		deg := indptr[i+1] - indptr[i]
		if deg < 0 {
			return 0, 0, 0, 0, fmt.Errorf("row offsets (indptr) decrease at row %d (%d then %d)", i, indptr[i], indptr[i+1])
		}
		lo, hi = min(lo, deg), max(hi, deg)
	}
	hist := make([]int64, hi+1)
	for i := range n {
		hist[indptr[i+1]-indptr[i]]++
	}
	var seen int64
	for deg, c := range hist {
		seen += c
		if 2*seen >= int64(n) {
			median = int64(deg)
			break
		}
	}
	return lo, float64(indptr[n]) / float64(n), median, hi, nil
}

func formatBytes(b int64) string {
	switch {
	case b < 0:
		return "unknown"
	case b < 1<<20:
		return fmt.Sprintf("%d KiB", b>>10)
	case b < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
}
