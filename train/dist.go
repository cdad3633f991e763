package train

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
)

// DistInfo describes how a rank of a distributed run holds and uses its
// data, for its reports.
type DistInfo struct {
	// Fetch is how the sampler reads remote rows: pull or push (Split),
	// replicated (Replicated), or none (a model that samples none).
	Fetch string
	// BlockOnly says whether this rank read only its blocks of the graph
	// and the labels from the file (a native file, a scipy .npz, an OGB
	// folder), rather than the whole file; false for a Whole source.
	BlockOnly bool
	// FeaturesDistributed says whether the feature rows are distributed
	// (featurex.Dist) rather than every rank's own copy (Replicated).
	FeaturesDistributed bool
	// Eval is where the run evaluates.
	Eval EvalMode
}

// DistJob is one rank's part of an assembled distributed training run.
// Close it after the run.
type DistJob struct {
	// Trainer trains this rank's replica of the model; call its Run on
	// every rank. It is data parallel: every rank trains its part of
	// every global minibatch, and the step's all-reduce keeps the
	// replicas identical.
	Trainer *Trainer
	// Grid is the grid of the sampler and the gradient all-reduce (its
	// World is the run's communicator).
	Grid *dist.Grid
	// Info describes the data (of the whole graph) and Dist how this rank
	// holds it.
	Info Info
	Dist DistInfo
	// Train, Valid and Test are the split trained on.
	Train, Valid, Test []int32
	// Options are the options the job was assembled with, with the plan's
	// batch size of BatchAll filled in.
	Options Options

	fgrid   *dist.Grid // the feature store's and the evaluator's grid
	store   *featurex.Dist
	eval    *BlockEvaluator
	data    *rankData
	closers closers
}

// NewDist assembles this rank's part of a distributed training run over
// the ranks of world from src; it is collective, every rank of world
// calling it with the same options and a source of the same data. Each rank
// holds the data of Options.Dist's layout (see the package documentation),
// samples with distsample.NewDistSampler, gathers features from a
// featurex.Dist (Split) or its own copy (Replicated), evaluates as
// Options.Dist.Eval says, and reduces the gradients with
// NewDataParallel over Grid.World(). The ranks first compare what they
// loaded with rank 0's (the figures of the data and the file's identity):
// a rank whose data differ returns an error naming each difference
// (dist.SameAsRoot), and the others wait in their next collective for the
// job to end (run every rank through dist.Run). It returns an error naming
// the invalid option (ValidateDist) or the data (Options.Name) when it
// cannot be trained on.
func NewDist(ctx context.Context, world dist.Comm, src Source, opt Options) (_ *DistJob, err error) {
	if err := opt.ValidateDist(); err != nil {
		return nil, err
	}
	c := max(opt.Dist.Replication, 1)
	if err := dist.CheckReplication(world.Size(), c); err != nil {
		return nil, fmt.Errorf("train: %w", err) // before any rank reads the data
	}
	replicated := opt.Dist.Layout == distsample.Replicated
	whole := replicated || (opt.Dist.Eval == EvalGathered && world.Rank() == 0)
	rd, grid, err := src.load(ctx, world, c, whole, opt.Trainer.Runtime.Threads)
	if err != nil {
		return nil, err
	}
	j := &DistJob{Grid: grid, data: rd, Options: opt}
	j.closers = append(j.closers, rd.close, grid.Close)
	defer func() {
		if err != nil {
			j.Close()
		}
	}()
	label := opt.Name // names the data in errors
	if label == "" {
		label = rd.info.Name
	}
	if opt.SplitFile != "" {
		if err := rd.readSplit(opt.SplitFile); err != nil {
			return nil, err
		}
	}
	if err := j.checkSame(ctx, label); err != nil {
		return nil, err
	}
	if err := checkData(label, &rd.info, opt.samples()); err != nil {
		return nil, err
	}
	if !replicated {
		// Collective on the process column: every rank takes part, also
		// one that holds every label already (rank 0 evaluating the whole
		// graph, a Whole source), which then writes none.
		if err := trainLabels(ctx, grid, rd.labels, rd.train, !rd.allLabels); err != nil {
			return nil, err
		}
	}
	if opt.BatchAll {
		j.Options.Trainer.Plan.BatchSize = max(len(rd.train), 1)
	}
	if err := j.normalize(); err != nil {
		return nil, err
	}
	// The feature exchanges (and the evaluation's) get communicators of
	// their own: an input pipeline may run them beside the sampler's.
	if j.fgrid, err = dist.NewGrid(ctx, world, c, rd.info.Nodes); err != nil {
		return nil, err
	}
	j.closers = append(j.closers, j.fgrid.Close)
	d := Data{Name: label, Labels: rd.labels, NumClasses: rd.info.Classes,
		Train: rd.train, Valid: rd.valid, Test: rd.test, Reducer: NewDataParallel(grid.World()),
		Fingerprint: dataFingerprint(rd.info.Normalized)}
	if d.Sampler, j.Dist.Fetch, err = j.sampler(ctx, label); err != nil {
		return nil, err
	}
	if d.Features, err = j.features(ctx, label); err != nil {
		return nil, err
	}
	if !opt.Trainer.Runtime.NoEval {
		if d.Evaluator, err = j.evaluator(d.Features); err != nil {
			return nil, err
		}
	}
	j.Dist.BlockOnly, j.Dist.Eval, j.Info = rd.blockOnly, opt.Dist.Eval, rd.info
	j.Train, j.Valid, j.Test = rd.train, rd.valid, rd.test
	if j.Trainer, err = NewTrainer(d, j.Options.Trainer); err != nil {
		return nil, err
	}
	return j, nil
}

