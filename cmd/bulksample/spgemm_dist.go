package main

// The distributed path of `bulksample spgemm`: the same command line run
// under mpirun or srun (or on in-process ranks with --inproc-ranks, for
// tests), with --grid 2d (Sparse SUMMA on a sqrt(p) x sqrt(p) grid:
// dist.SUMMA) or --grid 1.5d (the rows of A, or of the selection Q, spread
// over the ranks, which pull the rows of B they need from their owners in
// their process column: dist.Mul15D, the samplers' 1.5D exchange).
// Every rank reads the whole files and keeps its blocks; only rank 0
// prints. Both give C with the single process's bits: --digest is equal.

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/spgemm"
)

// spgemmDistFlags are the flags of a distributed `bulksample spgemm`.
type spgemmDistFlags struct {
	rankFlags
	grid    string
	gridSet bool // --grid was given
}

func (d *spgemmDistFlags) add(fs *flag.FlagSet) {
	d.rankFlags.add(fs)
	fs.StringVar(&d.grid, "grid", "2d", "distributed runs (mpirun, srun or --inproc-ranks): 2d, Sparse SUMMA on a sqrt(p) x sqrt(p)\n"+
		"grid (p must be a perfect square), or 1.5d: the rows of A (or of Q with --select-rows) spread over the\n"+
		"ranks, which pull the rows of B from their owners (its row blocks replicated --replication times)")
}

// validate checks the distributed flags against the rest of the command.
func (d *spgemmDistFlags) validate(fs *flag.FlagSet, structure, reuse bool) error {
	if err := d.rankFlags.validate(fs); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) { d.gridSet = d.gridSet || f.Name == "grid" })
	switch {
	case d.grid != "2d" && d.grid != "1.5d":
		return usageError(fs, "--grid %q: want 2d or 1.5d", d.grid)
	case !d.distributed() && d.gridSet:
		return usageError(fs, "--grid %s: only in a distributed run (under mpirun or srun, or with --inproc-ranks)", d.grid)
	case !d.distributed() && d.replication != 1:
		return usageError(fs, "--replication %d: only in a distributed run with --grid 1.5d", d.replication)
	case !d.distributed():
		return nil
	case structure:
		return usageError(fs, "--structure-only: not in a distributed run")
	case reuse:
		return usageError(fs, "--reuse: not in a distributed run")
	case d.grid == "2d" && d.replication != 1:
		return usageError(fs, "--replication %d: applies to --grid 1.5d (a 2d grid is sqrt(p) x sqrt(p))", d.replication)
	}
	return nil
}

// spgemmJob is what a distributed product needs of the command line.
type spgemmJob struct {
	a, b         string
	selectRows   int
	seed         uint64
	reps         int
	opt          *spgemm.MulOptions
	reuse        bool
	digest, json bool
	dist         spgemmDistFlags
	device       deviceFlag // --device (device.go)
}

// spgemmDistSummary is the --json object of a distributed `bulksample
// spgemm`. Times are the slowest rank's; traffic is that of the first
// product.
type spgemmDistSummary struct {
	A           string `json:"a"`
	B           string `json:"b"`
	SelectRows  int    `json:"select_rows"`
	Grid        string `json:"grid"` // 2d or 1.5d
	Ranks       int    `json:"ranks"`
	Replication int    `json:"replication"` // c of --grid 1.5d; 1 in 2d
	Threads     int    `json:"threads"`
	productShape
	Digest   string `json:"digest,omitempty"`
	Flops    int64  `json:"flops"`
	Products int    `json:"products"`
	// productTimes means what it means in a single process's summary,
	// each product timed on its slowest rank.
	productTimes
	LoadSeconds float64 `json:"load_seconds"` // reading the files and cutting the blocks
	PeakRSSMax  int64   `json:"peak_rss_max"`
	// Traffic is the bytes and messages of one product, by phase: the
	// blocks (or rows) under "sample", as a sampler's products count them.
	Traffic map[string]phaseJSON `json:"traffic"`
	Version string               `json:"version"`
}

// sameOperands is collective: it returns, on every rank whose operands
// differ in shape or entries from rank 0's, an error naming both. Every
// rank reads the whole files; ranks that read different files under the
// same names (a stale copy on one node) failed inside SUMMA with MPI's
// "message truncated", naming no file. It is dist.SameAsRoot's comparison
// (rank 0's description broadcast, dist.BcastString) with the two shapes
// in one sentence.
func sameOperands(ctx context.Context, world dist.Comm, a, b *spgemm.CSR) error {
	here := fmt.Sprintf("A %d x %d with %d entries, B %d x %d with %d entries", a.Rows, a.Cols, a.NNZ(), b.Rows, b.Cols, b.NNZ())
	root, err := dist.BcastString(ctx, world, 0, here)
	if err != nil {
		return fmt.Errorf("compare the operands with rank 0's: %w", err)
	}
	if root == here {
		return nil
	}
	return fmt.Errorf("the operands read here are %s; rank 0's are %s: every rank must read the same files", here, root)
}

