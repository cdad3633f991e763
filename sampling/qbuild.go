package sampling

import (
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// QPerEntry returns the node-wise selection matrix Q of docs/design.md 3.1 step 1
// for the frontiers of k minibatches: one row per frontier entry, the rows
// of frontiers[0] first, each with a single 1 at the entry's vertex; it has
// n columns. Q·A gathers the adjacency rows of every frontier entry. It
// panics with an spgemm.IndexError if a vertex is outside [0, n).
func QPerEntry(frontiers [][]int32, n int) *spgemm.CSR {
	rows := 0
	for _, f := range frontiers {
		rows += len(f)
	}
	q := &spgemm.CSR{
		Rows:    rows,
		Cols:    n,
		Indptr:  make([]int64, rows+1),
		Indices: make([]int32, 0, rows),
		Data:    make([]float32, rows),
	}
	for _, f := range frontiers {
		for _, v := range f {
			if uint32(v) >= uint32(n) {
				panic(indexError("QPerEntry", int(v), n))
			}
			q.Indices = append(q.Indices, v)
			q.Indptr[len(q.Indices)] = int64(len(q.Indices))
		}
	}
	for i := range q.Data {
		q.Data[i] = 1
	}
	return q
}

// QPerMinibatch returns the layer-wise selection matrix Q of docs/design.md 3.2
// step 1: one row per minibatch with a 1 at each distinct vertex of its
// frontier (duplicates count once), and n columns. Q·(A∘A) gives LADIES'
// column probabilities. It panics with an spgemm.IndexError if a vertex is
// outside [0, n).
func QPerMinibatch(frontiers [][]int32, n int) *spgemm.CSR {
	q := &spgemm.CSR{Rows: len(frontiers), Cols: n, Indptr: make([]int64, len(frontiers)+1)}
	for m, f := range frontiers {
		start := len(q.Indices)
		for _, v := range f {
			if uint32(v) >= uint32(n) {
				panic(indexError("QPerMinibatch", int(v), n))
			}
		}
		q.Indices = append(q.Indices, f...)
		row := q.Indices[start:]
		slices.Sort(row)
		q.Indices = q.Indices[:start+len(slices.Compact(row))]
		q.Indptr[m+1] = int64(len(q.Indices))
	}
	q.Data = make([]float32, len(q.Indices))
	for i := range q.Data {
		q.Data[i] = 1
	}
	return q
}
