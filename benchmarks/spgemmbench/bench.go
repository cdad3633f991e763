package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/bulksample/bulksample/benchmarks/graphblas"
	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// results is everything one run measured.
type results struct {
	cfg      *config
	peer     string // the peer library's version; "" when not built
	machine  benchutil.Machine
	cases    []caseResult
	mismatch error // the first disagreement between the libraries, if any
}

// caseResult is one benchmarked product.
type caseResult struct {
	benchCase
	n         int       // vertices of the graph
	nnzA      int64     // entries of A
	leftRows  int       // rows of the left operand (n for A·A, --qrows for Q·A)
	leftNNZ   int64     // entries of the left operand
	flops     int64     // multiplications: sum over left entries (i,k) of nnz(A row k)
	nnzC      int64     // entries of the product
	inner     int       // products per timed run
	ours      []float64 // seconds per product of each timed run of spgemm.Mul
	peer      []float64 // seconds per product of each timed run of GraphBLAS; nil without it
	unsorted  []float64 // the same for GraphBLAS without its final wait (--unsorted-peer)
	verified  bool      // the warm-up products agreed entry by entry
	genSecond float64   // seconds to generate the graph (not part of the timing)
}

func (c caseResult) product() string {
	if c.kind == squareA {
		return "A·A"
	}
	return "Q·A"
}

// runBench runs every case of cfg, reporting progress on progress.
func runBench(ctx context.Context, cfg *config, progress io.Writer) (*results, error) {
	res := &results{cfg: cfg, machine: benchutil.ThisMachine(cfg.threads)}
	switch err := graphblas.Init(cfg.threads); {
	case errors.Is(err, graphblas.ErrNotBuilt):
		fmt.Fprintf(progress, "spgemmbench: %v\nspgemmbench: timing bulksample alone\n", err)
	case err != nil:
		return nil, err
	default:
		v, err := graphblas.Version()
		if err != nil {
			return nil, err
		}
		res.peer = v
	}
	for _, bc := range cfg.cases {
		cr, err := runCase(ctx, cfg, bc, res.peer != "", progress)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", bc.name, err)
		}
		if !cr.verified && res.peer != "" && res.mismatch == nil {
			res.mismatch = fmt.Errorf("case %s: the libraries' products differ (see above)", bc.name)
		}
		res.cases = append(res.cases, cr)
		// Hand the case's matrices back to the OS before the next, larger one.
		debug.FreeOSMemory()
	}
	return res, nil
}

