package main

// The communication cost model of an epoch, phase by phase, as a small
// table: each phase says how many all-to-all (or all-reduce) rounds a rank
// makes and how many bytes it sends, and a network turns that into
// seconds. The sampling phase's model is costModel/modelInputs in main.go
// (validated there against the measured bytes); the feature phase's is
// featureTraffic below, validated by featureReport; a gradient phase adds
// one more row (rounds and bytes of the all-reduce) to the same table.

import (
	"fmt"
	"math"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/costmodel"
)

// phaseTraffic is what one rank sends in one phase of an epoch.
type phaseTraffic struct {
	phase  string
	rounds float64 // collective rounds (each pays the latency once)
	bytes  float64 // bytes this rank sends
}

// network turns traffic into time: alpha seconds per round plus the bytes
// at beta bytes per second per rank.
type network struct {
	alpha, beta float64
}

func (n network) seconds(t phaseTraffic) float64 { return t.rounds*n.alpha + t.bytes/n.beta }

// featureTraffic is the feature exchange of featurex.Dist for one rank over
// an epoch with p ranks, replication c and f features per vertex: x distinct
// input rows summed over its exchanges (per minibatch: its minibatches'
// inputs; per bulk: the union of each bulk's), a fraction hot of them held
// by the hot-vertex cache, and e exchanges. A row is remote with
// probability 1 - c/p (vertex ids are spread uniformly over the blocks);
// a remote row costs its id out and its values back (4 + 4f bytes, counted
// once: as requester and as owner a rank sends equal amounts in
// expectation), and each exchange sends 16 bytes of status to each of the
// q - 1 other ranks of the column, in 3 rounds (status, ids, rows).
func featureTraffic(p, c, f int, x, hot, e float64) phaseTraffic {
	return phaseTraffic{phase: "features", rounds: costmodel.FeatureRounds(e), bytes: costmodel.FeatureBytes(p, c, f, x, hot, e)}
}

// workload is a training epoch at scale.
type workload struct {
	name               string
	vertices, edges    int64
	train              int64 // training vertices: seeds of an epoch
	features           int
	batch              int
	fanouts            []int
	inputsPerMinibatch float64 // distinct input vertices of one minibatch
}

// expandedInputs is the largest number of input vertices a minibatch can
// have: the seeds and every sampled neighbour distinct, every vertex with
// at least the fanout's neighbours: b·(1 + s1 + s1·s2 + ...).
func (w workload) expandedInputs() float64 {
	total, layer := 1.0, 1.0
	for _, s := range w.fanouts {
		layer *= float64(s)
		total += layer
	}
	return float64(w.batch) * total
}

// cluster is where the workload runs.
type cluster struct {
	p, ranksPerNode int
	injection       float64 // bytes per second a node injects into the network
	alpha           float64 // seconds per collective round
}

// predictFeatures returns one rank's feature bytes and exchange seconds of
// an epoch of w on cl with replication c, one exchange per minibatch. A
// node's ranks share its injection bandwidth; the share of a rank's
// traffic that stays inside its node (ranksPerNode - 1 of the p - 1 peers)
// is not discounted (under 3% at p = 128 with 4 ranks per node).
func predictFeatures(w workload, cl cluster, c int) (bytes, seconds float64) {
	e := math.Ceil(float64(w.train)/float64(w.batch)) / float64(cl.p) // minibatches per rank
	t := featureTraffic(cl.p, c, w.features, e*w.inputsPerMinibatch, 0, e)
	net := network{alpha: cl.alpha, beta: cl.injection / float64(cl.ranksPerNode)}
	return t.bytes, net.seconds(t)
}

// papers100M is ogbn-papers100M (docs/design.md section 6) with 3-layer
// GraphSAGE sampling at fanout 15, 10, 5 and batch 1024; inputsPerMinibatch
// is set by the caller (an assumption, see predictionTable).
var papers100M = workload{name: "ogbn-papers100M", vertices: 111_059_956, edges: 1_615_685_872, train: 1_207_179,
	features: 128, batch: 1024, fanouts: []int{15, 10, 5}}

// perlmutterLike is the cluster of the prediction: 128 ranks, 4 per node
// (one per GPU), 25 GB/s of injection bandwidth per node, 20 µs per
// collective round.
var perlmutterLike = cluster{p: 128, ranksPerNode: 4, injection: 25e9, alpha: 20e-6}

// predictionTable returns the markdown table of the papers100M prediction
// for c in cs, for each assumed number of inputs per minibatch (named).
func predictionTable(cl cluster, cs []int, inputs []struct {
	name string
	d    float64
}) string {
	var b strings.Builder
	w := papers100M
	e := math.Ceil(float64(w.train)/float64(w.batch)) / float64(cl.p)
	fmt.Fprintf(&b, "| inputs per minibatch | c | feature bytes per rank per epoch | exchange s per epoch | of which latency s |\n")
	b.WriteString("|---|---:|---:|---:|---:|\n")
	for _, in := range inputs {
		w.inputsPerMinibatch = in.d
		for _, c := range cs {
			bytes, sec := predictFeatures(w, cl, c)
			fmt.Fprintf(&b, "| %s (%.0f) | %d | %.2f GB | %.3f | %.4f |\n", in.name, in.d, c, bytes/1e9, sec, 3*e*cl.alpha)
		}
	}
	return b.String()
}
