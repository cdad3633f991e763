package dataset

// Structural facts of a graph that a user checks before training on it:
// is it symmetric (undirected), how many self loops, how many connected
// components. `bulksample info` reports them.

import (
	"slices"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// GraphFacts are structural facts of an adjacency (see Facts).
type GraphFacts struct {
	// Symmetric reports whether every entry (i, j) has its reverse (j, i):
	// the pattern is symmetric, as an undirected graph's is (values are
	// not compared). Asymmetric counts the entries without their reverse.
	Symmetric  bool
	Asymmetric int64
	// SelfLoops counts the entries (i, i).
	SelfLoops int64
	// Components is the number of weakly connected components (edges
	// taken in either direction), LargestComponent the vertices of the
	// largest, Isolated the vertices without any entry in their row or
	// column (each a component of its own).
	Components, LargestComponent, Isolated int
}

// Facts returns the structural facts of the square adjacency a, whose
// rows must be sorted (as every loader's are). It costs O(nnz·log(row
// length)) for the symmetry, on threads goroutines (<= 0: GOMAXPROCS),
// and O(nnz·α(n)) for the components, with 8 bytes per vertex.
func Facts(a *spgemm.CSR, threads int) GraphFacts {
	var f GraphFacts
	var asym, loops atomic.Int64
	if a.Rows > 0 {
		parallelParts(a.Indptr, par.Threads(threads), func(lo, hi int) {
			var x, l int64
			for i := lo; i < hi; i++ {
				for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
					if int(j) == i {
						l++
						continue
					}
					if _, ok := slices.BinarySearch(a.Indices[a.Indptr[j]:a.Indptr[j+1]], int32(i)); !ok {
						x++
					}
				}
			}
			asym.Add(x)
			loops.Add(l)
		})
	}
	f.Asymmetric, f.SelfLoops = asym.Load(), loops.Load()
	f.Symmetric = f.Asymmetric == 0
	f.Components, f.LargestComponent, f.Isolated = components(a)
	return f
}

// components returns the number of weakly connected components of a, the
// size of the largest and the number of isolated vertices, by union-find
// with union by size and path halving.
func components(a *spgemm.CSR) (count, largest, isolated int) {
	n := a.Rows
	parent := make([]int32, n)
	size := make([]int32, n) // of a root's tree; 0 marks a vertex no entry touches
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for i := range n {
		for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
			size[i] = max(size[i], 1)
			size[j] = max(size[j], 1)
			ri, rj := find(int32(i)), find(j)
			if ri == rj {
				continue
			}
			if size[ri] < size[rj] {
				ri, rj = rj, ri
			}
			parent[rj] = ri
			size[ri] += size[rj]
		}
	}
	for v := range n {
		if parent[v] != int32(v) {
			continue
		}
		count++
		if size[v] == 0 {
			isolated++
		}
		largest = max(largest, int(max(size[v], 1)))
	}
	return count, largest, isolated
}
