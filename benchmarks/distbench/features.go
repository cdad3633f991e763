package main

// The feature-exchange benchmark: a planted-partition graph saved in the
// native format, then this program started again under mpirun (its ranks
// are told so by the DISTBENCH_FEATURES variable, which carries their
// configuration as JSON). Every rank samples its minibatches of one epoch
// from the memory-mapped graph (the sample of the distributed sampler,
// docs/design.md 3.3: the sampling is not what is measured here), loads only its
// feature block (dataset.LoadFeatureBlock) and, for each replication c,
// gathers the input features of its minibatches through featurex.Dist: one
// exchange per minibatch, one per bulk (featurex.Bulk), and one per
// minibatch with the hot-vertex cache. Rank 0 prints the per-rank counters
// as one JSON line, which the parent turns into the report and compares
// with the cost model (costmodel.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// featureEnv is the variable that makes this program a rank of the feature
// benchmark; its value is the featureConfig as JSON.
const featureEnv = "DISTBENCH_FEATURES"

// featureMarker starts rank 0's JSON line on stdout.
const featureMarker = "DISTBENCH-FEATURES "

// featureConfig is what every rank of the feature benchmark needs.
type featureConfig struct {
	Graph       string  `json:"graph"`
	Reps        []int   `json:"replication"`
	Batch       int     `json:"batch"`
	Bulk        int     `json:"bulk"`
	Fanouts     []int   `json:"fanouts"`
	Seed        uint64  `json:"seed"`
	Seeds       int     `json:"seeds"`      // 0: the whole training split
	CacheFrac   float64 `json:"cache_frac"` // cache budget, a fraction of all feature bytes
	CalibFloats int     `json:"calib_floats"`
	Diagnose    bool    `json:"diagnose"`
	// Repeats is how many times each row whose column has several ranks
	// is measured (rows of c = p, which exchange nothing, run once), and
	// Interleave whether the rotation mixes the rows of one c ("c") or
	// of every c ("all").
	Repeats    int    `json:"repeats"`
	Interleave string `json:"interleave"`
	// Lockstep holds every rank at a barrier of the whole grid before each
	// exchange and before its probes (--feature-lockstep).
	Lockstep bool `json:"lockstep"`
}

// The gather modes, in the order they run.
var featureModes = []string{"minibatch", "bulk", "minibatch+cache"}

// rankFigures are one rank's counters of one (c, mode) run.
type rankFigures struct {
	Bytes, Messages int64 // dist.PhaseFeatures on the column communicator
	Stats           featurex.DistStats
	Wall            time.Duration // from the barrier before the first gather to the end of the last
	// MinorFaults and SysSeconds are the process's page faults and kernel
	// time during the gathers.
	MinorFaults int64
	SysSeconds  float64
	AllocBytes  int64 // on the Go heap
	// StealSeconds is the CPU time the hypervisor took from the machine's
	// CPUs during the gathers (all of them, not only this rank's).
	StealSeconds float64
	// WarmFaults and WarmWall are the page faults and the wall time of the
	// untimed warm-up before the epoch (the first bulks).
	WarmFaults int64
	WarmWall   time.Duration
}

// featureRun is one (c, mode) run, every rank's figures.
type featureRun struct {
	C    int    `json:"c"`
	Mode string `json:"mode"`
	// Rep is the repetition (from 0) of Reps; Position the run's place
	// in its repetition's order of the rows (from 0).
	Rep, Reps, Position int
	Ranks               []rankFigures `json:"ranks"`
	OK                  bool          `json:"ok"` // the first minibatch's rows equal the file's
	// Calibration of the column's all-to-all just before and just after
	// the run (their mean, and the mean over ranks): the seconds of an
	// exchange of 16 bytes per pair (Alpha) and the bytes per second a rank
	// sends in a large one (Beta); 0 for a column of one rank.
	Alpha, Beta float64
	// Probes are the plain all-to-alls interleaved with the run's
	// exchanges (probe.go), per kind: sums over the samples, mean over
	// the ranks.
	Probes [numProbes]probeSums
	// ReplayRunPerCall is the seconds the thread ran in the replay of
	// each exchange's row round, mean over the ranks (beside
	// Times.RunPerCall).
	ReplayRunPerCall []float64
	// Times are the run's all-to-alls timed apart from the waits (trace.go).
	Times exchangeTimes
	// PreTimes and RepTimes are, with --feature-diagnose, replays of each
	// round's counts on the probe buffers just before it and repeats of
	// the round on the product's buffers just after it.
	PreTimes, RepTimes exchangeTimes
	// Backs are, with --feature-diagnose, the backings of the last row
	// round's send and receive buffers and of the probes' (summed over
	// the ranks).
	Backs [4]backing
}

// featureResult is what rank 0 prints.
type featureResult struct {
	P, N, F     int
	Edges       int64
	Minibatches int // of the epoch (all ranks)
	Bulks       int
	// Per rank: sampling seconds, Σ distinct inputs over its minibatches,
	// Σ distinct inputs over its bulks (their union), Σ inputs that the
	// cache holds, the number of its minibatches.
	SampleSeconds []float64
	Inputs        []int64
	Unions        []int64
	HotInputs     []int64
	MyMinibatches []int64
	CacheBytes    int64
	// CPUs is, per rank, the set of CPUs it may run on (a bit per CPU).
	CPUs []uint64
	// PeakRSS is the largest of the ranks' peak resident sets (bytes).
	PeakRSS int64
	Runs    []featureRun
}

// featureChild is a rank: it runs every configuration and, on rank 0,
// prints the result.
func featureChild(ctx context.Context, stdout, stderr io.Writer) int {
	var cfg featureConfig
	if err := json.Unmarshal([]byte(os.Getenv(featureEnv)), &cfg); err != nil {
		fmt.Fprintf(stderr, "distbench: %s: %v\n", featureEnv, err)
		return 2
	}
	world, err := dist.NewMPIWorld(dist.Options{})
	if err != nil {
		return benchutil.Fail(stderr, "distbench", err)
	}
	res, err := featureRank(ctx, world, &cfg, stderr)
	if err != nil {
		dist.Fail(stderr, world, err)
		return 1
	}
	if world.Rank() == 0 {
		b, err := json.Marshal(res)
		if err != nil {
			dist.Fail(stderr, world, err)
		}
		fmt.Fprintf(stdout, "%s%s\n", featureMarker, b)
	}
	if err := world.Close(); err != nil {
		return benchutil.Fail(stderr, "distbench", err)
	}
	return 0
}

