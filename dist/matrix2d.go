package dist

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// Matrix2D is this rank's block of a Rows x Cols matrix in the 2D layout of
// a square grid (NewSquareGrid): the rank at process row i and column j
// holds the rows RowRange and the columns ColRange of the whole matrix, the
// i-th and j-th of q contiguous, balanced ranges (BlockRange). Local is that
// block with local ids: its row lrow is global row lo+lrow, its column lcol
// global column clo+lcol. Every rank of the grid holds one block with the
// same Rows and Cols.
type Matrix2D struct {
	Grid       *Grid
	Rows, Cols int
	Local      *spgemm.CSR
}

// RowRange returns the global rows [lo, hi) of this rank's block.
func (m *Matrix2D) RowRange() (lo, hi int) { return m.Grid.blockRange2D(m.Rows, true) }

// ColRange returns the global columns [lo, hi) of this rank's block.
func (m *Matrix2D) ColRange() (lo, hi int) { return m.Grid.blockRange2D(m.Cols, false) }

// blockRange2D returns this rank's range of a dimension of length n cut
// over the process rows (rows) or the process columns.
func (g *Grid) blockRange2D(n int, rows bool) (lo, hi int) {
	if rows {
		return BlockRange(n, g.Blocks(), g.ProcRow())
	}
	return BlockRange(n, g.c, g.ProcCol())
}

// NewMatrix2D checks that local is this rank's block of a rows x cols
// matrix on the square grid g (its shape and its CSR invariant) and wraps
// it. The error names the rank and the shapes.
func NewMatrix2D(g *Grid, rows, cols int, local *spgemm.CSR) (*Matrix2D, error) {
	if !g.IsSquare() {
		return nil, fmt.Errorf("dist: NewMatrix2D: rank %d: the grid of %d ranks is %d x %d; a 2D matrix needs a square grid (NewSquareGrid)", g.Rank(), g.Size(), g.Blocks(), g.c)
	}
	if rows < 0 || cols < 0 || cols > math.MaxInt32 {
		return nil, fmt.Errorf("dist: NewMatrix2D: rank %d: shape %d x %d; want rows >= 0 and 0 <= cols <= %d", g.Rank(), rows, cols, math.MaxInt32)
	}
	m := &Matrix2D{Grid: g, Rows: rows, Cols: cols, Local: local}
	rlo, rhi := m.RowRange()
	clo, chi := m.ColRange()
	if local == nil || local.Rows != rhi-rlo || local.Cols != chi-clo {
		r, c := -1, -1
		if local != nil {
			r, c = local.Rows, local.Cols
		}
		return nil, fmt.Errorf("dist: NewMatrix2D: rank %d: the block of rows [%d, %d) and columns [%d, %d) of a %d x %d matrix is %d x %d; want %d x %d",
			g.Rank(), rlo, rhi, clo, chi, rows, cols, r, c, rhi-rlo, chi-clo)
	}
	if err := local.Validate(); err != nil {
		return nil, fmt.Errorf("dist: NewMatrix2D: rank %d: block: %w", g.Rank(), err)
	}
	return m, nil
}

// Distribute2D returns this rank's block of the whole matrix a on the
// square grid g (copied, with local ids), for tests and for ranks that have
// read a whole file. It costs O(rows of the block · log nnz per row + nnz of
// the block) and no communication.
func Distribute2D(g *Grid, a *spgemm.CSR) (*Matrix2D, error) {
	m := &Matrix2D{Grid: g, Rows: a.Rows, Cols: a.Cols}
	rlo, rhi := m.RowRange()
	clo, chi := m.ColRange()
	blk := &spgemm.CSR{Rows: rhi - rlo, Cols: chi - clo, Indptr: make([]int64, rhi-rlo+1)}
	for i := rlo; i < rhi; i++ {
		cols, vals := a.Row(i)
		lo, _ := slices.BinarySearch(cols, int32(clo))
		hi, _ := slices.BinarySearch(cols, int32(chi))
		for t := lo; t < hi; t++ {
			blk.Indices = append(blk.Indices, cols[t]-int32(clo))
		}
		blk.Data = append(blk.Data, vals[lo:hi]...)
		blk.Indptr[i-rlo+1] = int64(len(blk.Indices))
	}
	return NewMatrix2D(g, a.Rows, a.Cols, blk)
}

