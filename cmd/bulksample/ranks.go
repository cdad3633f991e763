package main

// The distributed commands' flag group and launch: the same command line
// run under mpirun or srun (or on in-process ranks with --inproc-ranks, for
// tests), every rank running the command's rank function through
// dist.Runner, which ends the job when a rank fails. Only rank 0 prints.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/train"
)

// rankFlags are the flags of every distributed command (sample, train,
// spgemm): the replication of the (p/c) x c grid and the in-process ranks
// of tests. Whether a run is distributed is decided here once: started by
// an MPI launcher (even with one rank) or on in-process ranks.
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
	addStallTimeout(fs, &r.stall, "distributed runs", "a checkpoint save, --eval gathered's whole-graph inference")
}

// addStallTimeout registers --stall-timeout, which sets *d, for the runs
// that where names ("distributed runs"); slow names what one rank may
// legitimately do while the others wait.
func addStallTimeout(fs *flag.FlagSet, d *time.Duration, where, slow string) {
	fs.DurationVar(d, "stall-timeout", defaultStallTimeout, where+": a rank that waits longer than this in one collective (a stopped or hung rank) says which\n"+
		"rank and collective and ends the job (MPI_Abort); 0 waits forever; raise it above what one rank may do while the\n"+
		"others wait ("+slow+")")
}