// featureRank is one rank's whole run; rank 0 writes a line per run to
// progress.
func featureRank(ctx context.Context, world dist.Comm, cfg *featureConfig, progress io.Writer) (*featureResult, error) {
	p, me := world.Size(), world.Rank()
	d, err := dataset.Load(cfg.Graph, nil) // memory-mapped: the ranks share the page cache
	if err != nil {
		return nil, err
	}
	defer d.Close()
	n, f := d.NumNodes(), d.NumFeatures
	plan, err := sampling.NewPlan(d.Train, sampling.PlanOptions{BatchSize: cfg.Batch, BulkSize: cfg.Bulk, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	ep := plan.Epoch(0)
	ep.Truncate(cfg.Seeds)
	nw, err := sampling.NewNodeWise(d.Adj, sampling.NodeWiseOptions{Fanouts: cfg.Fanouts, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	// This rank's minibatches, bulk by bulk: their input vertices.
	t0 := time.Now()
	bulks := make([][][]int32, ep.NumBulks())
	var inputs, unions, mine int64
	for i := range bulks {
		first, seeds := ep.Bulk(i)
		lo, hi := dist.BlockRange(len(seeds), p, me)
		b, err := nw.SampleBulk(ctx, 0, first+lo, seeds[lo:hi])
		if err != nil {
			return nil, err
		}
		var all []int32
		for m := range b.Len() {
			mb := b.Minibatch(m)
			in := slices.Clone(mb.InputNodes())
			bulks[i] = append(bulks[i], in)
			inputs += int64(len(in))
			all = append(all, in...)
			mine++
		}
		b.Release() // its inputs were cloned: the sampler reuses its arrays
		slices.Sort(all)
		unions += int64(len(slices.Compact(all)))
	}
	sampleSec := time.Since(t0).Seconds()
	res := &featureResult{P: p, N: n, F: f, Edges: d.Adj.NNZ(), Minibatches: len(ep.Minibatches), Bulks: len(bulks)}
	// Every rank makes as many per-minibatch gathers as the busiest one.
	most := []int64{mine}
	if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpMax, most); err != nil {
		return nil, err
	}
	// The warm-up's gathers: the first two bulks (as a trainer's first
	// epoch sizes the store's buffers; a larger exchange later grows them,
	// pre-faulted outside the transfers, counted in the report), as many
	// on every rank as on the busiest.
	warmBulks := min(2, len(bulks))
	warmMost := []int64{0}
	for _, b := range bulks[:warmBulks] {
		warmMost[0] += int64(len(b))
	}
	if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpMax, warmMost); err != nil {
		return nil, err
	}
	cacheBytes := int64(cfg.CacheFrac * float64(n) * float64(f) * 4)
	res.CacheBytes = cacheBytes
	// The grid, hence the stores' column communicators, log their feature
	// all-to-alls (trace.go).
	log := &callLog{diag: cfg.Diagnose, bufs: &buffers{}}
	rk := &featureRanker{world: world, cfg: cfg, bulks: bulks, most: int(most[0]), warmBulks: warmBulks, warmMost: int(warmMost[0]),
		features: d.DenseFeatures(), log: log, traced: newTraced(world, dist.PhaseFeatures, log), progress: progress}
	// A column of one rank (c = p) exchanges nothing: its rows run once,
	// first, and their full feature blocks are freed before the others'
	// stores are made. The rows of each other c (of all of them with
	// cfg.Interleave "all") stay open together and run cfg.Repeats
	// times, each repetition in its own order of the rows
	// (benchutil.SweepOrder), so that a slow stretch of the machine falls
	// on the rows alike rather than on whichever ran then. An open row
	// keeps its store's buffers warm: at ogbn-products' size the three
	// rows of c = 1 hold about 2 GB per rank, and those of c = 1 and 2
	// together 4 GB (Interleave "all").
	var once []int
	var repeated [][]int // the c whose rows are open together
	for _, c := range cfg.Reps {
		switch {
		case c == p:
			once = append(once, c)
		case cfg.Interleave == "all" && len(repeated) > 0:
			repeated[0] = append(repeated[0], c)
		default:
			repeated = append(repeated, []int{c})
		}
	}
	for _, c := range once {
		rows, err := rk.open(ctx, c, d, cacheBytes)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			if err := rk.measure(ctx, row, 0, 1, 0); err != nil {
				return nil, err
			}
		}
		if err := rk.close(); err != nil {
			return nil, err
		}
	}
	for _, cs := range repeated {
		var rows []*featureRow
		for _, c := range cs {
			rs, err := rk.open(ctx, c, d, cacheBytes)
			if err != nil {
				return nil, err
			}
			rows = append(rows, rs...)
		}
		for rep := range cfg.Repeats {
			for pos, i := range benchutil.SweepOrder(len(rows), rep, cfg.Seed) {
				if err := rk.measure(ctx, rows[i], rep, cfg.Repeats, pos); err != nil {
					return nil, err
				}
			}
		}
		if err := rk.close(); err != nil {
			return nil, err
		}
	}
	res.Runs = rk.runs
	// The report's order: by c as given, then mode, then repetition.
	slices.SortStableFunc(res.Runs, func(a, b featureRun) int {
		ia, ib := slices.Index(cfg.Reps, a.C), slices.Index(cfg.Reps, b.C)
		if ia != ib {
			return ia - ib
		}
		if ma, mb := slices.Index(featureModes, a.Mode), slices.Index(featureModes, b.Mode); ma != mb {
			return ma - mb
		}
		return a.Rep - b.Rep
	})
	hot := rk.hot
	// The CPUs this rank may run on, as mpirun bound it (--bind).
	allowed, err := benchutil.AllowedCPUs()
	if err != nil {
		return nil, fmt.Errorf("rank %d: %w", me, err)
	}
	cpus, err := cpuMask(allowed)
	if err != nil {
		return nil, fmt.Errorf("rank %d: its CPUs %s: %w", me, benchutil.FormatCPUList(allowed), err)
	}
	var meter procstat.Meter
	per := []int64{int64(sampleSec * 1e9), inputs, unions, hot, mine, int64(cpus), meter.Now().PeakRSS}
	all, _, err := dist.Allgather(ctx, world, dist.PhaseControl, per)
	if err != nil {
		return nil, err
	}
	for r := range p {
		v := all[r*len(per) : (r+1)*len(per)]
		res.SampleSeconds = append(res.SampleSeconds, float64(v[0])/1e9)
		res.Inputs = append(res.Inputs, v[1])
		res.Unions = append(res.Unions, v[2])
		res.HotInputs = append(res.HotInputs, v[3])
		res.MyMinibatches = append(res.MyMinibatches, v[4])
		res.CPUs = append(res.CPUs, uint64(v[5]))
		res.PeakRSS = max(res.PeakRSS, v[6])
	}
	return res, nil
}

// featureRanker is one rank's state across the rows of the feature
// benchmark: what every measurement needs, the rows open now and the runs
// measured so far.
type featureRanker struct {
	world     dist.Comm
	cfg       *featureConfig
	bulks     [][][]int32 // this rank's minibatches' inputs, bulk by bulk
	most      int         // the busiest rank's minibatches
	warmBulks int         // bulks of the warm-up
	warmMost  int         // the busiest rank's minibatches in them
	features  []float32   // the file's, for the check of the first minibatch
	log       *callLog
	traced    dist.Comm
	bufs      buffers
	hot       int64 // inputs the cache holds (counted once)
	runs      []featureRun
	progress  io.Writer // a line per run, or nil
	// closers release the open rows' stores, feature blocks and grids,
	// last opened first. On an error they are left open: closing a grid
	// is collective, and the caller aborts the world (dist.Fail) rather
	// than wait for ranks that may never come.
	closers []func() error
}

// featureRow is one (c, mode) configuration, open across its repetitions:
// its store keeps its warm buffers from one to the next.
type featureRow struct {
	c      int
	mode   string
	grid   *dist.Grid
	store  *featurex.Dist
	warmed bool
}

// open makes the grid of replication c, loads this rank's feature block
// and makes one store per mode.
func (rk *featureRanker) open(ctx context.Context, c int, d *dataset.Dataset, cacheBytes int64) ([]*featureRow, error) {
	n, f := d.NumNodes(), d.NumFeatures
	grid, err := dist.NewGrid(ctx, rk.traced, c, n)
	if err != nil {
		return nil, err
	}
	rk.closers = append(rk.closers, grid.Close)
	fb, err := dataset.LoadFeatureBlock(ctx, rk.cfg.Graph, func(int) (int, int) {
		lo, hi := grid.MyRows()
		return int(lo), int(hi)
	})
	if err != nil {
		return nil, err
	}
	rk.closers = append(rk.closers, func() error { fb.Close(); return nil })
	if fb.N != n || fb.NumFeatures != f {
		return nil, fmt.Errorf("rank %d: feature block of %d x %d; the graph has %d x %d", rk.world.Rank(), fb.N, fb.NumFeatures, n, f)
	}
	lo, hi := grid.MyRows()
	degrees, err := featurex.ColumnCounts(ctx, grid, blockOf(d, lo, hi))
	if err != nil {
		return nil, err
	}
	var rows []*featureRow
	for _, mode := range featureModes {
		opt := featurex.DistOptions{}
		if strings.HasSuffix(mode, "+cache") {
			opt = featurex.DistOptions{CacheBytes: cacheBytes, Degrees: degrees}
		}
		store, err := featurex.NewDist(ctx, grid, fb.Features, f, opt)
		if err != nil {
			return nil, err
		}
		rk.closers = append(rk.closers, store.Close)
		if opt.CacheBytes > 0 && rk.hot == 0 && grid.Col().Size() > 1 {
			for _, b := range rk.bulks {
				for _, in := range b {
					for _, v := range in {
						if store.InCache(v) {
							rk.hot++
						}
					}
				}
			}
		}
		rows = append(rows, &featureRow{c: c, mode: mode, grid: grid, store: store})
	}
	return rows, nil
}

// close releases every open row's store, feature block and grid; the
// first error is returned.
func (rk *featureRanker) close() error {
	var first error
	for i := len(rk.closers) - 1; i >= 0; i-- {
		if err := rk.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	rk.closers = nil
	return first
}

// measure runs repetition rep (of reps) of row, the pos-th of its
// repetition's order: a warm-up of the first bulks the first time (untimed,
// as a trainer's first epoch: the store's buffers then hold the largest
// exchange of those bulks, and the timed epochs measure the steady state
// that every later epoch runs in; its first touches of fresh pages are
// reported apart, see WarmFaults), then one timed epoch with its
// interleaved probes, appended to rk.runs.
func (rk *featureRanker) measure(ctx context.Context, row *featureRow, rep, reps, pos int) error {
	world, grid, store, log, cfg := rk.world, row.grid, row.store, rk.log, rk.cfg
	p, c, mode := world.Size(), row.c, row.mode
	a0, b0, err := calibrate(ctx, grid.Col(), &rk.bufs, cfg.CalibFloats)
	if err != nil {
		return err
	}
	var warm rankFigures
	if !row.warmed {
		row.warmed = true
		if warm, _, err = gatherEpoch(ctx, grid, store, mode, rk.bulks[:rk.warmBulks], rk.warmMost, rk.features, &rk.bufs,
			&interleaved{col: grid.Col(), log: log, legacy: cfg.Diagnose}, cfg.Lockstep); err != nil {
			return fmt.Errorf("c = %d, %s: warm-up: %w", c, mode, err)
		}
	}
	store.ResetStats()
	log.take()
	cal := &interleaved{col: grid.Col(), log: log, legacy: cfg.Diagnose}
	fig, ok, err := gatherEpoch(ctx, grid, store, mode, rk.bulks, rk.most, rk.features, &rk.bufs, cal, cfg.Lockstep)
	if err != nil {
		return fmt.Errorf("c = %d, %s, repetition %d: %w", c, mode, rep+1, err)
	}
	fig.WarmFaults, fig.WarmWall = warm.MinorFaults, warm.Wall
	log.mu.Lock()
	pre, repeat, backs := log.pre, log.rep, log.backs
	log.mu.Unlock()
	calls := log.take()
	a1, b1, err := calibrate(ctx, grid.Col(), &rk.bufs, cfg.CalibFloats)
	if err != nil {
		return err
	}
	ab := []float64{(a0 + a1) / 2, (b0 + b1) / 2}
	for _, ps := range cal.sums {
		ab = append(ab, ps.Seconds, ps.Bytes, ps.Samples, ps.Call, ps.Run, ps.Queue, ps.Span)
	}
	if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpSum, ab); err != nil {
		return err
	}
	run := featureRun{C: c, Mode: mode, Rep: rep, Reps: reps, Position: pos, OK: ok, Alpha: ab[0] / float64(p)}
	if q := grid.Col().Size(); q > 1 {
		run.Beta = float64((q-1)*cfg.CalibFloats*4) / (ab[1] / float64(p))
		for k := range run.Probes {
			v := ab[2+7*k:]
			run.Probes[k] = probeSums{Seconds: v[0] / float64(p), Bytes: v[1] / float64(p), Samples: v[2] / float64(p),
				Call: v[3] / float64(p), Run: v[4] / float64(p), Queue: v[5] / float64(p), Span: v[6] / float64(p)}
		}
	}
	// Every rank made as many exchanges, hence replays, as the others
	// (Gather with nothing to read included).
	per := make([]float64, len(cal.replayRun))
	for i, ns := range cal.replayRun {
		per[i] = float64(ns) / 1e9
	}
	if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpSum, per); err != nil {
		return err
	}
	for i := range per {
		per[i] /= float64(p)
	}
	run.ReplayRunPerCall = per
	if run.Ranks, err = gatherFigures(ctx, world, fig); err != nil {
		return err
	}
	if run.Times, err = gatherTimes(ctx, world, grid.ProcCol(), calls); err != nil {
		return err
	}
	if log.diag {
		if run.PreTimes, err = gatherTimes(ctx, world, grid.ProcCol(), pre); err != nil {
			return err
		}
		if run.RepTimes, err = gatherTimes(ctx, world, grid.ProcCol(), repeat); err != nil {
			return err
		}
		v := make([]int64, 0, 8)
		for _, bk := range backs {
			v = append(v, bk.RssKB, bk.HugeKB)
		}
		if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpSum, v); err != nil {
			return err
		}
		for i := range run.Backs {
			run.Backs[i] = backing{v[2*i], v[2*i+1]}
		}
	}
	okAll := []int64{0}
	if !ok {
		okAll[0] = 1
	}
	if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpMax, okAll); err != nil {
		return err
	}
	run.OK = okAll[0] == 0
	rk.runs = append(rk.runs, run)
	if world.Rank() == 0 && rk.progress != nil {
		fmt.Fprintf(rk.progress, "distbench: c = %d %s: ids + rows %.3f s, wall %.1f s\n", c, run.label(),
			run.Times.Transfer[1]+run.Times.Transfer[2], fig.Wall.Seconds())
	}
	return nil
}

