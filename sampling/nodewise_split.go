package sampling

// The extraction of one minibatch split over threads. A minibatch's new
// vertices are numbered in order of first appearance (rows in order, picks
// of a row in order), which looks serial; it is computed in pieces of
// consecutive rows cut by cost (picks plus rows), one piece a thread,
// sharing one vertex map, in five steps separated by barriers:
//
//  A. each piece enters its rows' frontier vertices into the map and
//     counts its entries;
//  B. each piece renumbers its picks of frontier vertices, and claims each
//     other vertex in the map at its position in the minibatch's entries
//     (an atomic minimum over positions; a piece's positions increase, so
//     a piece tries once per vertex);
//  C. each piece lists, in order, its picks that hold their vertex's
//     claim: the first appearances of new vertices;
//  D. each piece numbers those vertices after those of the earlier pieces
//     (a prefix sum over the pieces' counts), in the map and in the
//     minibatch's list of new vertices: the serial order;
//  E. each piece writes its rows' ids, sorted as extract sorts them;
//
// then it clears the map's entries it set. The map is dense (n entries,
// updated with atomics), whatever the workers' maps are: one per split
// extraction running, not one per thread. The blocks are those of extract,
// bit for bit (tested for 1, 2, 3 and 8 threads). Per pick of a new vertex
// it reads the map three times where extract reads it once, but from one
// map that every thread shares; it pays where one minibatch is a large
// share of a group's extraction: a bulk of one minibatch, or the last
// minibatches of a group that would leave threads idle.

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/par"
)

// splitExtractPicks is the fewest entries of a minibatch whose extraction
// is split over threads: below it the barriers and goroutines cost more
// than they save (five barriers are tens of microseconds, extracting 16Ki
// entries hundreds).
const splitExtractPicks = 1 << 14

// nwPiece is one thread's share of a split extraction.
type nwPiece struct {
	r0, r1  int      // its rows of the group
	edges   int64    // its entries
	own     []int32  // the new vertices whose first appearance it holds, in order
	sortBuf []uint64 // spgemm.SortPairs' scratch space
}

// splitTail returns the first group minibatch whose extraction is split
// over threads: the minibatches that whole-minibatch tasks would leave to
// fewer threads than there are (the last ng mod threads of them, or all
// when there are fewer than threads), from the first that has at least
// splitPicks entries. It returns ng when none is split.
func (nw *NodeWise) splitTail(g *layerState, ng int) int {
	t := nw.threads
	if t == 1 {
		return ng
	}
	i := ng - ng%t
	for i < ng && (g.mbEdges[i] < nw.splitPicks || g.mbEdges[i] > maxSplitPicks) {
		i++
	}
	return i
}

// maxSplitPicks bounds the entries of a minibatch whose extraction is
// split, so that -2 minus a position fits the vertex map's int32.
const maxSplitPicks = 1<<31 - 3

