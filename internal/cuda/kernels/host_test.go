//go:build cgo

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// TestLogMatchesGo checks bs_log against math.Log bit for bit: on the
// stream's uniforms (what the samplers feed it), on the values where the
// reduction changes branch (sqrt(2)/2 times powers of two, where the amd64
// assembly and the portable Go code compare differently), and on random
// positive doubles.
func TestLogMatchesGo(t *testing.T) {
	check := func(x float64) {
		t.Helper()
		if got, want := hostLog(x), math.Log(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("log(%v = %#x) = %v (%#x), Go %v (%#x)", x, math.Float64bits(x), got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	st := sampling.NewStream(7)
	for v := range int32(2000) {
		rk := st.Row(1, 2, 3, v)
		for pos := range int64(200) {
			check(rk.Float64(pos))
		}
	}
	h := math.Sqrt2 / 2
	for e := -60; e <= 60; e++ {
		for _, d := range []float64{-2, -1, 0, 1, 2} {
			x := math.Ldexp(math.Float64frombits(math.Float64bits(h)+uint64(int64(d))), e)
			check(x)
		}
	}
	for _, x := range []float64{1, 0.5, 2, 0.75, 1e-300, 1e300, math.SmallestNonzeroFloat64 * (1 << 60), 0, math.Inf(1), math.MaxFloat64} {
		check(x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		bits := rng.Uint64()&^(1<<63) | 1<<52 // positive, normal
		if bits>>52 >= 0x7ff {
			continue
		}
		check(math.Float64frombits(bits))
	}
}

// TestStreamMatchesSampling checks the device stream (layer key, row key,
// uniforms) against sampling.Stream.
func TestStreamMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		seed := rng.Uint64()
		epoch, mb, layer := rng.IntN(100), rng.IntN(1<<20), rng.IntN(5)
		v := int32(rng.IntN(1<<30)) - 1
		pos := int64(rng.IntN(1 << 30))
		want := sampling.NewStream(seed).Float64(epoch, mb, layer, v, pos)
		got := hostFloat64(hostRowKey(hostLayerKey(seed, epoch, mb, layer), v), pos)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("stream(%d; %d %d %d %d %d) = %v, sampling %v", seed, epoch, mb, layer, v, pos, got, want)
		}
	}
}

// TestSelectRowMatchesSampling runs bs_select_row on random rows for every
// law (uniform and weighted, with and without replacement) and fanouts
// around every branch of sampling's selection (Floyd's bit mask, list and
// bitset; the weighted heap and key bound; whole rows) and compares the
// selected entries and their values with sampling.SelectPerRow.
func TestSelectRowMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	st := sampling.NewStream(11)
	degs := []int{0, 1, 2, 3, 7, 15, 16, 40, 64, 200, 256, 257, 600, 3000}
	fanouts := []int{-1, 1, 2, 3, 5, 15, 31, 32, 33, 64, 100, 300}
	rows := 0
	for _, deg := range degs {
		for _, s := range fanouts {
			for _, weighted := range []bool{false, true} {
				for _, replace := range []bool{false, true} {
					for trial := range 4 {
						cols, vals := randomRow(rng, deg, weighted, trial)
						key := st.Row(0, rows, 1, int32(rows))
						rows++
						compareSelect(t, uint64(key), key, cols, vals, s, weighted, replace)
					}
				}
			}
		}
	}
}

// randomRow returns a sorted row of deg distinct columns with weights in
// (0, 3), and, when weighted and trial is odd, some zero, negative and NaN
// weights (never selected) and a few heavy ones.
func randomRow(rng *rand.Rand, deg int, weighted bool, trial int) ([]int32, []float32) {
	set := map[int32]bool{}
	for len(set) < deg {
		set[int32(rng.IntN(100000))] = true
	}
	cols := make([]int32, 0, deg)
	for c := range set {
		cols = append(cols, c)
	}
	for i := 1; i < len(cols); i++ { // insertion sort: small
		for j := i; j > 0 && cols[j-1] > cols[j]; j-- {
			cols[j-1], cols[j] = cols[j], cols[j-1]
		}
	}
	vals := make([]float32, deg)
	for i := range vals {
		vals[i] = 1
		if weighted {
			vals[i] = 3 * rng.Float32()
			if trial%2 == 1 {
				switch rng.IntN(10) {
				case 0:
					vals[i] = 0
				case 1:
					vals[i] = -1
				case 2:
					vals[i] = float32(math.NaN())
				case 3:
					vals[i] = 1000 * rng.Float32()
				}
			}
		}
	}
	return cols, vals
}

func compareSelect(t *testing.T, rowKey uint64, key sampling.RowKey, cols []int32, vals []float32, s int, weighted, replace bool) {
	t.Helper()
	p := &spgemm.CSR{Rows: 1, Cols: 100000, Indptr: []int64{0, int64(len(cols))}, Indices: cols, Data: vals}
	want := sampling.SelectPerRow(p, []sampling.RowKey{key}, s, sampling.SelectOptions{Weighted: weighted, Replace: replace})
	pos, mult := hostSelectRow(rowKey, cols, vals, s, weighted, replace)
	name := func() string {
		return fmt.Sprintf("deg %d s %d weighted %v replace %v", len(cols), s, weighted, replace)
	}
	if len(pos) != len(want.Indices) {
		t.Fatalf("%s: %d picks, sampling %d", name(), len(pos), len(want.Indices))
	}
	for j, q := range pos {
		w := float32(1)
		if weighted {
			w = vals[q]
		}
		if mult != nil {
			w = float32(mult[j]) * w
		}
		if cols[q] != want.Indices[j] || math.Float32bits(w) != math.Float32bits(want.Data[j]) {
			t.Fatalf("%s: pick %d = (%d, %v), sampling (%d, %v)", name(), j, cols[q], w, want.Indices[j], want.Data[j])
		}
	}
}
