package dataset

import (
	"math"
	"reflect"
	"testing"

	"github.com/bulksample/bulksample/internal/option"
)

func TestPlantedPartitionSmall(t *testing.T) {
	opt := PlantedPartitionOptions{Nodes: 2000, Classes: 4, AvgDegree: 10, Features: 5, Seed: 3, Threads: 1}
	d, err := PlantedPartition(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.NumNodes() != 2000 || d.NumClasses != 4 || d.NumFeatures != 5 {
		t.Fatalf("got %d nodes, %d classes, %d features", d.NumNodes(), d.NumClasses, d.NumFeatures)
	}
	sizes := make([]int, 4)
	for _, l := range d.Labels {
		sizes[l]++
	}
	for c, s := range sizes {
		if s != 500 {
			t.Errorf("class %d has %d nodes, want 500", c, s)
		}
	}
	// Planetoid split by default below 100,000 nodes.
	if len(d.Train) != 80 || len(d.Valid) != 500 || len(d.Test) != 1000 {
		t.Errorf("split %d/%d/%d, want 80/500/1000", len(d.Train), len(d.Valid), len(d.Test))
	}
	for _, threads := range []int{2, 5} {
		opt.Threads = threads
		e, err := PlantedPartition(opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d, e) {
			t.Fatalf("threads %d: dataset differs from 1 thread", threads)
		}
	}
}

func TestPlantedPartitionErrors(t *testing.T) {
	for _, o := range []PlantedPartitionOptions{
		{Nodes: 1}, {Classes: 1}, {Homophily: 1.5}, {Exponent: 1.5}, {AvgDegree: -1}, {Noise: -1}, {Split: "bogus"},
	} {
		_, err := PlantedPartition(o)
		if err == nil {
			t.Errorf("%+v: no error", o)
			continue
		}
		if f, oe := option.Field(err); oe == nil || f == "" {
			t.Errorf("%+v: %v is not an *option.Error naming a field", o, err)
		}
	}
}

// TestPlantedPartitionSignal measures what the defaults promise: a
// nearest-class-mean classifier (the Bayes-optimal linear rule for these
// isotropic Gaussian classes, so a stand-in for logistic regression) is far
// better on features averaged over the closed 1-hop neighbourhood than on
// the features alone; also the homophily and the degree skew.
func TestPlantedPartitionSignal(t *testing.T) {
	opt := PlantedPartitionOptions{Seed: 1}
	if testing.Short() {
		// Fewer nodes, with the split the default size gets.
		opt.Nodes, opt.Split = 20_000, "random:0.1,0.05,0.85"
	}
	d, err := PlantedPartition(opt)
	if err != nil {
		t.Fatal(err)
	}
	n, f, a := d.NumNodes(), d.NumFeatures, d.Adj
	agg := make([]float32, n*f)
	same, maxDeg := 0, 0
	for v := range n {
		idx, _ := a.Row(v)
		maxDeg = max(maxDeg, len(idx))
		row := agg[v*f:][:f]
		copy(row, d.Features[v*f:][:f])
		for _, u := range idx {
			if d.Labels[u] == d.Labels[v] {
				same++
			}
			for j, x := range d.Features[int(u)*f:][:f] {
				row[j] += x
			}
		}
		for j := range row {
			row[j] /= float32(len(idx) + 1)
		}
	}
	meanDeg := float64(a.NNZ()) / float64(n)
	homophily := float64(same) / float64(a.NNZ())
	featAcc := nearestMeanAccuracy(d, d.Features)
	aggAcc := nearestMeanAccuracy(d, agg)
	t.Logf("n=%d: mean degree %.1f, max degree %d, edge homophily %.3f; nearest-class-mean test accuracy: features %.3f, 1-hop mean %.3f",
		n, meanDeg, maxDeg, homophily, featAcc, aggAcc)
	if math.Abs(homophily-0.8) > 0.03 {
		t.Errorf("edge homophily %.3f, want 0.8 ± 0.03", homophily)
	}
	if meanDeg < 12 || meanDeg > 15 || float64(maxDeg) < 10*meanDeg {
		t.Errorf("mean degree %.1f (want 12 to 15), max %d (want a heavy tail)", meanDeg, maxDeg)
	}
	if featAcc < 0.45 || featAcc > 0.65 {
		t.Errorf("features-only accuracy %.3f outside [0.45, 0.65]", featAcc)
	}
	if aggAcc < featAcc+0.2 {
		t.Errorf("1-hop mean accuracy %.3f is not 20 points above features-only %.3f", aggAcc, featAcc)
	}
}

// nearestMeanAccuracy fits class means on d.Train rows of x and returns the
// accuracy of the nearest mean on d.Test.
func nearestMeanAccuracy(d *Dataset, x []float32) float64 {
	f, c := d.NumFeatures, d.NumClasses
	mean := make([]float64, c*f)
	cnt := make([]float64, c)
	for _, v := range d.Train {
		l := int(d.Labels[v])
		cnt[l]++
		for j, xv := range x[int(v)*f:][:f] {
			mean[l*f+j] += float64(xv)
		}
	}
	for l := range c {
		for j := range f {
			mean[l*f+j] /= cnt[l]
		}
	}
	right := 0
	for _, v := range d.Test {
		best, arg := math.Inf(1), -1
		for l := range c {
			s := 0.0
			for j, xv := range x[int(v)*f:][:f] {
				e := float64(xv) - mean[l*f+j]
				s += e * e
			}
			if s < best {
				best, arg = s, l
			}
		}
		if arg == int(d.Labels[v]) {
			right++
		}
	}
	return float64(right) / float64(len(d.Test))
}
