package sampling

// Per-row selection (DESIGN.md 3.1 step 3). Every method is a pure function
// of the row's key and the row itself (its column ids, which a CSR keeps
// sorted and unique, and its values), so any thread or rank that holds the
// row draws the same entries.
//
//   - Uniform without replacement: rows with deg <= s are taken whole.
//     Larger rows use Floyd's algorithm (Bentley and Floyd, CACM 1987) on
//     positions 0..deg-1, drawing its j-th number at stream position j:
//     every s-subset is equally likely and the cost is O(s), not O(deg).
//     Keeping the s smallest of deg per-column keys would give the same law
//     but costs deg hashes per row, and the rows a frontier reaches are
//     biased toward hubs (the mean degree of a vertex reached by an edge of
//     an R-MAT scale-20 graph is in the thousands, against 30 overall).
//   - Weighted without replacement: exponential keys -ln(u_c)/w_c with u_c
//     drawn at stream position c, the entry's column id; the s smallest win.
//     This is successive sampling proportional to weight (Efraimidis and
//     Spirakis, IPL 2006) and does not depend on the order of the entries.
//     Entries of weight <= 0 (or NaN) are never selected. A row whose
//     weights are all equal and positive (every row of an unweighted graph
//     sampled with Weighted) has the uniform law, and is selected as a
//     uniform row is, at the cost of one pass over its weights instead of
//     a hash and a logarithm per entry; so such a row draws the same
//     entries with Weighted as without (samples identical, values aside).
//     Layer-wise selection (SelectPerMinibatch) always uses the keys.
//   - With replacement: s draws j = 0..s-1 at stream positions j; uniform
//     draws map 64 bits to a position by multiply-shift, weighted draws
//     invert the inclusive float64 prefix sums of the weights: the pick is
//     the first position whose inclusive sum exceeds u·total, so a
//     position's probability is exactly its own weight over the total.
//     An entry drawn c times appears once with multiplicity c.

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/bulksample/bulksample/spgemm"
)

// SelectOptions choose the law of SelectPerRow. The zero value selects
// uniformly without replacement.
type SelectOptions struct {
	// Weighted draws proportionally to the values of p instead of uniformly;
	// entries whose value is <= 0 or NaN are then never selected.
	Weighted bool
	// Replace draws with replacement: s independent draws per row.
	Replace bool
}

// SelectPerRow returns the entries that row r of p draws with keys[r]:
// min(s, deg) distinct entries without replacement (deg counts only the
// positive entries when weighted), or s draws with replacement. A weighted
// row whose values are all equal and positive is drawn as an unweighted
// one (same law, same entries). s = -1
// takes every entry (every positive entry when weighted) and s = 0 none.
// The result has p's shape and sorted rows; an entry drawn c times (only
// with replacement) has the value c·p[r][j], every other selected entry its
// value in p. The law of each method is in the comment at the top of
// select.go. It panics with a ShapeError if len(keys) != p.Rows and with an
// ArgError if s < -1.
func SelectPerRow(p *spgemm.CSR, keys []RowKey, s int, opt SelectOptions) *spgemm.CSR {
	return selectPerRow(p, keys, s, opt, false)
}

// selectPerRow is SelectPerRow; byKeys selects every weighted row by its
// keys, equal weights or not (layer-wise selection).
func selectPerRow(p *spgemm.CSR, keys []RowKey, s int, opt SelectOptions, byKeys bool) *spgemm.CSR {
	if len(keys) != p.Rows {
		panic(spgemm.ShapeError{Op: "SelectPerRow keys", ARows: p.Rows, ACols: p.Cols, BRows: len(keys), BCols: 1})
	}
	if s < -1 {
		panic(spgemm.ArgError{Op: "sampling.SelectPerRow", Msg: fmt.Sprintf("fanout %d, want >= -1", s)})
	}
	out := &spgemm.CSR{Rows: p.Rows, Cols: p.Cols, Indptr: make([]int64, p.Rows+1)}
	var sel rowSelector
	for r := 0; r < p.Rows; r++ {
		lo, hi := p.Indptr[r], p.Indptr[r+1]
		cols, vals := p.Indices[lo:hi], p.Data[lo:hi]
		var pos, mult []int32
		if byKeys && opt.Weighted {
			pos, mult = sel.chooseByWeight(keys[r], cols, vals, s, opt.Replace)
		} else {
			pos, mult = sel.choose(keys[r], cols, vals, s, opt)
		}
		for i, q := range pos {
			out.Indices = append(out.Indices, cols[q])
			out.Data = append(out.Data, pickValue(vals[q], mult, i))
		}
		out.Indptr[r+1] = int64(len(out.Indices))
	}
	return out
}

