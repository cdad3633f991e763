package sampling

import (
	"context"

	"github.com/bulksample/bulksample/spgemm"
)

// RowSource supplies the adjacency rows that the node-wise product
// P = Q·A gathers (DESIGN.md 3.1 step 2). A local graph is a CSRRows; the
// distributed sampler supplies rows fetched from the ranks that own them
// (DESIGN.md section 4) through the same interface, so it reuses the
// sampling code unchanged.
//
// Row must be safe for concurrent use. The rows it returns are read, never
// modified, and must keep the CSR invariant: column ids sorted ascending and
// unique, in [0, NumVertices()).
type RowSource interface {
	// NumVertices returns n: A is n x n.
	NumVertices() int
	// Row returns the column ids and values of row v, 0 <= v < n.
	Row(v int32) (cols []int32, vals []float32)
}

// RowFetcher is implemented by a RowSource whose rows must be brought in
// (from other ranks) before they can be read. The node-wise sampler calls
// FetchRows once per layer and group of minibatches with the distinct
// vertices whose rows that group reads at that layer, and reads none of
// them before it returns. An error ends the sampling of the bulk.
type RowFetcher interface {
	FetchRows(ctx context.Context, vertices []int32) error
}

// DegreeSource is implemented by a RowSource that can report the degree of
// any vertex: the length of its row of A (its number of entries, whatever
// their values). NodeWise needs it when NodeWiseOptions.Degrees is set, to
// attach to every block the degrees of its source vertices (Block.Deg),
// which GCN normalises with; NewNodeWiseFrom refuses a source without it
// then. A CSRRows is one.
//
// NodeWise calls Degrees once per SampleBulk, after every row the bulk reads
// has been read, from one goroutine, with the distinct input vertices of
// the bulk's minibatches (the sources of their last blocks, each in
// [0, NumVertices())), in no particular order; most of them are vertices
// whose rows the sampler has not read (the last layer's new sources). A
// distributed source asks the ranks that own them (an all-to-all of the ids
// and of the lengths back, inside the process column); it must not assume
// that their rows were fetched. An error ends the sampling of the bulk.
type DegreeSource interface {
	// Degrees sets deg[i] to the length of row vertices[i] of A for every
	// i; len(deg) == len(vertices).
	Degrees(ctx context.Context, vertices []int32, deg []int32) error
}

// CSRRows is the RowSource of a local adjacency matrix held in memory.
type CSRRows struct {
	A *spgemm.CSR
}

// NumVertices returns A.Rows.
func (c CSRRows) NumVertices() int { return c.A.Rows }

// Row returns views of row v of A. It panics with an spgemm.IndexError if v
// is out of range.
func (c CSRRows) Row(v int32) ([]int32, []float32) { return c.A.Row(int(v)) }

// Degrees sets deg[i] to the length of row vertices[i] of A. It panics with
// an spgemm.IndexError if a vertex is out of range.
func (c CSRRows) Degrees(_ context.Context, vertices []int32, deg []int32) error {
	if len(deg) != len(vertices) {
		panic(spgemm.ShapeError{Op: "CSRRows.Degrees", ARows: len(vertices), ACols: 1, BRows: len(deg), BCols: 1})
	}
	for i, v := range vertices {
		if uint32(v) >= uint32(c.A.Rows) {
			panic(spgemm.IndexError{Op: "CSRRows.Degrees", Index: int(v), Len: c.A.Rows})
		}
		deg[i] = int32(c.A.Indptr[v+1] - c.A.Indptr[v])
	}
	return nil
}
