package dataset

import (
	"math/rand/v2"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestFacts checks Facts on a graph checked by hand and against a naive
// count (a set of entries, a breadth-first search) on seeded random
// graphs, directed and symmetric.
func TestFacts(t *testing.T) {
	// 0 -> 1, 1 -> 0, 1 -> 2 (no reverse), 3 -> 3; 4 isolated.
	a := &spgemm.CSR{Rows: 5, Cols: 5, Indptr: []int64{0, 1, 3, 3, 4, 4}, Indices: []int32{1, 0, 2, 3}, Data: []float32{1, 1, 1, 1}}
	want := GraphFacts{Asymmetric: 1, SelfLoops: 1, Components: 3, LargestComponent: 3, Isolated: 1}
	if got := Facts(a); got != want {
		t.Errorf("hand-made graph: %+v; want %+v", got, want)
	}
	if got := Facts(&spgemm.CSR{Indptr: []int64{0}}); got != (GraphFacts{Symmetric: true}) {
		t.Errorf("empty graph: %+v", got)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 40 {
		n, m := 1+rng.IntN(40), rng.IntN(120)
		src, dst := make([]int32, m), make([]int32, m)
		for k := range m {
			src[k], dst[k] = int32(rng.IntN(n)), int32(rng.IntN(n))
		}
		for _, sym := range []bool{false, true} {
			a, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Symmetrize: sym})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := Facts(a), naiveFacts(a); got != want {
				t.Errorf("trial %d symmetrised %v: %+v; want %+v", trial, sym, got, want)
			}
		}
	}
}

// naiveFacts computes GraphFacts with a set of the entries and a
// breadth-first search over both directions.
func naiveFacts(a *spgemm.CSR) GraphFacts {
	n := a.Rows
	has := map[[2]int32]bool{}
	adj := make([][]int32, n)
	touched := make([]bool, n)
	for i := range n {
		cols, _ := a.Row(i)
		for _, j := range cols {
			has[[2]int32{int32(i), j}] = true
			adj[i], adj[j] = append(adj[i], j), append(adj[j], int32(i))
			touched[i], touched[j] = true, true
		}
	}
	var f GraphFacts
	for e := range has {
		if e[0] == e[1] {
			f.SelfLoops++
		} else if !has[[2]int32{e[1], e[0]}] {
			f.Asymmetric++
		}
	}
	f.Symmetric = f.Asymmetric == 0
	seen := make([]bool, n)
	for v := range n {
		if seen[v] {
			continue
		}
		f.Components++
		if !touched[v] {
			f.Isolated++
		}
		size, queue := 0, []int32{int32(v)}
		seen[v] = true
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			size++
			for _, w := range adj[u] {
				if !seen[w] {
					seen[w] = true
					queue = append(queue, w)
				}
			}
		}
		f.LargestComponent = max(f.LargestComponent, size)
	}
	return f
}
