package spgemm

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/bulksample/bulksample/internal/par"
)

func TestMulHandChecked(t *testing.T) {
	path := csrFromRows(3, [][]float32{{0, 1, 0}, {1, 0, 1}, {0, 1, 0}})
	tests := []struct {
		name string
		a, b *CSR
		opt  *MulOptions
		want [][]float32
	}{
		{
			name: "2x3 times 3x2",
			a:    csrFromRows(3, [][]float32{{1, 0, 2}, {0, 3, 0}}),
			b:    csrFromRows(2, [][]float32{{4, 0}, {0, 5}, {6, 7}}),
			want: [][]float32{{16, 14}, {0, 15}},
		},
		{
			name: "path of 3 vertices squared",
			a:    path, b: path,
			want: [][]float32{{1, 0, 1}, {0, 2, 0}, {1, 0, 1}},
		},
		{
			name: "path squared, masked by the diagonal",
			a:    path, b: path,
			opt:  &MulOptions{Mask: csrFromRows(3, [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})},
			want: [][]float32{{1, 0, 0}, {0, 2, 0}, {0, 0, 1}},
		},
		{
			name: "path squared, off the diagonal (complemented mask)",
			a:    path, b: path,
			opt:  &MulOptions{Mask: csrFromRows(3, [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}), ComplementMask: true},
			want: [][]float32{{0, 0, 1}, {0, 0, 0}, {1, 0, 0}},
		},
		{
			name: "path squared, structure only",
			a:    path, b: path,
			opt:  &MulOptions{StructureOnly: true},
			want: [][]float32{{1, 0, 1}, {0, 1, 0}, {1, 0, 1}},
		},
		{
			name: "row selection Q = I[[2 0 2], :] times path",
			a:    csrFromRows(3, [][]float32{{0, 0, 1}, {1, 0, 0}, {0, 0, 1}}),
			b:    csrFromRows(3, [][]float32{{1, 2, 0}, {0, 0, 3}, {4, 0, 5}}),
			want: [][]float32{{4, 0, 5}, {1, 2, 0}, {4, 0, 5}},
		},
		{
			name: "scaled selection",
			a:    csrFromRows(2, [][]float32{{0, -2}, {0.5, 0}}),
			b:    csrFromRows(2, [][]float32{{2, 4}, {1, 0}}),
			want: [][]float32{{-2, 0}, {1, 2}},
		},
	}
	for _, tc := range tests {
		for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
			t.Run(fmt.Sprintf("%s/%v", tc.name, acc), func(t *testing.T) {
				var opt MulOptions
				if tc.opt != nil {
					opt = *tc.opt
				}
				opt.Accumulator = acc
				got := Mul(tc.a, tc.b, &opt)
				if err := got.Validate(); err != nil {
					t.Fatal(err)
				}
				want := csrFromRows(len(tc.want[0]), tc.want)
				if err := sameBits(got, want); err != nil {
					t.Errorf("got %v; want %v (%v)", got, want, err)
				}
			})
		}
	}
}

// mulCase is one random product shape.
type mulCase struct {
	label        string
	m, k, n      int
	densA, densB float64
	kindA, kindB matrixKind
}

func mulCases() []mulCase {
	return []mulCase{
		{label: "0x0", m: 0, k: 0, n: 0},
		{label: "0 inner", m: 3, k: 0, n: 4},
		{label: "0 rows", m: 0, k: 5, n: 3, densB: 0.5},
		{label: "0 cols", m: 4, k: 3, n: 0, densA: 0.5},
		{label: "1x1", m: 1, k: 1, n: 1, densA: 1, densB: 1},
		{label: "all empty", m: 7, k: 5, n: 6},
		{label: "empty rows", m: 30, k: 20, n: 25, densA: 0.3, densB: 0.3, kindA: emptyRowsKind, kindB: emptyRowsKind},
		{label: "skewed A", m: 40, k: 60, n: 50, densA: 0.02, densB: 0.1, kindA: skewedKind},
		{label: "skewed B", m: 40, k: 60, n: 50, densA: 0.1, densB: 0.02, kindB: skewedKind},
		{label: "selection", m: 50, k: 40, n: 30, densB: 0.2, kindA: selectionKind},
		{label: "selection into wide", m: 20, k: 30, n: 2000, densB: 0.01, kindA: selectionKind},
		{label: "tall", m: 200, k: 10, n: 15, densA: 0.3, densB: 0.3},
		{label: "wide", m: 10, k: 15, n: 300, densA: 0.3, densB: 0.1},
		{label: "dense", m: 20, k: 20, n: 20, densA: 1, densB: 1},
		{label: "wide sparse (hash rows)", m: 60, k: 80, n: 3000, densA: 0.05, densB: 0.01},
		{label: "power law", m: 300, k: 300, n: 300, densA: 0.02, densB: 0.02, kindA: powerLawKind, kindB: powerLawKind},
		{label: "float values", m: 50, k: 40, n: 60, densA: 0.2, densB: 0.2},
	}
}

