package spgemm

import (
	"math/rand/v2"
	"testing"
)

func oldValidateRows(m *CSR, lo, hi int) bool {
	cols := uint32(m.Cols)
	for i := lo; i < hi; i++ {
		prev := int32(-1)
		for _, c := range m.Indices[m.Indptr[i]:m.Indptr[i+1]] {
			if uint32(c) >= cols || c <= prev {
				return false
			}
			prev = c
		}
	}
	return true
}

func BenchmarkZZValidate(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	m := randomMatrix(r, 200000, 1<<20, 0.00003, powerLawKind, false)
	b.Logf("nnz %d", m.NNZ())
	b.Run("old", func(b *testing.B) {
		for b.Loop() {
			oldValidateRows(m, 0, m.Rows)
		}
		b.ReportMetric(float64(m.NNZ())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gentries/s")
	})
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			m.ValidateRows(0, m.Rows)
		}
		b.ReportMetric(float64(m.NNZ())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gentries/s")
	})
}
