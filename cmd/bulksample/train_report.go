package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/progress"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

// What `bulksample train` reports: the header, the progress of every
// epoch, the result line and the JSON summary.

// trainSummary is the --json object of `bulksample train`. Times are
// seconds; the run-level per-epoch figures are medians over the epochs
// trained in this run (the evaluation's over those evaluated), and Epochs
// lists every epoch. Fields that do not apply to the model (the linear
// model has no graph layers, fanouts, hidden width or sampled edges) are
// left out.
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
	// BLAS names what ran the dense operations: the CPU's BLAS, or the
	// device backend of --device cuda or emulator (train.Result.BLAS).
	BLAS        string `json:"blas"`
	ResumedFrom int    `json:"resumed_from"`
	// ResumedMinibatches are the minibatches of epoch ResumedFrom+1 that
	// the checkpoint held (a stopped run's), 0 when it held whole epochs.
	ResumedMinibatches int     `json:"resumed_minibatches"`
	BestEpoch          int     `json:"best_epoch"` // 1-based, like the progress lines; 0 when no epoch was evaluated
	ValAcc             float64 `json:"val_acc"`
	TestAcc            float64 `json:"test_acc"`
	// Metric is the metric that ranked the epochs (--metric, auto
	// resolved); BestValid and BestTest are the best epoch's measures, and
	// EarlyStopped says that --patience ended the run.
	Metric       string        `json:"metric"`
	BestValid    *measuresJSON `json:"best_valid,omitempty"`
	BestTest     *measuresJSON `json:"best_test,omitempty"`
	EarlyStopped bool          `json:"early_stopped,omitempty"`
	// EvalEvery and Patience are --eval-every and --patience; Residual and
	// Norm the residual architecture's flags.
	EvalEvery    int          `json:"eval_every"`
	Patience     int          `json:"patience,omitempty"`
	Residual     bool         `json:"residual,omitempty"`
	Norm         string       `json:"norm,omitempty"`
	FinalLoss    float64      `json:"final_loss"`
	EpochSeconds float64      `json:"epoch_seconds"`
	SEPS         float64      `json:"seps,omitempty"`
	Phases       phaseSeconds `json:"phase_seconds"`
	LoadSeconds  float64      `json:"load_seconds"`
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
	// (train.EpochStats.Costs).
	Costs train.PhaseCosts `json:"phases"`
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
	// (train.EpochStats.Costs): wall and CPU time, page faults, heap
	// allocation, GC, peak resident memory.
	Costs train.PhaseCosts `json:"phases"`
	// Resumed marks an epoch loaded from the checkpoint, not trained by
	// this run.
	Resumed bool `json:"resumed,omitempty"`
	// Evaluated says whether the epoch was evaluated (--eval-every); Train,
	// Valid and Test are then the measures of full-neighbour inference on
	// the three sets (TrainAcc is the minibatches' accuracy, with dropout).
	Evaluated bool          `json:"evaluated"`
	Train     *measuresJSON `json:"train,omitempty"`
	Valid     *measuresJSON `json:"valid,omitempty"`
	Test      *measuresJSON `json:"test,omitempty"`
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

// measuresJSON are gnn.Measures in the JSON: a figure the set does not
// define (an AUC of more than two classes, or of a set without both) is
// left out rather than written as NaN, which JSON has not.
type measuresJSON struct {
	Accuracy float64  `json:"accuracy"`
	MacroF1  *float64 `json:"macro_f1,omitempty"`
	AUC      *float64 `json:"auc,omitempty"`
	Counted  int      `json:"counted"`
}

// measuresOf returns m for the JSON.
func measuresOf(m gnn.Measures) *measuresJSON {
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return &measuresJSON{Accuracy: m.Accuracy, MacroF1: finite(m.MacroF1), AUC: finite(m.AUC), Counted: m.Counted}
}

// phaseSeconds are train.PhaseTimes in seconds. With --pipeline 2, sample
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

