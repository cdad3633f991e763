package featurex_test

import (
	"context"
	"fmt"
	"log"

	"github.com/bulksample/bulksample/featurex"
)

func ExampleLocal_Gather() {
	// Three vertices with two features each.
	features := []float32{0.0, 0.1, 1.0, 1.1, 2.0, 2.1}
	store, err := featurex.NewLocal(features, 2, featurex.LocalOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ids := []int32{2, 0} // a minibatch's deduplicated input vertices
	x := make([]float32, len(ids)*store.NumFeatures())
	if err := store.Gather(context.Background(), x, ids); err != nil {
		log.Fatal(err)
	}
	fmt.Println(x)
	// An id that is not a vertex of the store is an error, not a panic.
	fmt.Println(store.Gather(context.Background(), x[:2], []int32{7}))
	// Output:
	// [2 2.1 0 0.1]
	// featurex: gather: ids[0] = 7 is not a vertex of the feature store (n = 3)
}

func ExampleLabels() {
	labels := []int32{7, 8, 9}
	y := make([]int32, 2)
	featurex.Labels(y, labels, []int32{2, 0})
	fmt.Println(y)
	// Output: [9 7]
}
