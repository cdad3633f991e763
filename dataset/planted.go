package dataset

// The labelled planted-partition generator is a degree-corrected stochastic
// block model in the Chung-Lu style: every node gets a class (uniform) and a
// power-law weight; each edge picks its first end in proportion to weight,
// then, with probability Homophily, a second end of the same class, else one
// of another class (uniform over the other classes), again in proportion to
// weight. Expected degrees are thus proportional to the weights whatever the
// homophily. Features are class means drawn from N(0, I) plus N(0, Noise²·I)
// noise, so a features-only classifier is limited by Noise, and averaging
// over neighbours (mostly of the same class, by homophily) removes noise.
// Every random number is a hash of (seed, stream, index), so the dataset is
// identical for any thread count.

import (
	"fmt"
	"math"
	"slices"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// PlantedPartitionOptions configure PlantedPartition. Every zero field means
// its documented default; the defaults give a graph on which neighbour
// aggregation clearly beats a features-only model (see the package tests:
// a nearest-class-mean classifier scores about 55% on the features and about
// 93% on the features averaged over the closed 1-hop neighbourhood).
type PlantedPartitionOptions struct {
	// Nodes is the number of vertices; 0 means 100,000.
	Nodes int
	// Classes is the number of classes, >= 2; 0 means 10.
	Classes int
	// AvgDegree is the average number of generated edge ends per node
	// (before duplicates are dropped); 0 means 15.
	AvgDegree float64
	// Exponent is the power-law exponent of the degree distribution, > 2;
	// 0 means 2.5.
	Exponent float64
	// Homophily is the probability that an edge joins two nodes of the same
	// class, in (0, 1]; 0 means 0.8. 1/Classes gives no class signal.
	Homophily float64
	// Features is the feature dimension; 0 means 32.
	Features int
	// Noise is the standard deviation of the feature noise around the class
	// means (whose entries have standard deviation 1); 0 means 3.5.
	Noise float64
	// Split is a split specification (see SplitPlanetoid); "" means the
	// default for the node count.
	Split string
	// Seed seeds everything.
	Seed uint64
	// Threads is the number of goroutines; <= 0 means GOMAXPROCS.
	Threads int
}

// Validate returns an *option.Error naming the first invalid field of o,
// the one PlantedPartition would return, without generating anything.
func (o PlantedPartitionOptions) Validate() error {
	_, err := o.withDefaults()
	return err
}

func (o PlantedPartitionOptions) withDefaults() (PlantedPartitionOptions, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if o.Nodes == 0 {
		o.Nodes = 100_000
	}
	if o.Classes == 0 {
		o.Classes = 10
	}
	if o.Features == 0 {
		o.Features = 32
	}
	def(&o.AvgDegree, 15)
	def(&o.Exponent, 2.5)
	def(&o.Homophily, 0.8)
	def(&o.Noise, 3.5)
	bad := func(field string, v any, want string) (PlantedPartitionOptions, error) {
		return o, option.Errorf("dataset", "PlantedPartitionOptions", field, v, "want %s", want)
	}
	switch {
	case o.Nodes < 2 || o.Nodes > 1<<31-1:
		return bad("Nodes", o.Nodes, "2 to 2^31-1")
	case o.Classes < 2 || o.Classes > o.Nodes:
		return bad("Classes", o.Classes, "2 to Nodes")
	case !(o.AvgDegree > 0) || o.AvgDegree*float64(o.Nodes) > 1<<40:
		return bad("AvgDegree", o.AvgDegree, "> 0 and AvgDegree·Nodes <= 2^40")
	case !(o.Exponent > 2) || math.IsInf(o.Exponent, 0):
		return bad("Exponent", o.Exponent, "> 2")
	case !(o.Homophily > 0 && o.Homophily <= 1):
		return bad("Homophily", o.Homophily, "in (0, 1]")
	case o.Features < 0 || int64(o.Features)*int64(o.Nodes) > 1<<34:
		return bad("Features", o.Features, "> 0 and Features·Nodes <= 2^34")
	case !(o.Noise > 0) || math.IsInf(o.Noise, 0):
		return bad("Noise", o.Noise, "> 0")
	}
	if _, err := parseSplit(o.Split); o.Split != "" && err != nil {
		return o, option.Errorf("dataset", "PlantedPartitionOptions", "Split", fmt.Sprintf("%q", o.Split), "%v", err)
	}
	return o, nil
}

// PlantedPartition returns a labelled synthetic dataset: a symmetric graph
// without self loops or duplicate edges (values 1), Features-dimensional
// Gaussian features, labels and a split. The result is a pure function of
// the options other than Threads. Its large arrays live outside the Go heap
// until Close, as a loaded dataset's do.
func PlantedPartition(opt PlantedPartitionOptions) (*Dataset, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	n, c := o.Nodes, o.Classes
	t := par.Threads(o.Threads)

	// Classes of equal size (within one), assigned in a random order.
	labels := randomPermutation(n, o.Seed, streamPPClass)
	weight := make([]float64, n)
	par.Ranges(n, t, 1, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			labels[v] %= int32(c)
			// Pareto weight with P(w > x) = x^-(Exponent-1), x >= 1.
			weight[v] = math.Pow(unit(hash3(o.Seed, streamPPWeight, uint64(v))), -1/(o.Exponent-1))
		}
	})
	// Cap expected degrees at sqrt(sum of degrees), the usual Chung-Lu
	// bound that keeps edge probabilities below 1 (it trims the few largest
	// hubs only).
	total := 0.0
	for _, w := range weight {
		total += w
	}
	ends := o.AvgDegree * float64(n)
	capW := math.Sqrt(ends) * total / ends
	for v, w := range weight {
		weight[v] = min(w, capW)
	}
	all, byClass := newWeightTables(labels, weight, c)

	m := int(o.AvgDegree * float64(n) / 2)
	src, dst := make([]int32, m), make([]int32, m)
	key := newKey(o.Seed, streamPPEdge)
	par.Ranges(m, t, 1, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			base := 4 * uint64(k)
			u := all.pick(unit(key.at(base)))
			cu := int(labels[u])
			cv := cu
			if unit(key.at(base+1)) >= o.Homophily {
				// Uniform over the other classes.
				cv = (cu + 1 + int(key.at(base+2)%uint64(c-1))) % c
			}
			src[k], dst[k] = u, byClass[cv].pick(unit(key.at(base+3)))
		}
	})
	adj, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{
		Symmetrize: true, Duplicates: spgemm.DropDuplicates, DropSelfLoops: true, Threads: t,
	})
	if err != nil {
		return nil, err
	}

	f := o.Features
	means := make([]float64, c*f)
	meanKey, featKey := newKey(o.Seed, streamPPMean), newKey(o.Seed, streamPPFeature)
	for i := 0; i < len(means); i += 2 {
		a, b := normalPair(meanKey, uint64(i/2))
		means[i] = a
		if i+1 < len(means) {
			means[i+1] = b
		}
	}
	feats := make([]float32, n*f)
	pairs := (f + 1) / 2
	par.Ranges(n, t, 1, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			mu := means[int(labels[v])*f:][:f]
			x := feats[v*f:][:f]
			for j := 0; j < f; j += 2 {
				a, b := normalPair(featKey, uint64(v*pairs+j/2))
				x[j] = float32(mu[j] + o.Noise*a)
				if j+1 < f {
					x[j+1] = float32(mu[j+1] + o.Noise*b)
				}
			}
		}
	})
	d := &Dataset{
		Name: fmt.Sprintf("planted-n%d-c%d-h%g", n, c, o.Homophily),
		Adj:  adj, Features: feats, NumFeatures: f, Labels: labels, NumClasses: c,
	}
	if err := applySplit(d, o.Split, o.Seed); err != nil {
		return nil, fmt.Errorf("dataset: PlantedPartition: %w", err)
	}
	d.settle(t, false) // as a loaded dataset: Close releases it
	return d, nil
}

// weightTable draws a node in proportion to its weight by binary search in
// the prefix sums of the weights.
type weightTable struct {
	nodes []int32
	cum   []float64 // cum[i] = sum of the weights of nodes[:i+1]
}

func (t *weightTable) pick(u float64) int32 {
	x := u * t.cum[len(t.cum)-1]
	i, _ := slices.BinarySearch(t.cum, x)
	return t.nodes[min(i, len(t.nodes)-1)]
}

// newWeightTables returns the table over all nodes and one per class.
func newWeightTables(labels []int32, weight []float64, classes int) (weightTable, []weightTable) {
	all := weightTable{nodes: make([]int32, len(labels)), cum: make([]float64, len(labels))}
	by := make([]weightTable, classes)
	s := 0.0
	for v, w := range weight {
		s += w
		all.nodes[v], all.cum[v] = int32(v), s
		t := &by[labels[v]]
		prev := 0.0
		if len(t.cum) > 0 {
			prev = t.cum[len(t.cum)-1]
		}
		t.nodes = append(t.nodes, int32(v))
		t.cum = append(t.cum, prev+w)
	}
	return all, by
}
