package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

func main() { benchutil.Main(run) }

type config struct {
	scale, edgeFactor  int
	seed               uint64
	blocks             []int
	batch, bulk, seeds int
	fanouts            []int
	threads            int
	out                string
	args               []string
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := benchutil.NewFlags("balancebench", "go run ./benchmarks/balancebench",
		"Measures the balance of the ranks' blocks (stored edges, push and pull work, sampled\n"+
			"edges) of one R-MAT graph as generated and relabelled at random and by degree, and\n"+
			"writes a markdown table to --out and standard output.", stderr)
	c := &config{args: args}
	var blocks, fanouts string
	fs.IntVar(&c.scale, "scale", 22, "R-MAT scale")
	fs.IntVar(&c.edgeFactor, "edge-factor", 16, "R-MAT edge factor")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the graph, the random relabelling and the sample")
	fs.StringVar(&blocks, "blocks", "2,4,16", "block counts B (p/c of a distributed run)")
	fs.IntVar(&c.batch, "batch", 1024, "seeds per minibatch")
	fs.IntVar(&c.bulk, "bulk", 64, "minibatches per bulk")
	fs.IntVar(&c.seeds, "seeds", 65536, "seeds sampled (one epoch truncated)")
	fs.StringVar(&fanouts, "fanout", "15,10,5", "fanouts, seeds' layer first")
	fs.IntVar(&c.threads, "threads", 0, "threads; 0 for GOMAXPROCS")
	fs.StringVar(&c.out, "out", "benchmarks/results/balance.md", "file to write the table to; empty for none")
	if err := benchutil.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	var err error
	if c.blocks, err = benchutil.ParseInts(blocks, 1); err != nil {
		return nil, benchutil.UsageError(fs, "--blocks %q: %v", blocks, err)
	}
	if c.fanouts, err = benchutil.ParseInts(fanouts, 1); err != nil {
		return nil, benchutil.UsageError(fs, "--fanout %q: %v", fanouts, err)
	}
	switch {
	case c.scale < 4 || c.scale > 26:
		return nil, benchutil.UsageError(fs, "--scale %d: want 4..26", c.scale)
	case c.batch < 1 || c.bulk < 1 || c.seeds < 1 || c.seeds > 1<<c.scale:
		return nil, benchutil.UsageError(fs, "--batch, --bulk and --seeds must be at least 1, --seeds at most 2^scale")
	}
	for _, b := range c.blocks {
		if b > 1<<c.scale {
			return nil, benchutil.UsageError(fs, "--blocks %d: more blocks than vertices", b)
		}
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	load := benchutil.LoadAveragesText()
	t0 := time.Now()
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: c.scale, EdgeFactor: c.edgeFactor, Seed: c.seed, Threads: c.threads})
	if err != nil {
		return benchutil.Fail(stderr, "balancebench", err)
	}
	fmt.Fprintf(stderr, "balancebench: R-MAT scale %d generated in %.1f s\n", c.scale, time.Since(t0).Seconds())
	var rows []labelling
	for _, method := range []string{"", heaviestFirst, dataset.RelabelRandom, dataset.RelabelDegree} {
		g, secs := a, 0.0
		switch method {
		case "":
		case heaviestFirst:
			t := time.Now()
			g, secs = byDegree(a, c.threads), time.Since(t).Seconds()
		default:
			t := time.Now()
			opt := dataset.RelabelOptions{Method: method, Threads: c.threads}
			if method == dataset.RelabelRandom {
				opt.Seed = c.seed
			}
			d, err := dataset.Relabel(&dataset.Dataset{Adj: a}, opt)
			if err != nil {
				return benchutil.Fail(stderr, "balancebench", err)
			}
			g, secs = d.Adj, time.Since(t).Seconds()
		}
		l, err := measure(ctx, c, g)
		if err != nil {
			return benchutil.Fail(stderr, "balancebench", err)
		}
		l.method, l.seconds = method, secs
		fmt.Fprintf(stderr, "balancebench: %s measured (relabelled in %.1f s)\n", l.name(), secs)
		rows = append(rows, l)
	}
	text := report(c, a, rows, load)
	if err := (benchutil.Report{Program: "balancebench", Path: c.out, Text: text}).Write(stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "balancebench", err)
	}
	return 0
}

// spread is the largest and smallest of per-block (or per-rank) figures
// over their mean.
type spread struct{ max, min float64 }

func spreadOf(v []float64) spread {
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	if mean == 0 {
		return spread{math.NaN(), math.NaN()}
	}
	return spread{slices.Max(v) / mean, slices.Min(v) / mean}
}

func (s spread) String() string { return fmt.Sprintf("%.3f / %.3f", s.max, s.min) }

// balance is the spreads of one block count.
type balance struct {
	blocks                     int
	stored, push, pull, sample spread
}

// labelling is the measurements of one labelling of the graph.
type labelling struct {
	method   string
	seconds  float64 // the relabelling's
	balances []balance
	sampled  int64
}

func (l labelling) name() string {
	switch l.method {
	case "":
		return "as generated"
	case heaviestFirst:
		return "heaviest first"
	}
	return "--relabel " + l.method
}

// heaviestFirst names the labelling of the graph's vertices by degree,
// the heaviest first: the worst case of heavy vertices clustered in low
// ids (R-MAT's generator permutes its ids at random, as Graph500 does;
// graphs whose ids follow age or crawl order are nearer this one).
const heaviestFirst = "heaviest-first"

