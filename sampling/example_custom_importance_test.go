package sampling_test

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// importanceSampler is a custom node-wise sampler written only with the
// building blocks of package sampling: each frontier vertex draws up to
// fanout neighbours without replacement with probability proportional to a
// per-vertex importance w, i.e. from P = Q·A·diag(w).
type importanceSampler struct {
	a       *spgemm.CSR
	diagW   *spgemm.CSR // diag(w)
	fanouts []int
	stream  sampling.Stream
}

func newImportanceSampler(a *spgemm.CSR, w []float32, fanouts []int, seed uint64) *importanceSampler {
	n := a.Rows
	d := &spgemm.CSR{Rows: n, Cols: n, Indptr: make([]int64, n+1), Indices: make([]int32, n), Data: w}
	for v := range n {
		d.Indptr[v+1], d.Indices[v] = int64(v+1), int32(v)
	}
	return &importanceSampler{a: a, diagW: d, fanouts: fanouts, stream: sampling.NewStream(seed)}
}

func (s *importanceSampler) NumLayers() int { return len(s.fanouts) }

func (s *importanceSampler) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
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
		// P = Q·A·diag(w): one row per frontier entry.
		q := sampling.QPerEntry(frontiers, s.a.Rows)
		p := spgemm.Mul(spgemm.Mul(q, s.a, nil), s.diagW, nil)
		// Each row draws from its own stream row, so a minibatch's
		// sample does not depend on the bulk it is in.
		var keys []sampling.RowKey
		for m, f := range frontiers {
			for _, v := range f {
				keys = append(keys, s.stream.Row(epoch, first+m, l, v))
			}
		}
		sel := sampling.SelectPerRow(p, keys, fanout, sampling.SelectOptions{Weighted: true})
		// Column extraction of the selected entries: minibatch m's rows of
		// sel, relabelled to its sources F_l followed by the new vertices.
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
		la := sampling.Extract(sel, rows, srcs, 0, 0)
		bulk.Layers = append(bulk.Layers, *la)
		frontiers = srcs
	}
	return bulk, nil
}

// Example_importanceSampler samples neighbours with probability
// proportional to a user-given per-vertex importance. Vertices of
// importance 0 are never drawn; with one draw per seed, vertex 2
// (importance 5) is chosen over vertex 4 (importance 1) about 5/6 of the
// time.
func Example_importanceSampler() {
	// A star: vertex 0 is linked to 1, 2, 3 and 4; 4 is also linked to 5.
	edges := [][2]int32{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {4, 5}}
	var src, dst []int32
	for _, e := range edges {
		src, dst = append(src, e[0]), append(dst, e[1])
	}
	a, err := spgemm.FromCOO(6, 6, src, dst, nil, &spgemm.COOOptions{Symmetrize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	w := []float32{1, 0, 5, 0, 1, 2}

	var sampler sampling.Sampler = newImportanceSampler(a, w, []int{2, 3}, 42)
	bulk, err := sampler.SampleBulk(context.Background(), 0, 0, [][]int32{{0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	mb := bulk.Minibatch(0)
	for l, b := range mb.Blocks {
		fmt.Printf("layer %d: sources %v, block %v\n", l, b.Src, exampleDense(&b.Adj))
	}

	// One draw per seed over many minibatches: the share of vertex 2.
	one := newImportanceSampler(a, w, []int{1}, 7)
	const trials = 20000
	seeds := make([][]int32, trials)
	for m := range seeds {
		seeds[m] = []int32{0}
	}
	bulk, err = one.SampleBulk(context.Background(), 0, 0, seeds)
	if err != nil {
		fmt.Println(err)
		return
	}
	twos := 0
	for m := range trials {
		if b := bulk.Minibatch(m).Blocks[0]; b.Src[len(b.Src)-1] == 2 {
			twos++
		}
	}
	fmt.Printf("vertex 2 drawn in %.2f of %d minibatches\n", float64(twos)/trials, trials)
	// Output:
	// layer 0: sources [0 2 4], block [[0 5 1]]
	// layer 1: sources [0 2 4 5], block [[0 5 1 0] [1 0 0 0] [1 0 0 2]]
	// vertex 2 drawn in 0.83 of 20000 minibatches
}

// exampleDense returns m as nested slices, for printing.
func exampleDense(m *spgemm.CSR) [][]float32 {
	d := make([][]float32, m.Rows)
	for i := range d {
		d[i] = make([]float32, m.Cols)
		idx, val := m.Row(i)
		for p, j := range idx {
			d[i][j] = val[p]
		}
	}
	return d
}
