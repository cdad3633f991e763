package sampling

// Extraction of per-minibatch blocks (docs/design.md 3.2 step 4).
//
// The matrix formulation is A_R = Q_R·A (row extraction: Q_R stacks the
// frontier rows of every minibatch), then A_R·Q_C (column extraction: Q_C
// maps the chosen columns of minibatch m to local columns of minibatch m
// only). Because a vertex may be chosen by several minibatches, one Q_C for
// a chunk of minibatches has one column per (minibatch, chosen vertex) pair
// and A_R·Q_C also produces the off-diagonal blocks (rows of minibatch m
// against columns of minibatch m'), which are then thrown away: its cost
// grows with the chunk size. The kernel here computes exactly the diagonal
// blocks instead, minibatch by minibatch: it marks the minibatch's chosen
// columns in a dense column map (its Q_C) and reads each of its frontier
// rows of A in place (the row of Q_R·A, not copied), keeping and
// renumbering the entries whose column is marked; a row much longer than
// the chosen list (a hub) is searched for each chosen column instead of
// scanned. The work is O(nnz(A_R)) at most, whatever the chunk size. The
// tests check it against the literal products Q_R·A·Q_C with explicit
// selection matrices. A chunk of `semibulk` minibatches is the unit of
// parallel work; since neither A_R nor a chunk-wide Q_C is formed, the
// chunk size bounds no memory and changes no result. Each worker owns one
// dense column map of a.Cols entries. Profiles of ladiesbench (R-MAT scale
// 20, b = s = 512) put the layer's time about equally in forming the rows
// of P and in this extraction, both reading the frontier's rows of A, and
// about a tenth in the selection. (Gathering A_R with spgemm.GatherRows and
// relabelling it with spgemm.ExtractColumns, which checks its n-entry map
// on every call, cost twice as much.)

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// DefaultSemibulk is the number of minibatches per extraction chunk (the
// unit of parallel work) when a semibulk size of 0 is given.
const DefaultSemibulk = 8

// Extract returns the blocks A[rows[m], cols[m]] of the k = len(rows)
// minibatches of a bulk, in the bulk layout of LayerArrays: block m has
// len(rows[m]) rows and len(cols[m]) columns, its entry (i, j) is
// a[rows[m][i], cols[m][j]] when a stores that entry (values copied), and
// its sources Src are a copy of cols[m]. For an adjacency a, rows and
// columns are vertex ids and the block is the induced submatrix; for a
// selection S = SelectPerRow(P, ...) with one row per frontier entry, rows
// are S's row numbers and the block holds exactly the selected entries
// (column extraction S·Q_C). Rows may repeat (each occurrence is a row);
// the columns of one minibatch must be distinct.
//
// The minibatches are processed at most semibulk at a time (0 means
// DefaultSemibulk; fewer when that leaves under four chunks a goroutine)
// on threads goroutines (<= 0 means GOMAXPROCS), and with fewer
// minibatches than threads each block's rows are split over them by
// length; the result is the same for every semibulk and thread count. The cost is
// O(sum of the degrees of the rows + total length of cols) at most (rows
// far longer than their minibatch's cols are binary-searched instead of
// scanned), plus a dense column map of a.Cols int32 per goroutine. The
// result shares no arrays with the arguments.
//
// It panics with an spgemm.ShapeError if len(cols) != len(rows), with an
// spgemm.IndexError if a row is outside [0, a.Rows) or a column outside
// [0, a.Cols),
// and with an spgemm.ArgError naming the vertex if a column repeats in one
// cols[m].
func Extract(a *spgemm.CSR, rows [][]int32, cols [][]int32, semibulk, threads int) *LayerArrays {
	if len(cols) != len(rows) {
		panic(spgemm.ShapeError{Op: "Extract rows/cols lists", ARows: len(rows), ACols: 1, BRows: len(cols), BCols: 1})
	}
	spec := extractSpec{rows: rows, cols: cols, srcs: cols, widths: make([]int, len(cols))}
	for m := range cols {
		spec.widths[m] = len(cols[m])
	}
	la := new(LayerArrays)
	extractBlocks(nil, CSRRows{A: a}, a.Cols, &spec, semibulk, threads, nil, new(extractBufs), la)
	return la
}

