package main

// `bulksample train`: the flags fill train.Options (train_flags.go), the
// data is found or generated (train_data.go), train.New (one process) or
// train.NewDist (each rank, train_dist.go) assembles the run, and the
// trainer's progress, result and JSON are reported (train_report.go).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/train"
)

func runTrain(ctx context.Context, e *env, args []string) error {
	c, err := parseTrainFlags(e, args)
	if err != nil {
		return err
	}
	if c.ranks.distributed() {
		return runRanks(ctx, e, &c.ranks.rankFlags, func(ctx context.Context, e *env, world dist.Comm) error {
			return trainRank(ctx, e, c, world)
		})
	}
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	unclaim, err := c.claimCheckpoint()
	if err != nil {
		return err
	}
	defer unclaim()
	var meter procstat.Meter
	meter.Begin()
	t0 := time.Now()
	ds, err := loadTrainData(ctx, e, c)
	e.bar.Finish()
	if err != nil {
		return err
	}
	load := loadCost{seconds: time.Since(t0).Seconds(), cost: meter.End("load")}
	notePhase(e.notes(), "train", "load", load.cost)
	opt := c.opt
	opt.NormFeatures = c.normFeatures.applies(ds.Name) && ds.NumFeatures > 0
	p := newTrainProgress(e, c)
	p.hook(&opt.Trainer.Hooks)
	td, err := c.trainDevice(e, false)
	if err != nil {
		return err
	}
	defer td.release()
	opt.Trainer.Runtime.Backend, opt.NewSampler = td.backend, td.newSampler
	job, err := train.New(ds, opt)
	if err != nil {
		return c.trainError(err)
	}
	defer job.Close()
	p.metric = job.Trainer.Metric()
	if err := c.writeSplit(e, job.Train, job.Valid, job.Test); err != nil {
		return err
	}
	sampledOn := td.sampling
	if job.Trainer.DevicePath() {
		sampledOn += " (bulks kept in its memory)"
	}
	announceTrain(e, c, job.Info, job.Options, job.Trainer.Metric(), "", sampledOn)
	res, err := job.Trainer.Run(ctx, p.epoch)
	p.bar.done()
	if err == nil && nothingToTrain(e.stderr, c, res) {
		return nil
	}
	if err != nil {
		return err
	}
	sum := summarize(c, job.Info, job.Options, res, load)
	if err := finishTrain(e, c, res, &sum); err != nil {
		return err
	}
	if err := c.writePredictions(ctx, e, job); err != nil {
		return err
	}
	if c.json {
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// claimCheckpoint claims --checkpoint's folder for the run
// (train.LockCheckpoint) before the data is loaded, so that a second run in
// the folder stops at once, naming the first one's process; the trainer
// uses the claim (Checkpoint.Lock), and the function returned ends it.
func (c *trainConfig) claimCheckpoint() (func(), error) {
	dir := c.opt.Trainer.Checkpoint.Dir
	if dir == "" {
		return func() {}, nil
	}
	l, err := train.LockCheckpoint(dir)
	if err != nil {
		return nil, err
	}
	c.opt.Trainer.Checkpoint.Lock = l
	return func() { l.Unlock() }, nil
}

// loadCost is what loading the data cost.
type loadCost struct {
	seconds float64
	cost    procstat.Cost
}

// trainError returns err, an error of train.New or NewDist, saying for a
// split without a set how to give one (--split, or --split-file's), and
// for features that --norm-features cannot normalise how to turn it off.
func (c *trainConfig) trainError(err error) error {
	var se *train.SplitError
	var ne *train.NormFeaturesError
	switch {
	case errors.As(err, &ne):
		return fmt.Errorf("--norm-features %s: %s: feature row %d has the value %v at column %d; row normalisation is for non-negative (bag-of-words) features: give --norm-features=off",
			c.normFeatures.String(), ne.Name, ne.Row, ne.Value, ne.Col)
	case !errors.As(err, &se):
		return err
	case c.splitFile != "":
		return fmt.Errorf("--split-file %s: %s; training needs all three", c.splitFile, se.Sizes())
	}
	return fmt.Errorf("%w (set one with --split planetoid[:T,V,E] or random:a,b,c)", err)
}

// writePredictions writes every vertex's class probabilities under the
// best epoch's weights to --predict-out, if given.
func (c *trainConfig) writePredictions(ctx context.Context, e *env, job *train.Job) error {
	if c.predictOut == "" {
		return nil
	}
	scores, best, err := job.Scores(ctx)
	if err != nil {
		return fmt.Errorf("--predict-out: %w", err)
	}
	if err := train.WriteScores(ctx, c.predictOut, scores, job.Info.Classes); err != nil {
		return fmt.Errorf("--predict-out: %w", err)
	}
	which := "the best epoch's weights"
	if !best {
		which = "the last epoch's weights (no epoch was evaluated)"
	}
	fmt.Fprintf(e.stderr, "wrote the class probabilities of %d vertices under %s to %s\n", job.Info.Nodes, which, c.predictOut)
	return nil
}

// writeSplit writes the split trained on to --split-out, if given.
func (c *trainConfig) writeSplit(e *env, trainSet, valid, test []int32) error {
	if c.splitOut == "" {
		return nil
	}
	if err := dataset.WriteSplitFile(c.splitOut, &dataset.Dataset{Train: trainSet, Valid: valid, Test: test}); err != nil {
		return fmt.Errorf("--split-out: %w", err)
	}
	fmt.Fprintf(e.stderr, "wrote the split to %s\n", c.splitOut)
	return nil
}

// trainProgress reports a run's progress: a bar or a line every few
// seconds for the minibatches, the line of every epoch, where a resumed
// run resumes from, and the trainer's notes.
type trainProgress struct {
	e   *env
	c   *trainConfig
	bar *epochProgress
	// also, when set, is called after every minibatch too (a test hook).
	also func(epoch, done, total int)
	// metric is the metric the epoch lines give (Trainer.Metric).
	metric gnn.Metric
}

func newTrainProgress(e *env, c *trainConfig) *trainProgress {
	return &trainProgress{e: e, c: c, bar: newEpochProgress(e.bars(), e.notes(), c.opt.Trainer.Plan.Epochs)}
}

// hook sets the trainer's hooks that report to p: OnMinibatch, OnResume
// and Notes (gnn's notes, on stderr: pure-Go BLAS, stale checkpoint
// temporaries removed).
func (p *trainProgress) hook(h *train.Hooks) {
	h.OnMinibatch = p.minibatch
	h.OnResume = announceResume(p.e.stderr, p.c)
	h.Notes = p.e.stderr
}

// minibatch is the trainer's train.Hooks.OnMinibatch.
func (p *trainProgress) minibatch(epoch, done, total int) {
	p.bar.minibatch(epoch, done, total)
	if p.also != nil {
		p.also(epoch, done, total)
	}
}

// epoch is Run's progress function: the epoch's line and its costs.
func (p *trainProgress) epoch(st train.EpochStats) {
	p.bar.done()
	epochs := p.c.opt.Trainer.Plan.Epochs
	printEpoch(p.e.stdout, epochs, st, p.metric, p.c.opt.Trainer.Model.Arch != gnn.Linear, p.e.verbose)
	for _, ph := range st.Costs {
		notePhase(p.e.notes(), fmt.Sprintf("epoch %d/%d", st.Epoch+1, epochs), ph.Name, ph.Cost)
	}
}
