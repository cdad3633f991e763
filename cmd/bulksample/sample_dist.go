package main

// The distributed path of `bulksample sample`: the same command line run
// under mpirun or srun (or on in-process ranks with --inproc-ranks, for
// tests), each rank sampling its run of every bulk. Only rank 0 prints.
// The flags, the launch (runRanks) and the traffic summary are shared with
// `bulksample train` (train_dist.go).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// rankFlags are the flags of every distributed command (sample, spgemm):
// the replication of the (p/c) x c grid and the in-process ranks of tests.
// Whether a run is distributed is decided here once: started by an MPI
// launcher (even with one rank) or on in-process ranks.
type rankFlags struct {
	replication int
	inproc      int
	stall       time.Duration // --stall-timeout: dist.Options.StallTimeout
	fs          *flag.FlagSet // the command's flags, which every rank must share (checkSameCommand)
}

// defaultStallTimeout is --stall-timeout's default: long enough for what
// one rank does while the others wait (a checkpoint save, a gathered
// evaluation, a slower load) on the graphs this runs on, short enough that
// a stopped rank does not cost a job's allocation.
const defaultStallTimeout = 5 * time.Minute

func (r *rankFlags) add(fs *flag.FlagSet) {
	r.fs = fs
	fs.IntVar(&r.replication, "replication", 1, "distributed runs: replication factor c of the row blocks of the graph (spgemm --grid 1.5d: of B); ranks form a (p/c) x c grid; must divide the number of ranks")
	fs.IntVar(&r.inproc, "inproc-ranks", 0, "run distributed on this many in-process ranks (goroutines) instead of MPI; for tests and debugging")
	fs.DurationVar(&r.stall, "stall-timeout", defaultStallTimeout, "distributed runs: a rank that waits longer than this in one collective (a stopped or hung rank) says which\n"+
		"rank and collective and ends the job (MPI_Abort); 0 waits forever; raise it above what one rank may do while the\n"+
		"others wait (a checkpoint save, --eval gathered's whole-graph inference)")
}

// options returns the communicator options of the flags; report is where
// a stall is reported.
func (r *rankFlags) options(report io.Writer) dist.Options {
	return dist.Options{StallTimeout: r.stall, StallReport: report}
}

func (r *rankFlags) validate(fs *flag.FlagSet) error {
	switch {
	case r.replication < 1:
		return usageError(fs, "--replication %d: want >= 1", r.replication)
	case r.inproc < 0:
		return usageError(fs, "--inproc-ranks %d: want >= 0", r.inproc)
	case r.inproc > maxInProcRanks:
		return usageError(fs, "--inproc-ranks %d: want at most %d (in-process ranks are for tests and debugging; launch more with mpirun or srun)", r.inproc, maxInProcRanks)
	case r.inproc > 0 && dist.LaunchedSize() > 0:
		return usageError(fs, "--inproc-ranks: not under an MPI launcher (this process is one of %d launched ranks)", dist.LaunchedSize())
	case r.stall < 0:
		return usageError(fs, "--stall-timeout %v: want a duration >= 0 (0: none)", r.stall)
	case isSet(fs, "stall-timeout") && r.inproc == 0 && dist.LaunchedSize() == 0:
		return usageError(fs, "--stall-timeout: only in a distributed run (under mpirun or srun, or with --inproc-ranks)")
	}
	return nil
}

// maxInProcRanks bounds --inproc-ranks. Every in-process rank maps the graph
// and runs its own goroutines, and an all-to-all sends p² messages: at 5,000
// ranks a small graph's run took minutes, and at 100,000 the process died
// of memory exhaustion, printing every goroutine's stack.
const maxInProcRanks = 1024

// distributed reports whether this run is distributed: started by an MPI
// launcher (even with one rank) or on in-process ranks.
func (r *rankFlags) distributed() bool { return r.inproc > 0 || dist.LaunchedSize() > 0 }

