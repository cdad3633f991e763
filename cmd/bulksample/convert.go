package main

import (
	"context"
	"fmt"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
)

// convertSummary is the JSON object of `bulksample convert`.
type convertSummary struct {
	In           string  `json:"in"`
	Out          string  `json:"out"`
	InFormat     string  `json:"in_format"`
	OutFormat    string  `json:"out_format"`
	Nodes        int     `json:"nodes"`
	Edges        int64   `json:"edges"`
	Features     int     `json:"features"`
	Classes      int     `json:"classes"`
	LoadSeconds  float64 `json:"load_seconds"`
	SaveSeconds  float64 `json:"save_seconds"`
	Threads      int     `json:"threads"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Version      string  `json:"version"`
	// Phases is what each phase cost the process: load, relabel (with
	// --relabel) and save.
	Phases procstat.Phases `json:"phases"`
	// Relabel and RelabelSeed: the vertex relabelling applied (--relabel).
	Relabel     string `json:"relabel,omitempty"`
	RelabelSeed uint64 `json:"relabel_seed,omitempty"`
	// Read is what the reader did to IN's data (nil for formats read as
	// stored); SparseFeatures says the features were kept sparse;
	// StoredSplits counts the splits OUT keeps (--split-index keeps one).
	Read           *dataset.ReadReport `json:"read,omitempty"`
	SparseFeatures bool                `json:"sparse_features"`
	StoredSplits   int                 `json:"stored_splits,omitempty"`
}

func runConvert(ctx context.Context, e *env, args []string) error {
	fs, jsonOut := newFlags(e, "convert", "IN OUT [flags]",
		"Reads IN in any format bulksample reads and writes OUT: the scipy sparse layout when OUT ends\n"+
			"in .npz (with features, labels and split as extra arrays that scipy ignores), otherwise the\n"+
			"native memory-mappable format. OUT is written to a temporary name and renamed. --relabel renames\n"+
			"the vertices (rows and columns, features, labels and split follow) and records the permutation.\n"+
			"Both formats keep sparse features sparse, the ids of a source whose vertices were renumbered, and\n"+
			"every split a source stores (--split-index I keeps split I only).")
	var lf loadFlags
	var rf relabelFlags
	rf.add(fs, "")
	pos, err := lf.parse(e, fs, args, 2, "IN and OUT")
	if err != nil {
		return err
	}
	rl, msg := rf.options(isSet(fs, "relabel-seed"), lf.opt.Threads)
	if msg != "" {
		return usageError(fs, "%s", msg)
	}
	if err := checkOneProcess(fs, "convert"); err != nil {
		return err
	}
	in, out := pos[0], pos[1]
	// Before loading IN, which may take minutes.
	if err := checkOutputFile(out); err != nil {
		return fmt.Errorf("OUT %w", err)
	}
	if err := clobbers([]namedFile{{"OUT", out}}, datasetFiles("IN", in)); err != nil {
		return usageError(fs, "%v", err)
	}
	var meter procstat.Meter
	d, inFormat, loadSec, err := lf.load(ctx, e, in, &meter)
	if err != nil {
		return err
	}
	defer d.Close()
	loaded := time.Now()
	notePhase(e.notes(), "convert", "load", meter.End("load"))
	if d.Report != nil {
		fmt.Fprintf(e.stderr, "read %s: %s\n", in, d.Report)
	}
	if isSet(fs, "split-index") && len(d.Splits) > 0 {
		// The split asked for is the file's one split: a stored split set
		// would load split 0 by default.
		fmt.Fprintf(e.stderr, "keeping split %d of the %d stored\n", lf.opt.SplitIndex, len(d.Splits))
		d.Splits = nil
	}
	if rl.Method != "" {
		bar := e.status(false, "relabelling %d vertices (%s)", d.NumNodes(), rl.Method)
		r, err := dataset.Relabel(d, rl)
		bar.Finish()
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		d.Close() // r holds copies
		d = r
		notePhase(e.notes(), "convert", "relabel", meter.End("relabel"))
		loaded = time.Now()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	bar := e.status(false, "writing %s", out)
	err = dataset.SaveContext(ctx, out, d)
	bar.Finish()
	if err != nil {
		return err
	}
	notePhase(e.notes(), "convert", "save", meter.End("save"))
	outFormat, err := dataset.Detect(out)
	if err != nil {
		return err
	}
	s := convertSummary{
		In: in, Out: out, InFormat: inFormat, OutFormat: outFormat,
		Nodes: d.NumNodes(), Edges: d.Adj.NNZ(), Features: d.NumFeatures, Classes: d.NumClasses,
		LoadSeconds: loadSec, SaveSeconds: time.Since(loaded).Seconds(), PeakRSSBytes: procstat.PeakRSS(),
		Threads: par.Threads(lf.opt.Threads), Version: version(),
		Phases: meter.Phases(), Relabel: rl.Method, RelabelSeed: rl.Seed,
		Read: d.Report, SparseFeatures: d.SparseFeatures != nil, StoredSplits: len(d.Splits),
	}
	fmt.Fprintf(e.stdout, "%s (%s) -> %s (%s): %d nodes, %d edges, %d features, %d classes; load %.3f s, save %.3f s\n",
		in, inFormat, out, outFormat, s.Nodes, s.Edges, s.Features, s.Classes, s.LoadSeconds, s.SaveSeconds)
	if *jsonOut {
		return writeJSON(e.stdout, s)
	}
	return nil
}
