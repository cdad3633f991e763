package gnn_test

import (
	"fmt"
	"log"
	"math"

	"github.com/bulksample/bulksample/gnn"
)

func ExampleCrossEntropy() {
	// Two seeds, two classes; the second seed is unlabelled.
	logits := []float32{0, float32(math.Log(3)), 5, 1}
	labels := []int32{1, -1}
	d := make([]float32, len(logits))
	loss, correct, labelled := gnn.CrossEntropy(d, logits, 2, labels)
	fmt.Printf("loss %.4f (ln 4/3), %d of %d correct, gradient %.2f\n", loss, correct, labelled, d)
	// Output: loss 0.2877 (ln 4/3), 1 of 1 correct, gradient [0.25 -0.25 0.00 0.00]
}

func ExampleAdam_Step() {
	adam, err := gnn.NewAdam(2, gnn.AdamOptions{LR: 0.1})
	if err != nil {
		log.Fatal(err)
	}
	params := []float32{1, 1}
	adam.Step(params, []float32{0.5, -20}) // Adam's first step is lr·sign(gradient)
	fmt.Printf("%.2f\n", params)
	// Output: [0.90 1.10]
}

func ExampleNewModel() {
	m, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: 2, Hidden: 16, InFeatures: 10, Classes: 3})
	if err != nil {
		log.Fatal(err)
	}
	// Layer 1: W_self and W_neigh 10x16, bias 16 (336); layer 2: 16x3 twice, bias 3 (99).
	fmt.Println(m.NumLayers(), "layers,", len(m.Params()), "parameters")
	// Output: 2 layers, 435 parameters
}
