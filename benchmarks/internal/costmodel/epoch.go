package costmodel

import (
	"fmt"
	"math"

	"github.com/bulksample/bulksample/sampling/distsample"
)

// The whole-epoch model of data-parallel GraphSAGE training: per rank and
// epoch, the sampling (its compute and, with the graph distributed, its
// push exchanges), the feature exchange, the compute of the minibatches and
// the gradient all-reduce, added up (every phase in turn) and overlapped
// (the depth-2 pipeline of train.Trainer: the next minibatch is sampled and
// its features gathered while the current one trains).

// Shape is the mean shape of one minibatch of node-wise sampling with L
// layers: Frontier[l] is |F_l|, the vertices of layer l (F_0 the seeds,
// F_L the input vertices whose features are gathered), and Picks[l] the
// sampled edges of block l (between F_l and F_{l+1}).
type Shape struct {
	Frontier []float64 // L + 1 entries
	Picks    []float64 // L entries
}

// BoundShape returns the largest minibatch of batch seeds with fanouts:
// every vertex has at least the fanout's neighbours and every sampled
// neighbour is new, so |F_{l+1}| = |F_l| · (1 + s_l) and block l has
// |F_l| · s_l edges.
func BoundShape(batch int, fanouts []int) Shape {
	return ScaledShape(batch, fanouts, 1)
}

// ScaledShape returns BoundShape with the frontiers beyond the seeds
// multiplied by ratio (the fraction of distinct vertices a real graph
// leaves), each frontier vertex still with its full fanout of picks.
func ScaledShape(batch int, fanouts []int, ratio float64) Shape {
	s := Shape{Frontier: make([]float64, len(fanouts)+1), Picks: make([]float64, len(fanouts))}
	bound := float64(batch)
	s.Frontier[0] = bound
	for l, f := range fanouts {
		bound *= float64(1 + f)
		s.Picks[l] = s.Frontier[l] * float64(f)
		s.Frontier[l+1] = bound * ratio
	}
	return s
}

// Layers returns L.
func (s Shape) Layers() int { return len(s.Picks) }

// Inputs returns |F_L|, the input vertices of the minibatch.
func (s Shape) Inputs() float64 { return s.Frontier[len(s.Frontier)-1] }

// Rows returns Σ_l |F_l| over the L sampled layers: the frontier rows the
// sampler expands (and a push exchange sends).
func (s Shape) Rows() float64 {
	var r float64
	for _, v := range s.Frontier[:s.Layers()] {
		r += v
	}
	return r
}

// Edges returns Σ_l Picks[l], the sampled edges of the minibatch.
func (s Shape) Edges() float64 {
	var e float64
	for _, v := range s.Picks {
		e += v
	}
	return e
}

// Validate says which field of s is malformed.
func (s Shape) Validate() error {
	if len(s.Picks) == 0 || len(s.Frontier) != len(s.Picks)+1 {
		return fmt.Errorf("costmodel: shape with %d frontiers and %d blocks; want L+1 and L >= 1", len(s.Frontier), len(s.Picks))
	}
	for l, v := range s.Frontier {
		if !(v > 0) || (l > 0 && v < s.Frontier[l-1]) {
			return fmt.Errorf("costmodel: shape Frontier[%d] = %g: frontiers must be positive and non-decreasing", l, v)
		}
	}
	for l, v := range s.Picks {
		if !(v >= 0) {
			return fmt.Errorf("costmodel: shape Picks[%d] = %g is negative", l, v)
		}
	}
	return nil
}

// SAGEFlops returns the floating-point operations of one training step of
// GraphSAGE (mean) on a minibatch of shape s with in input features,
// hidden units and classes outputs, as gnn's dense layers compute it.
// Model layer i reads block L-1-i (the input layer the outermost): with
// n = |F_{L-1-i}| destination rows, m = Picks[L-1-i] edges, fin and fout
// its widths, the forward pass is the aggregation (2·m·fin) and the self
// and neighbour GEMMs (2 · 2·n·fin·fout); the backward pass the two weight
// gradients (2 · 2·n·fin·fout) and, on every layer but the input one, the
// input gradients (2 · 2·n·fin·fout) and the transposed aggregation
// (2·m·fin). gemm is the GEMMs' part of forward + backward, agg the
// aggregations'; element-wise work (bias, ReLU, dropout, softmax) and the
// optimiser are left out (under 1% at hidden 256).
func SAGEFlops(s Shape, in, hidden, classes int) (gemm, agg float64) {
	L := s.Layers()
	for i := range L {
		fin, fout := float64(hidden), float64(hidden)
		if i == 0 {
			fin = float64(in)
		}
		if i == L-1 {
			fout = float64(classes)
		}
		n, m := s.Frontier[L-1-i], s.Picks[L-1-i]
		gemm += 4*n*fin*fout + 4*n*fin*fout // forward; weight gradients
		agg += 2 * m * fin
		if i > 0 {
			gemm += 4 * n * fin * fout
			agg += 2 * m * fin
		}
	}
	return gemm, agg
}

// Cluster is the machine of a prediction: P ranks, RanksPerNode of them
// per node sharing its injection bandwidth.
type Cluster struct {
	P, RanksPerNode int
	// Injection is the bytes per second a node injects into the network.
	Injection float64
	// Alpha is the latency of one all-to-all round (seconds).
	Alpha float64
	// MsgLatency is the latency of one message of the ring all-reduce
	// (seconds).
	MsgLatency float64
}

