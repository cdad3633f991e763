package distsample

// The byte model of the distributed samplers' exchanges (docs/design.md
// section 4), per rank. FetchAuto chooses pull or push per layer with it;
// benchmarks/distbench checks it against the counters of package dist
// under mpirun, and benchmarks/internal/costmodel builds the whole-epoch
// model on it.

// RemoteFraction returns 1 - c/p, the probability that a random vertex is
// owned by another rank of the process column of p ranks with replication
// c: the column has q = p/c ranks, each owning one block, and vertex ids
// are spread uniformly over the blocks. Every byte model of the exchanges
// (these, and the feature model of benchmarks/internal/costmodel) scales
// by it.
func RemoteFraction(p, c int) float64 { return 1 - float64(c)/float64(p) }

// PullSampleBytes returns the bytes a rank sends in the pull exchanges of
// sampling (the paper's 1.5D SpGEMM): with distinct the Σ_l D_l distinct
// frontier vertices of its exchanges and degSum the sum of their degrees,
// (1 - c/p) · 4 · (2·distinct + degSum): ids out, lengths and rows back,
// counted as requester and as owner (equal in expectation). Headers are
// SampleHeaderBytes.
func PullSampleBytes(p, c int, distinct, degSum float64) float64 {
	return RemoteFraction(p, c) * 4 * (2*distinct + degSum)
}

// PushSampleBytes returns the bytes a rank sends in the push exchanges of
// sampling: with rows the Σ_l N_l frontier rows of its exchanges and picks
// the Σ min(s_l, deg v) over them, (1 - c/p) · 4 · (3·rows + picks): an
// (id, minibatch) pair out, a count and the picks back.
func PushSampleBytes(p, c int, rows, picks float64) float64 {
	return RemoteFraction(p, c) * 4 * (3*rows + picks)
}

// SampleHeaderBytes returns the header bytes a rank sends in rounds
// exchange rounds of sampling: 6 int64 to each of the q - 1 other ranks of
// its column per round.
func SampleHeaderBytes(p, c, rounds int) float64 {
	return float64((p/c-1)*48) * float64(rounds)
}
