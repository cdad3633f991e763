package sampling

import (
	"context"
	"math"

	"github.com/bulksample/bulksample/spgemm"
)

// RowSource supplies the adjacency rows that the node-wise product
// P = Q·A gathers (docs/design.md 3.1 step 2). A local graph is a CSRRows; the
// distributed sampler supplies rows fetched from the ranks that own them
// (docs/design.md section 4) through the same interface, so it reuses the
// sampling code unchanged.
//
// Beyond its two methods a source may offer three capabilities, all that
// the samplers ask of it: PackedRows (its rows lie in shared arrays, which
// the uniform kernel reads in a loop of independent loads), DegreeSource
// (it reports any row's length, for NodeWiseOptions.Degrees) and
// RemoteRows (its rows live in other processes and must be brought in;
// the samplers' remote paths serve only such a source).
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

// CSRRows is the RowSource of a local adjacency matrix held in memory. It
// is also PackedRows and a DegreeSource.
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

// RowSpan returns where row v starts in A.Indices and its degree.
func (c CSRRows) RowSpan(v int32) (int64, int32) {
	return c.A.Indptr[v], int32(c.A.Indptr[v+1] - c.A.Indptr[v])
}

// Packed returns A.Indices and A.Data, all rows in one pair of arrays.
func (c CSRRows) Packed() PackedArrays {
	return PackedArrays{Ind: c.A.Indices, Val: c.A.Data, Base: math.MaxInt64}
}

// PackedRows is an optional capability of a RowSource whose rows lie in
// shared packed arrays, as a CSR's do: row v is the span of RowSpan(v) in
// the arrays of Packed. The node-wise sampler's uniform kernel then draws
// every row's positions from the degrees alone and gathers the column ids
// afterwards, in a loop of independent loads. A local CSR (CSRRows) and
// the rows a distributed source holds and has fetched (DistRows) both
// provide it.
type PackedRows interface {
	RowSource
	// RowSpan returns where row v starts in the packed arrays and its
	// length. For a RemoteRows, only rows local or fetched by the last
	// FetchRows.
	RowSpan(v int32) (start int64, deg int32)
	// Packed returns the packed arrays; values may be nil when the
	// sampler does not read them (unweighted). A RemoteRows' arrays may
	// change with each FetchRows: the sampler calls Packed after it.
	Packed() PackedArrays
}

// PackedArrays are the arrays of a PackedRows: a span (start, deg) of
// RowSpan lies in Ind and Val at start when start < Base, and in FarInd
// and FarVal at start - Base otherwise (a distributed source's own block
// and the rows it fetched, kept apart so that the block is read in place
// rather than copied). Val and FarVal are nil when the source does not
// supply values.
type PackedArrays struct {
	Ind    []int32
	Val    []float32
	Base   int64
	FarInd []int32
	FarVal []float32
}

// Row returns the column ids and values (nil when the arrays have none) of
// the span (start, deg).
func (p *PackedArrays) Row(start int64, deg int32) ([]int32, []float32) {
	ind, val := p.Ind, p.Val
	if start >= p.Base {
		ind, val, start = p.FarInd, p.FarVal, start-p.Base
	}
	end := start + int64(deg)
	if val == nil {
		return ind[start:end], nil
	}
	return ind[start:end], val[start:end]
}

// Cols returns the column ids of the span (start, deg).
func (p *PackedArrays) Cols(start int64, deg int32) []int32 {
	if start >= p.Base {
		return p.FarInd[start-p.Base : start-p.Base+int64(deg)]
	}
	return p.Ind[start : start+int64(deg)]
}
