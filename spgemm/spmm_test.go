package spgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/testenv"
)

// randomDense returns rows x f seeded values; integers when integer is set.
func randomDense(rng *rand.Rand, rows, f int, integer bool) []float32 {
	x := make([]float32, rows*f)
	for i := range x {
		if integer {
			x[i] = float32(rng.IntN(9) - 4)
		} else {
			x[i] = float32(rng.NormFloat64())
		}
	}
	return x
}

// denseTimes is the naive float64 product of a (expanded) and the row-major
// k x f matrix x; transposed uses aᵀ.
func denseTimes(a *CSR, x []float32, f int, transposed bool) []float64 {
	d := denseOf(a)
	rows, inner := a.Rows, a.Cols
	if transposed {
		rows, inner = inner, rows
	}
	out := make([]float64, rows*f)
	for i := range rows {
		for k := range inner {
			var v float64
			if transposed {
				v = d.val[k*a.Cols+i]
			} else {
				v = d.val[i*a.Cols+k]
			}
			for j := range f {
				out[i*f+j] += v * float64(x[k*f+j])
			}
		}
	}
	return out
}

func TestMulDense(t *testing.T) {
	t.Run("hand checked", func(t *testing.T) {
		a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}}) // 2 x 3
		x := []float32{1, 2, 3, 4, 5, 6}                       // 3 x 2
		dst := []float32{9, 9, 9, 9}
		MulDense(dst, a, x, 2, 1)
		if want := []float32{11, 14, 0, 0}; !slices.Equal(dst, want) {
			t.Errorf("A·X = %v; want %v", dst, want)
		}
		dstT := make([]float32, 6)
		MulDenseT(dstT, a, []float32{1, 2, 3, 4}, 2, 1) // Aᵀ (3 x 2) · (2 x 2)
		if want := []float32{1, 2, 0, 0, 2, 4}; !slices.Equal(dstT, want) {
			t.Errorf("Aᵀ·X = %v; want %v", dstT, want)
		}
	})
	rng := rand.New(rand.NewPCG(7, 8))
	for ci, tc := range mulCases() {
		a := randomMatrix(rng, tc.m, tc.k, tc.densA, tc.kindA, true)
		for _, f := range []int{0, 1, 3, 4, 7, 16} {
			x := randomDense(rng, tc.k, f, true)
			xt := randomDense(rng, tc.m, f, true)
			want, wantT := denseTimes(a, x, f, false), denseTimes(a, xt, f, true)
			var first, firstT []float32
			for _, threads := range []int{1, 2, 3, 8} {
				name := fmt.Sprintf("%d %s f=%d threads=%d", ci, tc.label, f, threads)
				dst := randomDense(rng, tc.m, f, true) // overwritten
				MulDense(dst, a, x, f, threads)
				dstT := randomDense(rng, tc.k, f, true)
				MulDenseT(dstT, a, xt, f, threads)
				for i := range want {
					if float64(dst[i]) != want[i] {
						t.Fatalf("%s: A·X[%d] = %v; want %v", name, i, dst[i], want[i])
					}
				}
				for i := range wantT {
					if float64(dstT[i]) != wantT[i] {
						t.Fatalf("%s: Aᵀ·X[%d] = %v; want %v", name, i, dstT[i], wantT[i])
					}
				}
				if first == nil {
					first, firstT = dst, dstT
				}
				if !testenv.SameBits(dst, first) || !testenv.SameBits(dstT, firstT) {
					t.Fatalf("%s: bits differ from 1 thread", name)
				}
			}
		}
	}
}

// TestMulDenseThreadsBitIdentical uses float values and an input large
// enough for the parallel (transpose) path of MulDenseT.
func TestMulDenseThreadsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	a := randomMatrix(rng, 2000, 1500, 0.005, powerLawKind, false)
	f := 33
	x, xt := randomDense(rng, a.Cols, f, false), randomDense(rng, a.Rows, f, false)
	want, wantT := make([]float32, a.Rows*f), make([]float32, a.Cols*f)
	mulDenseReference(want, a, x, f, 1)
	mulDenseTReference(wantT, a, xt, f, 1)
	for _, threads := range []int{1, 2, 3, 8} {
		dst, dstT := make([]float32, a.Rows*f), make([]float32, a.Cols*f)
		MulDense(dst, a, x, f, threads)
		MulDenseT(dstT, a, xt, f, threads)
		if !testenv.SameBits(dst, want) {
			t.Errorf("MulDense, %d threads: bits differ from the serial reference", threads)
		}
		if !testenv.SameBits(dstT, wantT) {
			t.Errorf("MulDenseT, %d threads: bits differ from the serial reference", threads)
		}
	}
}

