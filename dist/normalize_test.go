package dist_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// TestSymNormalizeWithSelfLoops: on every grid of grids15D the blocks of
// the distributed normalisation are the rows of
// spgemm.SymNormalizeWithSelfLoops of the whole weighted matrix, bit for
// bit (float sums that depend on their order), with diagonals present and
// missing; a rectangular matrix is an error.
func TestSymNormalizeWithSelfLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	a := spgemmtest.Random(rng, 61, 61, 0.1, true, false)
	for i := range a.Data {
		a.Data[i] = 0.25 + a.Data[i]*a.Data[i] // positive weights
	}
	want := spgemm.SymNormalizeWithSelfLoops(a, 1)
	for _, gc := range grids15D {
		parts := make([]*spgemm.CSR, gc[0])
		err := onRows(gc[0], gc[1], a, func(ctx context.Context, m *dist.Matrix) error {
			g := m.Grid
			nm, err := dist.SymNormalizeWithSelfLoops(ctx, m, 2)
			if err != nil {
				return err
			}
			if nm.Lo != m.Lo || nm.Hi != m.Hi {
				return fmt.Errorf("rows [%d, %d); want [%d, %d)", nm.Lo, nm.Hi, m.Lo, m.Hi)
			}
			if g.ProcCol() == g.Replication()-1 {
				parts[g.ProcRow()] = nm.Local
			}
			return nil
		})
		if err != nil {
			t.Fatalf("p=%d c=%d: %v", gc[0], gc[1], err)
		}
		got := &spgemm.CSR{Rows: 0, Cols: a.Cols, Indptr: []int64{0}}
		for _, part := range parts[:gc[0]/gc[1]] {
			for i := range part.Rows {
				cols, vals := part.Row(i)
				got.Indices, got.Data = append(got.Indices, cols...), append(got.Data, vals...)
				got.Indptr = append(got.Indptr, int64(len(got.Indices)))
				got.Rows++
			}
		}
		if err := sameBits(got, want); err != nil {
			t.Errorf("p=%d c=%d: %v", gc[0], gc[1], err)
		}
	}
	rect := spgemmtest.Random(rng, 8, 5, 0.5, false, false)
	err := onRows(2, 1, rect, func(ctx context.Context, m *dist.Matrix) error {
		_, err := dist.SymNormalizeWithSelfLoops(ctx, m, 1)
		return dist.Agreed(err)
	})
	if err == nil || !strings.Contains(err.Error(), "8 x 5, want square") {
		t.Errorf("rectangular matrix: %v", err)
	}
}