// pickValue is the value of the i-th selected entry, whose value in the
// row is v: v times its multiplicity (1 when mult is nil).
func pickValue(v float32, mult []int32, i int) float32 {
	if mult == nil {
		return v
	}
	return float32(mult[i]) * v
}

// selectBound returns the most entries a row of deg entries can yield with
// fanout s, for every law: the exact count when unweighted without
// replacement.
func selectBound(deg, s int) int {
	if s < 0 {
		return deg
	}
	return min(s, deg) // with replacement: distinct picks after merging
}

// rowSelector holds the scratch space of per-row selection; its zero value
// is ready. It is not safe for concurrent use: each goroutine has its own.
type rowSelector struct {
	pos    []int32   // chosen positions, ascending
	mult   []int32   // multiplicities, parallel to pos (with replacement)
	fkeys  []float64 // heap keys (weighted) or prefix sums (weighted, replace)
	draws  []int32   // raw draws before merging (with replacement)
	bitset []uint64  // membership for Floyd's algorithm when s is large
}

// floydLinear is the largest s for which Floyd's membership test scans the
// chosen positions instead of using a bitset: below it a scan of at most
// floydLinear int32s (two cache lines) beats clearing a bitset.
const floydLinear = 32

// floydMaskWords is the number of 64-bit words of the bit mask that holds
// Floyd's chosen set for rows of at most 64·floydMaskWords entries.
const floydMaskWords = 4

// choose selects entries of the row (cols, vals) with key and returns their
// positions in the row, ascending, and their multiplicities (nil unless
// opt.Replace). A weighted row whose weights are all equal and positive
// is selected as an unweighted one (equalPositive). Both slices are
// scratch, valid until the next call.
func (sel *rowSelector) choose(key RowKey, cols []int32, vals []float32, s int, opt SelectOptions) (pos, mult []int32) {
	if opt.Weighted && !equalPositive(vals) {
		return sel.chooseByWeight(key, cols, vals, s, opt.Replace)
	}
	sel.pos = sel.pos[:0]
	if len(cols) == 0 || s == 0 {
		return sel.pos, nil
	}
	return sel.uniform(key, len(cols), s, opt.Replace)
}

// chooseByWeight is choose's weighted selection, by exponential keys (or by
// inverse transform with replacement), whatever the weights.
func (sel *rowSelector) chooseByWeight(key RowKey, cols []int32, vals []float32, s int, replace bool) (pos, mult []int32) {
	sel.pos = sel.pos[:0]
	if len(cols) == 0 || s == 0 {
		return sel.pos, nil
	}
	if replace && s >= 0 {
		return sel.weightedReplace(key, vals, s)
	}
	return sel.weighted(key, cols, vals, s), nil
}

// equalPositive reports whether every value of vals equals the first and
// is positive and finite (true for an empty row): the weighted laws are
// then the uniform ones. It stops at the first value that differs, so a
// row of unequal weights costs about one comparison.
func equalPositive(vals []float32) bool {
	if len(vals) == 0 {
		return true
	}
	w := vals[0]
	if !(w > 0) || math.IsInf(float64(w), 1) {
		return false
	}
	for _, v := range vals[1:] {
		if v != w {
			return false
		}
	}
	return true
}

