package spgemm

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// Benchmarks on seeded R-MAT graphs (Graph500 parameters a, b, c =
// 0.57, 0.19, 0.19, edge factor 16, symmetrised, no self loops or duplicate
// edges, vertex ids permuted) generated here so that they do not depend on
// package dataset. Every family runs the kernel ("impl=fast") and the serial
// reference body it replaced ("impl=reference") as sub-benchmarks, so one
// run gives the speed-up as a ratio of medians:
//
//	go test ./spgemm -run '^$' -bench . -benchtime 3x -count 3
//
// Products: A·A (the GraphBLAS comparison at scale 14 and 16) and Q·A with Q
// selecting 32,768 random distinct rows (the sampling shape). Metrics:
// flops/s for products, entries/s for extraction.

// rmatGraphs caches one graph per scale for the whole benchmark run.
var rmatGraphs sync.Map // int -> func() *CSR

// rmatGraph returns the seeded R-MAT graph of the given scale.
func rmatGraph(scale int) *CSR {
	f, _ := rmatGraphs.LoadOrStore(scale, sync.OnceValue(func() *CSR { return newRMAT(scale, 16, uint64(scale)) }))
	return f.(func() *CSR)()
}

func newRMAT(scale, edgeFactor int, seed uint64) *CSR {
	n := 1 << scale
	m := edgeFactor * n
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	perm := rng.Perm(n)
	src, dst := make([]int32, m), make([]int32, m)
	for e := range m {
		var u, v int
		for range scale {
			r := rng.Float64()
			u, v = 2*u, 2*v
			switch {
			case r < 0.57:
			case r < 0.76:
				v++
			case r < 0.95:
				u++
			default:
				u, v = u+1, v+1
			}
		}
		src[e], dst[e] = int32(perm[u]), int32(perm[v])
	}
	a, err := FromCOO(n, n, src, dst, nil, &COOOptions{Duplicates: DropDuplicates, Symmetrize: true, DropSelfLoops: true})
	if err != nil {
		panic(err)
	}
	return a
}

// randomRows returns k distinct row ids of [0, n), in random order.
func randomRows(n, k int, seed uint64) []int32 {
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	perm := rng.Perm(n)[:min(k, n)]
	rows := make([]int32, len(perm))
	for i, v := range perm {
		rows[i] = int32(v)
	}
	return rows
}

// benchBigReference runs the serial reference on products of more than
// referenceMaxFlops flops too; its insertion sort makes them take minutes.
var benchBigReference = flag.Bool("spgemm.bigref", false, "benchmark the reference SpGEMM on big products too")

const referenceMaxFlops = 5e7

// benchMul benchmarks C = A·B for the fast kernel and the reference body.
func benchMul(b *testing.B, a, x *CSR, opt *MulOptions) {
	flops := RowFlops(a, x, 0)[a.Rows]
	for _, impl := range []string{"fast", "reference"} {
		b.Run("impl="+impl, func(b *testing.B) {
			if impl == "reference" && flops > referenceMaxFlops && !*benchBigReference {
				b.Skipf("%d flops: the reference takes minutes; run with -spgemm.bigref", flops)
			}
			var c CSR
			for b.Loop() {
				if impl == "fast" {
					c.Mul(a, x, opt)
				} else {
					c = *mulReference(a, x, opt)
				}
			}
			b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds(), "flops/s")
			b.ReportMetric(float64(c.NNZ()), "nnz_out")
		})
	}
}

func BenchmarkMulRMAT14AA(b *testing.B) {
	a := rmatGraph(14)
	benchMul(b, a, a, nil)
}

func BenchmarkMulRMAT16AA(b *testing.B) {
	a := rmatGraph(16)
	benchMul(b, a, a, nil)
}

func BenchmarkMulRMAT14AAMasked(b *testing.B) {
	a := rmatGraph(14)
	benchMul(b, a, a, &MulOptions{Mask: a}) // triangle counting's shape
}

func BenchmarkMulRMAT18QA(b *testing.B) {
	a := rmatGraph(18)
	q := selectionMatrix(randomRows(a.Rows, 32768, 1), a.Rows)
	benchMul(b, q, a, nil)
}

func BenchmarkMulRMAT20QA(b *testing.B) {
	a := rmatGraph(20)
	q := selectionMatrix(randomRows(a.Rows, 32768, 1), a.Rows)
	benchMul(b, q, a, nil)
}