// distFlags are the flags of distributed sampling (sample and train).
type distFlags struct {
	rankFlags
	fetch     string
	replicate bool
	failRank  int // test hook: this rank fails after its first bulk (-1: none)
	mode      sampling.FetchMode
}

func (d *distFlags) add(fs *flag.FlagSet) {
	d.rankFlags.add(fs)
	fs.StringVar(&d.fetch, "fetch", "pull", "distributed runs: pull (fetch the rows of A from their owners, 1.5D) or push (owners sample and return only the picks)")
	fs.BoolVar(&d.replicate, "replicate-graph", false, "distributed runs: every rank holds the whole graph; sampling needs no communication")
	fs.IntVar(&d.failRank, "fail-rank", -1, "testing: make this rank fail after its first bulk, to check that the whole job ends")
}

// validate checks the flags and sets mode; method is the sampler's
// (node, ladies or fastgcn).
func (d *distFlags) validate(fs *flag.FlagSet, method string) error {
	var err error
	if d.mode, err = sampling.ParseFetchMode(d.fetch); err != nil {
		return usageError(fs, "--fetch %q: want pull or push", d.fetch)
	}
	if err := d.rankFlags.validate(fs); err != nil {
		return err
	}
	// In one process the distribution flags would be ignored; under
	// mpirun -np 1 the same flags are checked against one rank.
	if !d.distributed() {
		for _, name := range []string{"eval", "fail-rank", "fetch", "replicate-graph", "replication"} {
			if isSet(fs, name) {
				return usageError(fs, "--%s: only in a distributed run (under mpirun or srun, or with --inproc-ranks)", name)
			}
		}
	}
	switch {
	case d.inproc > 0 && d.inproc%d.replication != 0:
		return usageError(fs, "--replication %d: does not divide --inproc-ranks %d", d.replication, d.inproc)
	case d.distributed() && method != "node" && d.mode == sampling.FetchPush:
		return usageError(fs, "%s %s: --fetch push applies to node-wise sampling (layer-wise samplers pull the frontier rows)", methodFlag(fs), method)
	}
	return nil
}

// methodFlag names the flag that chooses the sampler: --method (sample) or
// --sampler (train).
func methodFlag(fs *flag.FlagSet) string {
	if fs.Lookup("sampler") != nil {
		return "--sampler"
	}
	return "--method"
}

// phaseJSON is one phase's traffic: summed over ranks, and of the busiest
// rank.
type phaseJSON struct {
	BytesSent    int64 `json:"bytes_sent"`
	Messages     int64 `json:"messages"`
	BytesSentMax int64 `json:"bytes_sent_max"`
	MessagesMax  int64 `json:"messages_max"`
	// The time in the phase's calls, the wait for the other ranks
	// included: mean over the ranks and the most of one rank (train only).
	WaitSeconds    float64 `json:"wait_seconds,omitempty"`
	WaitSecondsMax float64 `json:"wait_seconds_max,omitempty"`
}

// trafficJSON returns the traffic of every phase: tot summed over the
// ranks, most of the busiest rank (dist.ReduceStats).
func trafficJSON(tot, most dist.Stats) map[string]phaseJSON {
	m := make(map[string]phaseJSON)
	for ph := range dist.NumPhases {
		m[ph.String()] = phaseJSON{BytesSent: tot.Bytes[ph], Messages: tot.Messages[ph], BytesSentMax: most.Bytes[ph], MessagesMax: most.Messages[ph]}
	}
	return m
}

// distSummary is the --json object of a distributed `bulksample sample`.
type distSummary struct {
	sampleSummary
	Ranks       int                  `json:"ranks"`
	Replication int                  `json:"replication"`
	Fetch       string               `json:"fetch"`
	BlockOnly   bool                 `json:"block_only"` // each rank read only its block of rows (native, scipy .npz or OGB)
	Traffic     map[string]phaseJSON `json:"traffic"`    // bytes and messages per communication phase
	PeakRSSMax  int64                `json:"peak_rss_max"`
}

