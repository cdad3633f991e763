package train

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/sampling"
)

// ErrData is wrapped by the errors of data that cannot be trained on: an
// empty graph, a graph without edges for a model that reads them, no
// features or labels (a *SplitError for a split without a set).
var ErrData = errors.New("train: data that cannot be trained on")

// SplitError is the error of a dataset whose split lacks a set that
// training needs. It wraps ErrData.
type SplitError struct {
	Name               string
	Train, Valid, Test int
}

// Sizes says how many vertices each set has: "the split has 0 train, 500
// valid and 1000 test vertices".
func (e *SplitError) Sizes() string {
	return fmt.Sprintf("the split has %d train, %d valid and %d test vertices", e.Train, e.Valid, e.Test)
}

func (e *SplitError) Error() string {
	return fmt.Sprintf("%s: %s; training needs all three", e.Name, e.Sizes())
}

func (e *SplitError) Unwrap() error { return ErrData }

// Info describes what a run trains on, for its reports.
type Info struct {
	// Name is the dataset's name (dataset.Dataset.Name).
	Name string
	// Nodes and Edges are the whole graph's vertices and stored entries;
	// Features and Classes the input width and the number of classes.
	Nodes, Features, Classes int
	Edges                    int64
	// Train, Valid and Test are the sizes of the split's sets.
	Train, Valid, Test int
	// Normalized says whether the feature rows were scaled to sum 1
	// (Options.NormFeatures on data with features).
	Normalized bool
}

// Job is an assembled training run: its trainer, and what it was
// assembled from.
type Job struct {
	// Trainer trains the model; call its Run.
	Trainer *Trainer
	// Info describes the data.
	Info Info
	// Train, Valid and Test are the split trained on.
	Train, Valid, Test []int32
	// Options are the options the job was assembled with, with the plan's
	// batch size of BatchAll filled in.
	Options Options

	// release frees what the job holds outside Go's heap (features or
	// the sampler's graph in a device's memory); nil when nothing.
	release func() error
	// whole is the graph and features of a single-process job, for Scores;
	// nil on the ranks of a distributed one.
	whole *FullNeighbour
}

// Close frees what the job holds outside Go's heap: the feature matrix a
// ResidentFeatures backend holds, and a sampler of Options.NewSampler that
// is an io.Closer. It is idempotent; call it after the trainer's last use.
func (j *Job) Close() error {
	if j.release == nil {
		return nil
	}
	r := j.release
	j.release = nil
	return r()
}

// ResidentFeatures is implemented by a compute backend that can hold the
// dense feature matrix in its own memory and gather each minibatch's rows
// there (package gpu's Backend), so that features cross to it once. New
// asks Trainer.Runtime.Backend for it when the host store would gather dense
// rows (bag-of-words features kept sparse cost less to move as CSR rows);
// features it cannot hold (an error: they do not fit) stay in host memory,
// and the trainer's Notes say so. A store that is an io.Closer is closed
// by Job.Close.
type ResidentFeatures interface {
	ResidentFeatures(x []float32, f int) (featurex.Store, error)
}