func TestMulDensePanics(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}}) // 2 x 3
	checkPanic(t, func() { MulDense(make([]float32, 4), a, make([]float32, 4), 2, 1) },
		ShapeError{Op: "MulDense", ARows: 2, ACols: 3, BRows: 2, BCols: 2})
	checkPanic(t, func() { MulDense(make([]float32, 3), a, make([]float32, 6), 2, 1) },
		ShapeError{Op: "MulDense", ARows: 2, ACols: 3, BRows: 3, BCols: 2})
	checkPanic(t, func() { MulDenseT(make([]float32, 6), a, make([]float32, 6), 2, 1) },
		ShapeError{Op: "MulDenseT", ARows: 3, ACols: 2, BRows: 3, BCols: 2})
	checkPanic(t, func() { MulDense(nil, a, nil, -1, 1) },
		ShapeError{Op: "MulDense", ARows: 2, ACols: 3, BRows: 0, BCols: -1})
}

// TestAxpy checks that axpy, whichever loop it runs, gives the bits of the
// plain loop, including alpha = 0 against infinities (0·Inf = NaN must be
// added, not skipped) and lengths around the unrolling and assembly cutoffs.
func TestAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	inf := float32(math.Inf(1))
	for n := range 41 {
		for _, alpha := range []float32{0, 1, -2.5, 1e-3} {
			x, y := randomDense(rng, 1, n+3, false), randomDense(rng, 1, n, false)
			if n > 5 {
				x[5], y[n-1] = inf, -inf
			}
			want := slices.Clone(y)
			for i := range want {
				want[i] += float32(alpha * x[i])
			}
			axpy(y, x, alpha)
			if !testenv.SameBits(y, want) {
				t.Fatalf("n=%d alpha=%v: axpy = %v; want %v", n, alpha, y, want)
			}
		}
	}
}

// TestMulDenseTRanges checks that MulDenseT's output row ranges, however
// they are cut, give the bits of the serial scatter (the reference): the
// parallel path's split depends on the thread count and on par.SplitWork.
func TestMulDenseTRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	n := 3000
	if testing.Short() {
		n = 1000
	}
	mats := []*CSR{
		randomMatrix(rng, n, n*2/3, 0.02, powerLawKind, false),
		randomMatrix(rng, 200, 150, 0.1, emptyRowsKind, false),
		randomMatrix(rng, 100, 80, 0.05, skewedKind, false),
	}
	for mi, a := range mats {
		for _, f := range []int{1, 5, 16, 33} {
			x := randomDense(rng, a.Rows, f, false)
			want := make([]float32, a.Cols*f)
			mulDenseTReference(want, a, x, f, 1)
			// Random cuts of the output rows, as MulDenseT's ranges.
			got := randomDense(rng, a.Cols, f, false) // overwritten
			cuts := []int{0, a.Cols}
			for range 5 {
				cuts = append(cuts, rng.IntN(a.Cols+1))
			}
			slices.Sort(cuts)
			for k := range len(cuts) - 1 {
				mulDenseTColumns(got, a, x, f, cuts[k], cuts[k+1])
			}
			if !testenv.SameBits(got, want) {
				t.Fatalf("matrix %d f=%d cuts %v: bits differ from the serial reference", mi, f, cuts)
			}
			for _, threads := range []int{2, 3, 8} {
				clear(got)
				MulDenseT(got, a, x, f, threads)
				if !testenv.SameBits(got, want) {
					t.Fatalf("matrix %d f=%d, %d threads: bits differ from the serial reference", mi, f, threads)
				}
			}
		}
	}
}

// TestMulDenseParallelSplits uses inputs large enough that MulDense cuts its
// rows into several ranges and MulDenseT counts in buckets of several
// columns with a narrower last bucket (a.Cols not a multiple of the bucket
// width), and checks the bits against the serial reference.
func TestMulDenseParallelSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	a := randomMatrix(rng, 5000, 3001, 0.004, powerLawKind, false)
	if parts := len(par.SplitWork(a.Indptr, 2*par.ChunksPerThread)) - 1; parts < 2 {
		t.Fatalf("test matrix too small: MulDense would not split (%d nonzeros)", a.NNZ())
	}
	f := 5
	x, xt := randomDense(rng, a.Cols, f, false), randomDense(rng, a.Rows, f, false)
	want, wantT := make([]float32, a.Rows*f), make([]float32, a.Cols*f)
	mulDenseReference(want, a, x, f, 1)
	mulDenseTReference(wantT, a, xt, f, 1)
	for _, threads := range []int{2, 3, 8} {
		dst, dstT := make([]float32, a.Rows*f), make([]float32, a.Cols*f)
		MulDense(dst, a, x, f, threads)
		MulDenseT(dstT, a, xt, f, threads)
		if !testenv.SameBits(dst, want) {
			t.Errorf("MulDense, %d threads: bits differ from the serial reference", threads)
		}
		if !testenv.SameBits(dstT, wantT) {
			t.Errorf("MulDenseT, %d threads: bits differ from the serial reference", threads)
		}
	}
}

