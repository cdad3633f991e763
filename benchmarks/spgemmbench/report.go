package main

import (
	"fmt"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/stats"
)

// goal returns the target for ours/GraphBLAS: Q·A at least as fast as
// GraphBLAS, A·A within 1.5x.
func (c caseResult) goal() float64 {
	if c.kind == squareA {
		return 1.5
	}
	return 1.0
}

// markdown renders the results as the report of benchmarks/results/spgemm.md.
func (r *results) markdown() string {
	var b strings.Builder
	peer := r.peer
	if peer == "" {
		peer = "none (built without the graphblas tag: bulksample timed alone)"
	}
	fmt.Fprintf(&b, "# SpGEMM: bulksample vs SuiteSparse:GraphBLAS\n\n")
	fmt.Fprintf(&b, "Written by `benchmarks/spgemmbench` (run by `make bench`); do not edit by hand.\n\n")
	fmt.Fprintf(&b, "- command: `%s`\n", r.cfg.command(r.peer != ""))
	fmt.Fprintf(&b, "- date: %s\n", r.machine.Date)
	fmt.Fprintf(&b, "- machine: %s, %d logical CPUs, GOMAXPROCS %d, %s\n", r.machine.CPU, r.machine.Cores, r.machine.GOMAXPROCS, r.machine.Go)
	fmt.Fprintf(&b, "- threads: %d for both libraries (spgemm.MulOptions.Threads, GxB_NTHREADS)\n", r.cfg.threads)
	fmt.Fprintf(&b, "- peer: %s; GrB_mxm over GrB_PLUS_TIMES_SEMIRING_FP32, then GrB_Matrix_wait(GrB_MATERIALIZE)\n", peer)
	fmt.Fprintf(&b, "- inputs: R-MAT (a,b,c,d) = (0.57,0.19,0.19,0.05), edge factor %d, symmetrised, no self loops, no duplicates, values 1, seed %d; "+
		"Q has %d rows, one 1 each, at distinct random vertices\n", edgeFactor, r.cfg.seed, r.cfg.qRows)
	fmt.Fprintf(&b, "- timing: %d warm-up and %d timed runs per library, alternating which goes first; a run repeats a product "+
		"shorter than %v (column \"×\"); seconds are the median per product; products/s = 1/median; "+
		"GFLOP/s = 2·flops/median, flops = multiplications\n", r.cfg.warmup, r.cfg.reps, r.cfg.minTime)
	fmt.Fprintf(&b, "- verified: the first product of each library, before any timing, is compared with the other's entry by entry (same pattern, values within 1e-5 relative)\n")
	unsortedHead, unsortedRule := "", ""
	if r.cfg.unsorted && r.peer != "" {
		fmt.Fprintf(&b, "- GraphBLAS unsorted: GrB_mxm without the final GrB_Matrix_wait, which leaves the rows of the result unsorted; "+
			"not comparable to bulksample's sorted result, shown to size GraphBLAS's deferred sort\n")
		unsortedHead, unsortedRule = " GraphBLAS unsorted s |", "--:|"
	}
	b.WriteString("\n" + benchutil.CostLegend + "The cost columns are bulksample's, per product.\n\n")
	fmt.Fprintf(&b, "| case | product | n | nnz(A) | rows(left) | flops | nnz(C) | × | bulksample s | GraphBLAS s |%s bulksample products/s | GraphBLAS products/s | bulksample GFLOP/s | GraphBLAS GFLOP/s | ratio bulksample/GraphBLAS | goal | verified |%s\n", unsortedHead, benchutil.CostColumns)
	fmt.Fprintf(&b, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|%s--:|--:|--:|--:|--:|---|---|%s\n", unsortedRule, benchutil.CostRule)
	for _, c := range r.cases {
		o := stats.Median(c.ours)
		peerS, peerPS, peerGF, ratio, goal, verified := "n/a", "n/a", "n/a", "n/a", fmt.Sprintf("≤ %.1f", c.goal()), "no peer"
		if c.peer != nil {
			p := stats.Median(c.peer)
			peerS, peerPS, peerGF = fmt.Sprintf("%.4g", p), fmt.Sprintf("%.2f", 1/p), fmt.Sprintf("%.3f", gflops(c.flops, p))
			ratio = fmt.Sprintf("%.2f", o/p)
			if o/p <= c.goal() {
				goal += " met"
			} else {
				goal += " missed"
			}
			verified = "yes"
			if !c.verified {
				verified = "**MISMATCH**"
			}
		}
		unsorted := ""
		if unsortedHead != "" {
			unsorted = fmt.Sprintf(" %.4g |", stats.Median(c.unsorted))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %.4g | %s |%s %.2f | %s | %.3f | %s | %s | %s | %s |%s\n",
			c.name, c.product(), c.n, c.nnzA, c.leftRows, c.flops, c.nnzC, c.inner, o, peerS, unsorted, 1/o, peerPS, gflops(c.flops, o), peerGF, ratio, goal, verified,
			benchutil.CostCells(benchutil.MedianCost(c.oursCost)))
	}
	return b.String()
}

func gflops(flops int64, seconds float64) float64 { return 2 * float64(flops) / seconds / 1e9 }

// caseSummary is one case of the JSON summary.
type caseSummary struct {
	Case            string    `json:"case"`
	Product         string    `json:"product"`
	Scale           int       `json:"scale"`
	N               int       `json:"n"`
	NNZA            int64     `json:"nnz_a"`
	LeftRows        int       `json:"left_rows"`
	Flops           int64     `json:"flops"`
	NNZC            int64     `json:"nnz_c"`
	ProductsPerRun  int       `json:"products_per_run"`
	GenerateSeconds float64   `json:"generate_seconds"`
	OursSeconds     []float64 `json:"ours_seconds"`
	OursMedian      float64   `json:"ours_median_seconds"`
	OursGFLOPS      float64   `json:"ours_gflops"`
	PeerSeconds     []float64 `json:"graphblas_seconds,omitempty"`
	PeerMedian      *float64  `json:"graphblas_median_seconds"`
	UnsortedSeconds []float64 `json:"graphblas_unsorted_seconds,omitempty"`
	PeerGFLOPS      *float64  `json:"graphblas_gflops"`
	Ratio           *float64  `json:"ratio"`
	Goal            float64   `json:"goal"`
	Verified        bool      `json:"verified"`
	// OursCost is what one product of spgemm.Mul cost the process: the
	// medians over the timed runs.
	OursCost procstat.Cost `json:"ours_cost"`
}

// summary is the --json object.
func (r *results) summary() any {
	s := struct {
		Command   string            `json:"command"`
		Machine   benchutil.Machine `json:"machine"`
		GraphBLAS string            `json:"graphblas"`
		Reps      int               `json:"reps"`
		Cases     []caseSummary     `json:"cases"`
	}{Command: r.cfg.command(r.peer != ""), Machine: r.machine, GraphBLAS: r.peer, Reps: r.cfg.reps}
	for _, c := range r.cases {
		o := stats.Median(c.ours)
		cs := caseSummary{Case: c.name, Product: c.product(), Scale: c.scale, N: c.n, NNZA: c.nnzA, LeftRows: c.leftRows,
			Flops: c.flops, NNZC: c.nnzC, ProductsPerRun: c.inner, GenerateSeconds: c.genSecond, OursSeconds: c.ours, OursMedian: o,
			OursGFLOPS: gflops(c.flops, o), PeerSeconds: c.peer, UnsortedSeconds: c.unsorted, Goal: c.goal(), Verified: c.verified,
			OursCost: benchutil.MedianCost(c.oursCost)}
		if c.peer != nil {
			p := stats.Median(c.peer)
			gf, ratio := gflops(c.flops, p), o/p
			cs.PeerMedian, cs.PeerGFLOPS, cs.Ratio = &p, &gf, &ratio
		}
		s.Cases = append(s.Cases, cs)
	}
	return s
}
