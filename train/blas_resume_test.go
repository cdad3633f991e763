package train

import (
	"context"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/gnn"
)

// TestResumeBitIdenticalLargeProducts resumes, in a fresh trainer, a run
// on two threads whose training products are small and whose evaluation
// products (the whole graph's rows) are large enough for the CPU backend to
// split (gemmSplitMinWork), and compares the weights with the uninterrupted
// run's bit for bit. OpenBLAS keeps its thread count per process: when the
// small products ran on whatever count the last caller left (Run's
// --threads, until the first split product pinned it to 1), the first
// epoch of a process trained with other bits than the same epoch later in
// a process, and a resumed run drifted from the uninterrupted one (the CLI
// on synthetic:nodes=20000, under mpirun too). Pure-Go BLAS builds pass
// either way.
func TestResumeBitIdenticalLargeProducts(t *testing.T) {
	ds := smallGraph(t, 4000, 4, 10, 64, 0.8, 0.5, 5)
	ds.Train = ds.Train[:100] // one small minibatch per epoch
	sampler := nodeWise(t, ds, []int{10, 5}, 3)
	opt := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 64}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{LR: 0.01}}, Plan: PlanOptions{BatchSize: 128, BulkSize: 1, Epochs: 3}, Seed: 1, Runtime: RuntimeOptions{Threads: 2}}
	run := func(opt TrainerOptions) []float32 {
		t.Helper()
		tr, err := NewTrainer(dataOf(t, ds, sampler), opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(tr.Model().Params())
	}
	whole := run(opt)

	first := opt
	first.Plan.Epochs, first.Checkpoint.Dir = 1, t.TempDir()
	run(first)
	resumed := first
	resumed.Plan.Epochs, resumed.Checkpoint.Resume = opt.Plan.Epochs, true
	if got := run(resumed); !slices.Equal(got, whole) {
		diff := 0
		for i := range got {
			if got[i] != whole[i] {
				diff++
			}
		}
		t.Errorf("resumed after epoch 1 of %d: %d of %d weights differ from the uninterrupted run's", opt.Plan.Epochs, diff, len(got))
	}
	// The same bits for any thread count (gnn's doc): one thread too.
	one := opt
	one.Runtime.Threads = 1
	if !slices.Equal(run(one), whole) {
		t.Error("one thread gives other weights than two")
	}
}
