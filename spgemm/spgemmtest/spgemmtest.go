package spgemmtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// Dense is a row-major dense matrix in float64 with, per position, whether
// a sparse result stores an entry there (a structural nonzero).
type Dense struct {
	Rows, Cols int
	Val        []float64
	Present    []bool
}

// DenseOf expands a.
func DenseOf(a *spgemm.CSR) *Dense {
	d := &Dense{Rows: a.Rows, Cols: a.Cols, Val: make([]float64, a.Rows*a.Cols), Present: make([]bool, a.Rows*a.Cols)}
	for i := range a.Rows {
		cols, vals := a.Row(i)
		for t, j := range cols {
			d.Val[i*a.Cols+int(j)], d.Present[i*a.Cols+int(j)] = float64(vals[t]), true
		}
	}
	return d
}

// DenseProduct is the reference product: the textbook triple loop over the
// stored entries, in float64. An entry of C is present when some term
// A(i,k)·B(k,j) has both factors stored (even if the terms cancel), as
// spgemm.Mul stores it. With mask, only the entries inside mask's pattern
// are kept (outside it, with complement; with complement and no mask,
// none). With structureOnly every present value is 1.
func DenseProduct(a, b *spgemm.CSR, mask *spgemm.CSR, complement, structureOnly bool) *Dense {
	da, db := DenseOf(a), DenseOf(b)
	c := &Dense{Rows: a.Rows, Cols: b.Cols, Val: make([]float64, a.Rows*b.Cols), Present: make([]bool, a.Rows*b.Cols)}
	for i := range a.Rows {
		for k := range a.Cols {
			if !da.Present[i*a.Cols+k] {
				continue
			}
			for j := range b.Cols {
				if db.Present[k*b.Cols+j] {
					c.Val[i*c.Cols+j] += da.Val[i*a.Cols+k] * db.Val[k*b.Cols+j]
					c.Present[i*c.Cols+j] = true
				}
			}
		}
	}
	var inMask []bool
	if mask != nil {
		inMask = DenseOf(mask).Present
	}
	for p := range c.Present {
		// Without a mask, "inside" is everywhere: a complement keeps nothing.
		in := mask == nil || inMask[p]
		if (mask != nil || complement) && in == complement {
			c.Present[p], c.Val[p] = false, 0
		}
		if structureOnly && c.Present[p] {
			c.Val[p] = 1
		}
	}
	return c
}

// Equal returns an error describing the first difference between got and
// want: validity, shape, a stored entry where want has none or the reverse,
// or a value further than tol from want's.
func Equal(got *spgemm.CSR, want *Dense, tol float64) error {
	if err := got.Validate(); err != nil {
		return fmt.Errorf("result invalid: %w", err)
	}
	if got.Rows != want.Rows || got.Cols != want.Cols {
		return fmt.Errorf("shape %d x %d, want %d x %d", got.Rows, got.Cols, want.Rows, want.Cols)
	}
	g := DenseOf(got)
	for p := range want.Present {
		i, j := p/max(want.Cols, 1), p%max(want.Cols, 1)
		if g.Present[p] != want.Present[p] {
			return fmt.Errorf("entry (%d, %d) stored = %v, want %v", i, j, g.Present[p], want.Present[p])
		}
		if math.Abs(g.Val[p]-want.Val[p]) > tol {
			return fmt.Errorf("entry (%d, %d) = %v, want %v", i, j, g.Val[p], want.Val[p])
		}
	}
	return nil
}

// Random returns a seeded rows x cols matrix whose entries are present with
// probability density, every third row empty when emptyRows is set. Values
// are small nonzero integers when integer is set, so that every float32 sum
// of the products is exact, and standard normal draws otherwise.
func Random(rng *rand.Rand, rows, cols int, density float64, emptyRows, integer bool) *spgemm.CSR {
	var src, dst []int32
	var vals []float32
	for i := range rows {
		if emptyRows && i%3 == 0 {
			continue
		}
		for j := range cols {
			if rng.Float64() >= density {
				continue
			}
			v := float32(rng.NormFloat64())
			if integer {
				v = float32(1 + rng.IntN(4))
				if rng.IntN(2) == 0 {
					v = -v
				}
			}
			src, dst, vals = append(src, int32(i)), append(dst, int32(j)), append(vals, v)
		}
	}
	c, err := spgemm.FromCOO(rows, cols, src, dst, vals, nil)
	if err != nil {
		panic(err)
	}
	return c
}