// uniform selects uniformly among deg entries (deg > 0, s != 0): it needs
// only the row's length, not its entries, which lets the node-wise kernel
// draw the positions of many rows before it reads any of them.
func (sel *rowSelector) uniform(key RowKey, deg, s int, replace bool) (pos, mult []int32) {
	if s < 0 || (deg <= s && !replace) {
		pos = sel.pos[:0]
		for i := range deg {
			pos = append(pos, int32(i))
		}
		sel.pos = pos
		return pos, nil
	}
	if replace {
		return sel.uniformReplace(key, deg, s)
	}
	return sel.floyd(key, deg, s), nil
}

// floyd draws a uniform s-subset of 0..deg-1 (s < deg) by Floyd's
// algorithm: for j = deg-s..deg-1 draw t uniform in [0, j]; add t, or j
// when t is already chosen.
func (sel *rowSelector) floyd(key RowKey, deg, s int) []int32 {
	pos := sel.pos[:0]
	if deg <= 64*floydMaskWords {
		// Small rows: the chosen set is a bit mask, whose set bits are
		// read back in ascending order without sorting.
		var mask [floydMaskWords]uint64
		for j := deg - s; j < deg; j++ {
			hi, _ := bits.Mul64(key.Uint64(int64(j)), uint64(j)+1)
			t := uint(hi)
			if mask[t>>6]&(1<<(t&63)) != 0 {
				t = uint(j)
			}
			mask[t>>6] |= 1 << (t & 63)
		}
		for w, m := range mask[:(deg+63)/64] {
			for m != 0 {
				pos = append(pos, int32(w*64+bits.TrailingZeros64(m)))
				m &= m - 1
			}
		}
		sel.pos = pos
		return pos
	}
	if s <= floydLinear {
		for j := deg - s; j < deg; j++ {
			hi, _ := bits.Mul64(key.Uint64(int64(j)), uint64(j)+1)
			t := int32(hi)
			if slices.Contains(pos, t) {
				t = int32(j)
			}
			pos = append(pos, t)
		}
	} else {
		words := (deg + 63) / 64
		if cap(sel.bitset) < words {
			sel.bitset = make([]uint64, words)
		}
		set := sel.bitset[:words]
		for j := deg - s; j < deg; j++ {
			hi, _ := bits.Mul64(key.Uint64(int64(j)), uint64(j)+1)
			t := int32(hi)
			if set[t>>6]&(1<<(t&63)) != 0 {
				t = int32(j)
			}
			set[t>>6] |= 1 << (t & 63)
			pos = append(pos, t)
		}
		for _, t := range pos {
			set[t>>6] = 0
		}
	}
	slices.Sort(pos)
	sel.pos = pos
	return pos
}

// uniformReplace makes s uniform draws from 0..deg-1 at stream positions
// 0..s-1 and merges them.
func (sel *rowSelector) uniformReplace(key RowKey, deg, s int) ([]int32, []int32) {
	d := sel.draws[:0]
	for j := range s {
		hi, _ := bits.Mul64(key.Uint64(int64(j)), uint64(deg))
		d = append(d, int32(hi))
	}
	sel.draws = d
	return sel.merge(d)
}

// weightedReplace makes s draws proportional to vals by inverse transform
// on the inclusive prefix sums and merges them.
func (sel *rowSelector) weightedReplace(key RowKey, vals []float32, s int) ([]int32, []int32) {
	prefix := sel.fkeys[:0]
	total := 0.0
	last := -1 // last position of positive weight
	for i, v := range vals {
		if v > 0 { // false for NaN
			total += float64(v)
			last = i
		}
		prefix = append(prefix, total)
	}
	sel.fkeys = prefix
	if last < 0 {
		return sel.pos[:0], nil
	}
	d := sel.draws[:0]
	for j := range s {
		u := key.Float64(int64(j)) * total
		// First i with prefix[i] > u: entries of weight 0 have
		// prefix[i] == prefix[i-1] and can never be first.
		i := sort.Search(len(prefix), func(i int) bool { return prefix[i] > u })
		if i > last { // u rounded up to total
			i = last
		}
		d = append(d, int32(i))
	}
	sel.draws = d
	return sel.merge(d)
}