// checkOneProcess returns a usage error on fs when this process is one of
// several that an MPI launcher started for a command that runs on one
// process (what): the p copies would each do the whole work and write the
// same output.
func checkOneProcess(fs *flag.FlagSet, what string) error {
	if n := dist.LaunchedSize(); n > 1 {
		return usageError(fs, "%s runs on one process, and this is one of %d that mpirun or srun started: each would do the whole work and write the same output; run it without the launcher (or with one rank)", what, n)
	}
	return nil
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
	case isSet(fs, "stall-timeout") && !r.distributed():
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

// distFlags are the distribution flags of sample and train, which fill the
// Layout and Fetch of distsample.DistSamplerOptions and train.DistOptions;
// train adds --eval.
type distFlags struct {
	rankFlags
	fetch     string
	overlap   string
	pullBatch byteSize
	pushBatch byteSize
	replicate bool
	eval      string
	failRank  int // test hook: this rank fails after its first bulk (-1: none)
}

func (d *distFlags) add(fs *flag.FlagSet, eval bool) {
	d.rankFlags.add(fs)
	fs.StringVar(&d.fetch, "fetch", "auto", "distributed runs: pull (fetch the rows of A from their owners, 1.5D), push (owners sample and return only the picks)\n"+
		"or auto (each layer of each bulk whichever of the two the byte model says sends less; the JSON's fetch_layers says what it chose)")
	fs.StringVar(&d.overlap, "overlap", "default", "distributed runs: on, off or default (distsample.DefaultOverlap): whether a rank asks for a pushed layer's next\n"+
		"batch of picks while it extracts the current one (the JSON's rank_spread.overlap_hidden_seconds says what it hid)")
	fs.Var(&d.pullBatch, "pull-batch", "distributed node-wise runs on a split graph: the most bytes of rows one pull round brings\n"+
		"to a rank (a size: 64MiB, 1GiB, bytes), 0 for 4 times the rank's block of column ids and at least 16 MiB;\n"+
		"more sends fewer bytes and holds more memory")
	fs.Var(&d.pushBatch, "push-batch", "distributed node-wise runs on a split graph: the most bytes of picks one push round brings\n"+
		"to a rank (a size), 0 for distsample.DefaultPushBatchBytes; it changes the rounds and their memory, not the\n"+
		"bytes sent")
	fs.BoolVar(&d.replicate, "replicate-graph", false, "distributed runs: every rank holds the whole graph; sampling needs no communication")
	fs.IntVar(&d.failRank, "fail-rank", -1, "testing: make this rank fail after its first bulk, to check that the whole job ends")
	if eval {
		fs.StringVar(&d.eval, "eval", "distributed", "distributed runs: distributed (each rank infers its row block, fetching remote rows from their owners) or\n"+
			"gathered (rank 0 infers the whole graph, which it loads whole, and broadcasts the accuracies)")
	}
}

// options returns the distribution's options, or a usage error naming a
// flag given to a single process (where it would be ignored) or whose value
// cannot be parsed.
func (d *distFlags) options(fs *flag.FlagSet) (train.DistOptions, error) {
	o := train.DistOptions{Replication: d.replication, PullBatchBytes: int64(d.pullBatch), PushBatchBytes: int64(d.pushBatch)}
	var err error
	if o.Fetch, err = distsample.ParseFetchMode(d.fetch); err != nil {
		return o, usageError(fs, "--fetch %q: want auto, pull or push", d.fetch)
	}
	if o.Overlap, err = distsample.ParseOverlapMode(d.overlap); err != nil {
		return o, usageError(fs, "--overlap %q: want default, on or off", d.overlap)
	}
	if d.replicate {
		o.Layout = distsample.Replicated
	}
	if d.eval != "" {
		if o.Eval, err = train.ParseEvalMode(d.eval); err != nil {
			return o, usageError(fs, "--eval %q: want distributed or gathered", d.eval)
		}
	}
	if err := d.rankFlags.validate(fs); err != nil {
		return o, err
	}
	if d.inproc > 0 && dist.CheckReplication(d.inproc, d.replication) != nil {
		return o, usageError(fs, "--replication %d: does not divide --inproc-ranks %d", d.replication, d.inproc)
	}
	// In one process the distribution flags would be ignored; under
	// mpirun -np 1 the same flags are checked against one rank.
	if !d.distributed() {
		for _, name := range []string{"eval", "fail-rank", "fetch", "overlap", "pull-batch", "push-batch", "replicate-graph", "replication"} {
			if isSet(fs, name) {
				return o, usageError(fs, "--%s: only in a distributed run (under mpirun or srun, or with --inproc-ranks)", name)
			}
		}
	}
	return o, nil
}

// fetchName is how the JSON names the way a run's ranks read the graph.
func fetchName(o distsample.DistSamplerOptions) string {
	if o.Layout == distsample.Replicated {
		return "replicated"
	}
	return o.EffectiveFetch().String()
}

// runRanks runs rank on this process's rank of the MPI job (r.inproc = 0),
// or on r.inproc in-process ranks, one goroutine each, sharing stderr (and
// stdout, which only in-process rank 0 gets; under MPI, rank must print
// only on rank 0 itself). Under MPI the ranks first check that they run
// the same command line (checkSameCommand). A rank's error ends the whole
// job with "rank R: <error>" on stderr (dist.Runner: MPI_Abort under MPI),
// except a usage error (errUsage, exit 2), which a rank returns only where
// every rank does (a flag checked against inputs the ranks have shown to
// share, printed by rank 0), and a stop every rank of a training run
// agreed on (signals.go): both are dist.Agreed.
func runRanks(ctx context.Context, e *env, r *rankFlags, rank func(context.Context, *env, dist.Comm) error) error {
	work := func(e *env) func(context.Context, dist.Comm) error {
		return func(ctx context.Context, w dist.Comm) error {
			err := rank(ctx, e, w)
			if errors.Is(err, errUsage) || agreedStop(err) {
				return dist.Agreed(err)
			}
			return stoppedBy(ctx, err)
		}
	}
	if r.inproc > 0 {
		if err := e.startProfile(0, 1); err != nil { // one process: one profile of every goroutine rank
			return err
		}
		stderr := dist.NewSyncWriter(e.stderr) // the ranks share it
		return dist.Runner{Log: stderr}.RunInProc(ctx, r.inproc, r.options(stderr), func(ctx context.Context, w dist.Comm) error {
			re := &env{stdout: e.stdout, stderr: stderr}
			if w.Rank() != 0 {
				re.stdout = io.Discard
			}
			return work(re)(ctx, w)
		})
	}
	world, err := dist.NewMPIWorld(r.options(e.stderr))
	if err != nil {
		return err // dist.ErrNoMPI in a build without MPI: never run as a lone rank
	}
	if err := e.startProfile(world.Rank(), world.Size()); err != nil {
		world.Close()
		return err
	}
	err = dist.Runner{Log: e.stderr}.Run(ctx, world, func(ctx context.Context, w dist.Comm) error {
		if err := checkSameCommand(ctx, w, commandLine(r.fs)); err != nil {
			return err
		}
		if dist.CheckReplication(w.Size(), r.replication) != nil {
			// Named here, by its flag, and before any rank reads its
			// input, rather than by dist.NewGrid.
			return fmt.Errorf("--replication %d does not divide the %d ranks of this job (mpirun -np, srun -n): use a divisor of %d", r.replication, w.Size(), w.Size())
		}
		return work(e)(ctx, w)
	})
	if agreedStop(err) {
		// Every rank of a training run stopped after the same step: the
		// rank reports first, as MPI_Finalize may not return.
		err = reportStop(ctx, e.stderr, r.fs.Name(), err)
	}
	return errors.Join(err, world.Close())
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
	if err == nil || !errors.As(context.Cause(ctx), &se) || !errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%v: %w", se, err)
}

// progressOf returns where rank 0 reports loading progress; the others
// are silent.
func progressOf(e *env, c dist.Comm) io.Writer {
	if c.Rank() == 0 {
		return e.stderr
	}
	return nil
}
