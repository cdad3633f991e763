package dist_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// onRanks runs fn on every rank of an in-process world of p ranks, each
// with its square grid, and returns the first error; a rank that fails
// aborts the job so that the others never wait for it.
func onRanks(t *testing.T, p int, fn func(ctx context.Context, g *dist.Grid) error) {
	t.Helper()
	world, err := dist.NewInProcWorld(p, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, w := range world {
		wg.Go(func() {
			g, err := dist.NewSquareGrid(ctx, w)
			if err == nil {
				defer g.Close()
				err = fn(ctx, g)
			}
			if err != nil {
				t.Errorf("rank %d of %d: %v", w.Rank(), p, err)
				w.Abort(err)
			}
		})
	}
	wg.Wait()
}

// sameBits returns an error unless got and want are identical bit for bit.
func sameBits(got, want *spgemm.CSR) error {
	if err := got.Validate(); err != nil {
		return err
	}
	if got.Rows != want.Rows || got.Cols != want.Cols || got.NNZ() != want.NNZ() {
		return fmt.Errorf("%d x %d with %d entries; want %d x %d with %d", got.Rows, got.Cols, got.NNZ(), want.Rows, want.Cols, want.NNZ())
	}
	for i := range want.Rows {
		gc, gv := got.Row(i)
		wc, wv := want.Row(i)
		if len(gc) != len(wc) {
			return fmt.Errorf("row %d has %d entries; want %d", i, len(gc), len(wc))
		}
		for t := range wc {
			if gc[t] != wc[t] || math.Float32bits(gv[t]) != math.Float32bits(wv[t]) {
				return fmt.Errorf("row %d entry %d: (%d, %v); want (%d, %v)", i, t, gc[t], gv[t], wc[t], wv[t])
			}
		}
	}
	return nil
}

// withZeros sets about a third of m's values to +0 or -0.
func withZeros(rng *rand.Rand, m *spgemm.CSR) *spgemm.CSR {
	for p := range m.Data {
		if rng.IntN(3) == 0 {
			m.Data[p] = float32(math.Copysign(0, float64(2*rng.IntN(2)-1)))
		}
	}
	return m
}

// TestSUMMAEqualsMul: on 1, 4 and 9 in-process ranks SUMMA gives the bits
// of spgemm.Mul on the whole matrices, for rectangular shapes, shapes
// smaller than the grid (empty blocks), empty rows, a column range with no
// entries, float values and zeros of both signs; the broadcasts are
// counted under the phase asked for.
func TestSUMMAEqualsMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type tc struct {
		m, k, n    int
		dens       float64
		zeros      bool
		emptyRange bool // A's columns [k/3, 2k/3) hold nothing
	}
	cases := []tc{
		{30, 40, 25, 0.15, false, false},
		{50, 7, 90, 0.3, false, true},
		{2, 5, 2, 0.6, false, false}, // fewer rows and columns than some grids: empty blocks
		{40, 40, 40, 0.2, true, false},
		{0, 6, 4, 0.5, false, false},
		{8, 0, 5, 0.5, false, false},
		{64, 300, 1, 0.05, false, true},
	}
	for _, p := range []int{1, 4, 9} {
		for ci, c := range cases {
			a := spgemmtest.Random(rng, c.m, c.k, c.dens, true, false)
			b := spgemmtest.Random(rng, c.k, c.n, c.dens, ci%2 == 0, false)
			if c.zeros {
				a, b = withZeros(rng, a), withZeros(rng, b)
			}
			if c.emptyRange {
				kept := make([]int32, c.k)
				for j := range kept {
					kept[j] = int32(j)
					if j >= c.k/3 && j < 2*c.k/3 {
						kept[j] = -1
					}
				}
				a = spgemm.ExtractColumns(a, kept, c.k, 1)
			}
			want := spgemm.Mul(a, b, &spgemm.MulOptions{Threads: 1})
			name := fmt.Sprintf("p=%d case %d (%dx%d·%dx%d)", p, ci, c.m, c.k, c.k, c.n)
			onRanks(t, p, func(ctx context.Context, g *dist.Grid) error {
				da, err := dist.Distribute2D(g, a)
				if err != nil {
					return err
				}
				db, err := dist.Distribute2D(g, b)
				if err != nil {
					return err
				}
				dc, err := dist.SUMMA(ctx, da, db, &dist.SUMMAOptions{Phase: dist.PhaseFeatures, Threads: 1 + g.Rank()%2})
				if err != nil {
					return err
				}
				if dc.Rows != c.m || dc.Cols != c.n {
					return fmt.Errorf("%s: C is %d x %d", name, dc.Rows, dc.Cols)
				}
				got, err := dc.Whole(ctx, dist.PhaseControl)
				if err != nil {
					return err
				}
				if err := sameBits(got, want); err != nil {
					return fmt.Errorf("%s: SUMMA vs spgemm.Mul: %w", name, err)
				}
				var st dist.Stats
				for _, cm := range g.Comms() {
					st.Add(cm.Stats())
				}
				if st.Bytes[dist.PhaseSample] != 0 || (p > 1 && st.Bytes[dist.PhaseFeatures] == 0) || (p == 1 && st.Bytes[dist.PhaseFeatures] != 0) {
					return fmt.Errorf("%s: bytes by phase %v; want the broadcasts under features only", name, st.Bytes)
				}
				return nil
			})
			if t.Failed() {
				return
			}
		}
	}
}