// byDegree returns a with its vertices renamed in order of degree,
// heaviest first (ties by id).
func byDegree(a *spgemm.CSR, threads int) *spgemm.CSR {
	order := make([]int32, a.Rows)
	for v := range order {
		order[v] = int32(v)
	}
	deg := func(v int32) int64 { return a.Indptr[v+1] - a.Indptr[v] }
	slices.SortStableFunc(order, func(u, v int32) int { return cmp.Compare(deg(v), deg(u)) })
	inv := make([]int32, len(order))
	for x, v := range order {
		inv[v] = int32(x)
	}
	g := spgemm.GatherRows(a, order, threads)
	var buf []uint64
	for r := range g.Rows {
		idx, val := g.Row(r)
		for i, j := range idx {
			idx[i] = inv[j]
		}
		buf = spgemm.SortPairs(idx, val, buf)
	}
	return g
}

// measure samples c's epoch on g in one process and splits the work over
// every block count.
func measure(ctx context.Context, c *config, g *spgemm.CSR) (labelling, error) {
	n := g.Rows
	vertices := make([]int32, n)
	for i := range vertices {
		vertices[i] = int32(i)
	}
	plan, err := sampling.NewPlan(vertices, sampling.PlanOptions{BatchSize: c.batch, BulkSize: c.bulk, Seed: c.seed})
	if err != nil {
		return labelling{}, err
	}
	ep := plan.Epoch(0)
	ep.Truncate(c.seeds)
	nw, err := sampling.NewNodeWise(g, sampling.NodeWiseOptions{Fanouts: c.fanouts, Seed: c.seed, Threads: c.threads})
	if err != nil {
		return labelling{}, err
	}
	type sums struct{ stored, push, pull, sample []float64 }
	per := make([]sums, len(c.blocks))
	for i, b := range c.blocks {
		per[i] = sums{make([]float64, b), make([]float64, b), make([]float64, b), make([]float64, b)}
		for k := range b {
			lo, hi := dist.BlockRange(n, b, k)
			per[i].stored[k] = float64(g.Indptr[hi] - g.Indptr[lo])
		}
	}
	stamp := make([]int32, n) // stamp[v] == cur: v counted in this (rank, layer)
	var cur int32
	var l labelling
	for bi := range ep.NumBulks() {
		first, seeds := ep.Bulk(bi)
		bulk, err := nw.SampleBulk(ctx, ep.Epoch, first, seeds)
		if err != nil {
			return labelling{}, err
		}
		l.sampled += bulk.SampledEdges()
		for i, b := range c.blocks {
			for r := range b {
				mlo, mhi := dist.BlockRange(bulk.Len(), b, r)
				for layer := range c.fanouts {
					cur++
					for mb := mlo; mb < mhi; mb++ {
						blk := bulk.Minibatch(mb).Blocks[layer]
						for row, v := range blk.Dst() {
							owner := dist.BlockOf(n, b, int(v))
							picks := float64(blk.Adj.RowNNZ(row))
							per[i].push[owner] += picks
							per[i].sample[r] += picks
							if stamp[v] != cur {
								stamp[v] = cur
								per[i].pull[owner] += float64(g.Indptr[v+1] - g.Indptr[v])
							}
						}
					}
				}
			}
		}
		bulk.Release()
	}
	for i, b := range c.blocks {
		l.balances = append(l.balances, balance{blocks: b, stored: spreadOf(per[i].stored), push: spreadOf(per[i].push),
			pull: spreadOf(per[i].pull), sample: spreadOf(per[i].sample)})
	}
	return l, nil
}

func report(c *config, a *spgemm.CSR, rows []labelling, load string) string {
	var maxDeg int64
	for v := range a.Rows {
		maxDeg = max(maxDeg, a.Indptr[v+1]-a.Indptr[v])
	}
	m := benchutil.ThisMachine(c.threads)
	var b strings.Builder
	fmt.Fprintf(&b, "# Balance of the ranks' blocks by relabelling (balancebench)\n\n")
	fmt.Fprintf(&b, "R-MAT scale %d, edge factor %d, seed %d (%d vertices, %d stored edges, largest degree %d); one epoch of %d seeds, b = %d, fanouts %s, k = %d, sampled in one process and split over B ranks as the CLI splits each bulk; c = 1 (B = p). %s, %d logical CPUs, %s, %s; load average at start %s.\n\n",
		c.scale, c.edgeFactor, c.seed, a.Rows, a.NNZ(), maxDeg, c.seeds, c.batch, benchutil.JoinInts(c.fanouts), c.bulk,
		m.CPU, m.Cores, m.Go, m.Date, load)
	fmt.Fprintf(&b, "Each cell is the largest block's (or rank's) figure over the mean / the smallest's over the mean. ")
	fmt.Fprintf(&b, "*stored*: edges of the block's rows (a rank's memory); *push*: sampled edges picked from the block's rows (an owner's work under `--fetch push`); ")
	fmt.Fprintf(&b, "*pull*: row entries the block sends under `--fetch pull` (the degrees of the distinct frontier vertices each rank asks it for, per layer and bulk); ")
	fmt.Fprintf(&b, "*sampled*: sampled edges of a rank's own minibatches (its selection work under pull, and what its SEPS counts).\n\n")
	fmt.Fprintf(&b, "| labelling | B | stored | push | pull | sampled |\n|---|---:|---:|---:|---:|---:|\n")
	for _, l := range rows {
		for _, bal := range l.balances {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", l.name(), bal.blocks, bal.stored, bal.push, bal.pull, bal.sample)
		}
	}
	fmt.Fprintf(&b, "\nSampled edges per labelling (the samples differ: other ids, other random numbers): ")
	for i, l := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", l.name(), l.sampled)
		if l.method != "" {
			fmt.Fprintf(&b, " (relabelled in %.1f s)", l.seconds)
		}
	}
	fmt.Fprintf(&b, ".\n\nCommand: `go run ./benchmarks/balancebench %s`\n", strings.Join(c.args, " "))
	return b.String()
}
