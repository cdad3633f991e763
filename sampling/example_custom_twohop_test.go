package sampling_test

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// twoHopSampler is a custom random-walk-style sampler written only with
// the building blocks of package sampling: each frontier vertex u draws up
// to fanout distinct two-hop neighbours v with probability proportional to
// the number of two-step walks u → w → v, from P = (Q·A)·A. The block's
// values are those walk counts. The products are formed in that order, so
// that a bulk costs the two-hop neighbourhoods of its frontier, never A·A
// of the whole graph (BenchmarkTwoHopRowsFirst: 51 MB allocated against
// 3.2 GB for R-MAT 16): P holds the same values either way
// (TestTwoHopOrders).
type twoHopSampler struct {
	a       *spgemm.CSR
	fanouts []int
	stream  sampling.Stream
}

func newTwoHopSampler(a *spgemm.CSR, fanouts []int, seed uint64) *twoHopSampler {
	return &twoHopSampler{a: a, fanouts: fanouts, stream: sampling.NewStream(seed)}
}

func (s *twoHopSampler) NumLayers() int { return len(s.fanouts) }

func (s *twoHopSampler) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	bulk := &sampling.Bulk{First: first, SeedStart: []int{0}}
	for _, sd := range seeds {
		bulk.Seeds = append(bulk.Seeds, sd...)
		bulk.SeedStart = append(bulk.SeedStart, len(bulk.Seeds))
	}
	frontiers := seeds
	for l, fanout := range s.fanouts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// P = (Q·A)·A, one row per frontier entry: the frontier's rows of
		// A, then their neighbours' rows.
		qa := spgemm.Mul(sampling.QPerEntry(frontiers, s.a.Rows), s.a, nil)
		p := spgemm.Mul(qa, s.a, nil)
		var keys []sampling.RowKey
		for m, f := range frontiers {
			for _, v := range f {
				keys = append(keys, s.stream.Row(epoch, first+m, l, v))
			}
		}
		sel := sampling.SelectPerRow(p, keys, fanout, sampling.SelectOptions{Weighted: true})
		rows := make([][]int32, len(frontiers))
		srcs := make([][]int32, len(frontiers))
		r := 0
		for m, f := range frontiers {
			for range f {
				rows[m] = append(rows[m], int32(r))
				r++
			}
			srcs[m] = sampling.NextFrontier(f, sel, r-len(f), r)
		}
		bulk.Layers = append(bulk.Layers, *sampling.Extract(sel, rows, srcs, 0, 0))
		frontiers = srcs
	}
	return bulk, nil
}

// Example_twoHopSampler samples two-hop neighbours on the path
// 0 - 1 - 2 - 3 - 4 - 5. From vertex 0 the two-step walks end at 0 (once)
// and 2 (once); from vertex 3 at 1 (once), 3 (twice) and 5 (once). With a
// budget of 3 per seed every two-hop neighbour is taken; with a budget of 1
// the walk-count law picks vertex 3 from itself half of the time.
func Example_twoHopSampler() {
	src := []int32{0, 1, 2, 3, 4}
	dst := []int32{1, 2, 3, 4, 5}
	a, err := spgemm.FromCOO(6, 6, src, dst, nil, &spgemm.COOOptions{Symmetrize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	var sampler sampling.Sampler = newTwoHopSampler(a, []int{3}, 1)
	bulk, err := sampler.SampleBulk(context.Background(), 0, 0, [][]int32{{0}, {3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for m := range bulk.Len() {
		b := bulk.Minibatch(m).Blocks[0]
		fmt.Printf("seeds %v: sources %v, walk counts %v\n", b.Dst(), b.Src, exampleDense(&b.Adj))
	}

	one := newTwoHopSampler(a, []int{1}, 2)
	const trials = 20000
	seeds := make([][]int32, trials)
	for m := range seeds {
		seeds[m] = []int32{3}
	}
	bulk, err = one.SampleBulk(context.Background(), 0, 0, seeds)
	if err != nil {
		fmt.Println(err)
		return
	}
	self := 0
	for m := range trials {
		b := bulk.Minibatch(m).Blocks[0]
		if idx, _ := b.Adj.Row(0); b.Src[idx[0]] == 3 {
			self++
		}
	}
	fmt.Printf("vertex 3 drew itself in %.1f of %d minibatches\n", float64(self)/trials, trials)
	// Output:
	// seeds [0]: sources [0 2], walk counts [[1 1]]
	// seeds [3]: sources [3 1 5], walk counts [[2 1 1]]
	// vertex 3 drew itself in 0.5 of 20000 minibatches
}
