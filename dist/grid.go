package dist

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Grid is the (p/c) x c process grid of the 1.5D layout (docs/design.md section
// 4). World rank w sits at process row w / c and process column w % c.
// Vertex block i (of p/c contiguous blocks) is held by the c ranks of
// process row i; process column j holds one replica of every block, so a
// rank finds every row of A inside its column communicator.
//
// The grid owns its communicators (a duplicate of the world, its row and
// its column) and all rank arithmetic: no other code computes ranks from
// grid coordinates.
type Grid struct {
	world Comm // the grid's own communicator (a Split of the caller's)
	row   Comm // the c ranks of this process row, ordered by column
	col   Comm // the p/c ranks of this process column, ordered by row
	c     int
	n     int // vertices: blocks partition [0, n)
}

// NewGrid builds the grid of n vertices over the ranks of world with
// replication c. It is collective. It returns a *ReplicationError if
// c < 1 or c does not divide the number of ranks (CheckReplication), an
// error if n < 0, and, on every rank whose n is
// not rank 0's, an error naming both counts: ranks that loaded different
// graphs (a stale copy on one node's disk) would otherwise cut other
// blocks and index past each other's rows.
func NewGrid(ctx context.Context, world Comm, c, n int) (*Grid, error) {
	if err := CheckReplication(world.Size(), c); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("dist: NewGrid: %d vertices", n)
	}
	g := &Grid{c: c, n: n}
	var err error
	// Our own communicator, so the grid's traffic never matches the
	// caller's messages on world.
	if g.world, err = world.Split(ctx, 0, world.Rank()); err != nil {
		return nil, err
	}
	root := []int64{int64(n)}
	if err := g.world.Bcast(ctx, PhaseControl, 0, root); err != nil {
		g.Close()
		return nil, fmt.Errorf("dist: NewGrid: compare the vertex counts: %w", err)
	}
	if root[0] != int64(n) {
		g.Close()
		return nil, fmt.Errorf("dist: NewGrid: this rank's graph has %d vertices but rank 0's has %d: every rank must load the same graph", n, root[0])
	}
	me := g.world.Rank()
	if g.row, err = g.world.Split(ctx, me/c, me%c); err != nil {
		g.Close()
		return nil, err
	}
	if g.col, err = g.world.Split(ctx, me%c, me/c); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// A ReplicationError is the error of a replication c that cannot make a
// (p/c) x c grid of p ranks: c < 1, or c does not divide p.
type ReplicationError struct {
	Replication int // c
	Ranks       int // p
}

func (e *ReplicationError) Error() string {
	if e.Replication < 1 {
		return fmt.Sprintf("dist: replication %d, want >= 1", e.Replication)
	}
	return fmt.Sprintf("dist: replication %d does not divide the %d ranks", e.Replication, e.Ranks)
}

// CheckReplication returns a *ReplicationError unless replication c makes
// a (p/c) x c grid of p ranks (c >= 1 divides p): the rule NewGrid checks
// first. A caller checks it itself to refuse a job's shape before it reads
// anything, in its own words (a command names its flag).
func CheckReplication(p, c int) error {
	if c < 1 || p%c != 0 {
		return &ReplicationError{Replication: c, Ranks: p}
	}
	return nil
}

// NewSquareGrid builds the q x q grid of the 2D layout (Sparse SUMMA, SUMMA)
// over the p = q² ranks of world: NewGrid with q process rows and q process
// columns, of which Row() is the process row and Col() the process column.
// Its vertex blocks are empty (n = 0): 2D matrices (Matrix2D) carry their own
// shapes. It is collective, and returns an error naming p when p is not a
// perfect square (every rank returns it, before any communication).
func NewSquareGrid(ctx context.Context, world Comm) (*Grid, error) {
	p := world.Size()
	q := SquareSide(p)
	if q < 0 {
		return nil, fmt.Errorf("dist: NewSquareGrid: %d ranks is not a perfect square; a 2D grid needs p = q x q ranks (1, 4, 9, 16, ...)", p)
	}
	return NewGrid(ctx, world, q, 0)
}

// SquareSide returns q with q·q = p, or -1 when p is not a perfect square.
func SquareSide(p int) int {
	if p < 0 {
		return -1
	}
	q := int(math.Sqrt(float64(p)))
	for q*q > p {
		q--
	}
	for (q+1)*(q+1) <= p {
		q++
	}
	if q*q != p {
		return -1
	}
	return q
}

// IsSquare reports whether the grid has as many process rows as columns
// (NewSquareGrid's grids).
func (g *Grid) IsSquare() bool { return g.Blocks() == g.c }

// Close frees the grid's communicators; it is idempotent.
func (g *Grid) Close() error {
	var errs []error
	for _, c := range []Comm{g.col, g.row, g.world} {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// World returns the grid's communicator of all p ranks.
func (g *Grid) World() Comm { return g.world }

// Row returns the communicator of this rank's process row: the c replicas
// of its block.
func (g *Grid) Row() Comm { return g.row }

// Col returns the communicator of this rank's process column: one rank per
// block, its rank there being the block's number.
func (g *Grid) Col() Comm { return g.col }

// Comms returns the world, row and column communicators, for ReduceStats.
func (g *Grid) Comms() []Comm { return []Comm{g.world, g.row, g.col} }

// Size returns p; Replication returns c; Blocks returns p/c.
func (g *Grid) Size() int        { return g.world.Size() }
func (g *Grid) Replication() int { return g.c }
func (g *Grid) Blocks() int      { return g.world.Size() / g.c }

// Rank returns this rank's world rank; ProcRow and ProcCol its grid
// coordinates.
func (g *Grid) Rank() int    { return g.world.Rank() }
func (g *Grid) ProcRow() int { return g.world.Rank() / g.c }
func (g *Grid) ProcCol() int { return g.world.Rank() % g.c }

// RankAt returns the world rank at process row i, column j.
func (g *Grid) RankAt(i, j int) int { return i*g.c + j }

// NumVertices returns n.
func (g *Grid) NumVertices() int { return g.n }

// BlockRows returns the global rows [lo, hi) of vertex block i.
func (g *Grid) BlockRows(i int) (lo, hi int32) {
	l, h := BlockRange(g.n, g.Blocks(), i)
	return int32(l), int32(h)
}

// MyRows returns the global rows of this rank's block.
func (g *Grid) MyRows() (lo, hi int32) { return g.BlockRows(g.ProcRow()) }

// Locate returns the block holding global vertex gid, which is also the
// rank in Col() that serves it, and gid's row in that block. It panics if
// gid is outside [0, n).
func (g *Grid) Locate(gid int32) (block int, lrow int32) {
	b := BlockOf(g.n, g.Blocks(), int(gid))
	lo, _ := g.BlockRows(b)
	return b, gid - lo
}

// Minibatches returns the run [lo, hi) of the k minibatches of a bulk that
// this rank samples: contiguous runs in rank order, so that concatenating
// the ranks' runs gives the bulk in order.
func (g *Grid) Minibatches(k int) (lo, hi int) { return BlockRange(k, g.Size(), g.Rank()) }