// extractSpec generalises Extract: the local column of cols[m][j] is
// slots[m][j] (j when slots is nil) in a block of widths[m] columns whose
// sources are srcs[m], and values in local column c are multiplied by
// scale[m][c] (computed in float64; 1 when scale is nil). This is the
// column extraction A_R·Q_C with Q_C[cols[m][j], slots[m][j]] = scale.
type extractSpec struct {
	rows, cols, slots, srcs [][]int32
	widths                  []int
	scale                   [][]float64
}

// extractBufs are the arrays of an extraction that a sampler keeps from
// bulk to bulk: the blocks of the minibatches, before they are stored back
// to back, and the pieces of a block split over the threads with their
// sort buffers. Their CSRs keep their arrays, which grow to the largest
// block and are then reused.
type extractBufs struct {
	blocks   []*spgemm.CSR
	pieces   []*spgemm.CSR
	sortBufs [][]uint64 // per piece
	cuts     []int
}

// blocksFor returns k blocks, those of earlier calls first (nil where none
// was made yet; extractChunk makes them).
func (e *extractBufs) blocksFor(k int) []*spgemm.CSR {
	e.blocks = resizeKeep(e.blocks, k)
	return e.blocks
}

// resizeKeep returns s with length n, keeping its elements (and, when it
// grows, those its array held beyond its length): a list of reusable
// buffers never loses one.
func resizeKeep[T any](s []T, n int) []T {
	if cap(s) < n {
		s = append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

// extractBlocks computes the blocks of spec from the rows of src, whose
// column ids are < ncols (the rows of spec.rows, which a RemoteRows source
// must have fetched), into la's arrays (reused when large enough), through
// the blocks of bufs. Its column maps come from maps (a sampler's, kept
// across calls) or, when maps is nil, are made for the call. The parallel
// passes run on tm (nil: on goroutines started for each).
func extractBlocks(tm *par.Team, src RowSource, ncols int, spec *extractSpec, semibulk, threads int, maps *vertexMapPool, bufs *extractBufs, la *LayerArrays) {
	k := len(spec.rows)
	n := src.NumVertices()
	if semibulk <= 0 {
		semibulk = DefaultSemibulk
	}
	for m := range spec.rows {
		for _, v := range spec.rows[m] {
			if uint(v) >= uint(n) {
				panic(spgemm.IndexError{Op: fmt.Sprintf("Extract rows[%d]", m), Index: int(v), Len: n})
			}
		}
		for _, v := range spec.cols[m] {
			if uint(v) >= uint(ncols) {
				panic(spgemm.IndexError{Op: fmt.Sprintf("Extract cols[%d]", m), Index: int(v), Len: ncols})
			}
		}
	}
	blocks := bufs.blocksFor(k)
	if t := par.Threads(threads); k > 0 && k < t {
		// Fewer minibatches than threads: each block's rows are split
		// over the threads instead.
		colMap := maps.get(ncols)
		for m := range k {
			if blocks[m] == nil {
				blocks[m] = new(spgemm.CSR)
			}
			extractSplit(tm, blocks[m], bufs, src, spec, m, colMap, t)
		}
		maps.put(colMap)
		assembleLayer(la, blocks, spec.srcs)
		return
	}
	// Chunks of at most semibulk minibatches, and at least four per
	// thread, so that a chunk of costly minibatches does not hold the
	// others up.
	semibulk = min(semibulk, max(1, k/(4*par.Threads(threads))))
	nchunks := (k + semibulk - 1) / semibulk
	var next atomic.Int64
	// A caller-bug panic (a repeated column) is re-raised here by tm.
	tm.Run(min(par.Threads(threads), nchunks), func(int) {
		colMap := maps.get(ncols)
		var sortBuf []uint64
		for {
			c := int(next.Add(1) - 1)
			if c >= nchunks {
				maps.put(colMap) // all -1 again (not reached after a panic)
				return
			}
			lo, hi := c*semibulk, min((c+1)*semibulk, k)
			extractChunk(src, spec, lo, hi, colMap, blocks, &sortBuf)
		}
	})
	assembleLayer(la, blocks, spec.srcs)
}

// colMapPool keeps dense vertex maps (all -1) for reuse across calls, for
// the split extractions whose goroutines share one map and enter vertices
// with atomics; a nil pool allocates each one. It is safe for concurrent
// use.
type colMapPool struct {
	mu   sync.Mutex
	free [][]int32
}

// get returns a column map of n entries, all -1 (absent).
func (p *colMapPool) get(n int) []int32 {
	if p != nil {
		p.mu.Lock()
		for len(p.free) > 0 {
			m := p.free[len(p.free)-1]
			p.free = p.free[:len(p.free)-1]
			if len(m) == n {
				p.mu.Unlock()
				return m
			}
		}
		p.mu.Unlock()
	}
	return newDenseMap(n)
}

// put returns a map that is all -1 again.
func (p *colMapPool) put(m []int32) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.free = append(p.free, m)
	p.mu.Unlock()
}

// markColumns enters in the empty colMap minibatch m's local column of
// each of its chosen columns. It panics with an spgemm.ArgError, leaving
// colMap empty, if a column repeats.
func markColumns(spec *extractSpec, m int, colMap *vertexMap) {
	cols := spec.cols[m]
	colMap.reserve(len(cols))
	for j, v := range cols {
		id := int32(j)
		if spec.slots != nil {
			id = spec.slots[m][j]
		}
		if _, added := colMap.add(v, id); !added {
			colMap.reset(cols[:j])
			panic(spgemm.ArgError{Op: "Extract", Msg: fmt.Sprintf("vertex %d appears twice in cols[%d]", v, m)})
		}
	}
}

// extractSplit computes the block of minibatch m into b on up to threads
// goroutines, each relabelling a piece of its rows (into the pieces of
// bufs); the pieces are cut by the rows' lengths (their cost), not their
// number, so that a hub's row does not hold one goroutine while the others
// idle. colMap is empty on entry and on return, and read (not written)
// by the goroutines, which are tm's.
func extractSplit(tm *par.Team, b *spgemm.CSR, bufs *extractBufs, src RowSource, spec *extractSpec, m int, colMap *vertexMap, threads int) {
	rows, cols := spec.rows[m], spec.cols[m]
	markColumns(spec, m, colMap)
	defer colMap.reset(cols)
	var scale []float64
	if spec.scale != nil {
		scale = spec.scale[m]
	}
	// Cut points: pieces of about equal total row length.
	var total int64
	for _, u := range rows {
		total += int64(len(indicesOf(src, u))) + 1
	}
	np := min(4*threads, len(rows))
	cuts := append(bufs.cuts[:0], 0)
	var acc int64
	for i, u := range rows {
		acc += int64(len(indicesOf(src, u))) + 1
		if len(cuts) < np && acc*int64(np) >= total*int64(len(cuts)) {
			cuts = append(cuts, i+1)
		}
	}
	if cuts[len(cuts)-1] != len(rows) {
		cuts = append(cuts, len(rows))
	}
	bufs.cuts = cuts
	bufs.pieces = resizeKeep(bufs.pieces, len(cuts)-1)
	bufs.sortBufs = resizeKeep(bufs.sortBufs, len(cuts)-1)
	pieces := bufs.pieces
	for p := range pieces {
		if pieces[p] == nil {
			pieces[p] = new(spgemm.CSR)
		}
	}
	tm.ForRanges(len(pieces), threads, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			relabelRows(pieces[p], src, rows[cuts[p]:cuts[p+1]], cols, colMap, spec.widths[m], scale, &bufs.sortBufs[p])
		}
	})
	b.Rows, b.Cols = len(rows), spec.widths[m]
	b.Indptr, b.Indices, b.Data = append(b.Indptr[:0], 0), b.Indices[:0], b.Data[:0]
	for _, p := range pieces {
		base := int64(len(b.Indices))
		for _, e := range p.Indptr[1:] {
			b.Indptr = append(b.Indptr, base+e)
		}
		b.Indices, b.Data = append(b.Indices, p.Indices...), append(b.Data, p.Data...)
	}
}

