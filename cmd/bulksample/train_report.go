package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

// What `bulksample train` reports: the header, the progress of every
// epoch, the result line and the JSON summary.

// trainSummary is the --json object of `bulksample train`. Times are
// seconds; the run-level per-epoch figures are medians over the epochs
// trained in this run, and Epochs lists every epoch. Fields that do not
// apply to the model (the linear model has no graph layers, fanouts,
// hidden width or sampled edges) are left out.
type trainSummary struct {
	Data         string `json:"data"`
	Nodes        int    `json:"nodes"`
	Edges        int64  `json:"edges"`
	Model        string `json:"model"`
	Sampler      string `json:"sampler"`
	LadiesMatrix string `json:"ladies_matrix,omitempty"` // ladies only: normalized or raw
	Layers       int    `json:"layers,omitempty"`
	Fanouts      []int  `json:"fanouts,omitempty"`
	Hidden       int    `json:"hidden,omitempty"`
	Batch        int    `json:"batch"`
	Bulk         int    `json:"bulk"`
	Threads      int    `json:"threads"` // threads used (GOMAXPROCS for --threads 0)
	BLAS         string `json:"blas"`
	ResumedFrom  int    `json:"resumed_from"`
	// ResumedMinibatches are the minibatches of epoch ResumedFrom+1 that
	// the checkpoint held (a stopped run's), 0 when it held whole epochs.
	ResumedMinibatches int          `json:"resumed_minibatches"`
	BestEpoch          int          `json:"best_epoch"` // 1-based, like the progress lines
	ValAcc             float64      `json:"val_acc"`
	TestAcc            float64      `json:"test_acc"`
	FinalLoss          float64      `json:"final_loss"`
	EpochSeconds       float64      `json:"epoch_seconds"`
	SEPS               float64      `json:"seps,omitempty"`
	Phases             phaseSeconds `json:"phase_seconds"`
	LoadSeconds        float64      `json:"load_seconds"`
	// NormFeatures says whether the feature rows were scaled to sum 1
	// (--norm-features).
	NormFeatures bool   `json:"norm_features"`
	PeakRSSBytes int64  `json:"peak_rss_bytes"`
	Version      string `json:"version"`
	// Preset is the --preset applied, if any; GCNNorm GCN's --gcn-norm.
	Preset  string `json:"preset,omitempty"`
	GCNNorm string `json:"gcn_norm,omitempty"`
	// WeightDecayLayers is --weight-decay-layers: all or first.
	WeightDecayLayers string `json:"weight_decay_layers"`
	// SplitSeed is --split-seed, the seed of a drawn split; SplitFile the
	// --split-file trained on instead, if any.
	SplitSeed uint64 `json:"split_seed"`
	SplitFile string `json:"split_file,omitempty"`
	// PipelineDepth is the input pipeline's depth the run used (--pipeline,
	// or 1 where gnn turned it off: PipelineReason says why).
	PipelineDepth  int    `json:"pipeline_depth"`
	PipelineReason string `json:"pipeline_reason,omitempty"`
	// Epochs holds one record per epoch, those loaded from a checkpoint
	// included, in order.
	Epochs []epochRecord `json:"epochs"`
	// Costs is what each phase cost the process over the whole run: load,
	// then each training phase summed over the epochs trained in this run
	// (gnn.EpochStats.Costs).
	Costs gnn.PhaseCosts `json:"phases"`
}