// Bandwidth returns the bytes per second one rank may send: its node's
// injection bandwidth shared by the node's ranks.
func (cl Cluster) Bandwidth() float64 { return cl.Injection / float64(cl.RanksPerNode) }

// Workload is one epoch of data-parallel GraphSAGE training: every rank
// trains its own minibatches of Batch seeds (the paper's data
// parallelism), ceil(Train/Batch)/P of them per epoch.
type Workload struct {
	Train, Batch int
	Fanouts      []int
	Features     int   // f, float32 per vertex
	Params       int   // the model's parameters (the all-reduced gradients)
	Shape        Shape // the mean minibatch
	// Bulk is the number of minibatches a rank samples at once (k / p of
	// the paper's bulk of k): each bulk costs L + 1 exchange rounds.
	Bulk int
	// DistributedGraph: the graph is split like the features and sampling
	// pushes its frontier rows to their owners (costmodel's push bytes);
	// false: the graph is replicated and sampling sends nothing.
	DistributedGraph bool
}

// Rates are the compute speeds of one rank.
type Rates struct {
	// SampledEdgesPerSecond is the sampler's throughput (SEPS).
	SampledEdgesPerSecond float64
	// StepSeconds is the forward + backward + update time of one minibatch
	// of the workload's Shape.
	StepSeconds float64
}

// Epoch is the model's answer for one replication factor: seconds (and
// bytes) per rank and epoch.
type Epoch struct {
	C     int
	Steps float64 // minibatches per rank
	// SampleCompute is the sampler's work; SampleComm its push exchanges
	// (0 with a replicated graph), of SampleBytes.
	SampleCompute, SampleComm, SampleBytes float64
	// Features is the feature exchange, of FeatureBytes.
	Features, FeatureBytes float64
	// Compute is forward + backward + update.
	Compute float64
	// Gradients is the ring all-reduce of every step, of GradientBytes.
	Gradients, GradientBytes float64
	// Serial is every phase in turn; Overlapped the depth-2 pipeline's
	// time, the loading stage (sampling and feature exchange) beside the
	// training stage (compute and all-reduce): with a and b the two
	// stages' epoch totals over n steps, max(a, b) + min(a, b)/n (the first
	// minibatch's loading and the last one's training are not hidden).
	Serial, Overlapped float64
}

// PredictEpoch returns the epoch of w on cl with replication c at rates r.
// It returns an error naming the bad argument.
func PredictEpoch(w Workload, cl Cluster, c int, r Rates) (Epoch, error) {
	switch {
	case cl.P < 1 || cl.RanksPerNode < 1 || !(cl.Injection > 0) || cl.Alpha < 0 || cl.MsgLatency < 0:
		return Epoch{}, fmt.Errorf("costmodel: cluster %+v: P, RanksPerNode and Injection must be positive, latencies >= 0", cl)
	case c < 1 || cl.P%c != 0:
		return Epoch{}, fmt.Errorf("costmodel: replication c = %d does not divide p = %d", c, cl.P)
	case w.Train < 1 || w.Batch < 1 || w.Features < 1 || w.Params < 1 || w.Bulk < 1:
		return Epoch{}, fmt.Errorf("costmodel: workload Train, Batch, Features, Params and Bulk must be positive")
	case len(w.Fanouts) != w.Shape.Layers():
		return Epoch{}, fmt.Errorf("costmodel: %d fanouts for a shape of %d layers", len(w.Fanouts), w.Shape.Layers())
	case !(r.SampledEdgesPerSecond > 0) || r.StepSeconds < 0:
		return Epoch{}, fmt.Errorf("costmodel: rates %+v: SampledEdgesPerSecond must be positive, StepSeconds >= 0", r)
	}
	if err := w.Shape.Validate(); err != nil {
		return Epoch{}, err
	}
	beta := cl.Bandwidth()
	n := math.Ceil(float64(w.Train)/float64(w.Batch)) / float64(cl.P)
	e := Epoch{C: c, Steps: n}
	e.SampleCompute = n * w.Shape.Edges() / r.SampledEdgesPerSecond
	if w.DistributedGraph {
		bulks := math.Ceil(n / float64(w.Bulk))
		rounds := float64(w.Shape.Layers()+1) * bulks
		e.SampleBytes = distsample.PushSampleBytes(cl.P, c, n*w.Shape.Rows(), n*w.Shape.Edges()) + distsample.SampleHeaderBytes(cl.P, c, 1)*rounds
		if c < cl.P {
			e.SampleComm = rounds*cl.Alpha + e.SampleBytes/beta
		}
	}
	e.FeatureBytes = FeatureBytes(cl.P, c, w.Features, n*w.Shape.Inputs(), 0, n)
	if c < cl.P {
		e.Features = FeatureRounds(n)*cl.Alpha + e.FeatureBytes/beta
	}
	e.Compute = n * r.StepSeconds
	e.GradientBytes = n * RingAllreduceBytes(cl.P, GradientBytes(w.Params))
	e.Gradients = n * RingAllreduceSeconds(cl.P, GradientBytes(w.Params), beta, cl.MsgLatency)
	load, train := e.SampleCompute+e.SampleComm+e.Features, e.Compute+e.Gradients
	e.Serial = load + train
	e.Overlapped = math.Max(load, train) + math.Min(load, train)/math.Max(n, 1)
	return e, nil
}
