package sampling

import (
	"math/bits"

	"github.com/bulksample/bulksample/internal/freelist"
)

// denseVertexMapMax is the largest vertex count for which a worker's vertex
// map is a dense n-entry array (16 MiB at 4 bytes an entry). Above it the
// map is a hash table sized by what one extraction enters: a minibatch of
// b = 1024 and fanouts 15,10,5 enters at most 0.9M vertices, 16 MiB of
// slots at load 1/2 however large the graph, where a dense map of a
// papers100M-sized graph (134M vertices) is 536 MB per thread and per rank,
// more than a rank's block of the graph at 128 ranks.
const denseVertexMapMax = 1 << 22

// minVertexMapSlots is the smallest hash table: an extraction's first
// doublings cost less than clearing a larger table for a small one.
const minVertexMapSlots = 1 << 10

// vertexMap maps the vertices of one extraction (a minibatch's frontier
// and picks, a bulk's seeds) to int32 ids >= 0. Entries are added by
// enter and add, and all removed by reset; between uses it is empty. It is dense
// (an array indexed by vertex, -1 when absent) when the graph has at most
// its dense limit of vertices, else a hash table with linear probing whose
// slots hold (v+1)<<32 | id, 0 when empty, at most half of them full; it
// doubles as entries come and shrinks back at reset, keeping its largest
// array. Both give the same ids: which map runs changes nothing sampled.
type vertexMap struct {
	dense []int32
	slots []uint64 // the table in use: a power-of-two prefix of its array
	shift uint     // 64 - log2(len(slots))
	n     int      // entries of the table
	old   []uint64 // scratch space for doubling
	nv    int      // it maps the vertices 0..nv-1
}

// vertices returns how many vertices the map maps: 0..vertices()-1.
func (m *vertexMap) vertices() int { return m.nv }

// newVertexMap returns an empty map of the vertices 0..n-1, dense when n
// is at most denseMax.
func newVertexMap(n, denseMax int) vertexMap {
	if n <= denseMax {
		return vertexMap{dense: newDenseMap(n), nv: n}
	}
	m := vertexMap{nv: n}
	m.resize(make([]uint64, minVertexMapSlots))
	return m
}

// newDenseMap returns a dense map of the vertices 0..n-1, every entry -1
// (absent).
func newDenseMap(n int) []int32 {
	d := make([]int32, n)
	for i := range d {
		d[i] = -1
	}
	return d
}

// reserve sizes the empty map's table for k entries, so that entering up
// to k vertices does not double it; a dense map, or one holding entries,
// ignores it. Callers pass what bounds their entries (a minibatch's
// frontier plus its picks), which may exceed the distinct vertices a few
// times: the table's clearing at reset then costs about what entering the
// bound's vertices cost. (R-MAT 24, one process: reserving half the bound
// ran 9% slower, doubling as entries came; twice the bound 6% slower, a
// larger table missing the cache more.)
func (m *vertexMap) reserve(k int) {
	if m.dense != nil || m.n > 0 || 2*k <= len(m.slots) {
		return
	}
	size := 1 << bits.Len(uint(2*k-1))
	if size <= cap(m.slots) {
		m.resize(m.slots[:size]) // beyond the table in use the array is zero
		return
	}
	m.resize(make([]uint64, size))
}

// appendDistinct appends to dst the distinct vertices of vs, first
// occurrences in order, and returns it; the map is empty before and after.
func (m *vertexMap) appendDistinct(dst, vs []int32) []int32 {
	lo := len(dst)
	m.reserve(len(vs))
	for _, v := range vs {
		if _, added := m.add(v, 0); added {
			dst = append(dst, v)
		}
	}
	m.reset(dst[lo:])
	return dst
}

// SeedDedup removes repeated seeds from minibatches as every sampler of
// this package does (first occurrences, in order), for samplers outside it
// (package gpu's) whose bulks must be the same. Its map of the vertices is
// made at the first use (dense up to 4M vertices, else a hash table) and
// reused. It is not safe for concurrent use.
type SeedDedup struct {
	n int
	m *vertexMap
}

// NewSeedDedup returns a deduplicator of seeds among the vertices 0..n-1.
func NewSeedDedup(n int) *SeedDedup { return &SeedDedup{n: n} }

// AppendDistinct appends to dst the distinct vertices of seeds (each in
// [0, n)), first occurrences in order, and returns it.
func (d *SeedDedup) AppendDistinct(dst, seeds []int32) []int32 {
	if d.m == nil {
		m := newVertexMap(d.n, denseVertexMapMax)
		d.m = &m
	}
	return d.m.appendDistinct(dst, seeds)
}

// vertexMapPool keeps empty vertex maps of the vertices 0..n-1 for reuse
// across calls (filling a dense map is a serial cost of n entries); a nil
// pool makes each one, dense up to denseVertexMapMax vertices. It is safe
// for concurrent use.
type vertexMapPool struct {
	n        int // the maps' vertices
	denseMax int // the most vertices of a dense map
	free     freelist.List[*vertexMap]
}

// newVertexMapPool returns a pool of maps of the vertices 0..n-1, dense
// when n is at most denseMax.
func newVertexMapPool(n, denseMax int) *vertexMapPool {
	return &vertexMapPool{n: n, denseMax: denseMax}
}

