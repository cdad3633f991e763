package dist

// The 1.5D sparsity-aware product (docs/design.md section 4: the pull
// protocol of the paper bulksample reproduces): C = A·B where B is
// row-distributed over a (p/c) x c grid (Matrix) and every rank holds some
// rows of A whole. A rank needs only the rows of B that its rows of A use:
// it fetches those from their owners in its process column (RowExchange,
// one round) and multiplies them locally with spgemm's kernel. No
// arithmetic lives here: this file only moves rows, as summa.go moves
// blocks.
//
// Bits: the rows of B a rank uses are renumbered in ascending order of
// their global ids, which keeps the order of the terms of every row of A,
// so that each row of C is the single process's, bit for bit.

import (
	"context"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/spgemm"
)

// Mul15DOptions configure Mul15D. The zero value means the defaults.
type Mul15DOptions struct {
	// Threads is the number of goroutines of the local product; 0 means
	// GOMAXPROCS. The result does not depend on it.
	Threads int
	// Accumulator forces the local product's row accumulator; the default
	// chooses per row. The result does not depend on it.
	Accumulator spgemm.Accumulator
}

// Validate returns an *option.Error naming the first bad field, or nil.
func (o *Mul15DOptions) Validate() error {
	switch {
	case o.Threads < 0:
		return option.Errorf("dist", "Mul15DOptions", "Threads", o.Threads, "want >= 0 (0: GOMAXPROCS)")
	case o.Accumulator < spgemm.AutoAccumulator || o.Accumulator > spgemm.HashAccumulator:
		return option.Errorf("dist", "Mul15DOptions", "Accumulator", o.Accumulator, "want auto, dense or hash")
	}
	return nil
}

// Mul15D returns a·B, this rank's rows of C = A·B, for a, this rank's rows
// of A (any number of them, possibly none; its columns are global row ids
// of B), and B, distributed by rows and served by b (which must fetch
// values: RowExchangeOptions.Values). The rows of C are bit for bit those
// of spgemm.Mul of the whole matrices.
//
// It is collective on b's process column: one round of b that fetches the
// distinct rows of B that a uses, then b.Drain; every rank of the column
// calls it (or runs rounds of its own followed by Drain). A rank holds its
// block of B, the fetched rows, a copy of them in a's column order and the
// result. It returns an error when the shapes differ (a.Cols is not B's
// number of rows), when b fetches no values, or when a collective fails.
func Mul15D(ctx context.Context, a *spgemm.CSR, b *RowExchange, opt *Mul15DOptions) (*spgemm.CSR, error) {
	var o Mul15DOptions
	if opt != nil {
		o = *opt
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	m := b.Matrix()
	switch {
	case a == nil:
		return nil, fmt.Errorf("dist: Mul15D on rank %d: nil A", m.Grid.Rank())
	case a.Cols != b.NumVertices():
		return nil, fmt.Errorf("dist: Mul15D on rank %d: cannot multiply rows of a %d-column A by a B of %d rows: inner dimensions differ", m.Grid.Rank(), a.Cols, b.NumVertices())
	case !b.Values():
		return nil, fmt.Errorf("dist: Mul15D on rank %d: the row exchange of B fetches no values (RowExchangeOptions.Values)", m.Grid.Rank())
	}
	// The distinct rows of B that a uses, ascending.
	ids := slices.Clone(a.Indices[:a.NNZ()])
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if err := b.Fetch(ctx, ids); err != nil {
		return nil, fmt.Errorf("dist: Mul15D on rank %d: %w", m.Grid.Rank(), err)
	}
	if err := b.Drain(ctx); err != nil {
		return nil, fmt.Errorf("dist: Mul15D on rank %d: %w", m.Grid.Rank(), err)
	}
	colMap := make([]int32, a.Cols)
	for i := range colMap {
		colMap[i] = -1
	}
	y := &spgemm.CSR{Rows: len(ids), Cols: m.Cols(), Indptr: make([]int64, len(ids)+1)}
	for i, v := range ids {
		colMap[v] = int32(i)
		cols, vals := b.Row(v)
		y.Indices = append(y.Indices, cols...)
		y.Data = append(y.Data, vals...)
		y.Indptr[i+1] = int64(len(y.Indices))
	}
	return spgemm.Mul(spgemm.ExtractColumns(a, colMap, len(ids), o.Threads), y,
		&spgemm.MulOptions{Threads: o.Threads, Accumulator: o.Accumulator}), nil
}
