package costmodel

// The byte counts of the sampling and feature exchanges, per rank. They
// were first written in benchmarks/distbench (which validates them against
// the counters of dist under mpirun) and live here so that the whole-epoch
// model (epoch.go) uses the same formulas.

// remoteFraction is the probability that a random vertex is owned by
// another rank of the process column: the column has q = p/c ranks, each
// owning one block, and vertex ids are spread uniformly over the blocks.
func remoteFraction(p, c int) float64 { return 1 - float64(c)/float64(p) }

// PullSampleBytes returns the bytes a rank sends in the pull exchanges of
// sampling (the paper's 1.5D SpGEMM): with distinct the Σ_l D_l distinct
// frontier vertices of its exchanges and degSum the sum of their degrees,
// (1 - c/p) · 4 · (2·distinct + degSum): ids out, lengths and rows back,
// counted as requester and as owner (equal in expectation). Headers are
// SampleHeaderBytes.
func PullSampleBytes(p, c int, distinct, degSum float64) float64 {
	return remoteFraction(p, c) * 4 * (2*distinct + degSum)
}

// PushSampleBytes returns the bytes a rank sends in the push exchanges of
// sampling: with rows the Σ_l N_l frontier rows of its exchanges and picks
// the Σ min(s_l, deg v) over them, (1 - c/p) · 4 · (3·rows + picks): an
// (id, minibatch) pair out, a count and the picks back.
func PushSampleBytes(p, c int, rows, picks float64) float64 {
	return remoteFraction(p, c) * 4 * (3*rows + picks)
}

// SampleHeaderBytes returns the header bytes a rank sends in rounds
// exchange rounds of sampling (L per bulk and a closing one): 6 int64 to
// each of the q - 1 other ranks of its column per round.
func SampleHeaderBytes(p, c, rounds int) float64 {
	return float64((p/c-1)*48) * float64(rounds)
}

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
	return remoteFraction(p, c)*(1-hot)*x*float64(4*f+4) + 16*(q-1)*e
}

// FeatureRounds returns the collective rounds of e feature exchanges: 3
// each (status, ids, rows).
func FeatureRounds(e float64) float64 { return 3 * e }