// epochRecord is one epoch of trainSummary.Epochs. Times are seconds.
// Figures that later work measures per epoch are added here as fields.
type epochRecord struct {
	Epoch        int     `json:"epoch"` // 1-based, like the progress lines
	Loss         float64 `json:"loss"`
	TrainAcc     float64 `json:"train_acc"`
	ValAcc       float64 `json:"val_acc"`
	TestAcc      float64 `json:"test_acc"`
	Minibatches  int     `json:"minibatches"`
	SampledEdges int64   `json:"sampled_edges,omitempty"`
	SEPS         float64 `json:"seps,omitempty"`
	// Seconds is the epoch's training time, without evaluation (Phases.Eval).
	Seconds float64      `json:"seconds"`
	Phases  phaseSeconds `json:"phase_seconds"`
	// Costs is what each phase of the epoch cost the process
	// (gnn.EpochStats.Costs): wall and CPU time, page faults, heap
	// allocation, GC, peak resident memory.
	Costs gnn.PhaseCosts `json:"phases"`
	// Resumed marks an epoch loaded from the checkpoint, not trained by
	// this run.
	Resumed bool `json:"resumed,omitempty"`
	// RSSBytes (the resident set size, -1 where unknown) and HeapBytes (the
	// Go heap's allocated bytes) are read at the end of the epoch, after its
	// evaluation: the memory curve of the run (scripts/soak.sh).
	RSSBytes  int64 `json:"rss_bytes"`
	HeapBytes int64 `json:"heap_bytes"`
	// WaitSeconds is, in a distributed run, the time rank 0 spent in each
	// communication phase's calls during the epoch (its training and its
	// evaluation), the wait for the other ranks included.
	WaitSeconds map[string]float64 `json:"wait_seconds,omitempty"`
}

// phaseSeconds are gnn.PhaseTimes in seconds. With --pipeline 2, sample
// and extract (the feature gathering, or exchange) run beside the training
// goroutine's phases, and wait is the time it waited for them.
type phaseSeconds struct {
	Sample   float64 `json:"sample"`
	Extract  float64 `json:"extract"`
	Forward  float64 `json:"forward"`
	Backward float64 `json:"backward"`
	Reduce   float64 `json:"reduce"` // the gradient all-reduce (data-parallel runs)
	Update   float64 `json:"update"`
	Wait     float64 `json:"wait"`
	Eval     float64 `json:"eval"`
}

// announceTrain prints the run's header lines on stderr; where, when not
// empty, says how the run is distributed.
func announceTrain(e *env, c *trainConfig, in train.Info, opt train.Options, where string) {
	if c.preset != "" {
		fmt.Fprintf(e.stderr, "preset %s%s: %s\n", c.preset, presetNote(c), trainCommand(c))
	}
	fmt.Fprintf(e.stderr, "training %s with the %s sampler on %s (%d nodes, %d edges, %d train / %d valid / %d test)%s, BLAS %s, feature rows normalised: %v\n",
		opt.Train.Model.Arch, samplerName(opt, true), in.Name, in.Nodes, in.Edges, in.Train, in.Valid, in.Test, where, blasName(opt.Train), in.Normalized)
}

// samplerName names the sampler of a run: seeds-only for the linear model,
// else the method, with LADIES' matrix when matrix is set.
func samplerName(opt train.Options, matrix bool) string {
	m := opt.Sampler.Method
	switch {
	case opt.Train.Model.Arch == gnn.Linear:
		return "seeds-only"
	case m == "":
		return sampling.MethodNode
	case m == sampling.MethodLADIES && matrix:
		return m + " (" + ladiesMatrixName(opt.Sampler) + " matrix)"
	}
	return m
}

// ladiesMatrixName is --ladies-matrix's value of so: normalized or raw.
func ladiesMatrixName(so sampling.SamplerOptions) string {
	if so.Normalize {
		return "normalized"
	}
	return "raw"
}

// finishTrain prints the run's result line and writes --plot.
func finishTrain(e *env, c *trainConfig, res *gnn.Result, sum *trainSummary) error {
	fmt.Fprintf(e.stdout, "best epoch %d: valid accuracy %.4f, test accuracy %.4f; median epoch %.3f s (sample %.3f, extract %.3f, forward %.3f, backward %.3f, update %.3f; eval %.3f)%s, BLAS %s\n",
		sum.BestEpoch, sum.ValAcc, sum.TestAcc, sum.EpochSeconds, sum.Phases.Sample, sum.Phases.Extract, sum.Phases.Forward,
		sum.Phases.Backward, sum.Phases.Update, sum.Phases.Eval, sepsText(", ", sum.SEPS, c.opt.Train.Model.Arch != gnn.Linear), sum.BLAS)
	if c.plot != "" {
		if err := plotCurves(c.plot, res); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", c.plot)
	}
	return nil
}