// blockOf returns rows [lo, hi) of d's adjacency as a CSR sharing d's
// arrays (its row offsets shifted).
func blockOf(d *dataset.Dataset, lo, hi int32) *spgemm.CSR {
	return d.Adj.SliceRows(int(lo), int(hi), nil)
}

// gatherEpoch gathers the inputs of every minibatch of bulks in mode and
// returns this rank's figures, and whether the first minibatch's rows
// equal the features' (read from the mapped file). With lockstep every rank
// of the grid meets at a barrier before each exchange and before its
// probes, as a data-parallel trainer's ranks meet at each step's gradient
// all-reduce: the process columns, which otherwise exchange independently,
// then run their exchanges, and their probes, at the same time.
func gatherEpoch(ctx context.Context, grid *dist.Grid, store *featurex.Dist, mode string, bulks [][][]int32, most int, features []float32, bufs *buffers, cal *interleaved, lockstep bool) (rankFigures, bool, error) {
	step := func() error {
		if !lockstep {
			return nil
		}
		return grid.World().Barrier(ctx, dist.PhaseControl)
	}
	f := store.NumFeatures()
	col := store.Comm()
	x := bufs.x
	defer func() { bufs.x = x }()
	ok, checked := true, false
	check := func(ids []int32) {
		if checked {
			return
		}
		checked = true
		for r, v := range ids {
			if !slices.Equal(x[r*f:(r+1)*f], features[int(v)*f:int(v+1)*f]) {
				ok = false
				return
			}
		}
	}
	if err := grid.World().Barrier(ctx, dist.PhaseControl); err != nil {
		return rankFigures{}, false, err
	}
	before := col.Stats()
	var meter procstat.Meter
	m0 := meter.Now()
	steal0 := stealSeconds()
	t0 := time.Now()
	switch mode {
	case "bulk":
		bk := store.NewBulk()
		for _, b := range bulks {
			if err := step(); err != nil {
				return rankFigures{}, false, err
			}
			if err := bk.Fetch(ctx, b...); err != nil {
				return rankFigures{}, false, err
			}
			if err := step(); err != nil {
				return rankFigures{}, false, err
			}
			if err := cal.sample(ctx, bufs); err != nil {
				return rankFigures{}, false, err
			}
			for _, ids := range b {
				x = growFloats(x, len(ids)*f)
				if err := bk.Gather(ctx, x, ids); err != nil {
					return rankFigures{}, false, err
				}
				check(ids)
			}
		}
		bk.Release()
	default:
		done := 0
		for _, b := range bulks {
			for _, ids := range b {
				x = growFloats(x, len(ids)*f)
				if err := step(); err != nil {
					return rankFigures{}, false, err
				}
				if err := store.Gather(ctx, x, ids); err != nil {
					return rankFigures{}, false, err
				}
				if err := step(); err != nil {
					return rankFigures{}, false, err
				}
				if err := cal.sample(ctx, bufs); err != nil {
					return rankFigures{}, false, err
				}
				check(ids)
				done++
			}
		}
		for ; done < most; done++ {
			// As a trainer's zero-weight step: nothing to read, still
			// serving the others.
			if err := step(); err != nil {
				return rankFigures{}, false, err
			}
			if err := store.Gather(ctx, nil, nil); err != nil {
				return rankFigures{}, false, err
			}
			if err := step(); err != nil {
				return rankFigures{}, false, err
			}
			if err := cal.sample(ctx, bufs); err != nil {
				return rankFigures{}, false, err
			}
		}
	}
	wall := time.Since(t0)
	steal := stealSeconds() - steal0
	cost := meter.Now().Sub(m0)
	after := col.Stats()
	return rankFigures{
		Bytes:    after.Bytes[dist.PhaseFeatures] - before.Bytes[dist.PhaseFeatures],
		Messages: after.Messages[dist.PhaseFeatures] - before.Messages[dist.PhaseFeatures],
		Stats:    store.Stats(), Wall: wall,
		MinorFaults: cost.MinorFaults, SysSeconds: cost.SysSeconds, AllocBytes: cost.AllocBytes, StealSeconds: steal,
	}, ok, nil
}

