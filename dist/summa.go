package dist

// Sparse SUMMA (Buluç and Gilbert, "Parallel sparse matrix-matrix
// multiplication and indexing", SIAM J. Sci. Comput. 34(4), 2012; CombBLAS'
// Mult_AnXBn_Synch): C = A·B on a q x q grid, every matrix in 2D blocks.
// The inner dimension is cut into the same q ranges as A's columns and B's
// rows; at stage s the rank in process column s broadcasts its block
// A(i, s) along its process row, the rank in process row s its block B(s, j)
// along its process column, and every rank adds A(i, s)·B(s, j) onto its
// block of C with spgemm's own kernel (MulOptions.Add). No arithmetic lives
// here: this file only moves blocks.
//
// Bits: the kernel adds the terms of C(i, j) in the order of A's row i
// (k ascending) and Add continues a sum where the previous stage left it,
// so stage by stage the sums are exactly the single-process ones, except
// that a stage whose block of a row of A holds one entry gives that term as
// is where the whole row's sum would have started from +0: a zero can come
// out as -0. SUMMA counts the entries of each row of A over the stages and
// gives +0 to the zeros of the rows with two or more, which makes C
// identical to spgemm.Mul(A, B) bit for bit.

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// SUMMAOptions configure SUMMA. The zero value means the defaults.
type SUMMAOptions struct {
	// Phase is the phase the broadcasts are counted under; default
	// PhaseSample (the products of samplers).
	Phase Phase
	// Threads is the number of goroutines of each local product; 0 means
	// GOMAXPROCS. The result does not depend on it.
	Threads int
	// Accumulator forces the local products' row accumulator; the default
	// chooses per row. The result does not depend on it.
	Accumulator spgemm.Accumulator
}

// Validate returns an *option.Error naming the first bad field, or nil.
func (o *SUMMAOptions) Validate() error {
	switch {
	case o.Phase >= NumPhases:
		return option.Errorf("dist", "SUMMAOptions", "Phase", int(o.Phase), "want < %d", NumPhases)
	case o.Threads < 0:
		return option.Errorf("dist", "SUMMAOptions", "Threads", o.Threads, "want >= 0 (0: GOMAXPROCS)")
	case o.Accumulator < spgemm.AutoAccumulator || o.Accumulator > spgemm.HashAccumulator:
		return option.Errorf("dist", "SUMMAOptions", "Accumulator", o.Accumulator, "want auto, dense or hash")
	}
	return nil
}