// TestSUMMANotSquare: 2 and 6 ranks cannot form a square grid: the error
// names p, on every rank, and SUMMA on a non-square grid says the same.
func TestSUMMANotSquare(t *testing.T) {
	for _, p := range []int{2, 6} {
		world, _ := dist.NewInProcWorld(p, dist.Options{})
		for _, w := range world { // no communication before the error
			_, err := dist.NewSquareGrid(context.Background(), w)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d ranks is not a perfect square", p)) {
				t.Errorf("NewSquareGrid on %d ranks: %v; want an error naming p = %d", p, err, p)
			}
		}
	}
	world, _ := dist.NewInProcWorld(2, dist.Options{})
	var wg sync.WaitGroup
	for _, w := range world {
		wg.Go(func() {
			g, err := dist.NewGrid(context.Background(), w, 1, 4)
			if err != nil {
				t.Error(err)
				return
			}
			defer g.Close()
			m := &dist.Matrix2D{Grid: g, Rows: 4, Cols: 4, Local: &spgemm.CSR{}}
			if _, err := dist.SUMMA(context.Background(), m, m, nil); err == nil || !strings.Contains(err.Error(), "2 ranks in a 2 x 1 grid") {
				t.Errorf("SUMMA on a 2 x 1 grid: %v; want an error naming the 2 ranks", err)
			}
			if _, err := dist.NewMatrix2D(g, 4, 4, &spgemm.CSR{}); err == nil {
				t.Error("NewMatrix2D on a 2 x 1 grid: no error")
			}
		})
	}
	wg.Wait()
	if dist.SquareSide(16) != 4 || dist.SquareSide(15) != -1 || dist.SquareSide(0) != 0 || dist.SquareSide(1) != 1 {
		t.Errorf("SquareSide(16, 15, 0, 1) = %d %d %d %d", dist.SquareSide(16), dist.SquareSide(15), dist.SquareSide(0), dist.SquareSide(1))
	}
}

// TestSUMMAErrors: inner dimensions that differ, a block of the wrong shape
// and bad options are errors, before any communication.
func TestSUMMAErrors(t *testing.T) {
	onRanks(t, 4, func(ctx context.Context, g *dist.Grid) error {
		a, _ := dist.Distribute2D(g, &spgemm.CSR{Rows: 5, Cols: 3, Indptr: make([]int64, 6)})
		b, _ := dist.Distribute2D(g, &spgemm.CSR{Rows: 4, Cols: 3, Indptr: make([]int64, 5)})
		if _, err := dist.SUMMA(ctx, a, b, nil); err == nil || !strings.Contains(err.Error(), "5 x 3 by 4 x 3") {
			return fmt.Errorf("inner dimensions 3 and 4: %v", err)
		}
		if _, err := dist.SUMMA(ctx, a, a, &dist.SUMMAOptions{Threads: -1}); err == nil || !strings.Contains(err.Error(), "Threads") {
			return fmt.Errorf("Threads -1: %v", err)
		}
		if _, err := dist.NewMatrix2D(g, 5, 3, &spgemm.CSR{Rows: 9, Cols: 9, Indptr: make([]int64, 10)}); err == nil || !strings.Contains(err.Error(), "want") {
			return fmt.Errorf("block of the wrong shape: %v", err)
		}
		return nil
	})
}

// TestSUMMAConformance runs the product conformance kit of package
// spgemmtest on SUMMA over 4 and 9 in-process ranks (plain products: SUMMA
// takes no mask).
func TestSUMMAConformance(t *testing.T) {
	for _, p := range []int{4, 9} {
		t.Run(fmt.Sprintf("p=%d", p), func(t *testing.T) {
			spgemmtest.RunMul(t, func(a, b *spgemm.CSR, opt *spgemm.MulOptions) *spgemm.CSR {
				var c *spgemm.CSR
				onRanks(t, p, func(ctx context.Context, g *dist.Grid) error {
					da, err := dist.Distribute2D(g, a)
					if err != nil {
						return err
					}
					db, err := dist.Distribute2D(g, b)
					if err != nil {
						return err
					}
					dc, err := dist.SUMMA(ctx, da, db, &dist.SUMMAOptions{Threads: opt.Threads, Accumulator: opt.Accumulator})
					if err != nil {
						return err
					}
					whole, err := dc.Whole(ctx, dist.PhaseControl)
					if g.Rank() == 0 {
						c = whole
					}
					return err
				})
				if c == nil {
					t.FailNow()
				}
				return c
			}, spgemmtest.Features{})
		})
	}
}