// TestMulRandom checks Mul against the serial reference product
// (mulReference) bit for bit on random matrices of many shapes and kinds,
// for every accumulator, mask mode and structure-only. The comparison with
// the dense float64 reference is the conformance kit's
// (TestMulConformance).
func TestMulRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for ci, tc := range mulCases() {
		integer := tc.label != "float values"
		a := randomMatrix(rng, tc.m, tc.k, tc.densA, tc.kindA, integer)
		b := randomMatrix(rng, tc.k, tc.n, tc.densB, tc.kindB, integer)
		mask := randomMatrix(rng, tc.m, tc.n, 0.3, emptyRowsKind, true)
		for _, mode := range []string{"plain", "mask", "complement", "structure", "structure+mask"} {
			for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
				name := fmt.Sprintf("%d %s/%s/%v", ci, tc.label, mode, acc)
				opt := &MulOptions{Accumulator: acc, Threads: 1 + ci%3}
				switch mode {
				case "mask", "structure+mask":
					opt.Mask = mask
				case "complement":
					opt.Mask, opt.ComplementMask = mask, true
				}
				opt.StructureOnly = mode == "structure" || mode == "structure+mask"
				got := Mul(a, b, opt)
				if err := got.Validate(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// The serial reference adds in the same order: same bits.
				if err := sameBits(got, mulReference(a, b, opt)); err != nil {
					t.Fatalf("%s: differs from mulReference: %v", name, err)
				}
			}
		}
	}
}

// TestMulThreadsBitIdentical checks that the product has the same bits for
// any thread count and accumulator, on inputs big enough to be split into
// many ranges.
func TestMulThreadsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, density := 2000, 0.005
	if testing.Short() {
		n, density = 1000, 0.01
	}
	a := randomMatrix(rng, n, n, density, powerLawKind, false)
	mask := randomMatrix(rng, n, n, 0.01, uniformKind, true)
	q := randomMatrix(rng, n/2, n, 0, selectionKind, false)
	if bounds := par.SplitWork(RowFlops(a, a, 1), 8*par.ChunksPerThread); len(bounds) < 16 {
		t.Fatalf("test matrix too small: only %d ranges", len(bounds)-1)
	}
	for _, tc := range []struct {
		name string
		a    *CSR
		opt  MulOptions
	}{
		{"A·A", a, MulOptions{}},
		{"A·A masked", a, MulOptions{Mask: mask}},
		{"A·A complemented", a, MulOptions{Mask: mask, ComplementMask: true}},
		{"A·A structure", a, MulOptions{StructureOnly: true}},
		{"Q·A", q, MulOptions{}},
	} {
		opt := tc.opt
		opt.Threads = 1
		if tc.a == q {
			opt.Mask = nil
		}
		want := Mul(tc.a, a, &opt)
		if err := want.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, threads := range []int{2, 3, 8} {
			for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
				opt.Threads, opt.Accumulator = threads, acc
				if err := sameBits(Mul(tc.a, a, &opt), want); err != nil {
					t.Errorf("%s, %d threads, %v accumulator: %v", tc.name, threads, acc, err)
				}
			}
		}
	}
}

// TestMulReusesDestination checks that a second product into the same CSR
// reuses its arrays and gives the same result as a fresh one.
func TestMulReusesDestination(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := randomMatrix(rng, 100, 100, 0.05, uniformKind, false)
	small := randomMatrix(rng, 100, 100, 0.01, uniformKind, false)
	var c CSR
	c.Mul(a, a, nil)
	ptr, idx, val := &c.Indptr[0], &c.Indices[0], &c.Data[0]
	c.Mul(small, small, nil)
	if &c.Indptr[0] != ptr || &c.Indices[0] != idx || &c.Data[0] != val {
		t.Error("second Mul into a larger destination reallocated")
	}
	if err := sameBits(&c, Mul(small, small, nil)); err != nil {
		t.Errorf("reused destination: %v", err)
	}
	// Reuse through the selection (gather) path too.
	q := randomMatrix(rng, 10, 100, 0, selectionKind, false)
	c.Mul(q, a, nil)
	if err := sameBits(&c, mulReference(q, a, nil)); err != nil {
		t.Errorf("gather into reused destination: %v", err)
	}
}

