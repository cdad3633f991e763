package train_test

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

// exampleOptions train a 2-layer GraphSAGE for 10 epochs on minibatches of
// 64 seeds, sampled 10 and 5 neighbours deep.
func exampleOptions() train.Options {
	return train.Options{
		Sampler: sampling.SamplerOptions{Fanouts: []int{10, 5}},
		Trainer: train.TrainerOptions{
			Model:   train.ModelOptions{Arch: gnn.SAGE, Hidden: 32},
			Plan:    train.PlanOptions{BatchSize: 64, BulkSize: 4, Epochs: 10},
			Seed:    1,
			Runtime: train.RuntimeOptions{Threads: 1},
		},
	}
}

// exampleData is a labelled planted-partition graph of 2,000 vertices.
func exampleData() *dataset.Dataset {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 2000, Classes: 4, Features: 8, Seed: 7})
	if err != nil {
		panic(err)
	}
	return ds
}

// Training on one process: options, New, Run.
func ExampleNew() {
	job, err := train.New(exampleData(), exampleOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := job.Trainer.Run(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d epochs on %d vertices; test accuracy above 0.5: %v\n", len(res.Epochs), job.Info.Nodes, res.TestAcc > 0.5)
	// Output:
	// 10 epochs on 2000 vertices; test accuracy above 0.5: true
}

// Data-parallel training on 4 in-process ranks (goroutines; under MPI the
// same rank program runs once per process on dist.NewMPIWorld's
// communicator, each rank reading its blocks of a file with train.Path):
// the graph's rows are cut into 2 blocks, each held by 2 ranks
// (replication 2); every rank samples and trains its part of every
// minibatch, fetching remote rows and features from their owners, and the
// gradients' all-reduce keeps the 4 replicas of the model identical.
func ExampleNewDist() {
	ds := exampleData() // every rank's (a generated dataset); train.Path reads blocks of a file
	opt := exampleOptions()
	opt.Dist.Replication = 2
	var line string
	err := dist.RunInProc(context.Background(), 4, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		job, err := train.NewDist(ctx, w, train.Whole(ds), opt)
		if err != nil {
			return err
		}
		defer job.Close()
		res, err := job.Trainer.Run(ctx, nil)
		if err != nil {
			return err
		}
		if err := job.CheckReplicas(ctx); err != nil {
			return err
		}
		if w.Rank() == 0 {
			lo, hi := job.Grid.MyRows()
			line = fmt.Sprintf("%d ranks, rank 0 holds rows [%d, %d) and fetches by %s; %d epochs; test accuracy above 0.5: %v",
				job.Grid.Size(), lo, hi, job.Dist.Fetch, len(res.Epochs), res.TestAcc > 0.5)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(line)
	// Output:
	// 4 ranks, rank 0 holds rows [0, 1000) and fetches by auto; 10 epochs; test accuracy above 0.5: true
}
