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

// mul15D computes A·B on p in-process ranks with replication c: B is
// distributed by rows over the grid, every rank takes its run of A's rows
// (rank order is row order), and the parts are stacked.
func mul15D(a, b *spgemm.CSR, p, c int, opt *dist.Mul15DOptions) (*spgemm.CSR, dist.Stats, error) {
	parts := make([]*spgemm.CSR, p)
	stats := make([]dist.Stats, p)
	err := onRows(p, c, b, func(ctx context.Context, m *dist.Matrix) error {
		g := m.Grid
		x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: true})
		if err != nil {
			return err
		}
		lo, hi := dist.BlockRange(a.Rows, g.Size(), g.Rank())
		rows := make([]int32, hi-lo)
		for i := range rows {
			rows[i] = int32(lo + i)
		}
		part, err := dist.Mul15D(ctx, spgemm.GatherRows(a, rows, 1), x, opt)
		parts[g.Rank()] = part
		for _, cm := range g.Comms() {
			stats[g.Rank()].Add(cm.Stats())
		}
		return err
	})
	if err != nil {
		return nil, dist.Stats{}, err
	}
	var total dist.Stats
	whole := &spgemm.CSR{Rows: a.Rows, Cols: b.Cols, Indptr: []int64{0}}
	for r, part := range parts {
		total.Add(stats[r])
		for i := range part.Rows {
			cols, vals := part.Row(i)
			whole.Indices = append(whole.Indices, cols...)
			whole.Data = append(whole.Data, vals...)
			whole.Indptr = append(whole.Indptr, int64(len(whole.Indices)))
		}
	}
	return whole, total, nil
}

// TestMul15DEqualsMul: on every grid of grids15D, Mul15D gives the bits of
// spgemm.Mul on the whole matrices, for a square B (a graph) and
// rectangular ones, float values and zeros of both signs, and moves rows
// only when a process column has more than one block.
func TestMul15DEqualsMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for ci, tc := range []struct {
		m, k, n int
		densA   float64
		densB   float64
	}{
		{40, 60, 60, 0.1, 0.08},
		{25, 70, 9, 0.2, 0.3},
		{7, 2, 30, 0.5, 0.5},
		{0, 5, 5, 0, 0.5},
	} {
		a := withZeros(rng, spgemmtest.Random(rng, tc.m, tc.k, tc.densA, true, false))
		b := withZeros(rng, spgemmtest.Random(rng, tc.k, tc.n, tc.densB, false, false))
		want := spgemm.Mul(a, b, &spgemm.MulOptions{Threads: 1})
		for _, gc := range grids15D {
			got, st, err := mul15D(a, b, gc[0], gc[1], &dist.Mul15DOptions{Threads: 2})
			name := fmt.Sprintf("case %d p=%d c=%d", ci, gc[0], gc[1])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := sameBits(got, want); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if blocks := gc[0] / gc[1]; blocks == 1 && st.Bytes[dist.PhaseSample] != 0 {
				t.Errorf("%s: %d bytes moved with every block on every rank", name, st.Bytes[dist.PhaseSample])
			}
		}
	}
}

// TestMul15DConformance runs the product conformance kit of package
// spgemmtest on Mul15D over 3 ranks (c = 1) and 4 ranks (c = 2): plain
// products, as Mul15D takes no mask.
func TestMul15DConformance(t *testing.T) {
	for _, gc := range [][2]int{{3, 1}, {4, 2}} {
		t.Run(fmt.Sprintf("p=%d,c=%d", gc[0], gc[1]), func(t *testing.T) {
			spgemmtest.RunMul(t, func(a, b *spgemm.CSR, opt *spgemm.MulOptions) *spgemm.CSR {
				c, _, err := mul15D(a, b, gc[0], gc[1], &dist.Mul15DOptions{Threads: opt.Threads, Accumulator: opt.Accumulator})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}, spgemmtest.Features{})
		})
	}
}

// TestMul15DErrors: shapes that differ, an exchange without values and bad
// options are errors, on the rank that made them.
func TestMul15DErrors(t *testing.T) {
	b := spgemmtest.Random(rand.New(rand.NewPCG(1, 2)), 6, 6, 0.5, false, false)
	err := onRows(1, 1, b, func(ctx context.Context, m *dist.Matrix) error {
		pattern, err := dist.NewRowExchange(m, dist.RowExchangeOptions{})
		if err != nil {
			return err
		}
		x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: true})
		if err != nil {
			return err
		}
		a := &spgemm.CSR{Rows: 1, Cols: 5, Indptr: []int64{0, 0}}
		for _, tc := range []struct {
			a    *spgemm.CSR
			x    *dist.RowExchange
			opt  *dist.Mul15DOptions
			want string
		}{
			{a, x, nil, "5-column A by a B of 6 rows"},
			{b, pattern, nil, "fetches no values"},
			{b, x, &dist.Mul15DOptions{Threads: -1}, "Threads"},
		} {
			if _, err := dist.Mul15D(ctx, tc.a, tc.x, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				return fmt.Errorf("err = %v; want one containing %q", err, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