// Mul is the product under test: C = A·B with opt (Mask, ComplementMask,
// StructureOnly, Threads; Accumulator is a hint the implementation may
// ignore).
type Mul func(a, b *spgemm.CSR, opt *spgemm.MulOptions) *spgemm.CSR

// Features says which options of spgemm.MulOptions an implementation
// supports; RunMul checks only those.
type Features struct {
	Mask, StructureOnly bool
}

// RunMul checks mul against DenseProduct on seeded random matrices of many
// shapes (empty, one row, tall, wide, dense, empty rows), with integer
// values (exact) and float values (within float32 rounding), for the masks
// and structure-only products that feat supports, and checks that the
// result has the same bits for 1, 2 and 5 threads.
func RunMul(t *testing.T, mul Mul, feat Features) {
	rng := rand.New(rand.NewPCG(17, 29))
	for ci, tc := range []struct {
		m, k, n      int
		densA, densB float64
		emptyRows    bool
	}{
		{0, 0, 0, 0, 0, false},
		{3, 0, 4, 0, 0, false},
		{0, 5, 3, 0, 0.5, false},
		{4, 3, 0, 0.5, 0, false},
		{1, 1, 1, 1, 1, false},
		{7, 5, 6, 0, 0, false},
		{30, 20, 25, 0.3, 0.3, true},
		{200, 10, 15, 0.3, 0.3, false},
		{10, 15, 300, 0.3, 0.1, false},
		{20, 20, 20, 1, 1, false},
		{60, 80, 1500, 0.05, 0.01, false},
	} {
		for _, integer := range []bool{true, false} {
			a := Random(rng, tc.m, tc.k, tc.densA, tc.emptyRows, integer)
			b := Random(rng, tc.k, tc.n, tc.densB, tc.emptyRows, integer)
			mask := Random(rng, tc.m, tc.n, 0.3, true, true)
			tol := 0.0
			if !integer {
				tol = 1e-4 * float64(tc.k)
			}
			type mode struct {
				name                   string
				mask                   *spgemm.CSR
				complement, structure  bool
				needsMask, needsStruct bool
			}
			for _, md := range []mode{
				{name: "plain"},
				{name: "mask", mask: mask, needsMask: true},
				{name: "complement", mask: mask, complement: true, needsMask: true},
				{name: "complement of none", complement: true, needsMask: true},
				{name: "structure", structure: true, needsStruct: true},
			} {
				if (md.needsMask && !feat.Mask) || (md.needsStruct && !feat.StructureOnly) {
					continue
				}
				name := fmt.Sprintf("case %d (%dx%d·%dx%d) integer=%v %s", ci, tc.m, tc.k, tc.k, tc.n, integer, md.name)
				want := DenseProduct(a, b, md.mask, md.complement, md.structure)
				var first *spgemm.CSR
				for _, threads := range []int{1, 2, 5} {
					opt := &spgemm.MulOptions{Mask: md.mask, ComplementMask: md.complement, StructureOnly: md.structure, Threads: threads}
					got := mul(a, b, opt)
					if err := Equal(got, want, tol); err != nil {
						t.Fatalf("%s, %d threads: %v", name, threads, err)
					}
					if first == nil {
						first = got
					} else if err := SameBits(got, first); err != nil {
						t.Fatalf("%s: %d threads differ from 1: %v", name, threads, err)
					}
				}
			}
		}
	}
}

// SameBits returns an error describing the first difference unless a and
// b are identical bit for bit (shape, row offsets, column ids, value bits).
func SameBits(a, b *spgemm.CSR) error {
	if a.Rows != b.Rows || a.Cols != b.Cols || a.NNZ() != b.NNZ() {
		return fmt.Errorf("%d x %d with %d entries vs %d x %d with %d", a.Rows, a.Cols, a.NNZ(), b.Rows, b.Cols, b.NNZ())
	}
	for i := range a.Rows + 1 {
		if a.Indptr[i] != b.Indptr[i] {
			return fmt.Errorf("row offset %d: %d vs %d", i, a.Indptr[i], b.Indptr[i])
		}
	}
	for p := range a.NNZ() {
		if a.Indices[p] != b.Indices[p] || math.Float32bits(a.Data[p]) != math.Float32bits(b.Data[p]) {
			return fmt.Errorf("entry %d: (%d, %v) vs (%d, %v)", p, a.Indices[p], a.Data[p], b.Indices[p], b.Data[p])
		}
	}
	return nil
}
