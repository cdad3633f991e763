package main

// Where a distributed `bulksample sample` spent its time, rank by rank:
// every rank sends its figures (distsample.DistStats: its own sampling work,
// its row exchange's rounds by kind, the idle time after its own work) to
// rank 0, which sums them per kind and gives the spread over the ranks.

import (
	"context"
	"slices"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/cliout"
	"github.com/bulksample/bulksample/internal/stats"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/spgemm"
)

// The JSON objects of the distributed summary's spread over the ranks;
// their schema is declared once in internal/cliout.
type (
	spreadJSON     = cliout.Spread
	rankSpreadJSON = cliout.RankSpread
	memoryJSON     = cliout.Memory
	exchangeJSON   = cliout.Exchange
	fetchLayerJSON = cliout.FetchLayer
)

// spread returns the spread of xs.
func spread(xs []float64) spreadJSON {
	if len(xs) == 0 {
		return spreadJSON{}
	}
	return spreadJSON{Min: slices.Min(xs), Median: stats.Median(xs), Max: slices.Max(xs)}
}

// graphBytes returns the bytes of a the sampler reads: row offsets, column
// ids and, when it reads them, values.
func graphBytes(a *spgemm.CSR, values bool) int64 {
	n := 8*int64(len(a.Indptr)) + 4*a.NNZ()
	if values {
		n += 4 * a.NNZ()
	}
	return n
}

// The layout of a rank's figures as sent to rank 0: its work and sampler
// seconds, its sampled edges, its peak resident set, the bytes of its
// graph (its block, or the whole graph when replicated) and of its largest
// sample (bulk), the exchange time its overlap hid and the batches it
// overlapped, then per kind of rounds roundFields values, then per
// layer layerFields.
const (
	rankHead    = 8
	roundFields = 8
	layerFields = 4
	// exchangeKindCount is the number of kinds of rounds (exchangeKinds).
	exchangeKindCount = 4
	// layersAt is where the per-layer values start.
	layersAt = rankHead + roundFields*exchangeKindCount
)

// exchangeKinds returns the names the JSON gives the kinds of rounds, in
// the order of kindsOf.
func exchangeKinds() [exchangeKindCount]string {
	return [exchangeKindCount]string{"pull", "degrees", "push", "drain"}
}

// kindsOf returns the figures of each kind of rounds of s.
func kindsOf(s *dist.ExchangeStats) [exchangeKindCount]*dist.RoundStats {
	return [exchangeKindCount]*dist.RoundStats{&s.Rows, &s.Degrees, &s.Service, &s.Drain}
}

// rankFigures returns this rank's figures in the layout above: the
// sampler's (a Replicated sampler has none: its work is all its time in
// the sampler, busy), its sampled edges, its peak resident set, and the
// bytes of its graph and of its largest bulk.
func rankFigures(s sampling.Sampler, busy time.Duration, edges, rss, graph, sample int64, layers int) []float64 {
	var st distsample.DistStats
	if ds, ok := s.(interface{ Stats() distsample.DistStats }); ok {
		st = ds.Stats()
	} else {
		st.Wall = busy
	}
	v := make([]float64, layersAt+layerFields*layers)
	v[0], v[1], v[2], v[3], v[4], v[5] = st.Work().Seconds(), st.Wall.Seconds(), float64(edges), float64(rss), float64(graph), float64(sample)
	v[6], v[7] = st.Overlap.Hidden().Seconds(), float64(st.Overlap.Batches)
	for k, r := range kindsOf(&st.Exchange) {
		copy(v[rankHead+roundFields*k:], []float64{float64(r.Rounds), float64(r.IDs), float64(r.Items), float64(r.Served),
			float64(r.BytesSent), r.Wait.Seconds(), r.Transfer.Seconds(), r.Serve.Seconds()})
	}
	for l, ls := range st.Layers {
		if l < layers {
			copy(v[layersAt+layerFields*l:], []float64{float64(ls.Pull), float64(ls.Push), ls.ModelPullBytes, ls.ModelPushBytes})
		}
	}
	return v
}

// gatherRanks sends every rank's figures to rank 0 of the grid and, there,
// fills the spread, the exchange's kinds and the layers' fetches of sum. It
// is collective.
func gatherRanks(ctx context.Context, grid *dist.Grid, mine []float64, layers int, sum *distSummary) error {
	all, _, err := dist.Allgather(ctx, grid.World(), dist.PhaseControl, mine)
	if err != nil || grid.Rank() != 0 {
		return err
	}
	p, w := grid.Size(), len(mine)
	col := func(i int) []float64 {
		xs := make([]float64, p)
		for r := range p {
			xs[r] = all[r*w+i]
		}
		return xs
	}
	work := col(0)
	var mean float64
	for _, x := range work {
		mean += x / float64(p)
	}
	rs := rankSpreadJSON{WorkSeconds: spread(work), SampleSeconds: spread(col(1)), SampledEdges: spread(col(2))}
	sum.PeakRSS = spread(col(3))
	ratio := make([]float64, p)
	for r := range p {
		ratio[r] = all[r*w+3] / max(all[r*w+4]+all[r*w+5], 1)
	}
	sum.Memory = &memoryJSON{GraphBytes: spread(col(4)), SampleBytes: spread(col(5)), RSSOverGraphAndSample: spread(ratio)}
	if mean > 0 {
		rs.WorkMaxOverMean = rs.WorkSeconds.Max / mean
	}
	exch, idle := make([]float64, p), col(rankHead+roundFields*3+5)
	sum.Exchange = make(map[string]exchangeJSON)
	for k, name := range exchangeKinds() {
		f := func(i int) []float64 { return col(rankHead + roundFields*k + i) }
		var e exchangeJSON
		e.Rounds, e.IDs, e.Items, e.Served, e.BytesSent = int64(total(f(0))), int64(total(f(1))), int64(total(f(2))), int64(total(f(3))), int64(total(f(4)))
		e.WaitSeconds, e.WaitSecondsMax = total(f(5))/float64(p), slices.Max(f(5))
		e.TransferSeconds, e.TransferSecondsMax = total(f(6))/float64(p), slices.Max(f(6))
		e.ServeSeconds, e.ServeSecondsMax = total(f(7))/float64(p), slices.Max(f(7))
		sum.Exchange[name] = e
		if name != "drain" {
			for r := range p {
				exch[r] += all[r*w+rankHead+roundFields*k+5] + all[r*w+rankHead+roundFields*k+6] + all[r*w+rankHead+roundFields*k+7]
			}
		}
	}
	rs.ExchangeSeconds, rs.IdleSeconds = spread(exch), spread(idle)
	if batches := total(col(7)); batches > 0 {
		h := spread(col(6))
		rs.OverlapHiddenSeconds, rs.OverlapBatches = &h, int64(batches)
	}
	sum.RankSpread = &rs
	for l := range layers {
		f := func(i int) float64 {
			return total(col(layersAt + layerFields*l + i))
		}
		sum.FetchLayers = append(sum.FetchLayers, fetchLayerJSON{Pull: int64(f(0)), Push: int64(f(1)), ModelPullBytes: f(2), ModelPushBytes: f(3)})
	}
	return nil
}

func total(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
