package main

// The distributed path of `bulksample train`: each rank assembles its part
// of the data-parallel run with train.NewDist (its blocks of the graph,
// the features and the labels, or the whole dataset with --replicate-graph)
// and trains; every global minibatch of --batch seeds is split over the
// ranks and one all-reduce per step averages the gradients, so that the
// run follows the single-process run with the same --batch. Only rank 0
// prints, writes the checkpoints and the JSON.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/train"
)

// How a distributed run holds its data and evaluates, as its JSON states
// them.
const (
	distDataBlocks    = "blocks: each rank reads its block of rows of the graph, the features and the labels (a native file by offsets, a scipy .npz by row pointers, an OGB folder by streaming; other formats whole, the rest dropped), and the training vertices' labels from their owners"
	distDataWhole     = "whole: every rank holds the whole dataset"
	distEvalGathered  = "gathered: rank 0 runs full-neighbour inference on the whole graph, the other ranks wait for its accuracies"
	distEvalBlocks    = "distributed: each rank infers its row block by layer-wise full-neighbour inference, fetching its remote neighbours' feature and hidden rows from their owners"
	distFeaturesLocal = "replicated: every rank reads its minibatches' feature rows from its own copy"
	distFeaturesDist  = "distributed: each rank holds its vertex block's rows (c replicas per block) and fetches the others from their owners in its process column (featurex.Dist)"
)

// rankRun is one rank's run: its copy of the configuration (in-process
// ranks share the parsed one), where it reports, and what it measures.
type rankRun struct {
	c       trainConfig
	e       *env // rank 0's streams; the others' discard what they print
	world   dist.Comm
	waits   dist.CommTimes // the time in each phase's calls
	p       *trainProgress
	job     *train.DistJob
	load    loadCost
	release func() // ends the stop request of a signal (stopRequest)
	// epochWaits is rank 0's time in communication per epoch.
	epochWaits [][dist.NumPhases]float64
}

// errInjected is the error of --fail-rank.
var errInjected = errors.New("injected failure")

// trainRank is one rank's run.
func trainRank(ctx context.Context, e *env, c *trainConfig, world dist.Comm) error {
	r := &rankRun{c: *c, e: e}
	r.world = dist.NewTimed(world, &r.waits)
	root := r.world.Rank() == 0
	if !root {
		r.e = &env{stdout: io.Discard, stderr: io.Discard}
	}
	if root {
		// Rank 0 writes the checkpoints: it claims the folder, before
		// the load, for the job.
		unclaim, err := r.c.claimCheckpoint()
		if err != nil {
			return err
		}
		defer unclaim()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	td, err := r.c.trainDevice(r.e, true)
	if err != nil {
		return err
	}
	defer td.release()
	r.c.opt.Trainer.Runtime.Backend = td.backend
	if err := r.assemble(ctx, cancel); err != nil {
		return err
	}
	defer r.job.Close()
	r.e.bar.Finish() // the loading's
	if root {
		if err := r.c.writeSplit(r.e, r.job.Train, r.job.Valid, r.job.Test); err != nil {
			return err
		}
		where := fmt.Sprintf(" on %d ranks (replication %d, %s)", r.job.Grid.Size(), r.job.Grid.Replication(), r.job.Dist.Fetch)
		announceTrain(r.e, &r.c, r.job.Info, r.job.Options, r.job.Trainer.Metric(), where, td.sampling)
	}
	if _, why := r.job.Trainer.PipelineDepth(); why != "" {
		// The sampler, the store and the reducer communicate, and the MPI
		// library did not grant MPI_THREAD_MULTIPLE.
		fmt.Fprintf(r.e.stderr, "train: %s\n", why)
	}
	last := r.waits.Seconds()
	res, err := r.job.Trainer.Run(ctx, func(st train.EpochStats) {
		now := r.waits.Seconds()
		var w [dist.NumPhases]float64
		for ph := range w {
			w[ph] = now[ph] - last[ph]
		}
		r.epochWaits, last = append(r.epochWaits, w), now
		r.p.epoch(st)
	})
	r.release()
	r.p.bar.done()
	if err := r.runError(ctx, res, err); err != nil || res == nil {
		return err
	}
	if nothingToTrain(r.e.stderr, &r.c, res) {
		// Every rank resumed from the same checkpoint (sameCheckpoint),
		// so all of them end here alike, before the collectives below.
		return nil
	}
	if err := r.job.CheckReplicas(ctx); err != nil {
		return err
	}
	return r.finish(ctx, res)
}

// assemble finds the data and assembles the rank's part of the run
// (train.NewDist), with the hooks of its progress, of --fail-rank (which
// cancels ctx through cancel after the first bulk) and of a signal's stop
// request, then checks that every rank sees the checkpoint to resume.
func (r *rankRun) assemble(ctx context.Context, cancel context.CancelCauseFunc) error {
	var meter procstat.Meter
	meter.Begin()
	t0 := time.Now()
	src, name, err := r.c.source(ctx, r.e)
	if err != nil {
		return err
	}
	opt := r.c.opt
	opt.NormFeatures = r.c.normFeatures.applies(name)
	r.p = newTrainProgress(r.e, &r.c)
	defer func() {
		if r.job != nil {
			r.p.metric = r.job.Trainer.Metric()
		}
	}()
	fail := r.c.ranks.failRank
	r.p.also = func(epoch, done, total int) {
		if r.world.Rank() == fail && done == min(opt.Trainer.Plan.BulkSize, total) {
			cancel(fmt.Errorf("%w after bulk 0 (--fail-rank %d)", errInjected, fail))
		}
	}
	r.p.hook(&opt.Trainer.Hooks)
	// While the ranks train, a signal asks them to stop together (see
	// signals.go) rather than cancel this rank's collectives.
	opt.Trainer.Hooks.Stop, r.release = stopRequest(ctx)
	r.job, err = train.NewDist(ctx, r.world, src, opt)
	if err != nil {
		r.release()
		return r.c.trainError(err)
	}
	r.load = loadCost{seconds: time.Since(t0).Seconds(), cost: meter.End("load")}
	notePhase(r.e.notes(), "train", "load", r.load.cost)
	if opt.Trainer.Checkpoint.Resume {
		if err := sameCheckpoint(ctx, r.job.Grid.World(), opt.Trainer.Checkpoint.Dir); err != nil {
			r.release()
			r.job.Close()
			return err
		}
	}
	return nil
}

// runError returns the error of a run that Run ended with err: a stop
// every rank agreed on (which ends the job without MPI_Abort), a stop on a
// rank other than 0 (which writes no checkpoint), --fail-rank's, or err.
func (r *rankRun) runError(ctx context.Context, res *train.Result, err error) error {
	if agreedStop(err) {
		// Every rank stopped after the same step and rank 0's checkpoint
		// is written: the job ends without MPI_Abort.
		return &rankStopError{rank: r.world.Rank(), err: err}
	}
	if r.world.Rank() != 0 {
		err = notRootStop(err)
	}
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errInjected) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}

