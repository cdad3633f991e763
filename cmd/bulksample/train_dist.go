package main

// The distributed path of `bulksample train`: the same command line run
// under mpirun or srun (or on in-process ranks with --inproc-ranks, for
// tests), with the distribution flags of `sample`. Training is data
// parallel (gnn.DataParallel): every global minibatch of --batch seeds is
// split over the ranks, each samples and trains its part, and one
// all-reduce per step averages the gradients, so that the run follows the
// single-process run with the same --batch. Only rank 0 prints, writes the
// checkpoints and the JSON.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
)

// How a distributed run holds its data and evaluates, as its JSON states
// them.
const (
	distDataWhole     = "whole file: every rank loads the dataset (a native file is mapped, its pages read on first use), then reads only the rows its layout needs"
	distEvalGathered  = "gathered: rank 0 runs full-neighbour inference on the whole graph, the other ranks wait for its accuracies"
	distEvalBlocks    = "distributed: each rank infers its row block by layer-wise full-neighbour inference, fetching its remote neighbours' feature and hidden rows from their owners"
	distFeaturesLocal = "replicated: every rank reads its minibatches' feature rows from its own copy"
	distFeaturesDist  = "distributed: each rank holds its vertex block's rows (c replicas per block) and fetches the others from their owners in its process column (featurex.Dist)"
)

// distTrainSummary is the --json object of a distributed `bulksample
// train`: the single-process summary, whose per-epoch figures (times,
// sampled edges, SEPS, memory) are rank 0's and whose losses and
// accuracies are the whole run's, and the distribution.
type distTrainSummary struct {
	trainSummary
	Ranks       int    `json:"ranks"`
	Replication int    `json:"replication"`
	Fetch       string `json:"fetch"` // pull, push, replicated (--replicate-graph) or none (no graph read)
	DataLayout  string `json:"data_layout"`
	Features    string `json:"features"`
	Evaluation  string `json:"evaluation"`
	// Traffic is, per communication phase, the bytes and messages over
	// the whole run (summed over the ranks and of the busiest rank) and the
	// time the ranks spent in its calls: the transfer and the wait for the
	// other ranks (mean over the ranks and the most of one rank).
	Traffic    map[string]phaseJSON `json:"traffic"`
	PeakRSSMax int64                `json:"peak_rss_max"`
	// ParamHash is the hash of the final parameters (gnn.Model.ParamHash),
	// checked equal on every rank.
	ParamHash string `json:"param_hash"`
}

func runTrainDist(ctx context.Context, e *env, c *trainConfig) error {
	return runRanks(ctx, e, &c.dist.rankFlags, func(ctx context.Context, e *env, w dist.Comm) error {
		return trainRank(ctx, e, c, w)
	})
}

// errInjected is the error of --fail-rank.
var errInjected = errors.New("injected failure")