// distProduct is one rank's part of a distributed product: run computes
// it, encode returns the encoding of this rank's part of C for the digest
// (the parts of the ranks in rank order make up C's rows), nnz its entries.
type distProduct struct {
	grid   *dist.Grid
	run    func(ctx context.Context) error
	encode func(ctx context.Context) ([]byte, error)
	nnz    func() int64
}

// products computes the reps products, each started together on every
// rank (a barrier), and returns each one's time on its slowest rank; s
// gets the traffic of the first. It is collective.
func (pr *distProduct) products(ctx context.Context, e *env, reps int, s *spgemmDistSummary) ([]float64, error) {
	w := pr.grid.World()
	times := make([]float64, reps)
	for r := range reps {
		if err := w.Barrier(ctx, dist.PhaseControl); err != nil {
			return nil, err
		}
		start := time.Now()
		if err := pr.run(ctx); err != nil {
			return nil, fmt.Errorf("product %d: %w", r+1, err)
		}
		times[r] = time.Since(start).Seconds()
		if r == 0 {
			tot, most, err := dist.ReduceStats(ctx, w, pr.grid.Comms()...)
			if err != nil {
				return nil, err
			}
			s.Traffic = trafficJSON(tot, most)
		}
		if w.Rank() == 0 {
			fmt.Fprintf(e.stderr, "spgemm: product %d/%d on rank 0: %.4f s\n", r+1, reps, times[r])
		}
	}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpMax, times); err != nil {
		return nil, err
	}
	return times, nil
}

// spgemmRank is one rank's run.
func spgemmRank(ctx context.Context, e *env, job *spgemmJob, world dist.Comm) error {
	t0 := time.Now()
	quiet := e
	if world.Rank() != 0 {
		quiet = &env{stdout: io.Discard, stderr: io.Discard}
	}
	a, b, err := loadOperands(ctx, quiet, job)
	if err != nil {
		return err
	}
	if err := sameOperands(ctx, world, a, b); err != nil {
		return err
	}
	// After sameOperands: every rank has rank 0's row count, so every
	// rank returns the usage error alike (runRanks, errUsage).
	if job.selectRows > 0 {
		if job.selectRows > a.Rows {
			if world.Rank() != 0 {
				return errUsage // rank 0 prints it, once
			}
			return selectRowsError(job.dist.fs, job.selectRows, a.Rows, job.a)
		}
		q, err := selectionMatrix(a.Rows, job.selectRows, job.seed)
		if err != nil {
			return err
		}
		a, b = q, a
	}
	s := spgemmDistSummary{A: job.a, B: cmp.Or(job.b, job.a), SelectRows: job.selectRows, Grid: job.dist.grid,
		Ranks: world.Size(), Replication: 1, Threads: par.Threads(job.opt.Threads), Products: job.reps,
		productShape: shapeOf(a, b),
		Flops:        spgemm.RowFlops(a, b, job.opt.Threads)[a.Rows], Version: version()}
	var pr *distProduct
	if job.dist.grid == "2d" {
		pr, err = summaProduct(ctx, world, a, b, job.opt)
	} else {
		s.Replication = job.dist.replication
		pr, err = pullProduct(ctx, world, a, b, job.opt, job.dist.replication)
	}
	if err != nil {
		return err
	}
	defer pr.grid.Close()
	s.LoadSeconds = time.Since(t0).Seconds()
	w := pr.grid.World()

	times, err := pr.products(ctx, e, job.reps, &s)
	if err != nil {
		return err
	}
	totals := []int64{pr.nnz(), procstat.PeakRSS()}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpSum, totals[:1]); err != nil {
		return err
	}
	if err := w.Allreduce(ctx, dist.PhaseControl, dist.OpMax, totals[1:]); err != nil {
		return err
	}
	s.NNZOut, s.PeakRSSMax = totals[0], totals[1]
	var dg *sampling.Digest
	if job.digest {
		enc, err := pr.encode(ctx)
		if err != nil {
			return err
		}
		if w.Rank() == 0 {
			dg = sampling.NewDigest()
		}
		if err := distsample.GatherEncoded(ctx, w, dg, enc); err != nil {
			return err
		}
	}
	if w.Rank() != 0 {
		return nil
	}
	s.productTimes = timesOf(times, s.Flops)
	out := e.stdout
	fmt.Fprintf(out, "%s on %d ranks (%s grid): %s; %d flops; %s: %.4f s (%.3f GFLOP/s), best %.4f s\n",
		productName(job.selectRows), s.Ranks, s.Grid, s.describe(), s.Flops, repsLabel(s.Warm, job.reps), s.Seconds, s.GFlops, s.BestSeconds)
	tr := s.Traffic[dist.PhaseSample.String()]
	fmt.Fprintf(out, "spgemm traffic of one product: %d bytes in %d messages over all ranks (most on one rank: %d bytes); peak RSS of a rank %d MiB\n",
		tr.BytesSent, tr.Messages, tr.BytesSentMax, s.PeakRSSMax>>20)
	if dg != nil {
		s.Digest = dg.Sum()
		fmt.Fprintf(out, "digest %s\n", s.Digest)
	}
	if job.json {
		return writeJSON(out, s)
	}
	return nil
}

