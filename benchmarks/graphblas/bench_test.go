//go:build graphblas

package graphblas

import (
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/spgemm"
)

// BenchmarkMulRMAT12 times A·A of a Graph500 R-MAT graph of scale 12 with
// both libraries on 2 threads; compare the two sub-benchmarks of one run
// (benchstat), as benchmarks/spgemmbench does at larger scales.
func BenchmarkMulRMAT12(b *testing.B) {
	if err := Init(2); err != nil {
		b.Fatal(err)
	}
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 12, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bulksample", func(b *testing.B) {
		for b.Loop() {
			spgemm.Mul(a, a, &spgemm.MulOptions{Threads: 2})
		}
	})
	b.Run("graphblas", func(b *testing.B) {
		ga, err := FromCSR(a)
		if err != nil {
			b.Fatal(err)
		}
		defer ga.Free()
		for b.Loop() {
			c, err := Mul(ga, ga)
			if err != nil {
				b.Fatal(err)
			}
			c.Free()
		}
	})
}