// trainRank is one rank's run.
func trainRank(ctx context.Context, e *env, c *trainConfig, world dist.Comm) error {
	var waits dist.CommTimes
	world = dist.NewTimed(world, &waits)
	root := world.Rank() == 0
	// This rank's copy of the configuration (setupTrain sets --batch all's
	// size in it; in-process ranks share c); rank 0 alone writes files.
	local := *c
	c = &local
	re := e // where this rank reports progress: rank 0 alone
	if !root {
		re = &env{stdout: io.Discard, stderr: io.Discard}
		c.splitOut = ""
	}
	be, releaseBackend, err := c.trainBackend(re)
	if err != nil {
		return err
	}
	defer releaseBackend()
	c.opt.Backend = be
	ts, err := setupTrain(ctx, re, c)
	if err != nil {
		return err
	}
	ds := ts.ds
	if err := sameInput(ctx, world, c.data, []string{
		fmt.Sprintf("vertices %d", ds.NumNodes()), fmt.Sprintf("entries %d", ds.Adj.NNZ()),
		fmt.Sprintf("features %d", ds.NumFeatures), fmt.Sprintf("classes %d", ds.NumClasses),
		"split " + gnn.SplitFingerprint(ds.Train, ds.Valid, ds.Test),
	}); err != nil {
		return err
	}
	grid, err := dist.NewGrid(ctx, world, c.dist.replication, ts.ds.NumNodes())
	if err != nil {
		return err
	}
	defer grid.Close()
	// The feature exchanges (and the evaluation's) get communicators of
	// their own: an input pipeline may run them beside the sampler's.
	fgrid, err := dist.NewGrid(ctx, world, c.dist.replication, ts.ds.NumNodes())
	if err != nil {
		return err
	}
	defer fgrid.Close()
	s, fetch, err := newDistTrainSampler(ctx, c, ts, grid)
	if err != nil {
		return err
	}
	if root {
		announceTrain(re, c, ts, fmt.Sprintf(" on %d ranks (replication %d, %s)", grid.Size(), grid.Replication(), fetch))
	}
	rd, err := rankTrainData(ctx, c, ts, grid, fgrid, s)
	defer rd.close()
	if err != nil {
		return err
	}
	data := rd.data
	if c.opt.Resume {
		if err := sameCheckpoint(ctx, grid.World(), c.opt.CheckpointDir); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	opt := c.opt
	opt.ResumeConfig = c.resumeConfig(ts.normalized)
	bar := newEpochProgress(re.stderr, opt.Epochs)
	opt.OnResume = announceResume(re.stderr, c)
	opt.OnMinibatch = func(epoch, done, total int) {
		bar.minibatch(epoch, done, total)
		if grid.Rank() == c.dist.failRank && done == min(opt.BulkSize, total) {
			cancel(fmt.Errorf("%w after bulk 0 (--fail-rank %d)", errInjected, c.dist.failRank))
		}
	}
	// While the ranks train, a signal asks them to stop together (see
	// signals.go) rather than cancel this rank's collectives.
	stop, release := stopRequest(ctx)
	defer release()
	opt.Stop = stop
	tr, err := gnn.NewTrainer(data, opt)
	if err != nil {
		return err
	}
	if _, why := tr.PipelineDepth(); why != "" {
		// The sampler, the store and the reducer communicate, and the MPI
		// library did not grant MPI_THREAD_MULTIPLE.
		fmt.Fprintf(re.stderr, "train: %s\n", why)
	}
	var epochWaits [][dist.NumPhases]float64 // rank 0's time in communication per epoch
	last := waits.Seconds()
	res, err := tr.Run(ctx, func(st gnn.EpochStats) {
		bar.done()
		now := waits.Seconds()
		var w [dist.NumPhases]float64
		for ph := range w {
			w[ph] = now[ph] - last[ph]
		}
		epochWaits, last = append(epochWaits, w), now
		if root {
			printEpoch(re.stdout, opt.Epochs, st, opt.Arch != gnn.Linear)
			for _, p := range st.Costs {
				notePhase(re.stderr, fmt.Sprintf("epoch %d/%d", st.Epoch+1, opt.Epochs), p.Name, p.Cost)
			}
		}
	})
	release()
	bar.done()
	if agreedStop(err) {
		// Every rank stopped after the same step and rank 0's checkpoint
		// is written: the job ends without MPI_Abort.
		return &rankStopError{rank: grid.Rank(), err: err}
	}
	if !root {
		err = notRootStop(err)
	}
	// Every rank resumed from the same checkpoint (sameCheckpoint), so
	// all of them end here alike, before the collectives below.
	if err == nil && nothingToTrain(re.stderr, c, res) {
		return nil
	}
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errInjected) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	if err != nil {
		return err
	}
	if err := tr.Model().CheckReplicas(ctx, grid.World()); err != nil {
		return err
	}
	sum := distTrainSummary{Ranks: grid.Size(), Replication: grid.Replication(), Fetch: fetch,
		DataLayout: distDataWhole, Features: rd.features, Evaluation: rd.evaluation,
		ParamHash: fmt.Sprintf("%016x", tr.Model().ParamHash())}
	comms := slices.Concat(grid.Comms(), fgrid.Comms(), rd.comms())
	if err := runTotals(ctx, grid.World(), comms, &waits, &sum); err != nil {
		return err
	}
	if !root {
		return nil
	}
	sum.trainSummary = ts.summary(c, res)
	for i, w := range epochWaits {
		ep := &sum.Epochs[res.ResumedFrom+i]
		ep.WaitSeconds = make(map[string]float64)
		for ph := range dist.NumPhases {
			ep.WaitSeconds[ph.String()] = w[ph]
		}
	}
	if err := finishTrain(re, c, res, &sum.trainSummary); err != nil {
		return err
	}
	tr0 := func(ph dist.Phase) phaseJSON { return sum.Traffic[ph.String()] }
	fmt.Fprintf(re.stdout, "traffic over %d ranks: sample %d B, features %d B, gradients %d B; time in communication (mean per rank): sample %.3f s, features %.3f s, gradients %.3f s, control %.3f s; peak RSS of a rank %d MiB\n",
		sum.Ranks, tr0(dist.PhaseSample).BytesSent, tr0(dist.PhaseFeatures).BytesSent, tr0(dist.PhaseGradients).BytesSent,
		tr0(dist.PhaseSample).WaitSeconds, tr0(dist.PhaseFeatures).WaitSeconds, tr0(dist.PhaseGradients).WaitSeconds,
		tr0(dist.PhaseControl).WaitSeconds, sum.PeakRSSMax>>20)
	if c.json {
		return writeJSON(re.stdout, sum)
	}
	return nil
}