// merge sorts draws and returns the distinct positions with their counts.
func (sel *rowSelector) merge(d []int32) ([]int32, []int32) {
	slices.Sort(d)
	pos, mult := sel.pos[:0], sel.mult[:0]
	for i, t := range d {
		if i > 0 && t == d[i-1] {
			mult[len(mult)-1]++
			continue
		}
		pos = append(pos, t)
		mult = append(mult, 1)
	}
	sel.pos, sel.mult = pos, mult
	return pos, mult
}

// weighted keeps the s smallest exponential keys (all positive entries when
// s < 0 or there are at most s of them), returned as ascending positions.
func (sel *rowSelector) weighted(key RowKey, cols []int32, vals []float32, s int) []int32 {
	pos := sel.pos[:0]
	npos := 0
	for _, v := range vals {
		if v > 0 {
			npos++
		}
	}
	if s < 0 || npos <= s {
		for i, v := range vals {
			if v > 0 {
				pos = append(pos, int32(i))
			}
		}
		sel.pos = pos
		return pos
	}
	if npos >= minBoundRow*s {
		return sel.selectByBound(key, cols, vals, s, nil)
	}
	pos, hk := topKeys(key, cols, vals, 0, len(vals), s, pos, sel.fkeys[:0])
	sel.fkeys = hk
	slices.Sort(pos)
	sel.pos = pos
	return pos
}

// topKeys appends to pos and hk (a max-heap under heapLess, empty on entry)
// the positions in [lo, hi) of the row and the keys of its s smallest
// exponential keys (s > 0) among the positive entries, fewer when there
// are fewer of them. Because the heap keeps the s smallest under the total
// order (key, position), the s smallest of the union of the results of
// several ranges are those of the whole row: a row can be split.
func topKeys(key RowKey, cols []int32, vals []float32, lo, hi, s int, pos []int32, hk []float64) ([]int32, []float64) {
	// A max-heap of the s smallest keys seen so far; ties go to the
	// smaller position so that the choice is deterministic.
	for i := lo; i < hi; i++ {
		v := vals[i]
		if !(v > 0) {
			continue
		}
		u := key.Float64(int64(cols[i]))
		if len(pos) < s {
			pos, hk = append(pos, int32(i)), append(hk, -math.Log(u)/float64(v))
			siftUp(hk, pos, len(pos)-1)
			continue
		}
		// Since -ln(u) >= 1-u, the key is at least (1-u)/w: when that
		// bound reaches the largest kept key, the entry cannot enter and
		// the logarithm is skipped (most entries of a long row, once the
		// heap holds small keys). The margin exceeds the rounding of both
		// sides, so the choice is exactly that of comparing the full keys.
		if 1-u >= hk[0]*float64(v)*(1+1e-9) {
			continue
		}
		if k := -math.Log(u) / float64(v); k < hk[0] {
			hk[0], pos[0] = k, int32(i)
			siftDown(hk, pos, 0)
		}
	}
	return pos, hk
}

// heapLess orders heap entries by key, then position: the heap's top is
// the largest.
func heapLess(k []float64, p []int32, i, j int) bool {
	return k[i] < k[j] || (k[i] == k[j] && p[i] < p[j])
}

func siftUp(k []float64, p []int32, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !heapLess(k, p, parent, i) {
			return
		}
		k[i], k[parent] = k[parent], k[i]
		p[i], p[parent] = p[parent], p[i]
		i = parent
	}
}

func siftDown(k []float64, p []int32, i int) {
	n := len(k)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && heapLess(k, p, c, c+1) {
			c++
		}
		if !heapLess(k, p, i, c) {
			return
		}
		k[i], k[c] = k[c], k[i]
		p[i], p[c] = p[c], p[i]
		i = c
	}
}

// indexError is the panic value for an index outside [0, n).
func indexError(op string, i, n int) spgemm.IndexError {
	return spgemm.IndexError{Op: op, Index: i, Len: n}
}