// SUMMA returns this rank's block of C = A·B, for A (m x k) and B (k x n)
// distributed in 2D over the same square grid of p = q² ranks. The result
// is identical, bit for bit, to spgemm.Mul of the whole matrices (see the
// top of summa.go). It is collective on the grid: every rank calls it with
// its blocks of the same A and B.
//
// It runs q stages; in each, a rank receives one block of A along its
// process row and one of B along its process column (three broadcasts
// each: row offsets, column ids, values), counted under opt.Phase. A rank
// holds at most its own blocks, one received block of each, and two blocks
// of C (the sum so far and the next), and copies its block of C once per
// stage. It returns an error naming p when the grid is not square, when
// the matrices are on different grids or their inner dimensions differ
// (every rank returns the same error, before any communication), or when
// a collective fails.
func SUMMA(ctx context.Context, a, b *Matrix2D, opt *SUMMAOptions) (*Matrix2D, error) {
	var o SUMMAOptions
	if opt != nil {
		o = *opt
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	g := a.Grid
	switch {
	case !g.IsSquare():
		return nil, fmt.Errorf("dist: SUMMA: %d ranks in a %d x %d grid; SUMMA needs a square grid of p = q x q ranks (NewSquareGrid)", g.Size(), g.Blocks(), g.c)
	case b.Grid != g:
		return nil, fmt.Errorf("dist: SUMMA: rank %d: A and B are on different grids", g.Rank())
	case a.Cols != b.Rows:
		return nil, fmt.Errorf("dist: SUMMA: rank %d: cannot multiply %d x %d by %d x %d: inner dimensions differ", g.Rank(), a.Rows, a.Cols, b.Rows, b.Cols)
	}
	q := g.Blocks()
	rlo, rhi := a.RowRange()
	clo, chi := b.ColRange()
	if alo, ahi := a.ColRange(); a.Local.Rows != rhi-rlo || a.Local.Cols != ahi-alo {
		return nil, fmt.Errorf("dist: SUMMA: rank %d: block of A is %d x %d; want %d x %d (NewMatrix2D checks blocks)", g.Rank(), a.Local.Rows, a.Local.Cols, rhi-rlo, ahi-alo)
	}
	if blo, bhi := b.RowRange(); b.Local.Rows != bhi-blo || b.Local.Cols != chi-clo {
		return nil, fmt.Errorf("dist: SUMMA: rank %d: block of B is %d x %d; want %d x %d (NewMatrix2D checks blocks)", g.Rank(), b.Local.Rows, b.Local.Cols, bhi-blo, chi-clo)
	}
	mul := &spgemm.MulOptions{Threads: o.Threads, Accumulator: o.Accumulator}
	sum, next := &spgemm.CSR{Rows: rhi - rlo, Cols: chi - clo, Indptr: make([]int64, rhi-rlo+1)}, &spgemm.CSR{}
	var aBuf, bBuf spgemm.CSR
	rowNNZ := make([]int64, rhi-rlo) // of A's whole rows, over the stages
	for s := range q {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dist: SUMMA on rank %d, stage %d: %w", g.Rank(), s, err)
		}
		klo, khi := BlockRange(a.Cols, q, s)
		aBlk, err := bcastCSR(ctx, g.Row(), o.Phase, s, a.Local, &aBuf, rhi-rlo, khi-klo)
		if err != nil {
			return nil, fmt.Errorf("dist: SUMMA stage %d, block of A: %w", s, err)
		}
		bBlk, err := bcastCSR(ctx, g.Col(), o.Phase, s, b.Local, &bBuf, khi-klo, chi-clo)
		if err != nil {
			return nil, fmt.Errorf("dist: SUMMA stage %d, block of B: %w", s, err)
		}
		mul.Add = nil
		if s > 0 {
			mul.Add = sum
		}
		next.Mul(aBlk, bBlk, mul)
		sum, next = next, sum
		for i := range rowNNZ {
			rowNNZ[i] += aBlk.Indptr[i+1] - aBlk.Indptr[i]
		}
	}
	for i, n := range rowNNZ {
		if n < 2 {
			continue
		}
		vals := sum.Data[sum.Indptr[i]:sum.Indptr[i+1]]
		for t, v := range vals {
			if v == 0 {
				vals[t] = 0 // +0, as a sum started from +0 gives
			}
		}
	}
	return &Matrix2D{Grid: g, Rows: a.Rows, Cols: b.Cols, Local: sum}, nil
}

// bcastCSR broadcasts the root's rows x cols block over c: the root returns
// mine, the others the block received into buf (whose arrays are reused).
func bcastCSR(ctx context.Context, c Comm, ph Phase, root int, mine, buf *spgemm.CSR, rows, cols int) (*spgemm.CSR, error) {
	blk := buf
	if c.Rank() == root {
		blk = mine
	} else {
		buf.Rows, buf.Cols = rows, cols
		buf.Indptr = par.Resize(buf.Indptr, rows+1)
	}
	if err := c.Bcast(ctx, ph, root, blk.Indptr[:rows+1]); err != nil {
		return nil, err
	}
	nnz := int(blk.Indptr[rows])
	if c.Rank() != root {
		buf.Indices, buf.Data = par.Resize(buf.Indices, nnz), par.Resize(buf.Data, nnz)
	}
	if err := c.Bcast(ctx, ph, root, blk.Indices[:nnz]); err != nil {
		return nil, err
	}
	if err := c.Bcast(ctx, ph, root, blk.Data[:nnz]); err != nil {
		return nil, err
	}
	return blk, nil
}