// RowBlock returns, on every rank of this rank's process row, the rows
// RowRange of the whole matrix with global column ids: the blocks of the
// process row side by side. It is collective on the process row
// (Grid.Row()), whose traffic it counts under ph.
func (m *Matrix2D) RowBlock(ctx context.Context, ph Phase) (*spgemm.CSR, error) {
	row := m.Grid.Row()
	lens, ind, val, nnzCounts, err := allgatherCSR(ctx, row, ph, m.Local)
	if err != nil {
		return nil, err
	}
	rows := m.Local.Rows
	q := row.Size()
	out := &spgemm.CSR{Rows: rows, Cols: m.Cols, Indptr: make([]int64, rows+1),
		Indices: make([]int32, 0, len(ind)), Data: make([]float32, 0, len(val))}
	// pos[r] walks rank r's entries; rank r holds process column r.
	pos := make([]int64, q)
	for r := 1; r < q; r++ {
		pos[r] = pos[r-1] + int64(nnzCounts[r-1])
	}
	for i := range rows {
		for r := range q {
			clo, _ := BlockRange(m.Cols, q, r)
			n := lens[r*rows+i]
			for _, c := range ind[pos[r] : pos[r]+n] {
				out.Indices = append(out.Indices, c+int32(clo))
			}
			out.Data = append(out.Data, val[pos[r]:pos[r]+n]...)
			pos[r] += n
		}
		out.Indptr[i+1] = int64(len(out.Indices))
	}
	return out, nil
}

// Whole returns the whole matrix on every rank (for tests and small
// results): RowBlock, then the row blocks stacked over the process column.
// It is collective on the grid.
func (m *Matrix2D) Whole(ctx context.Context, ph Phase) (*spgemm.CSR, error) {
	rb, err := m.RowBlock(ctx, ph)
	if err != nil {
		return nil, err
	}
	lens, ind, val, _, err := allgatherCSR(ctx, m.Grid.Col(), ph, rb)
	if err != nil {
		return nil, err
	}
	out := &spgemm.CSR{Rows: m.Rows, Cols: m.Cols, Indptr: make([]int64, m.Rows+1), Indices: ind, Data: val}
	if len(lens) != m.Rows {
		return nil, fmt.Errorf("dist: Matrix2D.Whole on rank %d: the row blocks have %d rows, the matrix %d", m.Grid.Rank(), len(lens), m.Rows)
	}
	for i, n := range lens {
		out.Indptr[i+1] = out.Indptr[i] + n
	}
	return out, nil
}

// allgatherCSR gathers every rank's row lengths, column ids and values over
// c, each in rank order, with the number of entries of each rank.
func allgatherCSR(ctx context.Context, c Comm, ph Phase, m *spgemm.CSR) (lens []int64, ind []int32, val []float32, nnzCounts []int, err error) {
	mine := make([]int64, m.Rows)
	for i := range mine {
		mine[i] = m.Indptr[i+1] - m.Indptr[i]
	}
	nnz := m.NNZ()
	if lens, _, err = Allgather(ctx, c, ph, mine); err != nil {
		return nil, nil, nil, nil, err
	}
	if ind, nnzCounts, err = Allgather(ctx, c, ph, m.Indices[:nnz]); err != nil {
		return nil, nil, nil, nil, err
	}
	if val, _, err = Allgather(ctx, c, ph, m.Data[:nnz]); err != nil {
		return nil, nil, nil, nil, err
	}
	return lens, ind, val, nnzCounts, nil
}