func runSampleDist(ctx context.Context, e *env, c *sampleConfig) error {
	return runRanks(ctx, e, &c.dist.rankFlags, func(ctx context.Context, e *env, world dist.Comm) error {
		return sampleRank(ctx, e, c, world)
	})
}

// runRanks runs rank on this process's rank of the MPI job (r.inproc = 0),
// or on r.inproc in-process ranks, one goroutine each, sharing stderr (and
// stdout, which only in-process rank 0 gets; under MPI, rank must print
// only on rank 0 itself). Under MPI the ranks first check that they run
// the same command line (checkSameCommand). An error on one rank ends the
// whole job with "rank R: <error>" on stderr (dist.Fail: MPI_Abort under
// MPI), except a usage error (errUsage, exit 2), which a rank returns only
// where every rank does: a flag checked against inputs the ranks have
// shown to share, printed by rank 0.
func runRanks(ctx context.Context, e *env, r *rankFlags, rank func(context.Context, *env, dist.Comm) error) error {
	if r.inproc == 0 {
		world, err := dist.NewMPIWorld(r.options(e.stderr))
		if err != nil {
			return err // dist.ErrNoMPI in a build without MPI: never run as a lone rank
		}
		if err := e.startProfile(world.Rank(), world.Size()); err != nil {
			world.Close()
			return err
		}
		err = checkSameCommand(ctx, world, commandLine(r.fs))
		if err == nil && world.Size()%r.replication != 0 {
			// Named here, by its flag, rather than by dist.NewGrid.
			err = fmt.Errorf("--replication %d does not divide the %d ranks of this job (mpirun -np, srun -n): use a divisor of %d", r.replication, world.Size(), world.Size())
		}
		if err == nil {
			err = rank(ctx, e, world)
		}
		switch {
		case errors.Is(err, errUsage):
			// A flag checked against inputs the ranks have shown to
			// share (spgemm's --select-rows against A's rows): every
			// rank returns it, rank 0 printed it, and the job exits 2.
			return errors.Join(err, world.Close())
		case agreedStop(err):
			// Every rank of a training run stopped after the same
			// step (signals.go): nothing is left to abort. The rank
			// reports first, as MPI_Finalize may not return.
			err = reportStop(ctx, e.stderr, r.fs.Name(), err)
			return errors.Join(err, world.Close())
		case err != nil:
			dist.Fail(e.stderr, world, stoppedBy(ctx, err)) // MPI_Abort: ends every rank
		}
		return world.Close()
	}
	stderr := &syncWriter{w: e.stderr} // the ranks share it
	world, err := dist.NewInProcWorld(r.inproc, r.options(stderr))
	if err != nil {
		return err
	}
	if err := e.startProfile(0, 1); err != nil { // one process: one profile of every goroutine rank
		return err
	}
	errs := make([]error, len(world))
	var wg sync.WaitGroup
	for r, w := range world {
		wg.Go(func() {
			re := &env{stdout: e.stdout, stderr: stderr}
			if r != 0 {
				re.stdout = io.Discard
			}
			// A usage error, and an agreed stop, is every rank's (see
			// above): none aborts.
			if errs[r] = rank(ctx, re, w); errs[r] != nil && !errors.Is(errs[r], dist.ErrAborted) && !errors.Is(errs[r], errUsage) && !agreedStop(errs[r]) {
				dist.Fail(stderr, w, errs[r]) // the other ranks' calls now fail
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil && !errors.Is(err, dist.ErrAborted) {
			return fmt.Errorf("rank %d: %w", r, err)
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// stoppedBy returns err, led by the signal that cancelled ctx if one did:
// "stopped by SIGTERM: bulk 12 ...: context canceled" says why the rank
// stops, where the bare error would blame the call the signal interrupted.
// A rank stopped by a signal still aborts the job: the other ranks may be
// waiting for it in a collective, which no context can interrupt (mpirun
// signals every rank, but a rank signalled alone, or a launcher slow to
// escalate to SIGKILL, would leave them there).
//
// An error of its own that a rank returns while the signal arrives (rank 0
// refusing a checkpoint as the others' aborts signal it) is not the
// signal's doing and is returned as it is: only an error that wraps the
// context's cancellation is led by the signal.
func stoppedBy(ctx context.Context, err error) error {
	var se *signalError
	if !errors.As(context.Cause(ctx), &se) || !errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%v: %w", se, err)
}

// syncWriter serialises the writes of in-process ranks to one stream.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// sampleRank is one rank's run.
func sampleRank(ctx context.Context, e *env, c *sampleConfig, world dist.Comm) error {
	t0 := time.Now()
	d, m, grid, release, err := loadDistGraph(ctx, e, c, world)
	if err != nil {
		return err
	}
	defer release()
	loadSec := time.Since(t0).Seconds()
	ep, err := c.epochPlan(d.Train, d.N)
	if err != nil {
		return err
	}
	var s sampling.Sampler
	name := "bulk"
	lwOpt := sampling.LayerWiseOptions{Method: sampling.LADIES, Budgets: c.nw.Fanouts, Semibulk: c.semibulk,
		Replace: c.nw.Replace, Seed: c.nw.Seed, Threads: c.nw.Threads}
	if c.method == "fastgcn" {
		lwOpt.Method = sampling.FastGCN
	}
	switch {
	case c.method != "node" && c.dist.replicate:
		name = c.method
		var a *spgemm.CSR
		if a, err = layerWiseMatrix(d.Adj, c.method, c.ladies, c.nw.Threads); err == nil {
			s, err = sampling.NewLayerWise(a, lwOpt)
		}
	case c.method != "node":
		name = c.method
		if m, err = layerWiseBlock(ctx, m, c); err == nil {
			s, err = sampling.NewDistLayerWise(ctx, m, lwOpt)
		}
	case c.dist.replicate:
		s, err = sampling.NewNodeWise(d.Adj, c.nw)
	default:
		s, err = sampling.NewDistNodeWise(m, c.dist.mode, c.nw)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.graph, err)
	}
	fetch := c.dist.mode.String()
	if c.dist.replicate {
		fetch = "replicated"
	}
	sum := distSummary{
		sampleSummary: sampleSummary{Graph: c.graph, Vertices: d.N, Edges: d.NNZ, Sampler: name,
			Frontier: c.nw.Frontier.String(), Fanouts: c.nw.Fanouts, Batch: c.plan.BatchSize, Bulk: c.plan.BulkSize,
			Threads: threadsUsed(c.nw.Threads), Minibatches: len(ep.Minibatches), Bulks: ep.NumBulks(), LoadSeconds: loadSec,
			Version: version()},
		Ranks: grid.Size(), Replication: grid.Replication(), Fetch: fetch, BlockOnly: d.BlockOnly,
	}
	if c.method == "ladies" {
		sum.LadiesMatrix = c.ladies
	}
	for _, mb := range ep.Minibatches {
		sum.Seeds += len(mb)
	}
	var dg *sampling.Digest
	if c.digest && grid.Rank() == 0 {
		dg = sampling.NewDigest()
	}
	var busy time.Duration
	var edges int64
	lastReport := time.Now()
	for i := range ep.NumBulks() {
		first, seeds := ep.Bulk(i)
		lo, hi := grid.Minibatches(len(seeds))
		start := time.Now()
		b, err := s.SampleBulk(ctx, ep.Epoch, first+lo, seeds[lo:hi])
		if err != nil {
			return fmt.Errorf("bulk %d (minibatches %d..%d): %w", i, first+lo, first+hi-1, err)
		}
		busy += time.Since(start)
		edges += b.SampledEdges()
		if c.digest {
			if err := gatherDigest(ctx, grid.World(), dg, b); err != nil {
				return err
			}
		}
		if i == 0 && grid.Rank() == c.dist.failRank {
			return fmt.Errorf("injected failure after bulk %d (--fail-rank %d)", i, c.dist.failRank)
		}
		b.Release() // its arrays serve the next bulk
		if grid.Rank() == 0 && time.Since(lastReport) > 2*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(e.stderr, "sample: %d/%d bulks on rank 0, %d sampled edges there\n", i+1, ep.NumBulks(), edges)
		}
	}
	totals := []int64{edges, procstat.PeakRSS()}
	w := grid.World()
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpSum, totals[:1]); err != nil {
		return err
	}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpMax, totals[1:]); err != nil {
		return err
	}
	secs := []float64{busy.Seconds()}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpMax, secs); err != nil {
		return err
	}
	tot, most, err := dist.ReduceStats(ctx, w, grid.Comms()...)
	if err != nil {
		return err
	}
	sum.SampledEdges, sum.PeakRSSMax, sum.Seconds = totals[0], totals[1], secs[0]
	sum.PeakRSSBytes = procstat.PeakRSS() // rank 0's; peak_rss_max is the largest rank's
	if sum.Seconds > 0 {
		sum.SEPS = float64(sum.SampledEdges) / sum.Seconds
	}
	sum.Traffic = trafficJSON(tot, most)
	if grid.Rank() != 0 {
		return nil
	}
	if dg != nil {
		sum.Digest = dg.Sum()
	}
	fmt.Fprintf(e.stdout, "%s sampler on %d ranks (replication %d, %s): %d minibatches (%d seeds) in %d bulks of %d; %d sampled edges in %.3fs: %.2fM SEPS\n",
		name, sum.Ranks, sum.Replication, fetch, sum.Minibatches, sum.Seeds, sum.Bulks, c.plan.BulkSize, sum.SampledEdges, sum.Seconds, sum.SEPS/1e6)
	fmt.Fprintf(e.stdout, "sample traffic: %d bytes in %d messages over all ranks (most on one rank: %d bytes); peak RSS of a rank %d MiB\n",
		tot.Bytes[dist.PhaseSample], tot.Messages[dist.PhaseSample], most.Bytes[dist.PhaseSample], sum.PeakRSSMax>>20)
	if c.digest {
		fmt.Fprintf(e.stdout, "digest %s\n", sum.Digest)
	}
	if c.json {
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// layerWiseBlock returns this rank's block of the matrix the layer-wise
// sampler reads (layerWiseMatrix): for LADIES with --ladies-matrix
// normalized, the block of D^-1/2 (A+I) D^-1/2, whose column sums the
// blocks of each process column add up in block order (dist.Chain) so that
// the values equal the single-process ones bit for bit.
func layerWiseBlock(ctx context.Context, m *dist.Matrix, c *sampleConfig) (*dist.Matrix, error) {
	if c.method != "ladies" || c.ladies == "raw" {
		return m, nil
	}
	colSum := make([]float64, m.Grid.NumVertices())
	var blk *spgemm.CSR
	var rowSum []float64
	err := dist.Chain(ctx, m.Grid.Col(), dist.PhaseSample, []any{colSum}, func() error {
		blk, rowSum = spgemm.AddSelfLoops(m.Local, int(m.Lo), colSum)
		return nil
	})
	if err != nil {
		return nil, err
	}
	spgemm.ScaleSymmetric(blk, rowSum, colSum, c.nw.Threads)
	return dist.NewMatrix(m.Grid, blk)
}

// graphInfo is what a rank knows of the whole graph.
type graphInfo struct {
	N         int
	NNZ       int64
	Train     []int32
	Adj       *spgemm.CSR // the whole graph, with --replicate-graph only
	BlockOnly bool        // only the block was read (native, scipy .npz or OGB)
}

// loadDistGraph loads the graph for this rank: the whole of it with
// --replicate-graph, otherwise only this rank's block of rows (read by
// offsets from a native file, by row pointers from a scipy .npz, by
// streaming the edges of an OGB folder; other formats are read whole,
// then all but the block dropped). The ranks first compare the file's
// identity (dataset.Identity) with rank 0's: a rank that read a stale copy
// with rank 0's vertex count sampled other edges with exit status 0, since
// no rank reads the whole graph to compare its contents, as train and
// spgemm do.
func loadDistGraph(ctx context.Context, e *env, c *sampleConfig, world dist.Comm) (*graphInfo, *dist.Matrix, *dist.Grid, func(), error) {
	id, err := dataset.Identity(c.graph)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("--graph: %w", err)
	}
	if err := sameInput(ctx, world, c.graph, id); err != nil {
		return nil, nil, nil, nil, err
	}
	opt := &dataset.LoadOptions{Threads: c.nw.Threads, Progress: progressOf(e, world)}
	if c.dist.replicate {
		d, err := dataset.LoadContext(ctx, c.graph, opt)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		grid, err := dist.NewGrid(ctx, world, c.dist.replication, d.NumNodes())
		if err != nil {
			return nil, nil, nil, nil, err
		}
		info := &graphInfo{N: d.NumNodes(), NNZ: d.Adj.NNZ(), Train: d.Train, Adj: d.Adj}
		return info, nil, grid, func() { grid.Close(); d.Close() }, nil
	}
	var grid *dist.Grid
	var gridErr error
	blk, blockOnly, err := dataset.LoadRowBlock(ctx, c.graph, func(n int) (int, int) {
		if grid, gridErr = dist.NewGrid(ctx, world, c.dist.replication, n); gridErr != nil {
			return 0, 0
		}
		lo, hi := grid.MyRows()
		return int(lo), int(hi)
	}, opt)
	if gridErr != nil {
		return nil, nil, nil, nil, gridErr
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	m, err := dist.NewMatrix(grid, blk.Adj)
	if err != nil {
		grid.Close()
		blk.Close()
		return nil, nil, nil, nil, err
	}
	info := &graphInfo{N: blk.N, NNZ: blk.NNZ, Train: blk.Train, BlockOnly: blockOnly}
	if info.NNZ < 0 { // the blocks of one process column make up the graph
		nnz := []int64{blk.Adj.NNZ()}
		if err := grid.Col().Allreduce(ctx, dist.PhaseControl, dist.OpSum, nnz); err != nil {
			grid.Close()
			blk.Close()
			return nil, nil, nil, nil, err
		}
		info.NNZ = nnz[0]
	}
	return info, m, grid, func() { grid.Close(); blk.Close() }, nil
}

// progressOf returns where rank 0 reports loading progress; the others
// are silent.
func progressOf(e *env, c dist.Comm) io.Writer {
	if c.Rank() == 0 {
		return e.stderr
	}
	return nil
}

// gatherDigest sends every rank's encoding of its part of a bulk to rank 0,
// which adds them in rank order: the minibatches' global order.
func gatherDigest(ctx context.Context, w dist.Comm, dg *sampling.Digest, b *sampling.Bulk) error {
	return gatherEncoding(ctx, w, dg, sampling.AppendBulkEncoding(nil, b))
}

// gatherEncoding sends every rank's encoded part (AppendBulkEncoding,
// AppendRowsEncoding; possibly empty) to rank 0, which adds them to dg in
// rank order.
func gatherEncoding(ctx context.Context, w dist.Comm, dg *sampling.Digest, enc []byte) error {
	const tag = 1
	if w.Rank() != 0 {
		if err := w.Send(ctx, dist.PhaseControl, 0, tag, []int64{int64(len(enc))}); err != nil {
			return err
		}
		return w.Send(ctx, dist.PhaseControl, 0, tag, enc)
	}
	dg.AddEncoded(enc)
	for r := 1; r < w.Size(); r++ {
		n := []int64{0}
		if err := w.Recv(ctx, dist.PhaseControl, r, tag, n); err != nil {
			return err
		}
		buf := make([]byte, n[0])
		if err := w.Recv(ctx, dist.PhaseControl, r, tag, buf); err != nil {
			return err
		}
		dg.AddEncoded(buf)
	}
	return nil
}