// finish reports the run: the totals over the ranks (collective), then on
// rank 0 the result line, the traffic and the JSON.
func (r *rankRun) finish(ctx context.Context, res *train.Result) error {
	j := r.job
	sum := distTrainSummary{Ranks: j.Grid.Size(), Replication: j.Grid.Replication(), Fetch: j.Dist.Fetch,
		DataLayout: distDataBlocks, Features: distFeaturesLocal, Evaluation: distEvalBlocks,
		ParamHash: fmt.Sprintf("%016x", j.Trainer.Model().ParamHash())}
	if !j.Dist.BlockOnly {
		sum.DataLayout = distDataWhole
	}
	if j.Dist.FeaturesDistributed {
		sum.Features = distFeaturesDist
	}
	if j.Dist.Eval == train.EvalGathered {
		sum.Evaluation = distEvalGathered
	}
	if err := runTotals(ctx, j.Grid.World(), j.Comms(), &r.waits, &sum); err != nil {
		return err
	}
	if r.world.Rank() != 0 {
		return nil
	}
	sum.trainSummary = summarize(&r.c, j.Info, j.Options, res, r.load)
	for i, w := range r.epochWaits {
		ep := &sum.Epochs[res.ResumedFrom+i]
		ep.WaitSeconds = make(map[string]float64)
		for ph := range dist.NumPhases {
			ep.WaitSeconds[ph.String()] = w[ph]
		}
	}
	if err := finishTrain(r.e, &r.c, res, &sum.trainSummary); err != nil {
		return err
	}
	tr0 := func(ph dist.Phase) phaseJSON { return sum.Traffic[ph.String()] }
	fmt.Fprintf(r.e.stdout, "traffic over %d ranks: sample %d B, features %d B, gradients %d B; time in communication (mean per rank): sample %.3f s, features %.3f s, gradients %.3f s, control %.3f s; peak RSS of a rank %d MiB\n",
		sum.Ranks, tr0(dist.PhaseSample).BytesSent, tr0(dist.PhaseFeatures).BytesSent, tr0(dist.PhaseGradients).BytesSent,
		tr0(dist.PhaseSample).WaitSeconds, tr0(dist.PhaseFeatures).WaitSeconds, tr0(dist.PhaseGradients).WaitSeconds,
		tr0(dist.PhaseControl).WaitSeconds, sum.PeakRSSMax>>20)
	if r.c.json {
		return writeJSON(r.e.stdout, sum)
	}
	return nil
}

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
	path := filepath.Join(dir, train.CheckpointFile)
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

// notRootStop returns err, the error of Run on a rank other than 0, saying
// that rank 0 writes the checkpoint when err is a *train.StoppedError naming
// one: its message, "(checkpoint ck/checkpoint.gob)", claimed on every
// rank a file that rank 0 alone writes (train.Trainer.save).
func notRootStop(err error) error {
	var st *train.StoppedError
	if errors.As(err, &st) && err == error(st) && st.Checkpoint != "" {
		return &notRootStopError{st}
	}
	return err
}

// notRootStopError is a *train.StoppedError of a rank other than 0.
type notRootStopError struct{ st *train.StoppedError }

func (e *notRootStopError) Error() string {
	return fmt.Sprintf("train: stopped in epoch %d after %d of %d minibatches (no checkpoint from this rank: rank 0 writes %s): %v",
		e.st.Epoch+1, e.st.Minibatches, e.st.Total, e.st.Checkpoint, e.st.Err)
}

func (e *notRootStopError) Unwrap() error { return e.st }