// New assembles the training of one process on ds: a sampler of
// Options.Sampler over ds's graph (Options.NewSampler's, by default
// sampling.NewSampler's; none for gnn.Linear: SeedsOnly), an
// in-memory feature store, ds's labels and split, and full-neighbour
// evaluation over the whole graph (unless Trainer.Runtime.NoEval). With
// NormFeatures it scales ds's feature rows in place first (features it
// refuses are a *NormFeaturesError). It returns an error naming the
// invalid option (Validate), or the data (Options.Name) when it cannot be
// trained on (wrapping ErrData; a *SplitError).
func New(ds *dataset.Dataset, opt Options) (*Job, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	name := opt.Name
	if name == "" {
		name = ds.Name
	}
	if opt.SplitFile != "" {
		if err := dataset.ReadSplitFile(opt.SplitFile, ds); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	info := Info{Name: ds.Name, Nodes: ds.NumNodes(), Features: ds.NumFeatures, Classes: ds.NumClasses,
		Train: len(ds.Train), Valid: len(ds.Valid), Test: len(ds.Test)}
	if ds.Adj != nil {
		info.Edges = ds.Adj.NNZ()
	}
	if err := checkData(name, &info, opt.samples()); err != nil {
		return nil, err
	}
	if opt.BatchAll {
		opt.Trainer.Plan.BatchSize = max(len(ds.Train), 1)
	}
	if opt.NormFeatures {
		if err := normalizeDataset(ds); err != nil {
			return nil, err
		}
		info.Normalized = true
	}
	s, closeSampler, err := localSampler(ds, &opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	store, err := localStore(ds, opt.Trainer.Runtime.Threads)
	if err != nil {
		closeSampler()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	features, releaseFeatures := residentFeatures(opt.Trainer, store, ds)
	release := func() error {
		err := closeSampler()
		if releaseFeatures != nil {
			err = errors.Join(err, releaseFeatures())
		}
		return err
	}
	d := Data{Name: name, Sampler: s, Features: features, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test, Fingerprint: dataFingerprint(info.Normalized)}
	whole := &FullNeighbour{Adj: ds.Adj, Features: ds.Features, SparseFeatures: ds.SparseFeatures}
	if !opt.Trainer.Runtime.NoEval {
		d.Evaluator = whole
	}
	job := &Job{Info: info, Options: opt, Train: ds.Train, Valid: ds.Valid, Test: ds.Test, release: release, whole: whole}
	if job.Trainer, err = NewTrainer(d, opt.Trainer); err != nil {
		job.Close()
		return nil, err
	}
	return job, nil
}

// localSampler returns the sampler of a one-process run (SeedsOnly for a
// model that samples no neighbours; else Options.NewSampler's, by default
// sampling.NewSampler's) and the function that closes it (a no-op unless
// the sampler is an io.Closer: a device's holds the graph in its memory).
func localSampler(ds *dataset.Dataset, opt *Options) (sampling.Sampler, func() error, error) {
	none := func() error { return nil }
	if !opt.samples() {
		return SeedsOnly{}, none, nil
	}
	build := opt.NewSampler
	if build == nil {
		build = sampling.NewSampler
	}
	s, err := build(ds.Adj, opt.samplerOptions())
	if err != nil {
		return nil, nil, err
	}
	if c, ok := s.(io.Closer); ok {
		return s, c.Close, nil
	}
	return s, none, nil
}

// localStore returns the in-memory store of ds's features: its CSR matrix
// when the dataset keeps them sparse (SparseFeatures, which are never made
// dense: the first layer multiplies them sparse), else its dense array
// (with a CSR copy when they are sparse enough, featurex.NewLocal).
func localStore(ds *dataset.Dataset, threads int) (*featurex.Local, error) {
	if ds.SparseFeatures != nil {
		return featurex.NewLocalCSR(ds.SparseFeatures, featurex.LocalOptions{Threads: threads})
	}
	return featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{Threads: threads})
}

// normalizeDataset scales ds's feature rows to sum 1 in place, dense or
// sparse (NormFeatures).
func normalizeDataset(ds *dataset.Dataset) error {
	if ds.SparseFeatures == nil {
		return normalizeRows(ds.Name, ds.Features, ds.NumFeatures, 0)
	}
	err := featurex.NormalizeCSRRows(ds.SparseFeatures)
	var re *featurex.RowError
	if errors.As(err, &re) {
		return &NormFeaturesError{Name: ds.Name, Row: re.Row, Col: re.Col, Value: re.Value}
	}
	return err
}

// residentFeatures returns the feature store of a run whose backend is a
// ResidentFeatures and whose host store gathers dense rows: ds's features
// in the backend's memory, with the function that frees them. Otherwise,
// or when they do not fit (said in opt.Hooks.Notes), it returns host. A
// store that says where it keeps them (PlacementNote: gpu's in host
// memory the device reads in place) says it in the notes.
func residentFeatures(opt TrainerOptions, host featurex.Store, ds *dataset.Dataset) (featurex.Store, func() error) {
	rf, ok := opt.Runtime.Backend.(ResidentFeatures)
	if !ok {
		return host, nil
	}
	if sg, ok := host.(featurex.SparseGatherer); ok && sg.Sparse() || ds.Features == nil {
		return host, nil
	}
	dev, err := rf.ResidentFeatures(ds.Features, ds.NumFeatures)
	if err != nil {
		if opt.Hooks.Notes != nil {
			fmt.Fprintf(opt.Hooks.Notes, "note: the features stay in host memory, each minibatch's rows uploaded: %v\n", err)
		}
		return host, nil
	}
	if pn, ok := dev.(interface{ PlacementNote() string }); ok && opt.Hooks.Notes != nil && pn.PlacementNote() != "" {
		fmt.Fprintf(opt.Hooks.Notes, "note: %s\n", pn.PlacementNote())
	}
	if c, ok := dev.(io.Closer); ok {
		return dev, c.Close
	}
	return dev, nil
}

// dataFingerprint is the data's setting that a resumed run must share and
// the trainer cannot see (Data.Fingerprint): whether the feature rows
// were normalised (the command line's norm-features).
func dataFingerprint(normalized bool) sampling.Fingerprint {
	return sampling.Fingerprint{{Key: "norm-features", Value: strconv.FormatBool(normalized)}}
}

// checkData returns an error naming the data (name) when it cannot be
// trained on: an empty graph, a graph without edges for a model that reads
// them (samples), no features or labels, or an empty train, valid or test
// set.
func checkData(name string, in *Info, samples bool) error {
	switch {
	case in.Nodes == 0:
		return dataErrorf("%s: empty graph (0 vertices): nothing to train on", name)
	case in.Edges == 0 && samples:
		return dataErrorf("%s: the graph has no edges, which a graph model aggregates over (the linear model trains on the features alone)", name)
	case in.Features == 0:
		return dataErrorf("%s has no node features; training needs features, labels and a split", name)
	case in.Classes == 0:
		return dataErrorf("%s has no labels; training needs features, labels and a split", name)
	case in.Train == 0 || in.Valid == 0 || in.Test == 0:
		return &SplitError{Name: name, Train: in.Train, Valid: in.Valid, Test: in.Test}
	}
	return nil
}

// dataError is an error of data that cannot be trained on; it wraps
// ErrData without repeating its message.
type dataError struct{ msg string }

func dataErrorf(format string, a ...any) error { return &dataError{fmt.Sprintf(format, a...)} }

func (e *dataError) Error() string { return e.msg }
func (e *dataError) Unwrap() error { return ErrData }

// NormFeaturesError is the error of Options.NormFeatures on features that
// row normalisation refuses (featurex.NormalizeRows): the entry of the
// data Name's vertex Row at column Col is Value, negative or not finite.
// Normalising such rows is not the Planetoid preprocessing: a row with
// negative entries can sum to about 0 and be blown up.
type NormFeaturesError struct {
	Name     string
	Row, Col int
	Value    float32
}

func (e *NormFeaturesError) Error() string {
	return fmt.Sprintf("train: %s: Options.NormFeatures: feature row %d has the value %v at column %d; row normalisation is for non-negative (bag-of-words) features",
		e.Name, e.Row, e.Value, e.Col)
}

// normalizeRows scales the feature rows feat (f values each; the first is
// vertex first of the graph) to sum 1, or returns a *NormFeaturesError of
// the data name.
func normalizeRows(name string, feat []float32, f, first int) error {
	err := featurex.NormalizeRows(feat, f)
	var re *featurex.RowError
	if errors.As(err, &re) {
		return &NormFeaturesError{Name: name, Row: first + re.Row, Col: re.Col, Value: re.Value}
	}
	return err
}