// buffers are the benchmark's own arrays, kept across its runs so that
// the timed gathers and calibrations write no fresh page: the destination
// of the gathers and the calibration's send and receive buffers.
type buffers struct {
	x, send, recv []float32
	arena         *hugemem.Arena // send and recv
}

// huge returns s resized to n, on a huge-page mapping of b's arena when
// it must grow (s's own freed).
func (b *buffers) huge(s []float32, n int) []float32 {
	if b.arena == nil {
		b.arena = &hugemem.Arena{}
	}
	return hugemem.Grow(b.arena, s, n)
}

// sendBuf returns b.send resized to n on b's arena, every value of a new
// mapping written once. A send buffer that was never written is backed by
// the kernel's zero page: an all-to-all that reads it (Open MPI's
// single-copy transport reads the peer's pages) then moves no memory on
// the sending side and runs faster than one from a written buffer such as
// the product's, which measured the probes 20-40% faster than the rounds
// they calibrate (--feature-diagnose showed the probes' send mapping with
// no resident page).
func (b *buffers) sendBuf(n int) []float32 {
	old := unsafe.SliceData(b.send)
	b.send = b.huge(b.send, n)
	if s := b.send[:cap(b.send)]; unsafe.SliceData(s) != old {
		for i := range s {
			s[i] = float32(i & 1023)
		}
	}
	return b.send
}