// loadOperands reads A and B (B defaults to A) as the single-process
// command does and checks their inner dimensions.
func loadOperands(ctx context.Context, e *env, job *spgemmJob) (a, b *spgemm.CSR, err error) {
	da, err := loadMatrix(ctx, e, job.a, job.opt.Threads)
	if err != nil {
		return nil, nil, err
	}
	defer da.Close()
	a, b = da.Adj.Clone(), nil // Clone: the dataset may be a mapped file
	if job.b == "" {
		b = a
	} else {
		db, err := loadMatrix(ctx, e, job.b, job.opt.Threads)
		if err != nil {
			return nil, nil, err
		}
		defer db.Close()
		b = db.Adj.Clone()
	}
	if a.Cols != b.Rows {
		return nil, nil, fmt.Errorf("cannot multiply %s (%d x %d) by %s (%d x %d): inner dimensions differ", job.a, a.Rows, a.Cols, cmp.Or(job.b, job.a), b.Rows, b.Cols)
	}
	return a, b, nil
}

// summaProduct cuts A and B into the 2D blocks of this rank on a square
// grid (an error naming p when p is not a perfect square) and returns the
// product by Sparse SUMMA.
func summaProduct(ctx context.Context, world dist.Comm, a, b *spgemm.CSR, opt *spgemm.MulOptions) (*distProduct, error) {
	g, err := dist.NewSquareGrid(ctx, world)
	if err != nil {
		return nil, fmt.Errorf("--grid 2d: %w (--grid 1.5d runs on any number of ranks)", err)
	}
	da, err := dist.Distribute2D(g, a)
	if err == nil {
		var db *dist.Matrix2D
		if db, err = dist.Distribute2D(g, b); err == nil {
			var c *dist.Matrix2D
			sopt := &dist.SUMMAOptions{Phase: dist.PhaseSample, Threads: opt.Threads, Accumulator: opt.Accumulator}
			return &distProduct{
				grid: g,
				run: func(ctx context.Context) error {
					c, err = dist.SUMMA(ctx, da, db, sopt)
					return err
				},
				// The process row's blocks side by side, encoded by its
				// rank in column 0: the world's rank order is then C's
				// row order.
				encode: func(ctx context.Context) ([]byte, error) {
					rows, err := c.RowBlock(ctx, dist.PhaseControl)
					if err != nil || g.ProcCol() != 0 {
						return nil, err
					}
					return sampling.AppendRowsEncoding(nil, rows), nil
				},
				nnz: func() int64 { return c.Local.NNZ() },
			}, nil
		}
	}
	g.Close()
	return nil, err
}

// pullProduct distributes B's rows over a (p/c) x c grid, gives this rank
// its run of A's rows (rank order is row order) and returns the 1.5D
// product of them (dist.Mul15D: one round of B's row exchange for the
// distinct rows of B this rank's rows use, then the local product).
func pullProduct(ctx context.Context, world dist.Comm, a, b *spgemm.CSR, opt *spgemm.MulOptions, c int) (*distProduct, error) {
	g, err := dist.NewGrid(ctx, world, c, b.Rows)
	if err != nil {
		return nil, fmt.Errorf("--grid 1.5d: %w", err)
	}
	m, err := dist.Distribute(g, b)
	var rows *dist.RowExchange
	if err == nil {
		rows, err = dist.NewRowExchange(m, dist.RowExchangeOptions{Values: true, Phase: dist.PhaseSample})
	}
	if err != nil {
		g.Close()
		return nil, err
	}
	lo, hi := dist.BlockRange(a.Rows, g.Size(), g.Rank())
	mine := make([]int32, hi-lo)
	for i := range mine {
		mine[i] = int32(lo + i)
	}
	x := spgemm.GatherRows(a, mine, opt.Threads)
	mopt := &dist.Mul15DOptions{Threads: opt.Threads, Accumulator: opt.Accumulator}
	var out *spgemm.CSR
	return &distProduct{
		grid: g,
		run: func(ctx context.Context) error {
			out, err = dist.Mul15D(ctx, x, rows, mopt)
			return err
		},
		encode: func(context.Context) ([]byte, error) { return sampling.AppendRowsEncoding(nil, out), nil },
		nnz:    func() int64 { return out.NNZ() },
	}, nil
}

// repsLabel names the headline time of a run's reps products: the median
// of the warm ones (all but the first, as summarizeReps takes it) or the
// one cold product.
func repsLabel(warm bool, reps int) string {
	if warm {
		return fmt.Sprintf("warm median of %d products", reps-1)
	}
	return "cold (one product)"
}
