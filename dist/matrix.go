package dist

import (
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// Matrix is a row-distributed matrix of n = Grid.NumVertices() rows: this
// rank's block of rows [Lo, Hi) as a local CSR with global column ids, on a
// Grid. Global rows are gids; the local CSR's rows are lrow = gid - Lo. A
// graph's adjacency is n x n (IsSquare); the right operand of Mul15D may
// have any number of columns.
type Matrix struct {
	Grid   *Grid
	Lo, Hi int32
	Local  *spgemm.CSR // (Hi-Lo) x Cols()
}

// NewMatrix checks that local is this rank's block of an n x n matrix on g
// (its row count and column count) and wraps it.
func NewMatrix(g *Grid, local *spgemm.CSR) (*Matrix, error) {
	return NewRectMatrix(g, local, g.NumVertices())
}

// NewRectMatrix checks that local is this rank's block of an n x cols
// matrix on g (n = g.NumVertices()) and wraps it.
func NewRectMatrix(g *Grid, local *spgemm.CSR, cols int) (*Matrix, error) {
	lo, hi := g.MyRows()
	if local == nil || local.Rows != int(hi-lo) || local.Cols != cols {
		r, c := -1, -1
		if local != nil {
			r, c = local.Rows, local.Cols
		}
		return nil, fmt.Errorf("dist: rank %d: block of rows [%d, %d) of an %d-row matrix is %d x %d; want %d x %d",
			g.Rank(), lo, hi, g.NumVertices(), r, c, hi-lo, cols)
	}
	return &Matrix{Grid: g, Lo: lo, Hi: hi, Local: local}, nil
}

// Cols returns the number of columns of the whole matrix.
func (m *Matrix) Cols() int { return m.Local.Cols }

// IsSquare reports whether the matrix is n x n, as a graph's adjacency is.
func (m *Matrix) IsSquare() bool { return m.Local.Cols == m.Grid.NumVertices() }

// Distribute returns this rank's block of the whole matrix a (rows [lo, hi)
// of a, copied), for tests and for ranks that have read a whole file. a
// has g.NumVertices() rows and any number of columns.
func Distribute(g *Grid, a *spgemm.CSR) (*Matrix, error) {
	lo, hi := g.MyRows()
	if a.Rows != g.NumVertices() {
		return nil, fmt.Errorf("dist: rank %d: matrix has %d rows, the grid %d vertices", g.Rank(), a.Rows, g.NumVertices())
	}
	rows := make([]int32, hi-lo)
	for i := range rows {
		rows[i] = lo + int32(i)
	}
	return NewRectMatrix(g, spgemm.GatherRows(a, rows, 0), a.Cols)
}
