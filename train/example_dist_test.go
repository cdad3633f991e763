package train_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/train"
)

// Two ranks split a global minibatch of 5 seeds (parts of 2 and 3), each
// computes the gradient of its part's mean loss, and one all-reduce turns
// them into the gradient of the whole minibatch's mean loss: the
// labelled-count-weighted average.
func ExampleDataParallel() {
	world, err := dist.NewInProcWorld(2, dist.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	seeds := []int32{10, 11, 12, 13, 14}
	grads := [][]float32{{1, 2}, {4, -1}} // each rank's mean-loss gradient
	out := make([]string, 2)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			dp := train.NewDataParallel(c)
			part := dp.Shard(seeds)
			m := train.StepMetrics{LossSum: 0.5 * float64(len(part)), Labelled: int64(len(part))}
			g := grads[r]
			if err := dp.Reduce(context.Background(), g, &m); err != nil {
				out[r] = err.Error()
				return
			}
			out[r] = fmt.Sprintf("rank %d: part %v, gradient %v, labelled %d, loss %.2f", r, part, g, m.Labelled, m.LossSum/float64(m.Labelled))
		})
	}
	wg.Wait()
	for _, s := range out {
		fmt.Println(s)
	}
	// Output:
	// rank 0: part [10 11], gradient [2.8 0.2], labelled 5, loss 0.50
	// rank 1: part [12 13 14], gradient [2.8 0.2], labelled 5, loss 0.50
}
