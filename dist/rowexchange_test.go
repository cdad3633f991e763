package dist_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/testenv"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// grids15D are the (p, c) of the 1.5D tests: one rank, blocks without
// replicas, replicas, a column of one rank (c = p), and more ranks than
// some matrices have rows.
var grids15D = [][2]int{{1, 1}, {2, 1}, {3, 1}, {4, 2}, {6, 3}, {8, 2}, {4, 4}}

// firstPicks is a RowService that answers with the first arg column ids of
// a row, each with the value column id + 0.5 when values are on.
type firstPicks struct{ values bool }

func (f firstPicks) Serve(_ int, args [3]int64, m *dist.Matrix, gids, idArgs []int32, counts []int32, items []int32, vals []float32) ([]int32, []float32) {
	for i, gid := range gids {
		cols, _ := m.Local.Row(int(gid - m.Lo))
		n := min(int(idArgs[i])+int(args[0]), len(cols))
		counts[i] = int32(n)
		items = append(items, cols[:n]...)
		if f.values {
			for _, c := range cols[:n] {
				vals = append(vals, float32(c)+0.5)
			}
		}
	}
	return items, vals
}

func (f firstPicks) Values() bool { return f.values }

// TestRowExchange: on every grid of grids15D, ranks that run different
// numbers of rounds (then Drain) fetch random rows of a square and of a
// rectangular matrix, ask the degrees of others and call a service, with
// and without values, in rounds where the ranks ask for different kinds,
// and get the rows, lengths and answers of the whole matrix.
func TestRowExchange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mats := []*spgemm.CSR{
		spgemmtest.Random(rng, 97, 97, 0.08, true, false),
		spgemmtest.Random(rng, 50, 13, 0.3, false, false),
		spgemmtest.Random(rng, 3, 3, 0.5, false, false),
	}
	for mi, a := range mats {
		for _, gc := range grids15D {
			for _, values := range []bool{false, true} {
				name := fmt.Sprintf("matrix %d p=%d c=%d values=%v", mi, gc[0], gc[1], values)
				err := onRows(gc[0], gc[1], a, func(ctx context.Context, m *dist.Matrix) error {
					// Rank r serves on r%3+1 goroutines, in chunks of 1 to 3 ids,
					// and buckets and reorders in pieces of 5 ids or more.
					r := m.Grid.Rank()
					x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: values, Threads: r%3 + 1})
					if err != nil {
						return err
					}
					dist.SetGrains(x, r%3+1, 5)
					if err := x.Handle(dist.KindUser, firstPicks{values}); err != nil {
						return err
					}
					rounds := m.Grid.Rank()%3 + 2
					if err := exchangeRounds(ctx, x, a, rand.New(rand.NewPCG(uint64(m.Grid.Rank()), 7)), m.Grid.Rank(), rounds); err != nil {
						return err
					}
					// The exchange's figures: every round of its own by
					// kind, the Drain's apart, and the bytes the column's
					// counters saw.
					st := x.Stats()
					tot := st.Total()
					if own := st.Rows.Rounds + st.Degrees.Rounds + st.Service.Rounds; own != int64(rounds) || st.Drain.Rounds < 1 {
						return fmt.Errorf("%d rounds of its own and %d draining; want %d and at least 1", own, st.Drain.Rounds, rounds)
					}
					if want := m.Grid.Col().Stats().Bytes[dist.PhaseSample]; tot.BytesSent != want {
						return fmt.Errorf("the exchange counted %d bytes sent, the column %d", tot.BytesSent, want)
					}
					if tot.Wait <= 0 || tot.Transfer <= 0 || mi == 0 && m.Grid.Blocks() > 1 && st.Rows.IDs+st.Degrees.IDs+st.Service.IDs == 0 {
						return fmt.Errorf("figures %+v", st)
					}
					return nil
				})
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
}

// exchangeRounds runs rounds rounds on x, of each kind in turn (rows,
// degrees, service calls) starting with the kind of first (so that ranks
// that start with other kinds ask for several kinds in one round), and
// checks their results against a, then drains.
func exchangeRounds(ctx context.Context, x *dist.RowExchange, a *spgemm.CSR, rng *rand.Rand, first, rounds int) error {
	for round := range rounds {
		var ids []int32
		for v := range int32(a.Rows) {
			if rng.IntN(3) == 0 {
				ids = append(ids, v)
			}
		}
		switch (first + round) % 3 {
		case 0:
			if err := x.Fetch(ctx, ids); err != nil {
				return err
			}
			for _, v := range ids {
				gc, gv := x.Row(v)
				wc, wv := a.Row(int(v))
				if fmt.Sprint(gc) != fmt.Sprint(wc) {
					return fmt.Errorf("round %d: row %d = %v; want %v", round, v, gc, wc)
				}
				if x.Values() && !testenv.SameBits(gv, wv) || !x.Values() && gv != nil {
					return fmt.Errorf("round %d: values of row %d = %v; want %v (values %v)", round, v, gv, wv, x.Values())
				}
			}
		case 1:
			deg := make([]int32, len(ids))
			if err := x.Degrees(ctx, ids, deg); err != nil {
				return err
			}
			for i, v := range ids {
				if want := a.Indptr[v+1] - a.Indptr[v]; int64(deg[i]) != want {
					return fmt.Errorf("round %d: degree of %d = %d; want %d", round, v, deg[i], want)
				}
			}
		case 2:
			args := make([]int32, len(ids))
			for i := range args {
				args[i] = int32(rng.IntN(4))
			}
			res, err := x.Call(ctx, dist.KindUser, [3]int64{1, 0, 0}, ids, args)
			if err != nil {
				return err
			}
			at := 0
			for i, v := range ids {
				wc, _ := a.Row(int(v))
				n := min(int(args[i])+1, len(wc))
				if int(res.Count[i]) != n || fmt.Sprint(res.Items[at:at+n]) != fmt.Sprint(wc[:n]) {
					return fmt.Errorf("round %d: answer for %d is %d items %v; want %v", round, v, res.Count[i], res.Items[at:at+int(res.Count[i])], wc[:n])
				}
				if x.Values() != (res.Values != nil) || (n > 0 && res.Values != nil && res.Values[at] != float32(wc[0])+0.5) {
					return fmt.Errorf("round %d: values %v for %d", round, res.Values, v)
				}
				at += n
			}
		}
	}
	return x.Drain(ctx)
}