// indicesOf returns the column ids of row u of src.
func indicesOf(src RowSource, u int32) []int32 {
	idx, _ := src.Row(u)
	return idx
}

// extractChunk computes the blocks of minibatches [lo, hi) into blocks[lo:hi],
// reusing the arrays of those that are not nil, with *sortBuf as the
// scratch space of spgemm.SortPairs. colMap is empty on entry and on
// return.
func extractChunk(src RowSource, spec *extractSpec, lo, hi int, colMap *vertexMap, blocks []*spgemm.CSR, sortBuf *[]uint64) {
	for m := lo; m < hi; m++ {
		cols := spec.cols[m]
		markColumns(spec, m, colMap)
		var scale []float64
		if spec.scale != nil {
			scale = spec.scale[m]
		}
		if blocks[m] == nil {
			blocks[m] = new(spgemm.CSR)
		}
		relabelRows(blocks[m], src, spec.rows[m], cols, colMap, spec.widths[m], scale, sortBuf)
		colMap.reset(cols)
	}
}

// relabelRows sets b, reusing its arrays, to the block Q_R·A·Q_C of one
// minibatch: row i is row
// rows[i] of a restricted to the vertices of cols, which colMap holds,
// renumbered to their ids in colMap, with values times scale[id] (computed
// in float64) when scale is not nil. Q_R·A is read in place: a row is
// scanned once, looking each entry up in colMap, or, when it is much
// longer than cols (a hub), searched for each vertex of cols.
// A row's local columns, which are distinct, are then sorted with *sortBuf
// as scratch space (kept for the next call).
func relabelRows(b *spgemm.CSR, src RowSource, rows, cols []int32, colMap *vertexMap, width int, scale []float64, sortBuf *[]uint64) {
	b.Rows, b.Cols = len(rows), width
	b.Indptr, b.Indices, b.Data = par.Resize(b.Indptr, len(rows)+1), b.Indices[:0], b.Data[:0]
	b.Indptr[0] = 0
	for i, u := range rows {
		idx, vals := src.Row(u)
		start := len(b.Indices)
		if len(idx) > hubFactor*len(cols) {
			for _, v := range cols {
				if p, ok := slices.BinarySearch(idx, v); ok {
					b.Indices, b.Data = append(b.Indices, colMap.get(v)), append(b.Data, vals[p])
				}
			}
		} else if d := colMap.dense; d != nil { // written out: the lookups inlined
			for p, v := range idx {
				if c := d[v]; c >= 0 {
					b.Indices, b.Data = append(b.Indices, c), append(b.Data, vals[p])
				}
			}
		} else {
			for p, v := range idx {
				if c := colMap.getHashed(v); c >= 0 {
					b.Indices, b.Data = append(b.Indices, c), append(b.Data, vals[p])
				}
			}
		}
		row, rv := b.Indices[start:], b.Data[start:]
		if !slices.IsSorted(row) {
			if cap(*sortBuf) < width {
				// Room for the longest row there can be (its columns
				// are distinct), not just this one: SortPairs would
				// grow the buffer row by longer row.
				*sortBuf = make([]uint64, width)
			}
			*sortBuf = spgemm.SortPairs(row, rv, *sortBuf)
		}
		if scale != nil {
			for p, c := range row {
				rv[p] = float32(float64(rv[p]) * scale[c])
			}
		}
		b.Indptr[i+1] = int64(len(b.Indices))
	}
}

