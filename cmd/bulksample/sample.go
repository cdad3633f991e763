package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/internal/cliout"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/progress"
	"github.com/bulksample/bulksample/sampling"
)

// sampleSummary is the --json object of `bulksample sample`: its schema,
// which the benchmarks read, is declared once in internal/cliout.
type sampleSummary = cliout.Sample

func runSample(ctx context.Context, e *env, args []string) error {
	c, err := parseSampleFlags(e, args)
	if err != nil {
		return err
	}
	if c.ranks.distributed() {
		return runRanks(ctx, e, &c.ranks.rankFlags, func(ctx context.Context, e *env, world dist.Comm) error {
			return sampleRank(ctx, e, c, world)
		})
	}
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	var dev *gpu.Device // --device cuda
	if c.device.cuda() {
		if dev, err = openDevice(e, "sample"); err != nil {
			return err
		}
		defer dev.Close()
	}
	var meter procstat.Meter
	meter.Begin()
	t0 := time.Now()
	lines, bar := e.loading(false, c.graph)
	d, err := dataset.LoadContext(ctx, c.graph, c.loadOptions(lines))
	bar.Finish()
	if err != nil {
		return err
	}
	loadSec := time.Since(t0).Seconds()
	if d.NumNodes() == 0 || d.Adj.NNZ() == 0 {
		return fmt.Errorf("%s: empty graph (%d vertices, %d edges): nothing to sample", c.graph, d.NumNodes(), d.Adj.NNZ())
	}
	notePhase(e.notes(), "sample", "load", meter.End("load"))
	ep, err := c.epochPlan(d.Train, d.NumNodes())
	if err != nil {
		return err
	}
	step, closeSampler, err := c.localStep(e.stderr, d, dev)
	if err != nil {
		return fmt.Errorf("%s: %w", c.graph, err)
	}
	defer closeSampler()
	sum := c.summary(ep, d.NumNodes(), d.Adj.NNZ(), loadSec)
	where := ""
	if dev != nil {
		sum.Sampler, sum.Device, where = sum.Sampler+" (cuda)", dev.Name(), " on "+dev.Name()
	}
	meter.End("setup")
	sum.Phases = meter.Phases()
	if err := sampleEpoch(ctx, e.stderr, e.bars(), step, ep, c.reps, c.digest, &sum); err != nil {
		return err
	}
	notePhase(e.notes(), "sample", "sample", sum.Phases.Get("sample"))
	if c.reps > 1 {
		notePhase(e.notes(), "sample", "cold pass", sum.PassCosts[0])
	}
	fmt.Fprintf(e.stdout, "%s sampler%s: %d minibatches (%d seeds) in %d bulks of %d; %d sampled edges per pass\n",
		sum.Sampler, where, sum.Minibatches, sum.Seeds, sum.Bulks, c.plan.BulkSize, sum.SampledEdges)
	if sum.Warm {
		fmt.Fprintf(e.stdout, "warm: median of %d passes %.3fs: %.2fM SEPS; cold (first pass): %.3fs: %.2fM SEPS\n",
			c.reps-1, sum.Seconds, sum.SEPS/1e6, sum.ColdSeconds, sum.ColdSEPS/1e6)
	} else {
		fmt.Fprintf(e.stdout, "cold (one pass): %.3fs: %.2fM SEPS (--reps 3 adds warm passes, the steady state)\n",
			sum.Seconds, sum.SEPS/1e6)
	}
	if c.digest {
		fmt.Fprintf(e.stdout, "digest %s\n", sum.Digest)
	}
	if c.json {
		sum.PeakRSSBytes, sum.Version = procstat.PeakRSS(), version()
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// localStep returns the step that samples a bulk in one process over d's
// graph, and what closes its sampler: on dev (--device cuda) when not nil,
// else on the CPU. It notes on stderr a --weighted that samples as fast as
// uniform sampling (every edge of the graph has the same weight).
func (c *sampleConfig) localStep(stderr io.Writer, d *dataset.Dataset, dev *gpu.Device) (bulkStep, func(), error) {
	if dev != nil {
		return c.deviceStep(dev, d.Adj)
	}
	s, err := c.localSampler(d)
	if err != nil {
		return nil, nil, err
	}
	if nw, ok := s.(*sampling.NodeWise); ok && nw.EqualWeights() {
		fmt.Fprintf(stderr, "--weighted: every edge of %s has the same weight, so the weighted law is the uniform one: sampled as fast as without --weighted, with the same picks\n", c.graph)
	}
	return hostStep(s), func() {}, nil
}

// localSampler returns the sampler of one process over d's graph: the
// bulk sampler of --method, or the per-minibatch baseline.
func (c *sampleConfig) localSampler(d *dataset.Dataset) (sampling.Sampler, error) {
	so := c.sampler
	if c.baseline {
		return sampling.NewBaseline(d.Adj, sampling.NodeWiseOptions{Fanouts: so.Fanouts, Replace: so.Replace, Weighted: so.Weighted,
			Frontier: so.Frontier, Seed: so.Seed, Threads: so.Threads, MaxBulkEdges: so.MaxBulkEdges})
	}
	return sampling.NewSampler(d.Adj, so)
}

// summary returns the JSON summary's figures known before sampling ep, of
// a graph of n vertices and nnz entries loaded in loadSec seconds.
func (c *sampleConfig) summary(ep *sampling.EpochPlan, n int, nnz int64, loadSec float64) sampleSummary {
	sum := sampleSummary{Graph: c.graph, Vertices: n, Edges: nnz, Sampler: c.describe(), LadiesMatrix: c.ladiesMatrix(),
		Frontier: c.sampler.Frontier.String(), Fanouts: c.sampler.Fanouts, Batch: c.plan.BatchSize, Bulk: c.plan.BulkSize,
		Threads: par.Threads(c.sampler.Threads), Minibatches: len(ep.Minibatches), Bulks: ep.NumBulks(), LoadSeconds: loadSec}
	for _, mb := range ep.Minibatches {
		sum.Seeds += len(mb)
	}
	return sum
}

// bulkStep samples the minibatches first..first+len(seeds)-1 of epoch.
type bulkStep func(ctx context.Context, epoch, first int, seeds [][]int32) (sampledBulk, error)

// sampledBulk is what a bulkStep sampled: its edges, the bulk on the host
// (for the digest, called after the timing), and what gives its arrays
// back to the sampler (nil: nothing to give back).
type sampledBulk struct {
	edges   int64
	host    func() (*sampling.Bulk, error)
	release func()
}

// hostStep is the bulkStep of a sampler on the CPU: the bulk is on the
// host already, and Release recycles its arrays for the next bulk.
func hostStep(s sampling.Sampler) bulkStep {
	return func(ctx context.Context, epoch, first int, seeds [][]int32) (sampledBulk, error) {
		b, err := s.SampleBulk(ctx, epoch, first, seeds)
		if err != nil {
			return sampledBulk{}, err
		}
		return sampledBulk{edges: b.SampledEdges(), host: func() (*sampling.Bulk, error) { return b, nil }, release: b.Release}, nil
	}
}

// sampleEpoch samples every bulk of ep reps times (at least once), timing
// only the sampler (not the digest), with a progress bar of each pass's
// bulks on bars when it is not nil, else a progress line on stderr every
// few seconds, and fills sum's figures: the first pass is the cold one, and
// with reps >= 2 the headline is the median of the others. It adds what the
// sampler's calls cost to sum.Phases as phase "sample", and the digest's (of
// the first pass: every pass samples the same) as "digest".
func sampleEpoch(ctx context.Context, stderr, bars io.Writer, step bulkStep, ep *sampling.EpochPlan, reps int, digest bool, sum *sampleSummary) error {
	reps = max(reps, 1)
	var m procstat.Meter
	var dg *sampling.Digest
	if digest {
		dg = sampling.NewDigest()
	}
	sum.Reps, sum.PassSeconds, sum.PassCosts = reps, nil, nil
	lastReport := time.Now()
	for pass := range reps {
		var busy time.Duration
		var edges int64
		var cost procstat.Cost
		bar := progress.Start(bars, fmt.Sprintf("sample: pass %d/%d, bulks", pass+1, reps), int64(ep.NumBulks()))
		for i := range ep.NumBulks() {
			first, seeds := ep.Bulk(i)
			m.Begin()
			start := time.Now()
			b, err := step(ctx, ep.Epoch, first, seeds)
			if err != nil {
				bar.Finish()
				return fmt.Errorf("bulk %d (minibatches %d..%d): %w", i, first, first+len(seeds)-1, err)
			}
			busy += time.Since(start)
			cost.Add(m.End("sample"))
			edges += b.edges
			if dg != nil && pass == 0 {
				hb, err := b.host()
				if err != nil {
					bar.Finish()
					return fmt.Errorf("bulk %d: %w", i, err)
				}
				dg.AddBulk(hb)
				m.End("digest")
			}
			if b.release != nil {
				b.release() // its arrays serve the next bulk
			}
			bar.Set(int64(i + 1))
			if bar == nil && time.Since(lastReport) > 2*time.Second {
				lastReport = time.Now()
				line := fmt.Sprintf("sample: pass %d/%d: %d/%d bulks, %d sampled edges, %.2fM SEPS",
					pass+1, reps, i+1, ep.NumBulks(), edges, float64(edges)/busy.Seconds()/1e6)
				if n := cost.Note(); n != "" {
					line += "; " + n
				}
				fmt.Fprintln(stderr, line)
			}
		}
		bar.Finish()
		if pass > 0 && edges != sum.SampledEdges {
			return fmt.Errorf("pass %d sampled %d edges, the first %d: the sampler is not deterministic", pass+1, edges, sum.SampledEdges)
		}
		sum.SampledEdges = edges
		sum.PassSeconds = append(sum.PassSeconds, busy.Seconds())
		sum.PassCosts = append(sum.PassCosts, cost)
	}
	seps := func(sec float64) float64 {
		if sec <= 0 {
			return 0
		}
		return float64(sum.SampledEdges) / sec
	}
	f := summarizeReps(sum.PassSeconds)
	sum.Seconds, sum.Warm, sum.ColdSeconds = f.Seconds, f.Warm, f.Cold
	sum.SEPS, sum.ColdSEPS = seps(f.Seconds), seps(f.Cold)
	if dg != nil {
		sum.Digest = dg.Sum()
	}
	for _, pc := range m.Phases() {
		sum.Phases.Add(pc.Name, pc.Cost)
	}
	return nil
}