// notRootStop returns err, the error of Run on a rank other than 0, saying
// that rank 0 writes the checkpoint when err is a *gnn.StoppedError naming
// one: its message, "(checkpoint ck/checkpoint.gob)", claimed on every
// rank a file that rank 0 alone writes (gnn.Trainer.save).
func notRootStop(err error) error {
	var st *gnn.StoppedError
	if errors.As(err, &st) && err == error(st) && st.Checkpoint != "" {
		return &notRootStopError{st}
	}
	return err
}

// notRootStopError is a *gnn.StoppedError of a rank other than 0.
type notRootStopError struct{ st *gnn.StoppedError }

func (e *notRootStopError) Error() string {
	return fmt.Sprintf("gnn: stopped in epoch %d after %d of %d minibatches (no checkpoint from this rank: rank 0 writes %s): %v",
		e.st.Epoch+1, e.st.Minibatches, e.st.Total, e.st.Checkpoint, e.st.Err)
}

func (e *notRootStopError) Unwrap() error { return e.st }

// rankTrainData returns this rank's gnn.Data: the data-parallel reducer
// (on grid, the sampler's), the feature store (featurex.Dist over fgrid, a
// grid of the same shape with communicators of its own, or every rank's own copy
// with --replicate-graph) and the evaluator of --eval, with what the JSON
// says of the last two. It normalises the feature rows the rank reads
// (--norm-features) and no others. The returned rankData is never nil: its
// close frees what was made, even after an error.
func rankTrainData(ctx context.Context, c *trainConfig, ts *trainSetup, grid, fgrid *dist.Grid, s sampling.Sampler) (*rankData, error) {
	ds := ts.ds
	gathered := c.evalMode == evalGathered
	// The rows this rank reads: all of them with a replicated graph or on
	// the rank that evaluates the whole graph, its block's otherwise.
	wholeRows := c.dist.replicate || (gathered && grid.Rank() == 0)
	lo, hi := grid.MyRows()
	rows := [2]int{int(lo), int(hi)}
	if wholeRows {
		rows = [2]int{0, ds.NumNodes()}
	}
	rd := &rankData{features: distFeaturesLocal, comms: func() []dist.Comm { return nil }}
	if err := ts.normalizeRows(rows[0], rows[1]); err != nil {
		return rd, err
	}
	rd.data = gnn.Data{Name: ds.Name, Sampler: s, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test, Reducer: gnn.NewDataParallel(grid.World())}
	f := ds.NumFeatures
	var store *featurex.Dist
	if c.dist.replicate {
		local, err := featurex.NewLocal(ds.Features, f, featurex.LocalOptions{Threads: c.opt.Threads})
		if err != nil {
			return rd, fmt.Errorf("%s: %w", c.data, err)
		}
		rd.data.Features = local
	} else {
		var err error
		if store, err = featurex.NewDist(ctx, fgrid, ds.Features[int(lo)*f:int(hi)*f], f, featurex.DistOptions{}); err != nil {
			return rd, fmt.Errorf("%s: %w", c.data, err)
		}
		rd.data.Features, rd.features = store, distFeaturesDist
		rd.closers = append(rd.closers, store.Close)
		rd.comms = func() []dist.Comm { return []dist.Comm{store.Comm()} }
	}
	if gathered {
		ev := &gnn.RootEvaluator{Comm: grid.World(), Root: 0, Vertices: ds.NumNodes()}
		if grid.Rank() == 0 {
			ev.Eval = &gnn.FullNeighbour{Adj: ds.Adj, Features: ds.Features}
		}
		rd.data.Evaluator, rd.evaluation = ev, distEvalGathered
		return rd, nil
	}
	m, err := dist.Distribute(fgrid, ds.Adj)
	if err != nil {
		return rd, err
	}
	ev := &gnn.BlockEvaluator{Matrix: m, Features: rd.data.Features}
	rd.data.Evaluator, rd.evaluation = ev, distEvalBlocks
	rd.closers = append(rd.closers, ev.Close)
	storeComms := rd.comms
	rd.comms = func() []dist.Comm { return append(storeComms(), ev.Comms()...) }
	return rd, nil
}

