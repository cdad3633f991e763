package spgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestMulAddHandChecked(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}, {0, 3, 0}})
	b := csrFromRows(2, [][]float32{{4, 0}, {0, 5}, {6, 7}})
	add := csrFromRows(2, [][]float32{{0, 1}, {2, 0}, {0, 0}})
	// A·B = [16 14; 0 0; 0 15]; plus Add: row 1 is Add's alone.
	want := csrFromRows(2, [][]float32{{16, 15}, {2, 0}, {0, 15}})
	for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
		got := Mul(a, b, &MulOptions{Add: add, Accumulator: acc, Threads: 2})
		if err := sameBits(got, want); err != nil {
			t.Errorf("%v: Add + A·B: %v", acc, err)
		}
		s := Mul(a, b, &MulOptions{Add: add, Accumulator: acc, StructureOnly: true})
		if err := sameBits(s, csrFromRows(2, [][]float32{{1, 1}, {1, 0}, {0, 1}})); err != nil {
			t.Errorf("%v: structure of Add + A·B: %v", acc, err)
		}
	}
}

// columnPiece returns a with only its columns in [lo, hi) kept: the piece
// of A that multiplies rows [lo, hi) of B.
func columnPiece(a *CSR, lo, hi int) *CSR {
	c := &CSR{Rows: a.Rows, Cols: a.Cols, Indptr: make([]int64, a.Rows+1)}
	for i := range a.Rows {
		cols, vals := a.Row(i)
		for t, j := range cols {
			if int(j) >= lo && int(j) < hi {
				c.Indices = append(c.Indices, j)
				c.Data = append(c.Data, vals[t])
			}
		}
		c.Indptr[i+1] = int64(len(c.Indices))
	}
	return c
}

// TestMulAddPieces: a product cut into pieces along A's columns, each piece
// added onto the sum of the previous ones, has the bits of the whole
// product (SUMMA's accumulation), for every accumulator and thread count;
// with zeros among the values, entries may differ only in the sign of a
// zero.
func TestMulAddPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		m, k, n, pieces int
		dens            float64
		kind            matrixKind
		zeros           bool
	}{
		{20, 30, 25, 3, 0.2, uniformKind, false},
		{40, 50, 700, 4, 0.1, emptyRowsKind, false},
		{30, 60, 40, 5, 0.05, powerLawKind, false},
		{25, 20, 30, 4, 0.3, selectionKind, false},
		{30, 30, 30, 3, 0.3, uniformKind, true},
		{1, 7, 3, 7, 1, uniformKind, false},
	} {
		a := randomMatrix(rng, tc.m, tc.k, tc.dens, tc.kind, false)
		b := randomMatrix(rng, tc.k, tc.n, tc.dens, emptyRowsKind, false)
		if tc.zeros {
			for p := range a.Data {
				if rng.IntN(3) == 0 {
					a.Data[p] = float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
				}
			}
		}
		whole := Mul(a, b, &MulOptions{Threads: 1})
		for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
			for _, threads := range []int{1, 3} {
				name := fmt.Sprintf("%dx%d·%dx%d %v in %d pieces, %v, %d threads", tc.m, tc.k, tc.k, tc.n, tc.kind, tc.pieces, acc, threads)
				var sum *CSR
				for s := range tc.pieces {
					lo, hi := s*tc.k/tc.pieces, (s+1)*tc.k/tc.pieces
					opt := &MulOptions{Add: sum, Accumulator: acc, Threads: threads}
					sum = Mul(columnPiece(a, lo, hi), b, opt)
					if err := sum.Validate(); err != nil {
						t.Fatalf("%s: piece %d: %v", name, s, err)
					}
				}
				if !tc.zeros {
					if err := sameBits(sum, whole); err != nil {
						t.Errorf("%s: %v", name, err)
					}
					continue
				}
				if sum.NNZ() != whole.NNZ() {
					t.Fatalf("%s: nnz %d; want %d", name, sum.NNZ(), whole.NNZ())
				}
				for p := range whole.Data {
					g, w := sum.Data[p], whole.Data[p]
					if sum.Indices[p] != whole.Indices[p] || (math.Float32bits(g) != math.Float32bits(w) && !(g == 0 && w == 0)) {
						t.Fatalf("%s: entry %d: (%d, %v); want (%d, %v)", name, p, sum.Indices[p], g, whole.Indices[p], w)
					}
				}
			}
		}
	}
}

func TestMulAddPanics(t *testing.T) {
	sq := csrFromRows(3, [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	wide := csrFromRows(4, [][]float32{{1, 0, 0, 0}})
	for _, tc := range []struct {
		name string
		fn   func()
		want any
	}{
		{"add shape", func() { Mul(sq, sq, &MulOptions{Add: wide}) }, ShapeError{Op: "Mul add", ARows: 1, ACols: 4, BRows: 3, BCols: 3}},
		{"add with mask", func() { Mul(sq, sq, &MulOptions{Add: sq.Clone(), Mask: sq.Clone()}) }, ArgError{Op: "Mul", Msg: "Add cannot be combined with a mask"}},
		{"add with complement", func() { Mul(sq, sq, &MulOptions{Add: sq.Clone(), ComplementMask: true}) }, ArgError{Op: "Mul", Msg: "Add cannot be combined with a mask"}},
		{"destination is add", func() { sq.Mul(sq.Clone(), sq.Clone(), &MulOptions{Add: sq}) }, ArgError{Op: "Mul", Msg: "destination aliases operand add"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkPanic(t, tc.fn, tc.want) })
	}
}