// BenchmarkMulRMAT16Frontier is a two-hop product: P = Q·A for 4,096
// selected rows, times A (rows of many entries, mostly hash-accumulated).
func BenchmarkMulRMAT16Frontier(b *testing.B) {
	a := rmatGraph(16)
	p := Mul(selectionMatrix(randomRows(a.Rows, 4096, 2), a.Rows), a, nil)
	benchMul(b, p, a, nil)
}

func BenchmarkGatherRowsRMAT20(b *testing.B) {
	a := rmatGraph(20)
	rows := randomRows(a.Rows, 32768, 3)
	for _, impl := range []string{"fast", "reference"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var g *CSR
			for b.Loop() {
				if impl == "fast" {
					g = GatherRows(a, rows, 0)
				} else {
					g = gatherRowsReference(a, rows, 1)
				}
			}
			b.ReportMetric(float64(g.NNZ())*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkExtractColumnsRMAT20 relabels the columns of a sampled block:
// the rows of 32,768 random vertices, keeping a random half of the columns
// under a random new numbering (the rows then need sorting).
func BenchmarkExtractColumnsRMAT20(b *testing.B) {
	a := rmatGraph(20)
	p := GatherRows(a, randomRows(a.Rows, 32768, 6), 0)
	rng := rand.New(rand.NewPCG(7, 8))
	colMap := make([]int32, a.Cols)
	perm := rng.Perm(a.Cols / 2)
	for j := range colMap {
		colMap[j] = -1
	}
	for t, j := range rng.Perm(a.Cols)[:len(perm)] {
		colMap[j] = int32(perm[t])
	}
	for _, impl := range []string{"fast", "reference"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var e *CSR
			for b.Loop() {
				if impl == "fast" {
					e = ExtractColumns(p, colMap, len(perm), 0)
				} else {
					e = extractColumnsReference(p, colMap, len(perm), 1)
				}
			}
			b.ReportMetric(float64(e.NNZ())*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

func BenchmarkMulDenseRMAT16F128(b *testing.B) { benchMulDense(b, 16, 128, false) }

func BenchmarkMulDenseTRMAT16F128(b *testing.B) { benchMulDense(b, 16, 128, true) }

func BenchmarkMulDenseTRMAT16F16(b *testing.B) { benchMulDense(b, 16, 16, true) }

// benchMulDense runs the kernel on GOMAXPROCS threads ("fast") and on one
// ("fast1"), and the serial reference body.
func benchMulDense(b *testing.B, scale, f int, transposed bool) {
	a := rmatGraph(scale)
	x := randomDense(rand.New(rand.NewPCG(4, 5)), a.Rows, f, false)
	dst := make([]float32, a.Rows*f)
	for _, impl := range []string{"fast", "fast1", "reference"} {
		b.Run("impl="+impl, func(b *testing.B) {
			threads := 0
			if impl == "fast1" {
				threads = 1
			}
			for b.Loop() {
				switch {
				case impl == "reference" && transposed:
					mulDenseTReference(dst, a, x, f, 1)
				case impl == "reference":
					mulDenseReference(dst, a, x, f, 1)
				case transposed:
					MulDenseT(dst, a, x, f, threads)
				default:
					MulDense(dst, a, x, f, threads)
				}
			}
			b.ReportMetric(float64(a.NNZ())*float64(f)*float64(b.N)/b.Elapsed().Seconds(), "flops/s")
		})
	}
}

// BenchmarkTransposeRMAT18 runs Transpose on GOMAXPROCS threads ("fast")
// and on one ("fast1"), and the serial reference body.
func BenchmarkTransposeRMAT18(b *testing.B) {
	a := rmatGraph(18)
	for _, impl := range []string{"fast", "fast1", "reference"} {
		b.Run("impl="+impl, func(b *testing.B) {
			for b.Loop() {
				switch impl {
				case "fast":
					Transpose(a, 0)
				case "fast1":
					Transpose(a, 1)
				default:
					transposeReference(a, 1)
				}
			}
			b.ReportMetric(float64(a.NNZ())*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkMulAccumulator compares the accumulators on one product, for
// re-tuning denseRatio.
func BenchmarkMulAccumulatorRMAT14(b *testing.B) {
	a := rmatGraph(14)
	for _, acc := range []Accumulator{AutoAccumulator, DenseAccumulator, HashAccumulator} {
		b.Run(fmt.Sprintf("acc=%v", acc), func(b *testing.B) {
			var c CSR
			for b.Loop() {
				c.Mul(a, a, &MulOptions{Accumulator: acc})
			}
		})
	}
}