// hubFactor is how many times longer than the chosen column list a row
// must be for relabelRows to binary-search the columns in it rather than
// scan it: a search costs about log2(deg) reads of the row, a scan one
// lookup in the column map per entry.
const hubFactor = 16

// assembleLayer stores blocks back to back in la, in the LayerArrays
// layout, with srcs[m] as minibatch m's sources. It reuses la's arrays
// when they are large enough (those of a released bulk) and sets Deg to
// nil.
func assembleLayer(la *LayerArrays, blocks []*spgemm.CSR, srcs [][]int32) {
	k := len(blocks)
	la.PtrStart, la.EdgeStart, la.SrcStart = par.Resize(la.PtrStart, k+1), par.Resize(la.EdgeStart, k+1), par.Resize(la.SrcStart, k+1)
	la.PtrStart[0], la.EdgeStart[0], la.SrcStart[0] = 0, 0, 0
	for m, b := range blocks {
		la.PtrStart[m+1] = la.PtrStart[m] + b.Rows + 1
		la.EdgeStart[m+1] = la.EdgeStart[m] + b.NNZ()
		la.SrcStart[m+1] = la.SrcStart[m] + len(srcs[m])
	}
	la.Indptr = par.Resize(la.Indptr, la.PtrStart[k])
	la.Indices = par.Resize(la.Indices, int(la.EdgeStart[k]))
	la.Data = par.Resize(la.Data, int(la.EdgeStart[k]))
	la.Src = par.Resize(la.Src, la.SrcStart[k])
	la.Deg = nil
	for m, b := range blocks {
		copy(la.Indptr[la.PtrStart[m]:], b.Indptr[:b.Rows+1])
		copy(la.Indices[la.EdgeStart[m]:], b.Indices)
		copy(la.Data[la.EdgeStart[m]:], b.Data)
		copy(la.Src[la.SrcStart[m]:], srcs[m])
	}
}