func growFloats(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float32, n, n+n/4)
}

// gatherFigures collects every rank's figures on every rank.
func gatherFigures(ctx context.Context, world dist.Comm, fig rankFigures) ([]rankFigures, error) {
	s := fig.Stats
	v := []int64{fig.Bytes, fig.Messages, int64(fig.Wall), s.Exchanges, s.Rows, s.LocalRows, s.CacheHits, s.SavedBytes,
		s.RemoteRows, s.Fetched, s.Served, s.CacheRows, s.CacheBytes, fig.MinorFaults, int64(fig.SysSeconds * 1e9), fig.WarmFaults, int64(fig.WarmWall), fig.AllocBytes}
	for _, t := range s.Time {
		v = append(v, int64(t))
	}
	v = append(v, s.Grows, s.GrowBytes, int64(fig.StealSeconds*1e9))
	all, _, err := dist.Allgather(ctx, world, dist.PhaseControl, v)
	if err != nil {
		return nil, err
	}
	out := make([]rankFigures, world.Size())
	for r := range out {
		w := all[r*len(v) : (r+1)*len(v)]
		o := &out[r]
		o.Bytes, o.Messages, o.Wall = w[0], w[1], time.Duration(w[2])
		st := &o.Stats
		st.Exchanges, st.Rows, st.LocalRows, st.CacheHits, st.SavedBytes = w[3], w[4], w[5], w[6], w[7]
		st.RemoteRows, st.Fetched, st.Served, st.CacheRows, st.CacheBytes = w[8], w[9], w[10], w[11], w[12]
		o.MinorFaults, o.SysSeconds, o.WarmFaults, o.WarmWall, o.AllocBytes = w[13], float64(w[14])/1e9, w[15], time.Duration(w[16]), w[17]
		for i := range st.Time {
			st.Time[i] = time.Duration(w[18+i])
		}
		st.Grows, st.GrowBytes = w[18+len(st.Time)], w[19+len(st.Time)]
		o.StealSeconds = float64(w[20+len(st.Time)]) / 1e9
	}
	return out, nil
}

// calibrate measures the column's all-to-all: alpha, the mean seconds of
// an exchange of two int64 per pair (as the status round of a gather), and
// seconds, the time of one of floats float32 per pair less alpha (the mean
// of 7; see the body), from which the caller derives the bandwidth. Both
// are 0 for a column of one rank.
func calibrate(ctx context.Context, col dist.Comm, bufs *buffers, floats int) (alpha, seconds float64, err error) {
	q := col.Size()
	if q == 1 {
		return 0, 0, nil
	}
	two := make([]int, q)
	for i := range two {
		two[i] = 2
	}
	s, r := make([]int64, 2*q), make([]int64, 2*q)
	var ts []float64
	for range 31 {
		t0 := time.Now()
		if err := col.Alltoallv(ctx, dist.PhaseControl, s, two, r, two); err != nil {
			return 0, 0, err
		}
		ts = append(ts, time.Since(t0).Seconds())
	}
	// The mean, not the median: the runs' exchanges pay every slow round
	// (a rank descheduled on an oversubscribed machine), and the model is
	// compared with their sum.
	for _, t := range ts {
		alpha += t / float64(len(ts))
	}
	counts := make([]int, q)
	for i := range counts {
		counts[i] = floats
	}
	// The product's row buffers are on huge pages (featurex.Dist): so are
	// these, warm (one exchange untimed), and each timed exchange starts
	// after a barrier, as the traced ones of the runs do (trace.go).
	sb := bufs.sendBuf(q * floats)
	bufs.recv = bufs.huge(bufs.recv, q*floats)
	rb := bufs.recv
	if err := col.Alltoallv(ctx, dist.PhaseControl, sb, counts, rb, counts); err != nil {
		return 0, 0, err
	}
	// The mean, not the median: the model is compared with a sum of
	// transfers, which the slow ones weigh on.
	var sum float64
	const reps = 7
	for range reps {
		if err := col.Barrier(ctx, dist.PhaseControl); err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		if err := col.Alltoallv(ctx, dist.PhaseControl, sb, counts, rb, counts); err != nil {
			return 0, 0, err
		}
		sum += time.Since(t0).Seconds()
	}
	return alpha, max(sum/reps-alpha, 1e-9), nil
}