// checkSame compares this rank's figures of the data with rank 0's
// (dist.SameAsRoot); a Path source compared the file's identity as it
// loaded it (LoadGraph).
func (j *DistJob) checkSame(ctx context.Context, label string) error {
	in := &j.data.info
	lines := []string{
		fmt.Sprintf("vertices %d", in.Nodes), fmt.Sprintf("entries %d", in.Edges),
		fmt.Sprintf("features %d", in.Features), fmt.Sprintf("classes %d", in.Classes),
		"split " + SplitFingerprint(j.data.train, j.data.valid, j.data.test),
	}
	return dist.SameAsRoot(ctx, j.Grid.World(), label, lines)
}

// trainLabels fills in labels (one per vertex, this rank's block's known)
// the labels of the training vertices of the other blocks, when fill is
// set: each block's rank in the process column sends those of its block,
// in the order of train, to the others (one all-gather, collective on the
// column). A dataset without labels sends -1s, which checkData refuses.
func trainLabels(ctx context.Context, g *dist.Grid, labels, train []int32, fill bool) error {
	lo, hi := g.MyRows()
	var mine []int32
	for _, v := range train {
		if v >= lo && v < hi {
			y := int32(-1)
			if labels != nil {
				y = labels[v]
			}
			mine = append(mine, y)
		}
	}
	all, counts, err := dist.Allgather(ctx, g.Col(), dist.PhaseControl, mine)
	if err != nil {
		return fmt.Errorf("train: the training vertices' labels: %w", err)
	}
	if !fill || labels == nil {
		return nil
	}
	next := make([]int, len(counts)) // per block: where its next label is
	for b := 1; b < len(counts); b++ {
		next[b] = next[b-1] + counts[b-1]
	}
	for _, v := range train {
		b, _ := g.Locate(v)
		if next[b] >= len(all) {
			return fmt.Errorf("train: rank %d: block %d sent too few training labels", g.Rank(), b)
		}
		labels[v] = all[next[b]]
		next[b]++
	}
	return nil
}