// TestRowExchangeErrors: bad arguments are errors naming what is wrong,
// on the rank that made them, before any communication.
func TestRowExchangeErrors(t *testing.T) {
	if _, err := dist.NewRowExchange(nil, dist.RowExchangeOptions{}); err == nil {
		t.Error("nil matrix: no error")
	}
	a := spgemmtest.Random(rand.New(rand.NewPCG(1, 2)), 10, 10, 0.3, false, false)
	err := onRows(1, 1, a, func(ctx context.Context, m *dist.Matrix) error {
		if _, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Phase: dist.NumPhases}); err == nil || !strings.Contains(err.Error(), "Phase") {
			return fmt.Errorf("bad phase: %v", err)
		}
		x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{})
		if err != nil {
			return err
		}
		for _, tc := range []struct {
			err  error
			want string
		}{
			{x.Fetch(ctx, []int32{3, 10}), "id[1] = 10 outside [0, 10)"},
			{x.Degrees(ctx, []int32{-1}, make([]int32, 1)), "id[0] = -1"},
			{x.Degrees(ctx, []int32{1}, nil), "0 degrees for 1 ids"},
			{x.Handle(dist.KindDegrees, firstPicks{}), "kind 1"},
		} {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				return fmt.Errorf("err = %v; want one containing %q", tc.err, tc.want)
			}
		}
		if _, err := x.Call(ctx, dist.KindUser, [3]int64{}, []int32{1}, []int32{0}); err == nil || !strings.Contains(err.Error(), "no service for kind 2") {
			return fmt.Errorf("call without a service: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// onRows runs fn on p in-process ranks of a grid with replication c, over
// a distributed by rows (dist.Distribute); each rank's grid is closed after.
func onRows(p, c int, a *spgemm.CSR, fn func(ctx context.Context, m *dist.Matrix) error) error {
	return dist.RunInProc(context.Background(), p, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		g, err := dist.NewGrid(ctx, w, c, a.Rows)
		if err != nil {
			return err
		}
		defer g.Close()
		m, err := dist.Distribute(g, a)
		if err != nil {
			return err
		}
		return fn(ctx, m)
	})
}

// TestRowExchangeCallAppend: a call cut into rounds of any size, their
// answers appended to one CallResult (that already holds an earlier call's,
// reset by CallInto), gives the answers of one Call, with and without
// values; ranks cut their calls differently and drain.
func TestRowExchangeCallAppend(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	a := spgemmtest.Random(rng, 61, 61, 0.1, true, false)
	for _, gc := range [][2]int{{1, 1}, {3, 1}, {4, 2}} {
		for _, values := range []bool{false, true} {
			for _, piece := range []int{1, 7, 1000} {
				err := onRows(gc[0], gc[1], a, func(ctx context.Context, m *dist.Matrix) error {
					x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: values})
					if err != nil {
						return err
					}
					if err := x.Handle(dist.KindUser, firstPicks{values}); err != nil {
						return err
					}
					r := m.Grid.Rank()
					ids, args := make([]int32, 0, a.Rows), make([]int32, 0, a.Rows)
					for v := range int32(a.Rows) {
						if (int(v)+r)%2 == 0 {
							ids, args = append(ids, v), append(args, (v+int32(r))%3)
						}
					}
					want, err := x.Call(ctx, dist.KindUser, [3]int64{1, 0, 0}, ids, args)
					if err != nil {
						return err
					}
					var got dist.CallResult
					if err := x.CallInto(ctx, &got, dist.KindUser, [3]int64{2, 0, 0}, ids[:len(ids)/2], args[:len(ids)/2]); err != nil {
						return err
					}
					got.Count, got.Items, got.Values = got.Count[:0], got.Items[:0], got.Values[:0]
					step := piece + r // ranks cut at different places, and run different numbers of rounds
					for lo := 0; lo < len(ids); lo += step {
						hi := min(lo+step, len(ids))
						if err := x.CallAppend(ctx, &got, dist.KindUser, [3]int64{1, 0, 0}, ids[lo:hi], args[lo:hi]); err != nil {
							return err
						}
					}
					if err := x.Drain(ctx); err != nil {
						return err
					}
					if fmt.Sprint(got.Count) != fmt.Sprint(want.Count) || fmt.Sprint(got.Items) != fmt.Sprint(want.Items) || !testenv.SameBits(got.Values, want.Values) || (got.Values == nil) != (want.Values == nil) {
						return fmt.Errorf("appended %v %v %v; want %v %v %v", got.Count, got.Items, got.Values, want.Count, want.Items, want.Values)
					}
					return nil
				})
				if err != nil {
					t.Errorf("p=%d c=%d values=%v pieces of %d: %v", gc[0], gc[1], values, piece, err)
				}
			}
		}
	}
}
