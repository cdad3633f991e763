package featurex_test

import (
	"fmt"

	"github.com/bulksample/bulksample/featurex"
)

func ExampleGather() {
	// Three vertices with two features each, and the labels of the vertices.
	features := []float32{0.0, 0.1, 1.0, 1.1, 2.0, 2.1}
	labels := []int32{7, 8, 9}
	ids := []int32{2, 0} // a minibatch's deduplicated input vertices

	x := make([]float32, len(ids)*2)
	featurex.Gather(x, features, 2, ids)
	y := make([]int32, len(ids))
	featurex.Labels(y, labels, ids)
	fmt.Println(x, y)
	// Output: [2 2.1 0 0.1] [9 7]
}
