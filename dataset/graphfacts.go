package dataset

// Structural facts of a graph that a user checks before training on it:
// is it symmetric (undirected), how many self loops, how many connected
// components. `bulksample info` reports them.

import (
	"slices"

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
// rows must be sorted and free of duplicates (as every loader's are). It
// reads every entry twice, once for the symmetry and once for the
// components (only the upper triangle when symmetric), with 16 bytes per
// vertex: O(nnz·α(n)) time.
func Facts(a *spgemm.CSR) GraphFacts {
	var f GraphFacts
	f.Asymmetric, f.SelfLoops = asymmetry(a)
	f.Symmetric = f.Asymmetric == 0
	f.Components, f.LargestComponent, f.Isolated = components(a, f.Symmetric)
	return f
}

// asymmetry returns the number of entries of a without their reverse and
// the number of self loops, in one pass over the rows in order: an entry
// (i, j) above the diagonal asks row j for column i, and as the rows i are
// visited in ascending order, the columns row j is asked for ascend too,
// so a cursor per row (pos) walks its entries below the diagonal once.
// Those it passes without being asked for have no reverse either.
func asymmetry(a *spgemm.CSR) (asym, loops int64) {
	n := a.Rows
	pos := slices.Clone(a.Indptr[:n])
	for i := range n {
		end := a.Indptr[i+1]
		k := pos[i]
		for ; k < end && a.Indices[k] < int32(i); k++ {
			asym++ // below the diagonal, not asked for by row Indices[k]
		}
		if k < end && a.Indices[k] == int32(i) {
			loops++
			k++
		}
		for _, j := range a.Indices[k:end] {
			p, e := pos[j], a.Indptr[j+1]
			for ; p < e && a.Indices[p] < int32(i); p++ {
				asym++
			}
			if p < e && a.Indices[p] == int32(i) {
				p++
			} else {
				asym++ // (i, j) without (j, i)
			}
			pos[j] = p
		}
	}
	return asym, loops
}

// components returns the number of weakly connected components of a, the
// size of the largest and the number of isolated vertices, by union-find
// with union by size and path halving; a symmetric a is read above its
// diagonal only.
func components(a *spgemm.CSR, symmetric bool) (count, largest, isolated int) {
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
		row := a.Indices[a.Indptr[i]:a.Indptr[i+1]]
		if symmetric {
			k, _ := slices.BinarySearch(row, int32(i))
			row = row[k:]
		}
		for _, j := range row {
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