func runCase(ctx context.Context, cfg *config, bc benchCase, withPeer bool, progress io.Writer) (caseResult, error) {
	cr := caseResult{benchCase: bc}
	fmt.Fprintf(progress, "%s: generating R-MAT scale %d, edge factor %d, seed %d\n", bc.name, bc.scale, edgeFactor, cfg.seed)
	start := time.Now()
	a, err := makeGraph(ctx, bc.scale, edgeFactor, cfg.seed, cfg.threads)
	if err != nil {
		return cr, err
	}
	cr.genSecond = time.Since(start).Seconds()
	cr.n, cr.nnzA = a.Rows, a.NNZ()
	left := a
	if bc.kind == selectQA {
		left = selection(a.Rows, cfg.qRows, cfg.seed)
	}
	cr.leftRows, cr.leftNNZ = left.Rows, left.NNZ()
	cr.flops = spgemm.RowFlops(left, a, cfg.threads)[left.Rows]
	fmt.Fprintf(progress, "%s: n %d, nnz(A) %d, %s with %d flops (generated in %.1fs)\n",
		bc.name, cr.n, cr.nnzA, cr.product(), cr.flops, cr.genSecond)

	opt := &spgemm.MulOptions{Threads: cfg.threads}
	var ga, gl *graphblas.Matrix
	if withPeer {
		if ga, err = graphblas.FromCSR(a); err != nil {
			return cr, err
		}
		defer ga.Free()
		gl = ga
		if left != a {
			if gl, err = graphblas.FromCSR(left); err != nil {
				return cr, err
			}
			defer gl.Free()
		}
	}

	// The first product of each library is verified against the other's.
	start = time.Now()
	c := spgemm.Mul(left, a, opt)
	first := time.Since(start)
	cr.nnzC = c.NNZ()
	if err := c.Validate(); err != nil {
		return cr, fmt.Errorf("spgemm.Mul returned an invalid CSR: %w", err)
	}
	if withPeer {
		gc, err := graphblas.Mul(gl, ga)
		if err != nil {
			return cr, err
		}
		err = gc.View(func(indptr, indices []uint64, data []float32) error {
			return compareCSR(c, indptr, indices, data)
		})
		if err == nil {
			cr.verified = true
		} else {
			fmt.Fprintf(progress, "%s: MISMATCH: %v\n", bc.name, err)
		}
		if err := gc.Free(); err != nil {
			return cr, err
		}
	}
	c = nil

	// A timed run repeats the product inner times, so that it lasts at least
	// --mintime and short products are not lost in timer and scheduler noise;
	// both libraries get the same count. Results are dropped as they come, as
	// a caller would: Go's garbage collection and GraphBLAS's free are timed.
	cr.inner = 1
	if w := first.Seconds(); w < cfg.minTime.Seconds() {
		cr.inner = int(math.Ceil(cfg.minTime.Seconds() / max(w, 1e-6)))
	}
	timeOurs := func() (float64, error) {
		runtime.GC() // start from a clean heap: collect the previous runs' garbage untimed
		start := time.Now()
		for range cr.inner {
			if c := spgemm.Mul(left, a, opt); c.NNZ() != cr.nnzC {
				return 0, fmt.Errorf("spgemm.Mul gave %d entries, %d in the warm-up", c.NNZ(), cr.nnzC)
			}
		}
		return time.Since(start).Seconds() / float64(cr.inner), nil
	}
	timePeer := func(mul func(a, b *graphblas.Matrix) (*graphblas.Matrix, error)) (float64, error) {
		runtime.GC()
		start := time.Now()
		for range cr.inner {
			gc, err := mul(gl, ga)
			if err != nil {
				return 0, err
			}
			n, err := gc.NVals()
			if err == nil {
				err = gc.Free()
			}
			if err != nil || n != cr.nnzC {
				return 0, fmt.Errorf("GraphBLAS gave %d entries (%v), %d in bulksample's warm-up", n, err, cr.nnzC)
			}
		}
		return time.Since(start).Seconds() / float64(cr.inner), nil
	}
	// Warm-up runs, as long as timed ones, let both libraries reach their
	// steady state (heap grown, pages mapped) before anything is timed.
	for range cfg.warmup {
		if _, err := timeOurs(); err != nil {
			return cr, err
		}
		if withPeer {
			if _, err := timePeer(graphblas.Mul); err != nil {
				return cr, err
			}
		}
	}
	if cfg.profile != "" {
		stop, err := startProfile(cfg.profile, bc.name)
		if err != nil {
			return cr, err
		}
		defer stop()
	}
	for r := 0; r < cfg.reps; r++ {
		if err := ctx.Err(); err != nil {
			return cr, err
		}
		var o, p, u float64
		var err error
		if r%2 == 0 || !withPeer {
			if o, err = timeOurs(); err == nil && withPeer {
				p, err = timePeer(graphblas.Mul)
			}
		} else {
			if p, err = timePeer(graphblas.Mul); err == nil {
				o, err = timeOurs()
			}
		}
		if err == nil && withPeer && cfg.unsorted {
			u, err = timePeer(graphblas.MulUnfinished)
		}
		if err != nil {
			return cr, err
		}
		cr.ours = append(cr.ours, o)
		if withPeer {
			cr.peer = append(cr.peer, p)
			msg := fmt.Sprintf("%s: run %d/%d: bulksample %.4gs, GraphBLAS %.4gs", bc.name, r+1, cfg.reps, o, p)
			if cfg.unsorted {
				cr.unsorted = append(cr.unsorted, u)
				msg += fmt.Sprintf(", GraphBLAS unsorted %.4gs", u)
			}
			fmt.Fprintln(progress, msg)
		} else {
			fmt.Fprintf(progress, "%s: run %d/%d: bulksample %.4gs\n", bc.name, r+1, cfg.reps, o)
		}
	}
	return cr, nil
}

// selection returns the rows x n matrix Q with a single 1 per row, at
// distinct columns drawn uniformly at random from seed (sampling.RandomRows,
// the rows that bulksample spgemm --select-rows picks for the same seed):
// Q·A gathers those rows of A, in random order, as a bulk of minibatch seeds
// does.
func selection(n, rows int, seed uint64) *spgemm.CSR {
	ids, err := sampling.RandomRows(n, rows, seed)
	if err != nil {
		panic(err) // rows is checked against n by the flags
	}
	return sampling.QPerEntry([][]int32{ids}, n)
}

// compareCSR checks that GraphBLAS's CSR arrays hold ours: the same pattern
// exactly and values within float32 rounding of different summation orders.
func compareCSR(ours *spgemm.CSR, indptr, indices []uint64, data []float32) error {
	if len(indptr) != ours.Rows+1 {
		return fmt.Errorf("GraphBLAS has %d rows, bulksample %d", len(indptr)-1, ours.Rows)
	}
	for i := 0; i < ours.Rows; i++ {
		lo, hi := ours.Indptr[i], ours.Indptr[i+1]
		if indptr[i] != uint64(lo) || indptr[i+1] != uint64(hi) {
			return fmt.Errorf("row %d: GraphBLAS has %d entries, bulksample %d", i, int64(indptr[i+1])-int64(indptr[i]), hi-lo)
		}
		for p := lo; p < hi; p++ {
			if indices[p] != uint64(ours.Indices[p]) {
				return fmt.Errorf("row %d, entry %d: GraphBLAS has column %d, bulksample %d", i, p-lo, indices[p], ours.Indices[p])
			}
			x, y := float64(ours.Data[p]), float64(data[p])
			if math.Abs(x-y) > 1e-5*math.Max(1, math.Abs(y)) {
				return fmt.Errorf("row %d, column %d: GraphBLAS has %g, bulksample %g", i, indices[p], y, x)
			}
		}
	}
	return nil
}

// startProfile starts a CPU profile of the timed runs of case name into
// file.name (one profile per case) and returns its stop function.
func startProfile(file, name string) (stop func(), err error) {
	f, err := os.Create(file + "." + name)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
