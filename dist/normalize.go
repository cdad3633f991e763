package dist

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// SymNormalizeWithSelfLoops returns this rank's block of
// D_r^-1/2 (A+I) D_c^-1/2 for the row-distributed square matrix m (the
// normalised adjacency of GCN and of the LADIES paper; see
// spgemm.SymNormalizeWithSelfLoops), bit for bit the rows of the
// single-process result. The column sums of A+I are added block by block in
// block order along the process column (Chain, counted under PhaseSample),
// as one process adds them row by row; each rank then forms its block of
// A+I and scales it with spgemm's own kernels. It is collective on m's
// process column, and returns an error when m is not square or a
// collective fails. m is left unchanged.
func SymNormalizeWithSelfLoops(ctx context.Context, m *Matrix, threads int) (*Matrix, error) {
	if !m.IsSquare() {
		return nil, fmt.Errorf("dist: SymNormalizeWithSelfLoops on rank %d: the matrix is %d x %d, want square", m.Grid.Rank(), m.Grid.NumVertices(), m.Cols())
	}
	colSum := make([]float64, m.Cols())
	var blk *spgemm.CSR
	var rowSum []float64
	err := Chain(ctx, m.Grid.Col(), PhaseSample, []any{colSum}, func() error {
		blk, rowSum = spgemm.AddSelfLoops(m.Local, int(m.Lo), colSum)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dist: SymNormalizeWithSelfLoops on rank %d: %w", m.Grid.Rank(), err)
	}
	spgemm.ScaleSymmetric(blk, rowSum, colSum, threads)
	return NewMatrix(m.Grid, blk)
}