// announceTrain prints the run's header line on stderr (and with -v the
// flags of its preset); where, when not empty, says how the run is
// distributed, and sampledOn where the minibatches are sampled (the CPU,
// the GPU, the host emulator).
func announceTrain(e *env, c *trainConfig, in train.Info, opt train.Options, metric gnn.Metric, where, sampledOn string) {
	extra := ""
	if c.preset != "" {
		fmt.Fprintf(e.notes(), "preset %s%s: %s\n", c.preset, presetNote(c), trainCommand(c))
		extra = fmt.Sprintf(", preset %s%s", c.preset, presetNote(c))
	}
	if in.Normalized {
		extra += ", feature rows normalised"
	}
	fmt.Fprintf(e.stderr, "training %s with the %s sampler on %s (%d nodes, %d edges, %d train / %d valid / %d test)%s, sampling on %s, metric %s, BLAS %s%s\n",
		modelName(opt.Trainer.Model), samplerName(opt, true), in.Name, in.Nodes, in.Edges, in.Train, in.Valid, in.Test, where, sampledOn, metric, blasName(opt.Trainer), extra)
}

// modelName names the model: its architecture, and the residual
// architecture's options.
func modelName(m train.ModelOptions) string {
	s := m.Arch.String()
	switch {
	case m.Residual && m.Norm == gnn.NormLayer:
		s += " (residual, layer norm)"
	case m.Residual:
		s += " (residual)"
	case m.Norm == gnn.NormLayer:
		s += " (blocks with layer norm, no skip connection)"
	}
	return s
}