func TestMulPanics(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 3, 0}}) // 2 x 3
	b := csrFromRows(2, [][]float32{{4, 0}, {0, 5}})       // 2 x 2
	sq := csrFromRows(3, [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	alias := *sq // shares sq's arrays
	tests := []struct {
		name string
		fn   func()
		want any
	}{
		{"inner dimensions", func() { Mul(a, b, nil) }, ShapeError{Op: "Mul", ARows: 2, ACols: 3, BRows: 2, BCols: 2}},
		{"mask shape", func() { Mul(b, b, &MulOptions{Mask: sq}) }, ShapeError{Op: "Mul mask", ARows: 3, ACols: 3, BRows: 2, BCols: 2}},
		{"destination is a", func() { sq.Mul(sq, sq, nil) }, ArgError{Op: "Mul", Msg: "destination aliases operand a"}},
		{"destination is b", func() { b.Mul(b.Clone(), b, nil) }, ArgError{Op: "Mul", Msg: "destination aliases operand b"}},
		{"destination shares arrays", func() { alias.Mul(sq, sq.Clone(), nil) }, ArgError{Op: "Mul", Msg: "destination aliases operand a"}},
		{"destination is the mask", func() { sq.Mul(sq.Clone(), sq.Clone(), &MulOptions{Mask: sq}) }, ArgError{Op: "Mul", Msg: "destination aliases operand mask"}},
		{"row flops shape", func() { RowFlops(a, b, 1) }, ShapeError{Op: "RowFlops", ARows: 2, ACols: 3, BRows: 2, BCols: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkPanic(t, tc.fn, tc.want)
		})
	}
}

// checkPanic fails t unless fn panics with exactly want.
func checkPanic(t *testing.T, fn func(), want any) {
	t.Helper()
	defer func() {
		t.Helper()
		got := recover()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("panic value %#v; want %#v", got, want)
		}
	}()
	fn()
}

func TestRowFlops(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}, {0, 3, 0}})
	b := csrFromRows(4, [][]float32{{1, 1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 1}})
	got := RowFlops(a, b, 2)
	if want := []int64{0, 6, 6, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("RowFlops = %v; want %v", got, want)
	}
}

// FuzzMul decodes two small matrices and a mask from the fuzzer's bytes
// (possibly malformed: then Validate must say so and nothing else runs) and
// checks every accumulator and mask mode against the serial reference.
func FuzzMul(f *testing.F) {
	f.Add([]byte{3, 3, 0, 1, 2, 1, 0, 2, 2, 0, 1, 9, 4, 7})
	f.Add([]byte{1, 1, 0, 1, 5, 0, 0, 0})
	f.Add([]byte{4, 2, 0, 1, 1, 3, 3, 0, 2, 1, 1, 0, 0, 1, 1, 2, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := int(data[0]%8) + 1
		k := int(data[1]%8) + 1
		rest := data[2:]
		// Entries come in (row, col, value) triples; rows and columns are
		// taken modulo the shape, duplicates dropped by a dense marker.
		build := func(rows, cols int) *CSR {
			d := make([][]float32, rows)
			for i := range d {
				d[i] = make([]float32, cols)
			}
			for len(rest) >= 3 && rest[0] != 255 {
				d[int(rest[0])%rows][int(rest[1])%cols] = float32(int(rest[2]%9) - 4)
				rest = rest[3:]
			}
			if len(rest) > 0 {
				rest = rest[1:]
			}
			return csrFromRows(cols, d)
		}
		a, b, mask := build(n, k), build(k, n), build(n, n)
		for _, m := range []*CSR{a, b, mask} {
			if err := m.Validate(); err != nil {
				t.Fatalf("built an invalid matrix: %v", err)
			}
		}
		for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
			for _, opt := range []MulOptions{{}, {Mask: mask}, {Mask: mask, ComplementMask: true}, {StructureOnly: true}} {
				opt.Accumulator, opt.Threads = acc, 2
				got := Mul(a, b, &opt)
				if err := got.Validate(); err != nil {
					t.Fatalf("%+v: invalid result: %v", opt, err)
				}
				if err := sameBits(got, mulReference(a, b, &opt)); err != nil {
					t.Fatalf("%+v: %v", opt, err)
				}
			}
		}
		if err := sameBits(Transpose(a, 2), transposeReference(a, 1)); err != nil {
			t.Fatalf("Transpose: %v", err)
		}
	})
}