// normalize scales the feature rows this rank holds to sum 1, in its own
// copy of them when they are the caller's (a Whole source), when
// Options.NormFeatures says so; features it refuses are a
// *NormFeaturesError naming the row of the graph.
func (j *DistJob) normalize() error {
	rd := j.data
	if !j.Options.NormFeatures || rd.info.Features == 0 {
		return nil
	}
	if !rd.owned {
		rd.feat = slices.Clone(rd.feat)
	}
	first := rd.lo
	if rd.whole {
		first = 0
	}
	if err := normalizeRows(rd.info.Name, rd.feat, rd.info.Features, first); err != nil {
		return err
	}
	rd.info.Normalized = true
	return nil
}

// sampler returns this rank's sampler and how it reads remote rows.
func (j *DistJob) sampler(ctx context.Context, label string) (sampling.Sampler, string, error) {
	if !j.Options.samples() {
		return SeedsOnly{}, "none", nil
	}
	rd := j.data
	so := j.Options.distSamplerOptions()
	graph, fetch := rd.block(), so.EffectiveFetch().String()
	if so.Layout == distsample.Replicated {
		graph, fetch = rd.adj, "replicated"
	}
	s, err := distsample.NewDistSampler(ctx, j.Grid, graph, so)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", label, err)
	}
	return s, fetch, nil
}

// features returns this rank's feature store: featurex.Dist over the
// feature grid (Split), or a local store of every row (Replicated).
func (j *DistJob) features(ctx context.Context, label string) (featurex.Store, error) {
	rd := j.data
	f := rd.info.Features
	if j.Options.Dist.Layout == distsample.Replicated {
		s, err := featurex.NewLocal(rd.feat, f, featurex.LocalOptions{Threads: j.Options.Trainer.Runtime.Threads})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		return s, nil
	}
	s, err := featurex.NewDist(ctx, j.fgrid, rd.blockFeatures(), f, featurex.DistOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	j.store = s
	j.closers = append(j.closers, s.Close)
	j.Dist.FeaturesDistributed = true
	return s, nil
}

// evaluator returns the evaluator of Options.Dist.Eval.
func (j *DistJob) evaluator(store featurex.Store) (Evaluator, error) {
	rd := j.data
	if j.Options.Dist.Eval == EvalGathered {
		ev := &RootEvaluator{Comm: j.Grid.World(), Root: 0, Vertices: rd.info.Nodes}
		if j.Grid.Rank() == 0 {
			ev.Eval = &FullNeighbour{Adj: rd.adj, Features: rd.feat}
		}
		return ev, nil
	}
	m, err := dist.NewMatrix(j.fgrid, rd.block())
	if err != nil {
		return nil, err
	}
	j.eval = &BlockEvaluator{Matrix: m, Features: store}
	j.closers = append(j.closers, j.eval.Close)
	return j.eval, nil
}

// Comms returns this rank's communicators of the run (the grids', the
// feature store's and the evaluator's), for the traffic counters
// (dist.ReduceStats).
func (j *DistJob) Comms() []dist.Comm {
	comms := slices.Concat(j.Grid.Comms(), j.fgrid.Comms())
	if j.store != nil {
		comms = append(comms, j.store.Comm())
	}
	if j.eval != nil {
		comms = append(comms, j.eval.Comms()...)
	}
	return comms
}

// CheckReplicas returns an error unless every rank's parameters equal rank
// 0's (CheckReplicas): the replicas of a data-parallel run must
// stay identical. It is collective.
func (j *DistJob) CheckReplicas(ctx context.Context) error {
	return CheckReplicas(ctx, j.Trainer.Model(), j.Grid.World())
}

// Close frees what the job made (communicators, mappings), newest first;
// it is idempotent.
func (j *DistJob) Close() error { return j.closers.close() }

// readSplit replaces the split by the split file's (every rank reads it).
func (r *rankData) readSplit(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("train: split file: %w", err)
	}
	defer f.Close()
	tr, va, te, err := dataset.ReadSplit(f, r.info.Nodes)
	if err != nil {
		return fmt.Errorf("train: split file %s: %w", path, err)
	}
	r.train, r.valid, r.test = tr, va, te
	r.info.Train, r.info.Valid, r.info.Test = len(tr), len(va), len(te)
	return nil
}
