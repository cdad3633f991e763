package gnn_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// Train a 2-layer GraphSAGE on a small labelled planted-partition graph with
// node-wise samples, and compare it with the features-only baseline. The
// trainer reads the graph only through its seams: a sampler, a feature
// store, the labels and the split, and an evaluator.
func ExampleTrainer_Run() {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 4000, Classes: 4, Split: "random:0.2,0.2,0.6", Seed: 7})
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{10, 10}, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		log.Fatal(err)
	}
	data := gnn.Data{
		Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test,
		Evaluator: &gnn.FullNeighbour{Adj: ds.Adj, Features: ds.Features},
	}
	opt := gnn.TrainOptions{Model: gnn.TrainModel{Arch: gnn.SAGE, Hidden: 32, Dropout: 0.5}, Plan: gnn.TrainPlan{BatchSize: 128, BulkSize: 8, Epochs: 5}, Seed: 1}
	tr, err := gnn.NewTrainer(data, opt)
	if err != nil {
		log.Fatal(err)
	}
	sage, err := tr.Run(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}

	opt.Model.Arch, opt.Model.Dropout, opt.Plan.Epochs = gnn.Linear, 0, 30
	data.Sampler = gnn.SeedsOnly{}
	tr, err = gnn.NewTrainer(data, opt)
	if err != nil {
		log.Fatal(err)
	}
	linear, err := tr.Run(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("epochs:", len(sage.Epochs))
	fmt.Println("GraphSAGE beats the features-only model by 10 points:", sage.TestAcc > linear.TestAcc+0.1)
	// Output:
	// epochs: 5
	// GraphSAGE beats the features-only model by 10 points: true
}

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