// nothingToTrain reports whether a resumed run found a checkpoint that
// already holds --epochs epochs or more, and then says so on w: the run
// trained nothing and left the checkpoint as it was, as PyTorch Lightning's
// fit does when max_epochs is already reached. Its summary would report
// medians over no epochs, so the caller prints none.
func nothingToTrain(w io.Writer, c *trainConfig, res *gnn.Result) bool {
	ck, epochs := c.opt.Train.Checkpoint, c.opt.Train.Plan.Epochs
	if !ck.Resume || res == nil || res.ResumedFrom == 0 || res.ResumedFrom < epochs {
		return false
	}
	s := "s"
	if res.ResumedFrom == 1 {
		s = ""
	}
	fmt.Fprintf(w, "train: nothing to train: the checkpoint %s already holds %d epoch%s and --epochs is %d; it is left unchanged (give --epochs above %d to train on)\n",
		filepath.Join(ck.Dir, gnn.CheckpointFile), res.ResumedFrom, s, epochs, res.ResumedFrom)
	return true
}

// announceResume says, for --resume, where the run resumes from: at once
// when there is no checkpoint (the run starts afresh), otherwise when the
// returned function is called, as gnn.TrainHooks.OnResume, with what the
// checkpoint holds: the epochs complete and the minibatches of the next
// one (a stopped run's), as the JSON's resumed_from and
// resumed_minibatches say. A checkpoint that holds every epoch is left to
// nothingToTrain.
func announceResume(w io.Writer, c *trainConfig) func(epochsDone, minibatches, total int) {
	ck, epochs := c.opt.Train.Checkpoint, c.opt.Train.Plan.Epochs
	if !ck.Resume {
		return nil
	}
	path := filepath.Join(ck.Dir, gnn.CheckpointFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(w, "--resume: no checkpoint at %s; starting from epoch 1\n", path)
		return nil
	}
	return func(epochsDone, minibatches, total int) {
		if epochsDone < epochs {
			fmt.Fprintln(w, resumeMessage(path, epochsDone, minibatches, total, epochs))
		}
	}
}

// resumeMessage says where a run resumes: after epoch epochsDone, or in the
// next epoch after minibatches of its total (a stopped run's checkpoint,
// which may hold all of them when the run stopped after the last one,
// before the epoch's evaluation).
func resumeMessage(path string, epochsDone, minibatches, total, epochs int) string {
	if minibatches == 0 {
		return fmt.Sprintf("resumed from %s after epoch %d of %d", path, epochsDone, epochs)
	}
	s := "s"
	if epochsDone == 1 {
		s = ""
	}
	return fmt.Sprintf("resumed from %s in epoch %d of %d, after %d of its %d minibatches (%d epoch%s complete)",
		path, epochsDone+1, epochs, minibatches, total, epochsDone, s)
}

func blasName(o gnn.TrainOptions) string {
	if o.Runtime.PureGoBLAS {
		return gnn.PureGoBLAS
	}
	return gnn.BLAS
}

// epochProgress shows the minibatches of the current epoch: a progress bar
// when w is a terminal, otherwise a plain line every few seconds. The rate
// and the time left are measured from the end of the epoch's first
// minibatch (which also waits for the first bulk's sampling), so the first
// tick shows none rather than one minibatch over a few microseconds.
type epochProgress struct {
	w      io.Writer
	epochs int
	bar    *progressbar.ProgressBar
	tty    bool
	last   time.Time
	first  time.Time        // when the current epoch's first minibatch ended
	now    func() time.Time // the clock; time.Now outside tests
}

