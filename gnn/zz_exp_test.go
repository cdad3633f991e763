package gnn

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/sampling"
)

func TestZZExp(t *testing.T) {
	name := os.Getenv("EXP_DATA")
	if name == "" {
		t.Skip()
	}
	ds := loadShared(t, name)
	if os.Getenv("EXP_NORM") == "1" {
		f := ds.NumFeatures
		for v := 0; v < ds.NumNodes(); v++ {
			row := ds.Features[v*f : (v+1)*f]
			var s float32
			for _, x := range row { s += x }
			if s > 0 { for j := range row { row[j] /= s } }
		}
	}
	atoi := func(k string, d int) int { if v := os.Getenv(k); v != "" { n, _ := strconv.Atoi(v); return n }; return d }
	atof := func(k string, d float64) float64 { if v := os.Getenv(k); v != "" { n, _ := strconv.ParseFloat(v, 64); return n }; return d }
	var fan []int
	for _, s := range strings.Split(os.Getenv("EXP_FAN"), ",") { n, _ := strconv.Atoi(s); fan = append(fan, n) }
	accs := []float64{}
	start := time.Now()
	for seed := range uint64(5) {
		s, _ := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: fan, Seed: 1000 + seed})
		res := train(t, ds, s, TrainOptions{Arch: Arch(atoi("EXP_ARCH", 0)), Hidden: atoi("EXP_H", 64), Dropout: float32(atof("EXP_DROP", 0.5)), BatchSize: atoi("EXP_B", 64), BulkSize: 4,
			Epochs: atoi("EXP_E", 20), Seed: seed, Threads: atoi("EXP_T", 0), Adam: AdamOptions{LR: atof("EXP_LR", 0.01), WeightDecay: atof("EXP_WD", 5e-4)}})
		accs = append(accs, res.TestAcc)
		fmt.Printf("seed %d test %.3f best epoch %d\n", seed, res.TestAcc, res.BestEpoch)
	}
	slices.Sort(accs)
	fmt.Printf("MEDIAN %.3f %v in %v\n", accs[2], accs, time.Since(start))
}
