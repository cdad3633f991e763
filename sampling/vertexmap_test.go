package sampling

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVertexMap: dense and hashed maps agree with a Go map through
// sequences of enter, add and get that double the table several times or
// are reserved, and
// are empty after reset, reused for the next sequence (the table keeps its
// array: every slot beyond the one in use must be zero again).
func TestVertexMap(t *testing.T) {
	const n = 1 << 16
	for _, tc := range []struct {
		name     string
		denseMax int
		rounds   []int // entries of each use
	}{
		{"dense", n, []int{10, 3000, 1}},
		{"hashed", 0, []int{10, 3000, 1, 40000, 700, 0, 5000}},
		{"hashed small", 0, []int{minVertexMapSlots / 2, minVertexMapSlots/2 + 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newVertexMap(n, tc.denseMax)
			if got := m.dense != nil; got != (tc.denseMax >= n) {
				t.Fatalf("dense = %v", got)
			}
			rng := rand.New(rand.NewPCG(1, uint64(tc.denseMax)))
			for u, k := range tc.rounds {
				if u%2 == 1 {
					m.reserve(k) // and the other uses double from the smallest table
				}
				want := map[int32]int32{}
				var entered []int32
				// A frontier first: distinct vertices with ids 0, 1, ...
				for _, v := range rng.Perm(n)[:k/3] {
					entered = append(entered, int32(v))
				}
				m.enter(entered)
				for j, v := range entered {
					want[v] = int32(j)
				}
				for range k - k/3 {
					v := int32(rng.IntN(n))
					id := int32(rng.IntN(1 << 30))
					x, added := m.add(v, id)
					w, had := want[v]
					if added == had || (had && x != w) || (!had && x != id) {
						t.Fatalf("use %d: add(%d, %d) = %d, %v; the map held %d, %v", u, v, id, x, added, w, had)
					}
					if !had {
						want[v] = id
						entered = append(entered, v)
					}
				}
				for v, id := range want {
					if got := m.get(v); got != id {
						t.Fatalf("use %d: get(%d) = %d, want %d", u, v, got, id)
					}
				}
				for range 100 {
					v := int32(rng.IntN(n))
					if _, had := want[v]; !had && m.get(v) != -1 {
						t.Fatalf("use %d: get(%d) = %d for an absent vertex", u, v, m.get(v))
					}
				}
				if m.dense == nil && 2*m.n > len(m.slots) {
					t.Fatalf("use %d: %d entries in %d slots", u, m.n, len(m.slots))
				}
				m.reset(entered)
				for v := range int32(n) {
					if m.get(v) != -1 {
						t.Fatalf("after use %d: get(%d) = %d", u, v, m.get(v))
					}
				}
				if m.dense == nil {
					for i, s := range m.slots[:cap(m.slots)] {
						if s != 0 {
							t.Fatalf("after use %d: slot %d of the array = %#x", u, i, s)
						}
					}
				}
			}
		})
	}
}

// BenchmarkVertexMap times reserve, add and reset of a minibatch's worth
// of vertices drawn from n, dense against hashed.
func BenchmarkVertexMap(b *testing.B) {
	for _, n := range []int{1 << 20, 1 << 24} {
		vs := make([]int32, 1<<18)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range vs {
			vs[i] = int32(rng.IntN(n))
		}
		for _, kind := range []string{"dense", "hashed"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				m := newVertexMap(n, map[string]int{"dense": n, "hashed": 0}[kind])
				var out []int32
				for b.Loop() {
					m.reserve(len(vs))
					out = out[:0]
					for i, v := range vs {
						if _, added := m.add(v, int32(i)); added {
							out = append(out, v)
						}
					}
					m.reset(out)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(vs)), "ns/vertex")
			})
		}
	}
}

// TestAppendDistinct: dense and hashed maps keep first occurrences in
// order, append after what dst holds, and are empty afterwards (the next
// list sees none of the last one's vertices); a pool's map is reused and
// one of another size is not.
func TestAppendDistinct(t *testing.T) {
	const n = 1000
	for _, denseMax := range []int{n, 0} {
		pool := newVertexMapPool(n, denseMax)
		for _, tc := range []struct {
			dst, vs, want []int32
		}{
			{nil, nil, nil},
			{nil, []int32{5, 5, 5}, []int32{5}},
			{[]int32{5}, []int32{7, 5, 9, 7, 0, 999, 0}, []int32{5, 7, 5, 9, 0, 999}},
			{nil, []int32{999, 3, 999, 3, 2}, []int32{999, 3, 2}},
		} {
			m := pool.get(n)
			if got := m.dense != nil; got != (denseMax >= n) {
				t.Fatalf("denseMax %d: dense = %v", denseMax, got)
			}
			got := m.appendDistinct(tc.dst, tc.vs)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("denseMax %d: appendDistinct(%v, %v) = %v, want %v", denseMax, tc.dst, tc.vs, got, tc.want)
			}
			for _, v := range tc.vs {
				if id := m.get(v); id != -1 {
					t.Fatalf("denseMax %d: %d still mapped to %d", denseMax, v, id)
				}
			}
			pool.put(m)
			if again := pool.get(n); again != m {
				t.Errorf("denseMax %d: the pool made a new map", denseMax)
			} else {
				pool.put(again)
			}
		}
		other := pool.get(n / 2)
		if other.vertices() != n/2 {
			t.Errorf("denseMax %d: get(%d) maps %d vertices", denseMax, n/2, other.vertices())
		}
		pool.put(other)
		if m := pool.get(n); m == other || m.vertices() != n {
			t.Errorf("denseMax %d: the pool kept a map of another size", denseMax)
		}
	}
}

// TestSeedDedup: the exported deduplication is appendDistinct's, on a
// dense and on a hashed map, reused across calls.
func TestSeedDedup(t *testing.T) {
	for _, n := range []int{100, denseVertexMapMax + 1} {
		d := NewSeedDedup(n)
		got := d.AppendDistinct([]int32{7}, []int32{3, 5, 3, 99, 5, 0, 0})
		got = d.AppendDistinct(got, []int32{3, 3, 1})
		want := []int32{7, 3, 5, 99, 0, 3, 1}
		if !slices.Equal(got, want) {
			t.Errorf("n = %d: %v, want %v", n, got, want)
		}
	}
}