// NextFrontier returns frontier followed by the column ids of rows
// [lo, hi) of sel that are not in frontier, each once, in increasing order:
// the sources F_{l+1} of a block whose destinations are F_l = frontier
// (docs/design.md 3.1 step 4), ready to be the cols of Extract. frontier must
// hold distinct vertices. It panics with an spgemm.IndexError if the row
// range is outside [0, sel.Rows].
func NextFrontier(frontier []int32, sel *spgemm.CSR, lo, hi int) []int32 {
	if lo < 0 || hi > sel.Rows || lo > hi {
		panic(spgemm.IndexError{Op: "NextFrontier rows", Index: max(hi, -lo), Len: sel.Rows + 1})
	}
	cols := slices.Clone(sel.Indices[sel.Indptr[lo]:sel.Indptr[hi]])
	slices.Sort(cols)
	src, _ := appendNew(nil, nil, new([]uint64), frontier, slices.Compact(cols))
	return src
}

// appendNew returns frontier followed by the vertices of cols (sorted,
// distinct) that are not in frontier, and the position of each cols[j] in
// that list, stored in the arrays of src and slots when they are large
// enough (their contents are overwritten); *order is scratch space, kept
// for the next call.
func appendNew(src, slots []int32, order *[]uint64, frontier, cols []int32) ([]int32, []int32) {
	// ord lists the frontier sorted by vertex, each vertex (>= 0) in the
	// high half and its position in the low half: an ordered sort of
	// integers, about twice as fast as sorting positions through a
	// comparison function (a serial step when k < threads).
	ord := par.Resize(*order, len(frontier))
	for i, v := range frontier {
		ord[i] = uint64(v)<<32 | uint64(i)
	}
	slices.Sort(ord)
	*order = ord
	src = append(par.Resize(src, len(frontier)+len(cols))[:0], frontier...)
	slots = par.Resize(slots, len(cols))
	fi := 0
	for j, v := range cols {
		for fi < len(ord) && int32(ord[fi]>>32) < v {
			fi++
		}
		if fi < len(ord) && int32(ord[fi]>>32) == v {
			slots[j] = int32(uint32(ord[fi]))
		} else {
			slots[j] = int32(len(src))
			src = append(src, v)
		}
	}
	return src, slots
}
