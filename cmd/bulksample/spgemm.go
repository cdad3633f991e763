package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// spgemmSummary is the JSON object of `bulksample spgemm`.
type spgemmSummary struct {
	A          string `json:"a"`
	B          string `json:"b"`
	SelectRows int    `json:"select_rows"` // 0: C = A·B
	Method     string `json:"method"`      // accumulator, or "gather" for Q·A
	Threads    int    `json:"threads"`
	Device     string `json:"device,omitempty"` // --device cuda: the GPU's name
	productShape
	// Digest is --digest's hash of C's rows (sampling.Digest.AddRows), the
	// same in a distributed run (spgemm_dist.go).
	Digest string `json:"digest,omitempty"`
	// Flops is the number of multiply-adds of one product (spgemm.RowFlops).
	Flops    int64 `json:"flops"`
	Products int   `json:"products"` // products computed: --reps
	Reuse    bool  `json:"reuse"`    // --reuse: every product into the same C
	productTimes
	LoadSeconds  float64 `json:"load_seconds"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Version      string  `json:"version"`
	// Phases is what each phase cost the process: load, setup (the
	// selection and the flop count) and multiply (all products).
	Phases procstat.Phases `json:"phases"`
	// ProductCosts is what each product cost, in order: the first pays for
	// fresh output pages that later ones may find recycled.
	ProductCosts []procstat.Cost `json:"product_costs"`
}

func runSpGEMM(ctx context.Context, e *env, args []string) error {
	job, err := parseSpGEMMFlags(e, args)
	if err != nil {
		return err
	}
	if job.dist.distributed() {
		return runRanks(ctx, e, &job.dist.rankFlags, func(ctx context.Context, e *env, world dist.Comm) error {
			return spgemmRank(ctx, e, job, world)
		})
	}
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	var dev *gpu.Device // --device cuda
	if job.device.cuda() {
		if dev, err = openDevice(e, "spgemm"); err != nil {
			return err
		}
		defer dev.Close()
	}
	var meter procstat.Meter
	meter.Begin()
	a, b, s, release, err := job.loadLocal(ctx, e)
	if err != nil {
		return err
	}
	defer release()
	notePhase(e.notes(), "spgemm", "load", meter.End("load"))
	if job.selectRows > 0 {
		if job.selectRows > a.Rows {
			return selectRowsError(job.dist.fs, job.selectRows, a.Rows, job.a)
		}
		q, err := selectionMatrix(a.Rows, job.selectRows, job.seed)
		if err != nil {
			return err
		}
		a, b = q, a
		s.Method = "gather"
	}
	s.productShape = shapeOf(a, b)
	s.Flops = spgemm.RowFlops(a, b, job.opt.Threads)[a.Rows]
	var last *spgemm.CSR
	if dev != nil {
		s.Device = dev.Name()
		last, err = job.deviceProducts(ctx, e, dev, a, b, &meter, &s)
	} else {
		meter.End("setup")
		last, err = job.products(ctx, e, a, b, &meter, &s)
	}
	if err != nil {
		return err
	}
	if job.digest {
		meter.Begin()
		dg := sampling.NewDigest()
		dg.AddRows(last)
		s.Digest = dg.Sum()
		meter.End("digest")
	}
	s.PeakRSSBytes, s.Version = procstat.PeakRSS(), version()
	s.Phases = meter.Phases()
	return s.report(e.stdout, job)
}

// report writes the summary of a product in one process: the lines, and
// the JSON object with --json.
func (s *spgemmSummary) report(w io.Writer, job *spgemmJob) error {
	if s.Device != "" {
		fmt.Fprintf(w, "%s on %s: %s; %d flops (%s)\n", productName(job.selectRows), s.Device, s.describe(), s.Flops, s.Method)
	} else {
		fmt.Fprintf(w, "%s: %s; %d flops (%s, %d threads)\n", productName(job.selectRows), s.describe(), s.Flops, s.Method, s.Threads)
	}
	if s.Warm {
		fmt.Fprintf(w, "warm: median of %d products %.4f s (%.3f GFLOP/s), best %.4f s; cold (first product): %.4f s\n",
			job.reps-1, s.Seconds, s.GFlops, s.BestSeconds, s.ColdSeconds)
	} else {
		fmt.Fprintf(w, "cold (one product): %.4f s (%.3f GFLOP/s) (--reps 3 adds warm products, the steady state)\n", s.Seconds, s.GFlops)
	}
	if job.digest {
		fmt.Fprintf(w, "digest %s\n", s.Digest)
	}
	if job.json {
		return writeJSON(w, s)
	}
	return nil
}

// parseSpGEMMFlags parses the command line of `bulksample spgemm`.
func parseSpGEMMFlags(e *env, args []string) (*spgemmJob, error) {
	fs, jsonOut := newFlags(e, "spgemm", "--a PATH [--b PATH | --select-rows N] [flags]",
		"Multiplies sparse matrices read from files (any format dataset.Load reads, e.g. a scipy\n"+
			"CSR .npz): C = A·B (B defaults to A), or C = Q·A with --select-rows, where Q selects N\n"+
			"distinct random rows of A (the sampling shape). Each of --reps products is timed,\n"+
			"allocation of C included (with --reuse, C's arrays are allocated once and reused). The first\n"+
			"product is the cold one, reported on its own; the headline is the median of the warm ones that\n"+
			"follow it, with the best, and what each product cost the process (page faults, allocation,\n"+
			"GC). Matrices are taken as stored (no reverse edges added). The readers load graphs, so the\n"+
			"matrices must be square: a rectangular one is an error naming its file and shape.")
	job := &spgemmJob{opt: &spgemm.MulOptions{}}
	var accum string
	fs.StringVar(&job.a, "a", "", "path of A (required)")
	fs.StringVar(&job.b, "b", "", "path of B; default A")
	fs.IntVar(&job.selectRows, "select-rows", 0, "compute Q·A for a selection Q of this many distinct random rows of A; 0 for A·B")
	fs.IntVar(&job.opt.Threads, "threads", 0, "threads; 0 for GOMAXPROCS")
	fs.IntVar(&job.reps, "reps", 3, "number of timed products: the first is the cold one, the median of the others the headline")
	fs.Uint64Var(&job.seed, "seed", 0, "seed of the row selection")
	fs.StringVar(&accum, "accumulator", "auto", "row accumulator: auto, dense or hash")
	fs.BoolVar(&job.opt.StructureOnly, "structure-only", false, "compute the pattern of C only (values 1)")
	fs.BoolVar(&job.reuse, "reuse", false, "compute every product into the same C, reusing its arrays: the steady state of a caller\n"+
		"that keeps its buffers (no allocation, no fresh pages after the first product); default a fresh C\n"+
		"per product, as a one-shot caller sees")
	fs.BoolVar(&job.digest, "digest", false, "hash C's rows (lengths, column ids, value bits); a distributed run gives the same digest")
	job.dist.add(fs)
	job.device.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	job.json = *jsonOut
	switch {
	case fs.NArg() > 0:
		return nil, usageError(fs, "unexpected argument %q", fs.Arg(0))
	case job.a == "":
		return nil, usageError(fs, "--a is required")
	case job.selectRows < 0:
		return nil, usageError(fs, "--select-rows %d: want >= 0", job.selectRows)
	case job.selectRows > 0 && job.b != "":
		return nil, usageError(fs, "--select-rows and --b exclude each other: Q·A selects rows of --a")
	case job.opt.Threads < 0:
		return nil, usageError(fs, "--threads %d: want >= 0", job.opt.Threads)
	case job.reps < 1:
		return nil, usageError(fs, "--reps %d: want >= 1", job.reps)
	}
	if job.opt.Accumulator = accumulatorByName(accum); job.opt.Accumulator < 0 {
		return nil, usageError(fs, "--accumulator %q: want auto, dense or hash", accum)
	}
	if err := job.dist.validate(fs, job.opt.StructureOnly, job.reuse); err != nil {
		return nil, err
	}
	if err := job.device.validate(fs, job.dist.distributed(), cpuOnly(accum != "auto", "--accumulator")...); err != nil {
		return nil, err
	}
	return job, nil
}

// loadLocal reads A and B (B defaults to A) and returns them with the
// summary's figures known before the products, and what releases the
// files' memory.
func (job *spgemmJob) loadLocal(ctx context.Context, e *env) (a, b *spgemm.CSR, s spgemmSummary, release func(), err error) {
	start := time.Now()
	da, err := loadMatrix(ctx, e, job.a, job.opt.Threads)
	if err != nil {
		return nil, nil, s, nil, err
	}
	release = func() { da.Close() }
	a, b = da.Adj, da.Adj
	if job.b != "" {
		db, err := loadMatrix(ctx, e, job.b, job.opt.Threads)
		if err != nil {
			release()
			return nil, nil, s, nil, err
		}
		release = func() { da.Close(); db.Close() }
		b = db.Adj
	}
	s = spgemmSummary{A: job.a, B: cmp.Or(job.b, job.a), SelectRows: job.selectRows, Method: job.opt.Accumulator.String(),
		Threads: par.Threads(job.opt.Threads), Products: job.reps, Reuse: job.reuse, LoadSeconds: time.Since(start).Seconds()}
	if a.Cols != b.Rows {
		release()
		return nil, nil, s, nil, fmt.Errorf("cannot multiply %s (%d x %d) by %s (%d x %d): inner dimensions differ",
			job.a, a.Rows, a.Cols, s.B, b.Rows, b.Cols)
	}
	return a, b, s, release, nil
}

// products computes the --reps products a·b, timing each (allocation of
// C included) and adding its cost to s, and returns the last.
func (job *spgemmJob) products(ctx context.Context, e *env, a, b *spgemm.CSR, meter *procstat.Meter, s *spgemmSummary) (*spgemm.CSR, error) {
	times := make([]float64, 0, job.reps)
	var last *spgemm.CSR
	var dst spgemm.CSR // --reuse: the destination of every product
	for r := range job.reps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		meter.Begin()
		t0 := time.Now()
		var c *spgemm.CSR
		if job.reuse {
			c = dst.Mul(a, b, job.opt)
		} else {
			c = spgemm.Mul(a, b, job.opt)
		}
		times = append(times, time.Since(t0).Seconds())
		cost := meter.End("multiply")
		s.ProductCosts = append(s.ProductCosts, cost)
		s.NNZOut, last = c.NNZ(), c
		line := fmt.Sprintf("spgemm: product %d/%d: %.4f s", r+1, job.reps, times[r])
		if n := cost.Note(); n != "" {
			line += ": " + n
		}
		fmt.Fprintln(e.stderr, line)
	}
	s.productTimes = timesOf(times, s.Flops)
	return last, nil
}

// accumulatorByName maps the --accumulator value to its option, or -1.
func accumulatorByName(name string) spgemm.Accumulator {
	for _, m := range []spgemm.Accumulator{spgemm.AutoAccumulator, spgemm.DenseAccumulator, spgemm.HashAccumulator} {
		if m.String() == name {
			return m
		}
	}
	return -1
}

// loadMatrix reads the graph or matrix at path, as stored (no reverse edges
// added), and checks its adjacency's invariant. The caller closes it.
func loadMatrix(ctx context.Context, e *env, path string, threads int) (*dataset.Dataset, error) {
	fmt.Fprintf(e.stderr, "spgemm: loading %s\n", path)
	d, err := dataset.LoadContext(ctx, path, &dataset.LoadOptions{Threads: threads, Progress: e.stderr, Symmetry: dataset.AsStored})
	if err != nil {
		return nil, err
	}
	if d.Adj == nil {
		d.Close()
		return nil, fmt.Errorf("%s holds no matrix", path)
	}
	if err := d.Adj.Validate(); err != nil {
		d.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// selectionMatrix returns Q (k x n) selecting the first k vertices of a
// seeded permutation of 0..n-1, in that order: one 1 per row, distinct
// columns. The permutation is the one sampling.Plan draws for epoch 0.
func selectionMatrix(n, k int, seed uint64) (*spgemm.CSR, error) {
	rows, err := sampling.RandomRows(n, k, seed)
	if err != nil {
		return nil, fmt.Errorf("--select-rows: %w", err)
	}
	return sampling.QPerEntry([][]int32{rows}, n), nil
}

// productShape is the shapes of a product's operands and the entries of
// its result, which a single-process and a distributed `bulksample spgemm`
// report alike (embedded in their JSON objects).
type productShape struct {
	ARows  int   `json:"a_rows"`
	ACols  int   `json:"a_cols"`
	ANNZ   int64 `json:"a_nnz"`
	BRows  int   `json:"b_rows"`
	BCols  int   `json:"b_cols"`
	BNNZ   int64 `json:"b_nnz"`
	NNZOut int64 `json:"nnz_out"` // set once the product is computed
}

// shapeOf returns the shape of the product a·b (NNZOut not yet known).
func shapeOf(a, b *spgemm.CSR) productShape {
	return productShape{ARows: a.Rows, ACols: a.Cols, ANNZ: a.NNZ(), BRows: b.Rows, BCols: b.Cols, BNNZ: b.NNZ()}
}

// describe gives the product as "(rows x cols, nnz n) · (...) = nnz n"
// (not String: the summaries that embed it would print as it).
func (s productShape) describe() string {
	return fmt.Sprintf("(%d x %d, nnz %d) · (%d x %d, nnz %d) = nnz %d", s.ARows, s.ACols, s.ANNZ, s.BRows, s.BCols, s.BNNZ, s.NNZOut)
}

// selectRowsError is the usage error (exit 2) of a --select-rows above
// the rows of A, known once A is read: a bad flag value, as the flags
// checked before any work are.
func selectRowsError(fs *flag.FlagSet, n, rows int, path string) error {
	return usageError(fs, "--select-rows %d: want at most the %d rows of --a %s", n, rows, path)
}

// productName names the product of a run: Q·A with --select-rows, else A·B.
func productName(selectRows int) string {
	if selectRows > 0 {
		return "Q·A"
	}
	return "A·B"
}

// productTimes is what a `bulksample spgemm` reports of its --reps
// products (summarizeReps), single-process or distributed.
type productTimes struct {
	// Seconds is the headline: the median of the warm products (all but
	// the first) when --reps is 2 or more, else the one (cold) product;
	// Warm says which. ColdSeconds is the first product's, which pays for
	// fresh pages; BestSeconds the fastest product's.
	Seconds     float64 `json:"seconds"`
	Warm        bool    `json:"warm"`
	ColdSeconds float64 `json:"cold_seconds"`
	BestSeconds float64 `json:"seconds_best"`
	GFlops      float64 `json:"gflops"` // 2·flops / seconds / 1e9
}

// timesOf returns the figures of the products' times (at least one), each
// of flops multiply-adds.
func timesOf(times []float64, flops int64) productTimes {
	f := summarizeReps(times)
	t := productTimes{Seconds: f.Seconds, Warm: f.Warm, ColdSeconds: f.Cold, BestSeconds: f.Best}
	if t.Seconds > 0 {
		t.GFlops = 2 * float64(flops) / t.Seconds / 1e9
	}
	return t
}
