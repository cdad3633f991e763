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

// CSRRows is the RowSource of a local adjacency matrix held in memory.
type CSRRows struct {
	A *spgemm.CSR
}

// NumVertices returns A.Rows.
func (c CSRRows) NumVertices() int { return c.A.Rows }

// Row returns views of row v of A. It panics with an spgemm.IndexError if v
// is out of range.
func (c CSRRows) Row(v int32) ([]int32, []float32) { return c.A.Row(int(v)) }
