package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
)

// measurement is the median of the timed runs of one method at one k.
type measurement struct {
	Method       string  `json:"method"`
	K            int     `json:"k"`
	Minibatches  int     `json:"minibatches"`
	SampledEdges int64   `json:"sampled_edges"` // per run
	SecPerMB     float64 `json:"seconds_per_minibatch"`
	SEPS         float64 `json:"seps"`
	// Cost is what one run of the row cost the process (medians over runs).
	Cost procstat.Cost `json:"cost"`
	// VsNode is SecPerMB over node-wise sampling's at the same k (0 for
	// node-wise itself).
	VsNode float64 `json:"vs_node,omitempty"`
}

// result is the outcome of a run.
type result struct {
	cfg      *config
	vertices int
	edges    int64
	gomax    int
	rows     []measurement
}

func runBench(ctx context.Context, cfg *config, progress io.Writer) (*result, error) {
	t0 := time.Now()
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: cfg.scale, Seed: cfg.seed, Threads: cfg.threads})
	if err != nil {
		return nil, fmt.Errorf("generate R-MAT scale %d: %w", cfg.scale, err)
	}
	fmt.Fprintf(progress, "ladiesbench: R-MAT scale %d: %d vertices, %d entries (%.1fs)\n", cfg.scale, a.Rows, a.NNZ(), time.Since(t0).Seconds())
	all := make([]int32, a.Rows)
	for v := range all {
		all[v] = int32(v)
	}
	plan, err := sampling.NewPlan(all, sampling.PlanOptions{BatchSize: cfg.batch, Seed: cfg.seed})
	if err != nil {
		return nil, err
	}
	epoch := plan.Epoch(0)
	samplers := map[string]sampling.Sampler{}
	samplers[sampling.MethodNode], err = sampling.NewSampler(a, sampling.SamplerOptions{Fanouts: cfg.fanouts, Seed: cfg.seed, Threads: cfg.threads})
	if err != nil {
		return nil, err
	}
	for _, m := range cfg.methods {
		samplers[m], err = sampling.NewSampler(a, sampling.SamplerOptions{
			Method: m, Fanouts: cfg.budgets, Semibulk: cfg.semibulk, Seed: cfg.seed, Threads: cfg.threads,
		})
		if err != nil {
			return nil, err
		}
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res := &result{cfg: cfg, vertices: a.Rows, edges: a.NNZ(), gomax: runtime.GOMAXPROCS(0)}
	order := append([]string{"node"}, cfg.methods...)
	for _, k := range cfg.bulks {
		nmb := max(cfg.minibatches, k)
		nmb = (nmb + k - 1) / k * k // whole bulks
		if nmb > len(epoch.Minibatches) {
			return nil, fmt.Errorf("%d minibatches of %d seeds need %d vertices; the graph has %d", nmb, cfg.batch, nmb*cfg.batch, a.Rows)
		}
		times := map[string][]float64{}
		edges := map[string]int64{}
		costs := map[string][]procstat.Cost{}
		for rep := range cfg.reps {
			// Alternate which method goes first so that a noisy neighbour
			// hurts all alike.
			for i := range order {
				name := order[(i+rep)%len(order)]
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				var meter procstat.Meter
				meter.Begin()
				start := time.Now()
				var sampled int64
				for lo := 0; lo < nmb; lo += k {
					bulk, err := samplers[name].SampleBulk(ctx, 0, lo, epoch.Minibatches[lo:lo+k])
					if err != nil {
						return nil, fmt.Errorf("%s k=%d: %w", name, k, err)
					}
					sampled += bulk.SampledEdges()
					bulk.Release() // as the trainer and the CLI do: its arrays serve the next bulk
				}
				sec := time.Since(start).Seconds()
				costs[name] = append(costs[name], meter.End(name))
				times[name] = append(times[name], sec)
				edges[name] = sampled
				fmt.Fprintf(progress, "ladiesbench: k=%d %s rep %d/%d: %d minibatches, %d edges, %.3fs\n", k, name, rep+1, cfg.reps, nmb, sampled, sec)
			}
		}
		nodeSec := stats.Median(times["node"]) / float64(nmb)
		for _, name := range order {
			sec := stats.Median(times[name])
			m := measurement{Method: name, K: k, Minibatches: nmb, SampledEdges: edges[name],
				SecPerMB: sec / float64(nmb), SEPS: float64(edges[name]) / sec, Cost: benchutil.MedianCost(costs[name])}
			if name != "node" {
				m.VsNode = m.SecPerMB / nodeSec
			}
			res.rows = append(res.rows, m)
		}
	}
	return res, nil
}

// markdown returns the section that --out receives.
func (r *result) markdown() string {
	var b strings.Builder
	c := r.cfg
	fmt.Fprintf(&b, "## Layer-wise sampling (LADIES) vs node-wise, R-MAT scale %d\n\n", c.scale)
	fmt.Fprintf(&b, "Graph: %d vertices, %d stored entries (Graph500 R-MAT, edge factor 16, symmetrised). ", r.vertices, r.edges)
	fmt.Fprintf(&b, "Batch b = %d; layer-wise budgets s = %s per layer; node-wise fanouts %s. ", c.batch, benchutil.JoinInts(c.budgets), benchutil.JoinInts(c.fanouts))
	fmt.Fprintf(&b, "Threads: %d (GOMAXPROCS %d); semibulk %d (0 = default); %d timed runs per row, medians; methods alternate within each run.\n\n",
		c.threads, r.gomax, c.semibulk, c.reps)
	b.WriteString(benchutil.CostLegend + "\n")
	b.WriteString("| method | k | minibatches | sampled edges | ms / minibatch | SEPS (M/s) | time vs node-wise |" + benchutil.CostColumns + "\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|" + benchutil.CostRule + "\n")
	for _, m := range r.rows {
		vs := "1 (reference)"
		if m.Method != "node" {
			vs = fmt.Sprintf("%.2fx", m.VsNode)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.2f | %.2f | %s |%s\n", m.Method, m.K, m.Minibatches, m.SampledEdges, 1e3*m.SecPerMB, m.SEPS/1e6, vs, benchutil.CostCells(m.Cost))
	}
	fmt.Fprintf(&b, "\nCommand: `go run ./benchmarks/ladiesbench --scale %d --batch %d --budgets %s --fanouts %s --bulks %s --minibatches %d --reps %d`\n",
		c.scale, c.batch, benchutil.JoinInts(c.budgets), benchutil.JoinInts(c.fanouts), benchutil.JoinInts(c.bulks), c.minibatches, c.reps)
	return b.String()
}

// summary is the --json object.
func (r *result) summary() any {
	return struct {
		Scale    int           `json:"scale"`
		Vertices int           `json:"vertices"`
		Edges    int64         `json:"edges"`
		Batch    int           `json:"batch"`
		Budgets  []int         `json:"budgets"`
		Fanouts  []int         `json:"fanouts"`
		Rows     []measurement `json:"rows"`
	}{r.cfg.scale, r.vertices, r.edges, r.cfg.batch, r.cfg.budgets, r.cfg.fanouts, r.rows}
}
