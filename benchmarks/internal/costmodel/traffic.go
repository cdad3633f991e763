package costmodel

import "github.com/bulksample/bulksample/sampling/distsample"

// The byte counts of the feature exchanges, per rank. They were first
// written in benchmarks/distbench (which validates them against the
// counters of dist under mpirun) and live here so that the whole-epoch
// model (epoch.go) uses the same formulas. The sampling exchanges' model
// is the library's (distsample.PullSampleBytes, PushSampleBytes and
// SampleHeaderBytes), which FetchAuto chooses with.

// FeatureBytes returns the bytes a rank sends in the feature exchanges of
// featurex.Dist over an epoch with p ranks, replication c and f float32
// features per vertex: x distinct input rows summed over its exchanges, a
// fraction hot of them held by the hot-vertex cache, and e exchanges. A
// remote row costs its id out and its values back (4 + 4f bytes, counted
// once: as requester and as owner a rank sends equal amounts in
// expectation), and each exchange sends 16 bytes of status to each of the
// q - 1 other ranks of the column:
//
//	(1 - c/p) · (1 - hot) · x · (4f + 4) + 16 · (q - 1) · e
func FeatureBytes(p, c, f int, x, hot, e float64) float64 {
	q := float64(p / c)
	return distsample.RemoteFraction(p, c)*(1-hot)*x*float64(4*f+4) + 16*(q-1)*e
}

// FeatureRounds returns the collective rounds of e feature exchanges: 3
// each (status, ids, rows).
func FeatureRounds(e float64) float64 { return 3 * e }