// rankData is what rankTrainData makes for one rank.
type rankData struct {
	data                 gnn.Data
	features, evaluation string             // as the JSON states them
	comms                func() []dist.Comm // the stores' own communicators, for the traffic counters
	closers              []func() error     // what frees them, in the order made
}

// close frees the stores' communicators, newest first.
func (rd *rankData) close() {
	for _, c := range slices.Backward(rd.closers) {
		c()
	}
}

// newDistTrainSampler returns this rank's sampler and how it reads the
// graph: the distributed node-wise (GCN: with the graph's degrees from
// the owners) or layer-wise sampler over this rank's block of rows, the
// local one with --replicate-graph, or none for the linear model.
func newDistTrainSampler(ctx context.Context, c *trainConfig, ts *trainSetup, grid *dist.Grid) (sampling.Sampler, string, error) {
	if c.opt.Arch == gnn.Linear {
		return gnn.SeedsOnly{}, "none", nil
	}
	if c.dist.replicate {
		s, err := newTrainSampler(ts.ds, c)
		return s, "replicated", err
	}
	a, err := layerWiseMatrix(ts.ds.Adj, c.sampler, c.ladiesMatrix, c.opt.Threads)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", c.data, err)
	}
	m, err := dist.Distribute(grid, a)
	if err != nil {
		return nil, "", err
	}
	var s sampling.Sampler
	switch c.sampler {
	case sampling.MethodNode:
		s, err = sampling.NewDistNodeWise(m, c.dist.mode, sampling.NodeWiseOptions{Fanouts: c.fanouts, Seed: c.opt.Seed,
			Threads: c.opt.Threads, Degrees: c.opt.Arch == gnn.GCN})
	default:
		lw := sampling.LayerWiseOptions{Method: sampling.LADIES, Budgets: c.fanouts, Seed: c.opt.Seed, Threads: c.opt.Threads}
		if c.sampler == sampling.MethodFastGCN {
			lw.Method = sampling.FastGCN
		}
		s, err = sampling.NewDistLayerWise(ctx, m, lw)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", c.data, err)
	}
	return s, c.dist.mode.String(), nil
}

// runTotals fills sum's traffic, communication times and peak memory over
// the ranks of w, counting the traffic of comms (this rank's
// communicators); it is collective on w.
func runTotals(ctx context.Context, w dist.Comm, comms []dist.Comm, waits *dist.CommTimes, sum *distTrainSummary) error {
	tot, most, err := dist.ReduceStats(ctx, w, comms...)
	if err != nil {
		return err
	}
	secs := waits.Seconds()
	mean, longest := secs, secs
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpSum, mean[:]); err != nil {
		return err
	}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpMax, longest[:]); err != nil {
		return err
	}
	peak := []int64{procstat.PeakRSS()}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpMax, peak); err != nil {
		return err
	}
	sum.Traffic = trafficJSON(tot, most)
	for ph := range dist.NumPhases {
		t := sum.Traffic[ph.String()]
		t.WaitSeconds, t.WaitSecondsMax = mean[ph]/float64(w.Size()), longest[ph]
		sum.Traffic[ph.String()] = t
	}
	sum.PeakRSSMax = peak[0]
	return nil
}

// sameCheckpoint returns an error unless every rank of c sees the same
// checkpoint in dir (or every rank none): each rank reads rank 0's
// checkpoint to resume, so dir must be on a filesystem they share.
func sameCheckpoint(ctx context.Context, c dist.Comm, dir string) error {
	path := filepath.Join(dir, gnn.CheckpointFile)
	var h int64 // 0: no checkpoint
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		f := fnv.New64a()
		f.Write(b)
		h = int64(f.Sum64()>>2) | 1 // > 0, and its negation fits
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--resume: %w", err)
	}
	hi, lo := []int64{h}, []int64{-h}
	if err := c.Allreduce(ctx, dist.PhaseControl, dist.OpMax, hi); err != nil {
		return err
	}
	if err := c.Allreduce(ctx, dist.PhaseControl, dist.OpMax, lo); err != nil {
		return err
	}
	if hi[0] != -lo[0] {
		seen := "none"
		if h != 0 {
			seen = fmt.Sprintf("one of hash %x", h)
		}
		return fmt.Errorf("--resume: the ranks do not all see the same checkpoint %s (rank %d sees %s): --checkpoint must be a directory every rank shares",
			path, c.Rank(), seen)
	}
	return nil
}
