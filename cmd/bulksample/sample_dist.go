package main

// The distributed path of `bulksample sample`: each rank samples its run
// of every bulk with distsample.NewDistSampler on the graph as it holds it
// (its block of rows, or the whole graph with --replicate-graph). Only
// rank 0 prints.

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/cliout"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/train"
)

// phaseJSON is one phase's traffic: summed over ranks, and of the busiest
// rank (its schema, which the benchmarks decode, is internal/cliout's).
type phaseJSON = cliout.Traffic

// trafficJSON returns the traffic of every phase: tot summed over the
// ranks, most of the busiest rank (dist.ReduceStats).
func trafficJSON(tot, most dist.Stats) map[string]phaseJSON {
	m := make(map[string]phaseJSON)
	for ph := range dist.NumPhases {
		m[ph.String()] = phaseJSON{BytesSent: tot.Bytes[ph], Messages: tot.Messages[ph], BytesSentMax: most.Bytes[ph], MessagesMax: most.Messages[ph]}
	}
	return m
}

// distSummary is the --json object of a distributed `bulksample sample`
// (sample_ranks.go fills its spreads; the schema is internal/cliout's).
type distSummary = cliout.DistSample

// sampleRank is one rank's run.
func sampleRank(ctx context.Context, e *env, c *sampleConfig, world dist.Comm) error {
	t0 := time.Now()
	d, err := loadDistGraph(ctx, e, c, world)
	if err != nil {
		return err
	}
	defer d.Close()
	grid := d.Grid
	loadSec := time.Since(t0).Seconds()
	ep, err := c.epochPlan(d.Train, d.N)
	if err != nil {
		return err
	}
	opt := c.dist.SamplerOptions(c.sampler)
	s, err := distsample.NewDistSampler(ctx, grid, d.Adj, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", c.graph, err)
	}
	sum := distSummary{Sample: c.summary(ep, d.N, d.NNZ, loadSec),
		Ranks: grid.Size(), Replication: grid.Replication(), Fetch: fetchName(opt), BlockOnly: d.BlockOnly}
	sum.Version = version()
	keepRankMinibatches(ep, grid)
	// The epoch's permutation, now garbage, set the collector's next goal
	// (twice the heap then live); collecting it before sampling lets that
	// goal follow the sampler's own memory instead (R-MAT 24, 4 ranks: the
	// heap peaked at 190 MB for 103 MB live).
	runtime.GC()
	if ds, ok := s.(*distsample.DistNodeWise); ok {
		sum.Overlap = ds.Rows().Overlap()
	}
	busy, edges, sampleBytes, dg, digestTime, err := sampleRankBulks(ctx, e, c, grid, s, ep)
	if err != nil {
		return err
	}
	if err := distTotals(ctx, grid, busy, edges, &sum); err != nil {
		return err
	}
	layers := len(c.sampler.Fanouts)
	// The layer-wise methods read the values (A∘A), as weighted node-wise
	// sampling does: their pages are resident.
	held := graphBytes(d.Adj, c.sampler.Weighted || c.sampler.Method != sampling.MethodNode)
	if ls, ok := s.(*distsample.DistLayerWise); ok && ls.Matrix().Local != d.Adj {
		held += graphBytes(ls.Matrix().Local, true) // LADIES' normalised copy
	}
	if err := gatherRanks(ctx, grid, rankFigures(s, busy, edges, procstat.PeakRSS(), held, sampleBytes, layers), layers, &sum); err != nil {
		return err
	}
	if c.sampler.Method != sampling.MethodNode || c.dist.Layout == distsample.Replicated {
		sum.FetchLayers = nil
	}
	sum.DigestSeconds = digestTime.Seconds()
	if grid.Rank() != 0 {
		return nil
	}
	if dg != nil {
		sum.Digest = dg.Sum()
	}
	tot := sum.Traffic[dist.PhaseSample.String()]
	fmt.Fprintf(e.stdout, "%s sampler on %d ranks (replication %d, %s): %d minibatches (%d seeds) in %d bulks of %d; %d sampled edges in %.3fs: %.2fM SEPS\n",
		sum.Sampler, sum.Ranks, sum.Replication, sum.Fetch, sum.Minibatches, sum.Seeds, sum.Bulks, c.plan.BulkSize, sum.SampledEdges, sum.Seconds, sum.SEPS/1e6)
	fmt.Fprintf(e.stdout, "sample traffic: %d bytes in %d messages over all ranks (most on one rank: %d bytes); peak RSS of a rank %d MiB\n",
		tot.BytesSent, tot.Messages, tot.BytesSentMax, sum.PeakRSSMax>>20)
	if rs := sum.RankSpread; rs != nil {
		fmt.Fprintf(e.stdout, "per rank (min / median / max): work %.3f / %.3f / %.3f s, exchange %.3f / %.3f / %.3f s, idle %.3f / %.3f / %.3f s; busiest rank's work %.2fx the mean\n",
			rs.WorkSeconds.Min, rs.WorkSeconds.Median, rs.WorkSeconds.Max, rs.ExchangeSeconds.Min, rs.ExchangeSeconds.Median, rs.ExchangeSeconds.Max,
			rs.IdleSeconds.Min, rs.IdleSeconds.Median, rs.IdleSeconds.Max, rs.WorkMaxOverMean)
	}
	if c.digest {
		fmt.Fprintf(e.stdout, "digest %s\n", sum.Digest)
	}
	if c.json {
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// keepRankMinibatches keeps only the seeds of the minibatches this rank
// samples (its run of each bulk, as sampleRankBulks takes them), so that
// a rank holds about 1/p of the epoch's seeds rather than all of them.
func keepRankMinibatches(ep *sampling.EpochPlan, grid *dist.Grid) {
	k := max(ep.BulkSize, 1)
	ep.Keep(func(i int) bool {
		_, seeds := ep.Bulk(i / k)
		lo, hi := grid.Minibatches(len(seeds))
		return lo <= i%k && i%k < hi
	})
}

// sampleRankBulks samples this rank's run of every bulk of ep, gathering
// the digest on rank 0 when asked, and returns the time in SampleBulk, the
// edges it sampled, the bytes of its largest bulk, rank 0's digest and the
// time the digest took (its
// gathering and a barrier after it, so that the next bulk starts on every
// rank at once and its timing holds no rank's wait for rank 0's hashing).
func sampleRankBulks(ctx context.Context, e *env, c *sampleConfig, grid *dist.Grid, s sampling.Sampler, ep *sampling.EpochPlan) (time.Duration, int64, int64, *sampling.Digest, time.Duration, error) {
	var dg *sampling.Digest
	if c.digest && grid.Rank() == 0 {
		dg = sampling.NewDigest()
	}
	var busy, digest time.Duration
	var edges, largest int64
	lastReport := time.Now()
	for i := range ep.NumBulks() {
		first, seeds := ep.Bulk(i)
		lo, hi := grid.Minibatches(len(seeds))
		start := time.Now()
		b, err := s.SampleBulk(ctx, ep.Epoch, first+lo, seeds[lo:hi])
		if err != nil {
			return 0, 0, 0, nil, 0, fmt.Errorf("bulk %d (minibatches %d..%d): %w", i, first+lo, first+hi-1, err)
		}
		busy += time.Since(start)
		edges += b.SampledEdges()
		largest = max(largest, b.Bytes())
		if c.digest {
			t := time.Now()
			if err := distsample.GatherDigest(ctx, grid.World(), dg, b); err != nil {
				return 0, 0, 0, nil, 0, err
			}
			if err := grid.World().Barrier(ctx, dist.PhaseControl); err != nil {
				return 0, 0, 0, nil, 0, err
			}
			digest += time.Since(t)
		}
		if i == ep.NumBulks()-1 {
			if err := e.stopHeapProfile(); err != nil {
				return 0, 0, 0, nil, 0, err
			}
		}
		if i == 0 && grid.Rank() == c.ranks.failRank {
			return 0, 0, 0, nil, 0, fmt.Errorf("injected failure after bulk %d (--fail-rank %d)", i, c.ranks.failRank)
		}
		b.Release() // its arrays serve the next bulk
		if grid.Rank() == 0 && time.Since(lastReport) > 2*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(e.stderr, "sample: %d/%d bulks on rank 0, %d sampled edges there\n", i+1, ep.NumBulks(), edges)
		}
	}
	return busy, edges, largest, dg, digest, nil
}

// distTotals fills sum's run totals over the ranks of grid: the sampled
// edges, the slowest rank's time and SEPS, the traffic and the peak
// memory. It is collective.
func distTotals(ctx context.Context, grid *dist.Grid, busy time.Duration, edges int64, sum *distSummary) error {
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
	return nil
}

// loadDistGraph loads the graph for this rank (train.LoadGraph): the
// whole of it with --replicate-graph, otherwise only this rank's block of
// rows, after which the ranks compare the file's identity with rank 0's.
func loadDistGraph(ctx context.Context, e *env, c *sampleConfig, world dist.Comm) (*train.Graph, error) {
	return train.LoadGraph(ctx, world, c.graph, c.dist.Replication, &train.GraphOptions{
		Whole: c.dist.Layout == distsample.Replicated, Load: c.loadOptions(progressOf(e, world))})
}