// samplerName names the sampler of a run: seeds-only for the linear model,
// else the method, with LADIES' matrix when matrix is set.
func samplerName(opt train.Options, matrix bool) string {
	m := opt.Sampler.Method
	switch {
	case opt.Trainer.Model.Arch == gnn.Linear:
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
func finishTrain(e *env, c *trainConfig, res *train.Result, sum *trainSummary) error {
	sampled := c.opt.Trainer.Model.Arch != gnn.Linear
	fmt.Fprintf(e.stdout, "%s; median epoch %s s, eval %s s%s\n",
		bestText(res), secs(sum.EpochSeconds), secs(sum.Phases.Eval), sepsText(", ", sum.SEPS, sampled))
	fmt.Fprintf(e.notes(), "median phases: sample %.3f, extract %.3f, forward %.3f, backward %.3f, update %.3f, eval %.3f s; BLAS %s\n",
		sum.Phases.Sample, sum.Phases.Extract, sum.Phases.Forward, sum.Phases.Backward, sum.Phases.Update, sum.Phases.Eval, sum.BLAS)
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
func nothingToTrain(w io.Writer, c *trainConfig, res *train.Result) bool {
	ck, epochs := c.opt.Trainer.Checkpoint, c.opt.Trainer.Plan.Epochs
	if !ck.Resume || res == nil || res.ResumedFrom == 0 || res.ResumedFrom < epochs {
		return false
	}
	s := "s"
	if res.ResumedFrom == 1 {
		s = ""
	}
	fmt.Fprintf(w, "train: nothing to train: the checkpoint %s already holds %d epoch%s and --epochs is %d; it is left unchanged (give --epochs above %d to train on)\n",
		filepath.Join(ck.Dir, train.CheckpointFile), res.ResumedFrom, s, epochs, res.ResumedFrom)
	return true
}

// announceResume says, for --resume, where the run resumes from: at once
// when there is no checkpoint (the run starts afresh), otherwise when the
// returned function is called, as train.Hooks.OnResume, with what the
// checkpoint holds: the epochs complete and the minibatches of the next
// one (a stopped run's), as the JSON's resumed_from and
// resumed_minibatches say. A checkpoint that holds every epoch is left to
// nothingToTrain.
func announceResume(w io.Writer, c *trainConfig) func(epochsDone, minibatches, total int) {
	ck, epochs := c.opt.Trainer.Checkpoint, c.opt.Trainer.Plan.Epochs
	if !ck.Resume {
		return nil
	}
	path := filepath.Join(ck.Dir, train.CheckpointFile)
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

// blasName names what runs the model's dense operations, for the header:
// the device backend when the run has one (--device cuda or emulator:
// cuBLAS and cuSPARSE on the GPU, or the emulator's kernels; the CPU's
// BLAS then does none of them), else the CPU's BLAS. It is the name the
// summary's BLAS field gets from the trainer (train.Result.BLAS).
func blasName(o train.TrainerOptions) string {
	if be := o.Runtime.Backend; be != nil {
		return be.Name()
	}
	if o.Runtime.PureGoBLAS {
		return gnn.PureGoBLAS
	}
	return gnn.BLAS
}

// epochProgress shows the minibatches of the current epoch: a progress bar
// on bars (standard error when it is a terminal, env.bars), otherwise,
// with -v, a plain line on lines every few seconds. The rate and the time
// left of the lines are measured from the end of the epoch's first
// minibatch (which also waits for the first bulk's sampling), so the first
// tick shows none rather than one minibatch over a few microseconds.
type epochProgress struct {
	bars, lines io.Writer
	epochs      int
	bar         *progress.Bar
	last        time.Time
	first       time.Time        // when the current epoch's first minibatch ended
	now         func() time.Time // the clock; time.Now outside tests
}

func newEpochProgress(bars, lines io.Writer, epochs int) *epochProgress {
	return &epochProgress{bars: bars, lines: lines, epochs: epochs, last: time.Now(), now: time.Now}
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
	if p.bars != nil {
		if p.bar == nil {
			p.bar = progress.Start(p.bars, fmt.Sprintf("epoch %d/%d, minibatches", epoch+1, p.epochs), int64(total))
		}
		p.bar.Set(int64(done))
		return
	}
	if p.lines != io.Discard && time.Since(p.last) >= 5*time.Second {
		p.last = time.Now()
		fmt.Fprintf(p.lines, "epoch %d/%d: %d/%d minibatches%s\n", epoch+1, p.epochs, done, total, p.rate(done, total))
	}
}

// done ends the current epoch's bar.
func (p *epochProgress) done() {
	p.bar.Finish()
	p.bar = nil
}

// printEpoch prints an epoch's line: the loss, the metric on the train,
// valid and test sets (of the evaluation; "-" for an epoch not evaluated),
// the epoch's training seconds and, when sampled (all models but the
// linear one), its SEPS; with verbose also its phases and memory.
func printEpoch(w io.Writer, epochs int, st train.EpochStats, metric gnn.Metric, sampled, verbose bool) {
	fig := "train -, valid -, test -"
	if st.Evaluated {
		fig = fmt.Sprintf("train %s, valid %s, test %s", metricText(st.Train.Value(metric)), metricText(st.Valid.Value(metric)), metricText(st.Test.Value(metric)))
	}
	line := fmt.Sprintf("epoch %d/%d: loss %.4g, %s %s, %s s%s", st.Epoch+1, epochs, st.Loss, metric, fig, secs(st.Seconds), sepsText(", ", st.SEPS, sampled))
	if verbose {
		ph := st.Phases
		line += fmt.Sprintf(" | sample %.3f, extract %.3f, forward %.3f, backward %.3f, update %.3f%s; eval %.3f s | RSS %.1f MB, heap %.1f MB",
			ph.Sample.Seconds(), ph.Extract.Seconds(), ph.Forward.Seconds(), ph.Backward.Seconds(), ph.Update.Seconds(), waitText(ph), ph.Eval.Seconds(),
			float64(st.RSSBytes)/1e6, float64(st.HeapBytes)/1e6)
	}
	fmt.Fprintln(w, line)
}

// metricText formats a metric's value: 4 decimals, which tell apart the
// runs of a test set of thousands of vertices, or n/a for an AUC a set
// without both classes does not define.
func metricText(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", v)
}

// secs formats seconds to 3 significant digits (at least the millisecond).
func secs(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f", s)
	}
	return strconv.FormatFloat(s, 'f', max(0, 2-int(math.Floor(math.Log10(max(s, 1e-3))))), 64)
}

// bestText says which epoch the run reports and its figures: the best
// valid metric's epoch, its valid and test metric (and accuracy beside
// another metric), whether early stopping ended the run.
func bestText(res *train.Result) string {
	if res.BestEpoch < 0 {
		return "no epoch evaluated"
	}
	m := res.Metric
	s := fmt.Sprintf("best epoch %d: valid %s %s, test %s %s", res.BestEpoch+1, m.Title(), metricText(res.BestValid.Value(m)), m.Title(), metricText(res.BestTest.Value(m)))
	if m != gnn.MetricAccuracy {
		s += fmt.Sprintf(" (test accuracy %s)", metricText(res.TestAcc))
	}
	if res.EarlyStopped {
		s += fmt.Sprintf(", stopped early after epoch %d", len(res.Epochs))
	}
	return s
}

// waitText formats the reduce and wait phases for the progress lines, when
// the run has them.
func waitText(ph train.PhaseTimes) string {
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
func summarize(c *trainConfig, in train.Info, opt train.Options, res *train.Result, load loadCost) trainSummary {
	o := opt.Trainer
	sum := trainSummary{Data: c.data, Nodes: in.Nodes, Edges: in.Edges, Model: o.Model.Arch.String(), Sampler: samplerName(opt, false),
		Layers: len(opt.Sampler.Fanouts), Fanouts: opt.Sampler.Fanouts, Hidden: o.Model.Hidden, Batch: o.Plan.BatchSize, Bulk: o.Plan.BulkSize,
		Threads: par.Threads(o.Runtime.Threads), BLAS: res.BLAS, PipelineDepth: res.PipelineDepth, PipelineReason: res.PipelineReason,
		ResumedFrom: res.ResumedFrom, ResumedMinibatches: res.ResumedMinibatches, BestEpoch: res.BestEpoch + 1, ValAcc: res.BestValAcc, TestAcc: res.TestAcc, LoadSeconds: load.seconds,
		Epochs: make([]epochRecord, len(res.Epochs)), NormFeatures: in.Normalized, Preset: c.preset,
		WeightDecayLayers: "all", SplitSeed: c.splitSeed, SplitFile: c.splitFile, PeakRSSBytes: procstat.PeakRSS(), Version: version(),
		Metric: res.Metric.String(), EarlyStopped: res.EarlyStopped, EvalEvery: max(o.Eval.Every, 1), Patience: o.Eval.Patience,
		Residual: o.Model.Residual}
	if o.Model.Norm != gnn.NormNone {
		sum.Norm = o.Model.Norm.String()
	}
	if res.BestEpoch >= 0 {
		sum.BestValid, sum.BestTest = measuresOf(res.BestValid), measuresOf(res.BestTest)
	}
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
			Phases: phasesOf(st.Phases), Costs: st.Costs, Resumed: i < res.ResumedFrom, RSSBytes: st.RSSBytes, HeapBytes: st.HeapBytes,
			Evaluated: st.Evaluated}
		if st.Evaluated {
			r := &sum.Epochs[i]
			r.Train, r.Valid, r.Test = measuresOf(st.Train), measuresOf(st.Valid), measuresOf(st.Test)
		}
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
	med := func(f func(train.EpochStats) float64) float64 {
		v := make([]float64, len(run))
		for i, st := range run {
			v[i] = f(st)
		}
		return stats.MedianOr(v, 0)
	}
	sum.EpochSeconds = med(func(s train.EpochStats) float64 { return s.Seconds })
	if o.Model.Arch != gnn.Linear {
		sum.SEPS = med(func(s train.EpochStats) float64 { return s.SEPS })
	}
	sum.Phases = phaseSeconds{
		Sample:   med(func(s train.EpochStats) float64 { return s.Phases.Sample.Seconds() }),
		Extract:  med(func(s train.EpochStats) float64 { return s.Phases.Extract.Seconds() }),
		Forward:  med(func(s train.EpochStats) float64 { return s.Phases.Forward.Seconds() }),
		Backward: med(func(s train.EpochStats) float64 { return s.Phases.Backward.Seconds() }),
		Reduce:   med(func(s train.EpochStats) float64 { return s.Phases.Reduce.Seconds() }),
		Update:   med(func(s train.EpochStats) float64 { return s.Phases.Update.Seconds() }),
		Wait:     med(func(s train.EpochStats) float64 { return s.Phases.Wait.Seconds() }),
	}
	// The evaluation's median over the epochs evaluated (--eval-every).
	var evals []float64
	for _, st := range run {
		if st.Evaluated {
			evals = append(evals, st.Phases.Eval.Seconds())
		}
	}
	sum.Phases.Eval = stats.MedianOr(evals, 0)
	return sum
}

// phasesOf returns the phase times of one epoch in seconds.
func phasesOf(p train.PhaseTimes) phaseSeconds {
	return phaseSeconds{Sample: p.Sample.Seconds(), Extract: p.Extract.Seconds(), Forward: p.Forward.Seconds(),
		Backward: p.Backward.Seconds(), Reduce: p.Reduce.Seconds(), Update: p.Update.Seconds(), Wait: p.Wait.Seconds(),
		Eval: p.Eval.Seconds()}
}