// TestMulDenseRowWidths checks that MulDense, whose rows of 16 or more
// values sum in registers (sumRows) in chunks of 64, 32 and 8 with the rest
// by axpy, gives the bits of the plain reference loop for widths around
// every chunk edge, with infinities, NaNs and signed zeros among the values
// and rows of 0 to 40 terms.
func TestMulDenseRowWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	a := randomMatrix(rng, 60, 50, 0.3, powerLawKind, false)
	a.Data[0], a.Data[1], a.Data[2] = 0, float32(math.Copysign(0, -1)), -1
	for _, f := range []int{15, 16, 17, 24, 31, 32, 33, 40, 63, 64, 65, 96, 100, 104, 128, 200, 256, 257} {
		x := randomDense(rng, a.Cols, f, false)
		x[3], x[f+4], x[2*f+5], x[3*f] = inf, -inf, nan, float32(math.Copysign(0, -1))
		want, dst := make([]float32, a.Rows*f), randomDense(rng, a.Rows, f, false)
		mulDenseReference(want, a, x, f, 1)
		MulDense(dst, a, x, f, 2)
		if !testenv.SameBits(dst, want) {
			t.Fatalf("f=%d: bits differ from the reference loop", f)
		}
	}
}

// TestSumRowsBadIndex checks that sumRows writes nothing and reports false
// for an index outside the matrix (its loads are not bounds checked), so
// that MulDense then panics in the Go loop instead of reading other memory.
func TestSumRowsBadIndex(t *testing.T) {
	f := 64
	x, out := make([]float32, 4*f), make([]float32, f)
	for _, idx := range [][]int32{{0, 4}, {-1}, {3, 1 << 30}} {
		if sumRows(out, x, f, idx, make([]float32, len(idx)), 4, idx) {
			t.Errorf("sumRows(%v) with 4 rows = true; want false", idx)
		}
	}
	if haveSumRows && !sumRows(out, x, f, []int32{0, 3}, []float32{1, 2}, 4, []int32{3, -7, 1 << 30}) {
		t.Error("sumRows with valid indices = false")
	}
	a := &CSR{Rows: 1, Cols: 4, Indptr: []int64{0, 2}, Indices: []int32{1, 4}, Data: []float32{1, 1}}
	defer func() {
		if recover() == nil {
			t.Error("MulDense with column index 4 of 4 did not panic")
		}
	}()
	MulDense(out, a, x, f, 1)
}

// TestMulDenseOfTranspose checks the property the trainer's backward pass
// relies on: MulDense on Transpose(a) (a gather of each output row in
// registers) gives the bits of MulDenseT on a (a scatter), since the
// transpose keeps A's row order within each column and both kernels add a
// row's products in that order from +0. Infinities, NaNs, signed zeros,
// explicit zeros and empty rows and columns are among the inputs.
func TestMulDenseOfTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	mats := []*CSR{
		randomMatrix(rng, 70, 90, 0.2, powerLawKind, false),
		randomMatrix(rng, 40, 300, 0.02, emptyRowsKind, false),
		randomMatrix(rng, 400, 1500, 0.004, uniformKind, false), // parallel MulDenseT
	}
	mats[0].Data[0], mats[0].Data[1], mats[0].Data[2] = 0, float32(math.Copysign(0, -1)), -1
	at := new(CSR)
	for mi, a := range mats {
		for _, f := range []int{1, 7, 8, 16, 17, 33, 64, 100, 128, 256, 257} {
			x := randomDense(rng, a.Rows, f, false)
			x[1], x[f+2], x[len(x)-1], x[f] = inf, -inf, nan, float32(math.Copysign(0, -1))
			for _, threads := range []int{1, 2} {
				want, got := randomDense(rng, a.Cols, f, false), randomDense(rng, a.Cols, f, false)
				MulDenseT(want, a, x, f, threads)
				MulDense(got, at.Transpose(a, threads), x, f, threads)
				if !testenv.SameBits(got, want) {
					t.Fatalf("matrix %d, f=%d, %d threads: MulDense(Aᵀ) bits differ from MulDenseT(A)", mi, f, threads)
				}
			}
		}
	}
}
