package sampling

import (
	"math"
	"testing"
)

// TestStreamPure: a draw depends only on its coordinates, every coordinate
// matters, and Float64 stays inside (0, 1).
func TestStreamPure(t *testing.T) {
	s := NewStream(7)
	if s.Seed() != 7 {
		t.Fatalf("Seed() = %d", s.Seed())
	}
	base := s.Uint64(1, 2, 3, 4, 5)
	if again := NewStream(7).Uint64(1, 2, 3, 4, 5); again != base {
		t.Fatal("same coordinates, different bits")
	}
	for name, x := range map[string]uint64{
		"seed":      NewStream(8).Uint64(1, 2, 3, 4, 5),
		"epoch":     s.Uint64(0, 2, 3, 4, 5),
		"minibatch": s.Uint64(1, 3, 3, 4, 5),
		"layer":     s.Uint64(1, 2, 4, 4, 5),
		"vertex":    s.Uint64(1, 2, 3, 5, 5),
		"position":  s.Uint64(1, 2, 3, 4, 6),
		"negative":  s.Uint64(1, -1, -1, 4, 5),
	} {
		if x == base {
			t.Errorf("changing the %s does not change the draw", name)
		}
	}
	k := s.Row(1, 2, 3, 4)
	if k.Uint64(5) != base || k.Float64(5) != s.Float64(1, 2, 3, 4, 5) {
		t.Error("RowKey draws differ from Stream draws")
	}
	for pos := range int64(100000) {
		if u := k.Float64(pos); !(u > 0 && u < 1) {
			t.Fatalf("Float64(%d) = %v outside (0, 1)", pos, u)
		}
	}
	if e := k.ExpKey(3, 2); !(e > 0) || math.Abs(e-(-math.Log(k.Float64(3))/2)) > 1e-15 {
		t.Errorf("ExpKey = %v", e)
	}
}

// TestStreamUniformBits: the low 8 bits, and the top 8 bits, of draws
// along each coordinate are uniform over 256 values (chi-square,
// p >= 1e-6).
func TestStreamUniformBits(t *testing.T) {
	n := nwDraws()
	s := NewStream(3)
	walks := map[string]func(i int) uint64{
		"position":  func(i int) uint64 { return s.Uint64(0, 0, 0, 0, int64(i)) },
		"vertex":    func(i int) uint64 { return s.Uint64(0, 0, 0, int32(i), 0) },
		"minibatch": func(i int) uint64 { return s.Uint64(0, i, 0, 0, 0) },
		"epoch":     func(i int) uint64 { return s.Uint64(i, 0, 0, 0, 0) },
		"seed":      func(i int) uint64 { return NewStream(uint64(i)).Uint64(0, 0, 0, 0, 0) },
	}
	prob := make([]float64, 256)
	for i := range prob {
		prob[i] = 1.0 / 256
	}
	for name, draw := range walks {
		low, high := make([]int, 256), make([]int, 256)
		for i := range n {
			x := draw(i)
			low[x&255]++
			high[x>>56]++
		}
		if stat, pv := nwChiSquare(low, prob); pv < 1e-6 {
			t.Errorf("%s: low bits chi-square %.1f, p = %.2g", name, stat, pv)
		}
		if stat, pv := nwChiSquare(high, prob); pv < 1e-6 {
			t.Errorf("%s: high bits chi-square %.1f, p = %.2g", name, stat, pv)
		}
	}
}

// TestStreamAdjacentIndependent: draws at adjacent keys are uncorrelated:
// the Pearson correlation of (u(x), u(x+1)) over n pairs is within
// 5.5/sqrt(n) of 0 (|r|·sqrt(n) is about standard normal; 5.5 is p < 1e-7),
// and the bits of adjacent draws agree half the time.
func TestStreamAdjacentIndependent(t *testing.T) {
	n := nwDraws()
	s := NewStream(11)
	pairs := map[string]func(i int) (float64, float64){
		"position": func(i int) (float64, float64) {
			k := s.Row(0, 0, 0, 0)
			return k.Float64(int64(i)), k.Float64(int64(i) + 1)
		},
		"vertex": func(i int) (float64, float64) {
			return s.Float64(0, 0, 0, int32(i), 0), s.Float64(0, 0, 0, int32(i)+1, 0)
		},
		"minibatch": func(i int) (float64, float64) { return s.Float64(0, i, 0, 5, 0), s.Float64(0, i+1, 0, 5, 0) },
		"layer":     func(i int) (float64, float64) { return s.Float64(0, i, 0, 5, 0), s.Float64(0, i, 1, 5, 0) },
		"epoch":     func(i int) (float64, float64) { return s.Float64(i, 0, 0, 5, 0), s.Float64(i+1, 0, 0, 5, 0) },
		"vertex/position swap": func(i int) (float64, float64) {
			return s.Float64(0, 0, 0, int32(i), 1), s.Float64(0, 0, 0, 1, int64(i))
		},
	}
	for name, pair := range pairs {
		var sx, sy, sxx, syy, sxy float64
		for i := range n {
			x, y := pair(i)
			sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
		}
		fn := float64(n)
		r := (sxy/fn - sx/fn*sy/fn) / math.Sqrt((sxx/fn-sx/fn*sx/fn)*(syy/fn-sy/fn*sy/fn))
		if math.Abs(r)*math.Sqrt(fn) > 5.5 {
			t.Errorf("%s: correlation %.4f over %d pairs", name, r, n)
		}
	}
}