// extractSplit is extract for group minibatch i (frontier f) on up to
// nw.threads goroutines, all running at once (tm.Run); see the steps
// above. The barriers poll before they sleep, as the team does between
// passes (teamSpin).
func (nw *NodeWise) extractSplit(tm *par.Team, g *layerState, la *LayerArrays, base int64, f []int32, i int) {
	r0, r1 := g.rowStart[i], g.rowStart[i+1]
	np := max(min(nw.threads, r1-r0), 1)
	ids := nw.scratch.shared.get(nw.src.NumVertices())
	defer nw.scratch.shared.put(ids) // every entry -1 again
	pieces := par.Resize(g.pieces, np)
	g.pieces = pieces
	// Cut the rows into pieces of about equal picks plus rows; off is a
	// prefix sum of the rows' selection bounds, which count is at most.
	cost := func(r int) int64 { return g.off[r] - g.off[r0] + int64(r-r0) }
	total := cost(r1)
	lo := r0
	for p := range np {
		hi := r1
		if p < np-1 {
			target := total * int64(p+1) / int64(np)
			hi = lo + sort.Search(r1-lo, func(d int) bool { return cost(lo+d) >= target })
		}
		pieces[p].r0, pieces[p].r1 = lo, hi
		lo = hi
	}

	m := g.mb0 + i
	nf := int32(len(f))
	ptr := la.Indptr[la.PtrStart[m]:la.PtrStart[m+1]]
	e0, e1 := g.edgeBase[i], g.edgeBase[i+1]
	ind, dat := la.Indices[base+e0:base+e1], la.Data[base+e0:base+e1]
	newv := g.newv[e0:e1]

	var bar [5]sync.WaitGroup
	var arrived [5]atomic.Int32
	for b := range bar {
		bar[b].Add(np)
	}
	barrier := func(b int) {
		arrived[b].Add(1)
		bar[b].Done()
		if !par.SpinUntil(func() bool { return arrived[b].Load() == int32(np) }) {
			bar[b].Wait()
		}
	}
	run := func(p int) {
		pc := &pieces[p]
		// A: the frontier, and the piece's entries.
		var edges int64
		for r := pc.r0; r < pc.r1; r++ {
			ids[f[r-r0]] = int32(r - r0)
			edges += int64(g.cnt[r])
		}
		pc.edges = edges
		barrier(0)

		// B: frontier ids, and claims; a new vertex v is stored as -1-v.
		var eStart int64
		for q := range p {
			eStart += pieces[q].edges
		}
		e := eStart
		for r := pc.r0; r < pc.r1; r++ {
			ptr[r-r0] = e
			c := int64(g.cnt[r])
			row := ind[e : e+c]
			for q, v := range g.picks[g.off[r] : g.off[r]+c] {
				x := atomic.LoadInt32(&ids[v])
				if x >= 0 {
					row[q] = x
					continue
				}
				row[q] = -1 - v
				me := -2 - int32(e+int64(q))
				for x == -1 || x < me {
					if atomic.CompareAndSwapInt32(&ids[v], x, me) {
						break
					}
					x = atomic.LoadInt32(&ids[v])
				}
			}
			e += c
		}
		barrier(1)

		// C: the first appearances the piece holds.
		own := pc.own[:0]
		for q, x := range ind[eStart:e] {
			if x < 0 {
				if v := -1 - x; ids[v] == -2-int32(eStart+int64(q)) {
					own = append(own, v)
				}
			}
		}
		pc.own = own
		barrier(2)

		// D: their ids, and the minibatch's new vertices.
		nb := 0
		for q := range p {
			nb += len(pieces[q].own)
		}
		ownFrom := nf + int32(nb) // the id of own[0]
		for j, v := range own {
			ids[v] = ownFrom + int32(j)
		}
		copy(newv[nb:], own)
		barrier(3)

		// E: the rows' ids, then the rows finished as extract finishes
		// them. First appearances come in order, so the next one has id
		// next.
		next := ownFrom
		e = eStart
		for r := pc.r0; r < pc.r1; r++ {
			c := int64(g.cnt[r])
			row := ind[e : e+c]
			created, nk := next, 0
			for _, x := range row {
				if x < 0 {
					if x = ids[-1-x]; x == next {
						next++
						if !g.hasVals {
							continue // finishRow writes it
						}
					}
				}
				row[nk] = x
				nk++
			}
			nw.finishRow(g, r, row, dat[e:e+c], nk, created, &pc.sortBuf)
			e += c
		}
		if !g.hasVals {
			d := dat[eStart:e]
			for j := range d {
				d[j] = 1
			}
		}
		if p == np-1 {
			ptr[len(f)] = e
		}
		barrier(4)
		for r := pc.r0; r < pc.r1; r++ {
			ids[f[r-r0]] = -1
		}
		for _, v := range own {
			ids[v] = -1
		}
	}
	tm.Run(np, run)
	n := 0
	for p := range pieces {
		n += len(pieces[p].own)
	}
	g.nnew[i] = n
}