// featureBench generates the graph, runs the ranks under mpirun and
// appends the report to c.out.
func featureBench(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "distbench-features")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	graph, train, gen, err := plantedGraph(c, tmp, stderr)
	if err != nil {
		return err
	}
	cfg := featureConfig{Graph: graph, Reps: c.reps, Batch: c.batch, Bulk: c.fbulk, Fanouts: c.fanouts, Seed: c.seed,
		Seeds: c.fseeds, CacheFrac: c.fcache, CalibFloats: c.fcalib, Diagnose: c.fdiag, Repeats: c.frepeats, Interleave: c.finterleave, Lockstep: c.flockstep}
	js, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	self := c.self
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return err
		}
	}
	load, _ := benchutil.LoadAverages()
	cmd := mpirunCommand(ctx, c.mpirun, c.np, c.place, self)
	cmd.Env = append(cmd.Env, featureEnv+"="+string(js))
	var errOut strings.Builder
	// The ranks' progress and mpirun's report of the bindings (--bind
	// core) go on to stderr as they come; kept for the error too.
	cmd.Stderr = io.MultiWriter(&errOut, stderr)
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("mpirun -np %d (features): %v\n%s%s", c.np, err, out, errOut.String())
	}
	wall := time.Since(start)
	var res featureResult
	found := false
	for line := range strings.SplitSeq(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, featureMarker); ok {
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				return fmt.Errorf("features: rank 0's JSON: %v", err)
			}
			found = true
		}
	}
	if !found {
		return fmt.Errorf("features: no result line from rank 0\n%s%s", out, errOut.String())
	}
	text := featureReport(c, &res, train, gen, wall, load)
	return benchutil.Report{Program: "distbench", Path: c.out, Append: true, Text: text}.Write(stdout, stderr)
}

// plantedGraph returns the native file of the feature benchmark's
// planted-partition graph and its training vertices: generated and saved
// in tmp, or, with --feature-graph-dir, the file of the same options there
// (its name gives them) if it exists, else generated and saved there for
// the next run. gen is the time generating and saving took, 0 if reused.
func plantedGraph(c *config, tmp string, stderr io.Writer) (path string, train int, gen time.Duration, err error) {
	dir := tmp
	if c.fgraphDir != "" {
		dir = c.fgraphDir
	}
	path = filepath.Join(dir, plantedName(c))
	if c.fgraphDir != "" {
		if _, err := os.Stat(path); err == nil {
			d, err := dataset.Load(path, nil)
			if err != nil {
				return "", 0, 0, fmt.Errorf("--feature-graph-dir: %w", err)
			}
			defer d.Close()
			fmt.Fprintf(stderr, "distbench: planted partition of %d vertices read from %s\n", d.NumNodes(), path)
			return path, len(d.Train), 0, nil
		}
	}
	t0 := time.Now()
	d, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: c.fnodes, AvgDegree: c.fdegree, Features: c.ffeatures, Seed: c.seed})
	if err != nil {
		return "", 0, 0, err
	}
	defer d.Close()
	// Save writes through a temporary file renamed into place: a run
	// stopped while saving leaves no file that the next would take for
	// whole.
	if err := dataset.Save(path, d); err != nil {
		return "", 0, 0, err
	}
	gen = time.Since(t0)
	fmt.Fprintf(stderr, "distbench: planted partition of %d vertices generated and saved in %.1fs\n", c.fnodes, gen.Seconds())
	return path, len(d.Train), gen, nil
}

// plantedName is the file name of the planted-partition graph of c's
// options.
func plantedName(c *config) string {
	return fmt.Sprintf("planted-n%d-d%g-f%d-s%d.bsg", c.fnodes, c.fdegree, c.ffeatures, c.seed)
}

// interleaveText says, by --feature-interleave, which rows a repetition
// runs in its order.
func interleaveText(mode string) string {
	if mode == "all" {
		return "the rows of every c, open together"
	}
	return "the rows of one c, open together, one c after the other"
}