// get returns an empty map of the vertices 0..n-1.
func (p *vertexMapPool) get(n int) *vertexMap {
	if p == nil || n != p.n {
		m := newVertexMap(n, denseVertexMapMax)
		return &m
	}
	if m, ok := p.free.Get(); ok {
		return m
	}
	m := newVertexMap(n, p.denseMax)
	return &m
}

// put gives back a map of get, empty again; maps of another size than the
// pool's are dropped.
func (p *vertexMapPool) put(m *vertexMap) {
	if p != nil && m.vertices() == p.n {
		p.free.Put(m)
	}
}

// resize makes s, all zero, the table in use.
func (m *vertexMap) resize(s []uint64) {
	m.slots = s
	m.shift = uint(64 - bits.TrailingZeros(uint(len(s))))
}

// slot returns where v's probe sequence starts (Fibonacci hashing: the
// high bits of v times 2^64 over the golden ratio).
func (m *vertexMap) slot(v int32) uint64 {
	return (uint64(uint32(v)) * 0x9e3779b97f4a7c15) >> m.shift
}

// get returns v's id, or -1 when v is absent.
func (m *vertexMap) get(v int32) int32 {
	if m.dense != nil {
		return m.dense[v]
	}
	return m.getHashed(v)
}

func (m *vertexMap) getHashed(v int32) int32 {
	key := uint64(uint32(v)+1) << 32
	mask := uint64(len(m.slots) - 1)
	for i := m.slot(v); ; i = (i + 1) & mask {
		s := m.slots[i]
		if s == 0 {
			return -1
		}
		if s&^0xffffffff == key {
			return int32(uint32(s))
		}
	}
}

// add enters v with id when v is absent and returns (id, true); when v is
// present it returns (v's id, false) and changes nothing.
func (m *vertexMap) add(v, id int32) (int32, bool) {
	if m.dense != nil {
		if x := m.dense[v]; x >= 0 {
			return x, false
		}
		m.dense[v] = id
		return id, true
	}
	return m.addHashed(v, id)
}

func (m *vertexMap) addHashed(v, id int32) (int32, bool) {
	key := uint64(uint32(v)+1) << 32
	mask := uint64(len(m.slots) - 1)
	for i := m.slot(v); ; i = (i + 1) & mask {
		s := m.slots[i]
		if s == 0 {
			m.slots[i] = key | uint64(uint32(id))
			if m.n++; 2*m.n > len(m.slots) {
				m.double()
			}
			return id, true
		}
		if s&^0xffffffff == key {
			return int32(uint32(s)), false
		}
	}
}

// enter enters the distinct vertices vs with ids 0, 1, ... (a
// minibatch's frontier), which must be absent.
func (m *vertexMap) enter(vs []int32) {
	if d := m.dense; d != nil {
		for j, v := range vs {
			d[v] = int32(j)
		}
		return
	}
	for j, v := range vs {
		m.addHashed(v, int32(j))
	}
}

// renumber writes the ids of picks into row, in order, entering each
// absent vertex with the next id, nf plus its position in newv, to which
// it is appended. It returns newv and how many ids it wrote: every pick's
// when all is set, else only those of vertices present before. It is the
// inner loop of an extraction, one pass per row: the dense map's is
// written out so that its lookups are inlined (add is a call).
func (m *vertexMap) renumber(picks, row, newv []int32, nf int32, all bool) ([]int32, int) {
	nk := 0
	if d := m.dense; d != nil {
		for _, v := range picks {
			id := d[v]
			if id < 0 {
				id = nf + int32(len(newv))
				d[v] = id
				newv = append(newv, v)
				if !all {
					continue
				}
			}
			row[nk] = id
			nk++
		}
		return newv, nk
	}
	for _, v := range picks {
		id, added := m.addHashed(v, nf+int32(len(newv)))
		if added {
			newv = append(newv, v)
			if !all {
				continue
			}
		}
		row[nk] = id
		nk++
	}
	return newv, nk
}

// double moves the entries into a table twice as large.
func (m *vertexMap) double() {
	m.old = append(m.old[:0], m.slots...)
	n2 := 2 * len(m.slots)
	s := m.slots[:cap(m.slots)]
	if len(s) < n2 {
		s = make([]uint64, n2)
	} else {
		s = s[:n2]
		clear(s[:len(m.slots)]) // the rest is zero: reset clears what it used
	}
	m.resize(s)
	mask := uint64(n2 - 1)
	for _, e := range m.old {
		if e == 0 {
			continue
		}
		i := m.slot(int32(e>>32) - 1)
		for m.slots[i] != 0 {
			i = (i + 1) & mask
		}
		m.slots[i] = e
	}
}

// reset removes every entry; vs are the vertices entered since the last
// reset (the dense map clears only theirs, the table clears itself).
func (m *vertexMap) reset(vs []int32) {
	if m.dense != nil {
		for _, v := range vs {
			m.dense[v] = -1
		}
		return
	}
	if m.n == 0 {
		return
	}
	clear(m.slots)
	m.n = 0
	m.resize(m.slots[:minVertexMapSlots])
}
