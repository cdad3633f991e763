package sampling

// Weighted selection without replacement of long rows by a key bound.
//
// Successive sampling keeps the s smallest exponential keys -ln(u_i)/w_i of
// a row (topKeys). A heap over the row computes the logarithm of every
// entry that might still enter it; while its largest kept key is loose
// (early in a row, or when the heavy entries come late) that is most of
// the entries: LADIES' rows of P, 10,000 to 20,000 entries of which about
// 200 carry nine tenths of the weight (R-MAT scale 20, b = s = 512), paid
// one logarithm for every second entry. Here a bound tau is chosen first
// from the weights alone, such that about s + 3·sqrt(s) keys fall under it
// (keyBound); one pass keeps the entries whose key is below tau, computing
// the logarithm only where (1-u)/w < tau (keysBelow), and the s smallest
// (key, position) of these candidates are the row's (smallestKeys), exactly
// the heap's choice. When fewer than s keys fell below the bound, it is
// doubled and the pass repeated, and as a last resort the heap decides. The
// pass splits over any ranges of positions, which is how LADIES splits a row
// over threads (chooseSplit).

import (
	"math"
	"slices"
)

// minBoundRow is the number of positive entries per draw above which
// rowSelector.weighted selects by a key bound instead of a heap: on LADIES'
// rows (ladiesbench profiles) the bound wins from a few times s.
const minBoundRow = 4

// boundTries is the number of passes with a doubled bound before the heap
// decides (a pass falls short with a probability of about 1e-3 or less).
const boundTries = 3

// keyBound returns a bound tau such that about target of the exponential
// keys -ln(u)/w of the positive entries of vals fall below it: the root of
// Σ_i (1 - exp(-tau·w_i)) = target, with the weights grouped by binary
// exponent (each group at its mean weight, which overstates the count by at
// most 4%; the target's margin covers it). It returns +Inf when target is
// at least the number of positive entries.
func keyBound(vals []float32, target float64) float64 {
	var count [256]float64
	var sum [256]float64
	npos := 0
	total := 0.0
	for _, v := range vals {
		if v > 0 { // false for NaN
			e := math.Float32bits(v) >> 23
			count[e]++
			sum[e] += float64(v)
			total += float64(v)
			npos++
		}
	}
	if target >= float64(npos) || !(total > 0) || math.IsInf(total, 1) {
		return math.Inf(1)
	}
	// Σ (1 - exp(-tau·w)) is concave and increasing in tau and at most
	// tau·Σw: Newton's method from tau = target/Σw approaches the root from
	// below and never passes it.
	tau := target / total
	for range 30 {
		mu, slope := 0.0, 0.0
		for e := range count {
			if count[e] == 0 {
				continue
			}
			m := sum[e] / count[e]
			x := math.Exp(-tau * m)
			mu += count[e] * (1 - x)
			slope += count[e] * m * x
		}
		if mu >= target*(1-1e-3) || !(slope > 0) {
			break
		}
		tau += (target - mu) / slope
	}
	return tau
}

// keysBelow appends to pos and hk the positions in [lo, hi) of the positive
// entries whose exponential key is below tau, and their keys, in position
// order. Since -ln(u) >= 1-u, an entry with 1-u >= tau·w (with a margin over
// the rounding of both sides) has a key above tau: its logarithm is skipped.
func keysBelow(key RowKey, cols []int32, vals []float32, lo, hi int, tau float64, pos []int32, hk []float64) ([]int32, []float64) {
	for i := lo; i < hi; i++ {
		v := vals[i]
		if !(v > 0) {
			continue
		}
		u := key.Float64(int64(cols[i]))
		if 1-u >= tau*float64(v)*(1+1e-9) {
			continue
		}
		if k := -math.Log(u) / float64(v); k < tau {
			pos, hk = append(pos, int32(i)), append(hk, k)
		}
	}
	return pos, hk
}

// boundTarget is the number of keys keyBound aims to put below its bound
// for s draws: s plus three standard deviations, and the 4% keyBound may
// overstate.
func boundTarget(s int) float64 {
	return 1.05*float64(s) + 3*math.Sqrt(float64(s)) + 8
}

// selectByBound returns the positions, ascending, of the s smallest
// exponential keys of the row's positive entries (s smaller than their
// number), the choice of topKeys. scan(tau, pos, hk) appends the entries
// below tau in position order (keysBelow over ranges of the row); nil
// means keysBelow over the whole row. The result lives in sel.pos.
func (sel *rowSelector) selectByBound(key RowKey, cols []int32, vals []float32, s int,
	scan func(tau float64, pos []int32, hk []float64) ([]int32, []float64)) []int32 {
	tau := keyBound(vals, boundTarget(s))
	for range boundTries {
		var pos []int32
		var hk []float64
		if scan != nil {
			pos, hk = scan(tau, sel.pos[:0], sel.fkeys[:0])
		} else {
			pos, hk = keysBelow(key, cols, vals, 0, len(vals), tau, sel.pos[:0], sel.fkeys[:0])
		}
		sel.pos, sel.fkeys = pos, hk
		if len(pos) >= s {
			smallestKeys(pos, hk, s)
			pos = pos[:s]
			slices.Sort(pos)
			sel.pos = pos
			return pos
		}
		tau *= 2
	}
	pos, hk := topKeys(key, cols, vals, 0, len(vals), s, sel.pos[:0], sel.fkeys[:0])
	slices.Sort(pos)
	sel.pos, sel.fkeys = pos, hk
	return pos
}

// smallestKeys reorders the parallel arrays pos and hk so that their first
// s entries are the s smallest under (key, position), by quickselect.
func smallestKeys(pos []int32, hk []float64, s int) {
	less := func(i, j int) bool { return hk[i] < hk[j] || (hk[i] == hk[j] && pos[i] < pos[j]) }
	swap := func(i, j int) {
		hk[i], hk[j] = hk[j], hk[i]
		pos[i], pos[j] = pos[j], pos[i]
	}
	lo, hi := 0, len(pos) // the boundary s lies in [lo, hi]
	for hi-lo > 1 {
		// Median of three as the pivot, moved to hi-1.
		mid := lo + (hi-lo)/2
		if less(mid, lo) {
			swap(mid, lo)
		}
		if less(hi-1, lo) {
			swap(hi-1, lo)
		}
		if less(mid, hi-1) {
			swap(mid, hi-1)
		}
		p := lo
		for i := lo; i < hi-1; i++ {
			if less(i, hi-1) {
				swap(i, p)
				p++
			}
		}
		swap(p, hi-1) // the pivot is at p, smaller entries before it
		switch {
		case p == s || p == s-1:
			return
		case p < s:
			lo = p + 1
		default:
			hi = p
		}
	}
}