// featureReport is the markdown section of the feature benchmark.
func featureReport(c *config, res *featureResult, train int, gen, wall time.Duration, load [3]string) string {
	var b strings.Builder
	mc := benchutil.ThisMachine(1)
	p, f := res.P, res.F
	seeds := train
	if c.fseeds > 0 {
		seeds = min(seeds, c.fseeds)
	}
	inputs, unions, hot := res.inputSums()
	launcher := c.place.launcher()
	genText := fmt.Sprintf("generated and saved in %.0f s", gen.Seconds())
	if gen == 0 {
		genText = "read from a file of an earlier run (--feature-graph-dir)"
	}
	fmt.Fprintf(&b, "\n## Feature exchange (featurex.Dist)\n\n")
	fmt.Fprintf(&b, "Planted-partition graph (dataset.PlantedPartition, seed %d): %d vertices, %d stored edges, %d float32 features "+
		"(%.0f MiB in all), %s; one epoch of %d training seeds (of %d) in %d minibatches of b = %d, fanouts %s, "+
		"bulks of k = %d minibatches (%d bulks); p = %d ranks under %s, 1 thread each, %.0f s for the whole launch. "+
		"Each rank loads only its feature block (dataset.LoadFeatureBlock of the native file) and samples its own minibatches from the "+
		"memory-mapped graph (the sample of the distributed sampler, docs/design.md 3.3; sampling took %.1f-%.1f s per rank and is not part of "+
		"the figures below). The cache holds %.1f MiB per rank (%.0f%% of the features), the vertices of highest degree "+
		"(featurex.ColumnCounts). %s, %d logical CPUs, %s, %s; load average at start %s %s %s.\n\n",
		c.seed, res.N, res.Edges, f, float64(res.N)*float64(f)*4/(1<<20), genText, seeds, train, res.Minibatches, c.batch,
		benchutil.JoinInts(c.fanouts), c.fbulk, res.Bulks, p, launcher, wall.Seconds(), slices.Min(res.SampleSeconds), slices.Max(res.SampleSeconds),
		float64(res.CacheBytes)/(1<<20), 100*c.fcache, mc.CPU, mc.Cores, mc.Go, mc.Date, load[0], load[1], load[2])
	fmt.Fprintf(&b, "Command: `distbench %s` (`make bench`).\n\n", strings.Join(c.args, " "))
	cpusText, own := bindings(res.CPUs)
	verdict := "a CPU of its own each"
	if !own {
		verdict = "not one CPU of its own each"
	}
	fmt.Fprintf(&b, "The CPUs each rank may run on (its affinity, /proc/self/status): %s (%s).\n\n", cpusText, verdict)
	fmt.Fprintf(&b, "Each row whose process column has several ranks ran %d times (the rows of c = p, which exchange nothing, once): "+
		"its store made and warmed up once (the first two bulks, untimed), then %d timed epochs, every repetition running all those rows "+
		"in an order of its own (benchutil.SweepOrder), so that a slow stretch of the shared machine falls on the rows alike (%s). Each "+
		"repetition's model time is the model of its own bytes with the α and β of the probes interleaved with it (probe.go); the "+
		"table gives, per row, the median and range over the repetitions of the measured transfer time (ids + rows, as below) and "+
		"of the model's, the error of the model's median against the measured median, and the spread of the repetitions' own errors. "+
		"The bytes are counted in every repetition, and the byte model's error is given for each. The tables after it list every "+
		"repetition, (r/R) after the mode. The largest peak resident set of a rank: %.0f MiB.\n\n", c.frepeats, c.frepeats, interleaveText(c.finterleave),
		float64(res.PeakRSS)/(1<<20))
	if c.flockstep {
		b.WriteString("Lockstep (--feature-lockstep): every rank of the grid met at a barrier before each exchange and before its probes, " +
			"as a data-parallel trainer's ranks meet at each step's gradient all-reduce, so that the process columns exchanged, and probed, at the same time.\n\n")
	}
	b.WriteString(repeatTable(res))
	b.WriteString("\n")
	b.WriteString("Per rank and epoch: the bytes a rank sent under dist.PhaseFeatures (mean over ranks / busiest rank), the model's " +
		"(featureTraffic in benchmarks/distbench/costmodel.go, evaluated on this sample's input counts) and its error on the sum over " +
		"ranks; the time of the transfers (the id and row all-to-alls, each timed from a barrier of the column so that the wait for its " +
		"slowest rank is left out, summed over the epoch, mean over ranks) against the model's, 2·E·α + bytes/β: a Hockney network " +
		"(latency α per round, bandwidth β per rank) paying α for each of the exchange's id and row rounds and every byte at β. α and " +
		"β are measured in the run's own conditions: after each exchange the column makes plain all-to-alls on warm, written huge-page " +
		"buffers, each from a barrier, that send the same count to every other rank of the column and none to itself (ids uniform over " +
		"the blocks, as the byte model assumes), of the exchange's mean id message per pair and of its mean row message per pair; α and β " +
		"are the line t = α + b/β through their mean times (the probe table below). The mean seconds of " +
		"each phase of the gathers (pack: classify the ids, copy the local and cached rows, sort and deduplicate the remote ids; status: " +
		"the first all-to-all, where a rank waits for the column's slowest; ids; serve: the owner copies the rows asked of it; rows; " +
		"unpack: copy the fetched rows into place, and per bulk every row of each minibatch; these are featurex.DistStats' wall times: " +
		"the all-to-all phases include the barriers and the waits for the column's slowest rank, which the wait table below separates, " +
		"and the probes' time is not in them); the slowest rank's wall time (probes included). Each run is one epoch; a row's first follows a warm-up " +
		"of its first two bulks (untimed, as a trainer's first epoch), so that the store's buffers are warm, and its later repetitions reuse the warm store. Every run's first minibatch was checked " +
		"against the file's rows.\n\n")
	b.WriteString("| c | mode | exchanges | feature bytes (mean / max) | model bytes | error | messages | cache hit rate | bytes saved | transfer s (ids + rows) | model s | error | pack / status / ids / serve / rows / unpack s | wall s | rows |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	var probeRows string
	ranModel := map[int]string{} // by index in res.Runs: the thread's running time against the CPU-time line (waitTable)
	legacy := false
	for ri, run := range res.Runs {
		var bytes, most, msgs, hits, remote, saved, exch float64
		var phase [featurex.NumGatherPhases]float64
		var wallMax time.Duration
		for _, r := range run.Ranks {
			bytes += float64(r.Bytes)
			most = max(most, float64(r.Bytes))
			msgs += float64(r.Messages)
			hits += float64(r.Stats.CacheHits)
			remote += float64(r.Stats.RemoteRows)
			saved += float64(r.Stats.SavedBytes)
			exch = max(exch, float64(r.Stats.Exchanges))
			for i, t := range r.Stats.Time {
				phase[i] += t.Seconds() / float64(p)
			}
			wallMax = max(wallMax, r.Wall)
		}
		m := res.model(&run)
		model, measured := m.traffic, m.measured
		errB := "–"
		if bytes > 0 {
			errB = pct(relErr(model.bytes, bytes), 1)
		}
		hit, sv := "–", "–"
		if strings.HasSuffix(run.Mode, "+cache") {
			if hits+remote > 0 {
				hit = fmt.Sprintf("%.3f", hits/(hits+remote))
			}
			sv = fmt.Sprintf("%.1f MiB", saved/float64(p)/(1<<20))
		}
		// The transfers of the id and row rounds, each timed from a
		// barrier (trace.go): the status round, where a rank waits for
		// the column's slowest, is left out, as are the barriers' waits.
		// The model's bytes are the mean rank's, at the bandwidth of
		// all-to-alls of the run's message size (runModel).
		probeRows += probeRow(&run, m.rounds, m.perRank, measured)
		if !math.IsNaN(m.ranModel) {
			ranModel[ri] = fmt.Sprintf("%.3f / %.3f (%s)", m.ran, m.ranModel, pct(relErr(m.ranModel, m.ran), 0))
		}
		legacy = legacy || run.Probes[probeLegacy].Samples > 0
		modelS, errS := "–", "–"
		if !math.IsNaN(m.model) {
			modelS = fmt.Sprintf("%.3f", m.model)
			errS = pct(relErr(m.model, measured), 0)
		}
		ok := "= file"
		if !run.OK {
			ok = "DIFFER"
		}
		ph := make([]string, len(phase))
		for i, t := range phase {
			ph[i] = fmt.Sprintf("%.2f", t)
		}
		fmt.Fprintf(&b, "| %d | %s | %.0f | %.1f / %.1f MiB | %.1f MiB | %s | %.0f | %s | %s | %.3f | %s | %s | %s | %.2f | %s |\n",
			run.C, run.label(), exch, bytes/float64(p)/(1<<20), most/(1<<20), model.bytes/float64(p)/(1<<20), errB, msgs/float64(p), hit, sv,
			measured, modelS, errS, strings.Join(ph, " / "), wallMax.Seconds(), ok)
	}
	b.WriteString(transferTable(res))
	b.WriteString(waitTable(res, ranModel))
	if probeRows != "" {
		b.WriteString(probeHeader(legacy) + probeRows)
		b.WriteString("\nThe probes interleaved with each run (benchmarks/distbench/probe.go), seconds summed over the epoch's exchanges (one probe of " +
			"each kind per exchange), mean over the ranks, beside the run's own id and row rounds: *replay* sends the round's own per-pair " +
			"counts again, *uniform* the column's mean count per pair to every other rank (the model's assumption); the mean seconds of one " +
			"uniform probe of each size (the id round's message, the row round's and its 1/8, 1/4 and 1/2); the model's α and β (the " +
			"line through the id and row probes); and, for comparison, the least-squares line over all five sizes and the model's time and " +
			"error with it.")
		if legacy {
			b.WriteString(" *legacy* is the previous version's probe: the column's largest mean row message per pair, sent to every " +
				"rank of the column, the rank itself included; *replay written* a replay of the row round's counts whose send buffer " +
				"is written just before its barrier, as the serve step writes the product's.")
		}
		b.WriteString("\n")
	}
	if pt := positionTable(res); pt != "" {
		b.WriteString(pt)
		b.WriteString("\n--feature-diagnose: each id and row round beside a replay of its own counts on the probes' buffers just " +
			"before it and a repeat of the round on the product's own buffers just after it, each from a barrier (these extra calls slow " +
			"the run down; the times above are of the same run): their transfer times, the calling thread's running time in the row " +
			"rounds (as in the wait table) and the ratio of the run's to the replay's, call by call (median and range); and the " +
			"huge-page and resident megabytes of the mappings holding the last row round's buffers and the probes', summed over the " +
			"ranks.\n")
	}
	fmt.Fprintf(&b, "\nModel inputs (sums over ranks): Σ distinct inputs over the minibatches = %.0f, Σ over the bulks' unions = %.0f "+
		"(per bulk / per minibatch rows: %.3f), Σ inputs held by the cache = %.0f (%.1f%%).\n\n", inputs, unions, unions/inputs, hot, 100*hot/inputs)
	b.WriteString("Cost model, per rank and epoch (featureTraffic): with X the distinct input rows over its exchanges (per minibatch, or the " +
		"union of each bulk), h the fraction the cache holds, E its exchanges, q = p/c, f features:\n\n" +
		"    bytes   = (1 - c/p) · (1 - h) · X · (4f + 4) + 16 · (q - 1) · E\n" +
		"    seconds = 2 · E · α + bytes / β    (the id and row rounds, validated above)\n\n" +
		"The status round (16 bytes per pair) is counted in the bytes but not in the measured transfers nor in the 2·E rounds above: its " +
		"time is mostly the wait for the column's slowest rank, reported apart. The prediction below counts it: 3·E·α.\n\n" +
		"A row is remote with probability 1 - c/p (the generator's ids carry no locality); it costs its id and its values, and a " +
		"rank sends as requester and as owner equal amounts in expectation. Replication makes the remote fraction 1 - c/p: at p = 4 it cuts the traffic by a third from c = 1 to c = 2 (0.75 to 0.5) and removes it at c = 4, but at p = 128 it barely moves it (0.992 to 0.938 from c = 1 to 8).\n\n")
	ratio := inputs / (float64(seeds) * papersExpansion(c.fanouts))
	fmt.Fprintf(&b, "### Prediction: ogbn-papers100M, p = %d\n\n", perlmutterLike.p)
	fmt.Fprintf(&b, "ogbn-papers100M: %d vertices, %d edges, %d float32 features, %d training vertices (%d minibatches of %d per epoch, "+
		"%.2f per rank); 3-layer GraphSAGE sampling, fanout %s; one feature exchange per minibatch, no cache. Assumptions: %d ranks, %d per "+
		"node (one per GPU) sharing %.0f GB/s of injection bandwidth per node, so %.2f GB/s per rank; %.0f µs per collective round; "+
		"ids spread uniformly over the blocks; traffic inside a node not discounted; two values of the distinct inputs per minibatch: the "+
		"largest possible, b·(1 + 15 + 150 + 750), and that bound times the ratio measured above on the planted graph (%.3f), which "+
		"deduplicates more than a graph 100 times larger would, while the bound counts every vertex as having at least the fanout's "+
		"neighbours: we expect the truth between the two.\n\n",
		papers100M.vertices, papers100M.edges, papers100M.features, papers100M.train,
		int(math.Ceil(float64(papers100M.train)/float64(papers100M.batch))), papers100M.batch,
		math.Ceil(float64(papers100M.train)/float64(papers100M.batch))/float64(perlmutterLike.p), benchutil.JoinInts(papers100M.fanouts),
		perlmutterLike.p, perlmutterLike.ranksPerNode, perlmutterLike.injection/1e9,
		perlmutterLike.injection/float64(perlmutterLike.ranksPerNode)/1e9, 1e6*perlmutterLike.alpha, ratio)
	bound := papers100M.expandedInputs()
	b.WriteString(predictionTable(perlmutterLike, []int{1, 2, 4, 8}, []struct {
		name string
		d    float64
	}{{"largest", bound}, {"planted ratio", bound * ratio}}))
	b.WriteString(gradientPrediction(perlmutterLike, 2e-6))
	return b.String()
}

// papersExpansion is 1 + s1 + s1·s2 + ...: the largest number of input
// vertices per seed.
func papersExpansion(fanouts []int) float64 {
	return workload{batch: 1, fanouts: fanouts}.expandedInputs()
}
