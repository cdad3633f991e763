package sampling

import "github.com/bulksample/bulksample/spgemm"

// Subgraph returns the union of the minibatch's blocks as one square
// matrix over its input nodes (InputNodes, the last block's sources):
// entry (r, c) when some block has it, r and c indexing InputNodes. With
// FrontierNew every vertex is expanded in exactly one block, so this is the
// one sampled subgraph per minibatch that PyG's NeighborLoader returns
// (its edge_index, as rows = targets, in the same vertex order: seeds
// first, then by hop). With FrontierAll a vertex is sampled anew at every
// layer; an entry sampled by several blocks has the value of the block
// nearest to the seeds.
func (m *Minibatch) Subgraph() *spgemm.CSR {
	n := len(m.InputNodes())
	var src, dst []int32
	var vals []float32
	for l := range m.Blocks {
		a := &m.Blocks[l].Adj
		for r := range a.Rows {
			cols, v := a.Row(r)
			for i, c := range cols {
				src, dst, vals = append(src, int32(r)), append(dst, c), append(vals, v[i])
			}
		}
	}
	g, err := spgemm.FromCOO(n, n, src, dst, vals, &spgemm.COOOptions{Duplicates: spgemm.KeepFirst, Threads: 1})
	if err != nil {
		// Block entries index their sources, a prefix of the input nodes.
		panic(spgemm.ArgError{Op: "sampling.Subgraph", Msg: err.Error()})
	}
	return g
}
