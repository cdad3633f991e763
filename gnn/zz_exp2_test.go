package gnn

import (
	"fmt"
	"os"
	"testing"

	"github.com/bulksample/bulksample/sampling"
)

func TestZZCurve(t *testing.T) {
	name := os.Getenv("EXP_DATA")
	if name == "" || os.Getenv("EXP_CURVE") == "" {
		t.Skip()
	}
	ds := loadShared(t, name)
	f := ds.NumFeatures
	for v := 0; v < ds.NumNodes(); v++ {
		row := ds.Features[v*f : (v+1)*f]
		var s float32
		for _, x := range row { s += x }
		if s > 0 { for j := range row { row[j] /= s } }
	}
	s, _ := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{10, 10}, Seed: 1000})
	res := train(t, ds, s, TrainOptions{Arch: SAGE, Hidden: 64, Dropout: 0.5, BatchSize: 64, BulkSize: 4, Epochs: 30, Threads: 1, Adam: AdamOptions{LR: 0.01, WeightDecay: 5e-4}})
	for _, e := range res.Epochs {
		fmt.Printf("%d loss %.3f train %.3f val %.3f test %.3f  %+v\n", e.Epoch, e.Loss, e.TrainAcc, e.ValAcc, e.TestAcc, e.Phases)
	}
}