func newEpochProgress(w io.Writer, epochs int) *epochProgress {
	p := &epochProgress{w: w, epochs: epochs, last: time.Now(), now: time.Now}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// rate describes the minibatches per second after the first one and the
// time the epoch has left, or returns "" after the first minibatch.
func (p *epochProgress) rate(done, total int) string {
	dt := p.now().Sub(p.first).Seconds()
	if done < 2 || !(dt > 0) {
		return ""
	}
	r := float64(done-1) / dt
	left := time.Duration(float64(total-done) / r * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf(", %.3g minibatches/s, %v left", r, left)
}

func (p *epochProgress) minibatch(epoch, done, total int) {
	if done == 1 {
		p.first = p.now()
	}
	if p.tty {
		desc := fmt.Sprintf("epoch %d/%d%s", epoch+1, p.epochs, p.rate(done, total))
		if p.bar == nil {
			p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(false), progressbar.OptionSetElapsedTime(false),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		} else {
			p.bar.Describe(desc)
		}
		p.bar.Set(done)
		return
	}
	if time.Since(p.last) >= 5*time.Second {
		p.last = time.Now()
		fmt.Fprintf(p.w, "epoch %d/%d: %d/%d minibatches%s\n", epoch+1, p.epochs, done, total, p.rate(done, total))
	}
}

// done ends the current epoch's bar.
func (p *epochProgress) done() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}

// printEpoch prints an epoch's line; sampled says whether the model reads
// sampled edges (all but the linear one), whose SEPS it then gives.
func printEpoch(w io.Writer, epochs int, st gnn.EpochStats, sampled bool) {
	ph := st.Phases
	fmt.Fprintf(w, "epoch %d/%d: loss %.4f, train %.4f, valid %.4f, test %.4f | %.3f s: sample %.3f, extract %.3f, forward %.3f, backward %.3f, update %.3f%s; eval %.3f s%s | RSS %.1f MB, heap %.1f MB\n",
		st.Epoch+1, epochs, st.Loss, st.TrainAcc, st.ValAcc, st.TestAcc, st.Seconds, ph.Sample.Seconds(), ph.Extract.Seconds(),
		ph.Forward.Seconds(), ph.Backward.Seconds(), ph.Update.Seconds(), waitText(ph), ph.Eval.Seconds(), sepsText(" | ", st.SEPS, sampled),
		float64(st.RSSBytes)/1e6, float64(st.HeapBytes)/1e6)
}

// waitText formats the reduce and wait phases for the progress lines, when
// the run has them.
func waitText(ph gnn.PhaseTimes) string {
	s := ""
	if ph.Reduce > 0 {
		s += fmt.Sprintf(", reduce %.3f", ph.Reduce.Seconds())
	}
	if ph.Wait > 0 {
		s += fmt.Sprintf(", wait %.3f", ph.Wait.Seconds())
	}
	return s
}

// sepsText formats SEPS after sep for the progress lines, or returns ""
// for a model that samples no edge.
func sepsText(sep string, seps float64, sampled bool) string {
	if !sampled {
		return ""
	}
	return fmt.Sprintf("%s%.3gM SEPS", sep, seps/1e6)
}

// summarize returns the JSON summary of a run of opt on data in, which
// cost load to load: per-epoch figures are medians over the epochs trained
// in this run (not those loaded from a checkpoint).
func summarize(c *trainConfig, in train.Info, opt train.Options, res *gnn.Result, load loadCost) trainSummary {
	o := opt.Train
	sum := trainSummary{Data: c.data, Nodes: in.Nodes, Edges: in.Edges, Model: o.Model.Arch.String(), Sampler: samplerName(opt, false),
		Layers: len(opt.Sampler.Fanouts), Fanouts: opt.Sampler.Fanouts, Hidden: o.Model.Hidden, Batch: o.Plan.BatchSize, Bulk: o.Plan.BulkSize,
		Threads: par.Threads(o.Runtime.Threads), BLAS: res.BLAS, PipelineDepth: res.PipelineDepth, PipelineReason: res.PipelineReason,
		ResumedFrom: res.ResumedFrom, ResumedMinibatches: res.ResumedMinibatches, BestEpoch: res.BestEpoch + 1, ValAcc: res.BestValAcc, TestAcc: res.TestAcc, LoadSeconds: load.seconds,
		Epochs: make([]epochRecord, len(res.Epochs)), NormFeatures: in.Normalized, Preset: c.preset,
		WeightDecayLayers: "all", SplitSeed: c.splitSeed, SplitFile: c.splitFile, PeakRSSBytes: procstat.PeakRSS(), Version: version()}
	if opt.Sampler.Method == sampling.MethodLADIES && o.Model.Arch != gnn.Linear {
		sum.LadiesMatrix = ladiesMatrixName(opt.Sampler)
	}
	if o.Optimizer.WeightDecayFirstLayer {
		sum.WeightDecayLayers = "first"
	}
	if o.Model.Arch == gnn.GCN {
		sum.GCNNorm = o.Model.GCNNorm.String()
	}
	sum.Costs.Add("load", load.cost)
	for _, st := range res.Epochs[min(res.ResumedFrom, len(res.Epochs)):] {
		for _, p := range st.Costs {
			sum.Costs.Add(p.Name, p.Cost)
		}
	}
	for i, st := range res.Epochs {
		sum.Epochs[i] = epochRecord{Epoch: st.Epoch + 1, Loss: st.Loss, TrainAcc: st.TrainAcc, ValAcc: st.ValAcc, TestAcc: st.TestAcc,
			Minibatches: st.Minibatches, SampledEdges: st.SampledEdges, SEPS: st.SEPS, Seconds: st.Seconds,
			Phases: phasesOf(st.Phases), Costs: st.Costs, Resumed: i < res.ResumedFrom, RSSBytes: st.RSSBytes, HeapBytes: st.HeapBytes}
	}
	if o.Model.Arch == gnn.Linear {
		// Softmax regression on the seeds' own features: no graph layer,
		// no hidden width, no sampled edge.
		sum.Layers, sum.Fanouts, sum.Hidden = 0, nil, 0
		for i := range sum.Epochs {
			sum.Epochs[i].SampledEdges, sum.Epochs[i].SEPS = 0, 0
		}
	}
	if n := len(res.Epochs); n > 0 {
		sum.FinalLoss = res.Epochs[n-1].Loss
	}
	run := res.Epochs[min(res.ResumedFrom, len(res.Epochs)):]
	med := func(f func(gnn.EpochStats) float64) float64 {
		v := make([]float64, len(run))
		for i, st := range run {
			v[i] = f(st)
		}
		return median(v)
	}
	sum.EpochSeconds = med(func(s gnn.EpochStats) float64 { return s.Seconds })
	if o.Model.Arch != gnn.Linear {
		sum.SEPS = med(func(s gnn.EpochStats) float64 { return s.SEPS })
	}
	sum.Phases = phaseSeconds{
		Sample:   med(func(s gnn.EpochStats) float64 { return s.Phases.Sample.Seconds() }),
		Extract:  med(func(s gnn.EpochStats) float64 { return s.Phases.Extract.Seconds() }),
		Forward:  med(func(s gnn.EpochStats) float64 { return s.Phases.Forward.Seconds() }),
		Backward: med(func(s gnn.EpochStats) float64 { return s.Phases.Backward.Seconds() }),
		Reduce:   med(func(s gnn.EpochStats) float64 { return s.Phases.Reduce.Seconds() }),
		Update:   med(func(s gnn.EpochStats) float64 { return s.Phases.Update.Seconds() }),
		Wait:     med(func(s gnn.EpochStats) float64 { return s.Phases.Wait.Seconds() }),
		Eval:     med(func(s gnn.EpochStats) float64 { return s.Phases.Eval.Seconds() }),
	}
	return sum
}

// phasesOf returns the phase times of one epoch in seconds.
func phasesOf(p gnn.PhaseTimes) phaseSeconds {
	return phaseSeconds{Sample: p.Sample.Seconds(), Extract: p.Extract.Seconds(), Forward: p.Forward.Seconds(),
		Backward: p.Backward.Seconds(), Reduce: p.Reduce.Seconds(), Update: p.Update.Seconds(), Wait: p.Wait.Seconds(),
		Eval: p.Eval.Seconds()}
}
