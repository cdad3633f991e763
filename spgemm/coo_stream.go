package spgemm

import (
	"fmt"

	"github.com/bulksample/bulksample/internal/par"
)

// CSRBuilder builds a CSR from coordinate entries that arrive in chunks and
// can be produced twice, such as the edges of a file too large to hold as COO
// arrays next to its CSR. The first pass (Count) counts the entries of every
// row; the first call of Place allocates the final arrays, and the second
// pass (Place) writes every entry to its row; CSR then sorts the rows,
// merges duplicates and packs them in place.
//
// Peak memory is the CSR before duplicates are merged (12 bytes per entry,
// reverse entries included, plus the row offsets), 8 bytes per row of
// counters, and the caller's chunk: no copy of the input is ever held. The
// result equals FromCOO's on the concatenated chunks with the same options,
// bit for bit, for any thread count.
//
// Both passes must give the same entries in the same order; Place and CSR
// return an error, not a corrupt matrix, when the second pass differs from
// the first (the file changed between the passes). A CSRBuilder is not safe
// for concurrent use.
type CSRBuilder struct {
	rows, cols int
	opt        COOOptions
	c          *CSR
	placed     []int64  // entries placed per row; nil until the second pass
	counted    int64    // entries (reverses included) counted by the first pass
	in         [2]int64 // input entries given to each pass
	done       bool

	minPerThread int // fewest entries of a chunk per goroutine (lowered by tests)
}

// NewCSRBuilder returns a builder of a rows x cols CSR. opt means what it
// means for FromCOO (nil: sum duplicates, keep self loops, no reverse
// entries, GOMAXPROCS goroutines). It returns an error wrapping ErrCOO for an
// invalid shape or option.
func NewCSRBuilder(rows, cols int, opt *COOOptions) (*CSRBuilder, error) {
	var o COOOptions
	if opt != nil {
		o = *opt
	}
	if err := checkCOO(rows, cols, nil, nil, nil, &o); err != nil {
		return nil, err
	}
	return &CSRBuilder{rows: rows, cols: cols, opt: o, minPerThread: cooMinPerThread,
		c: &CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}}, nil
}

// Count adds the entries (src[k], dst[k]) to the first pass: src holds row
// ids and dst column ids. Entries are numbered across calls in both passes;
// an error wrapping ErrCOO names the first id out of range by that number.
func (b *CSRBuilder) Count(src, dst []int32) error {
	if b.placed != nil || b.done {
		return fmt.Errorf("%w: Count after Place or CSR", ErrCOO)
	}
	if len(src) != len(dst) {
		return fmt.Errorf("%w: %d row ids but %d column ids", ErrCOO, len(src), len(dst))
	}
	if err := cooCheckIDs(b.rows, b.cols, src, dst, b.in[0]); err != nil {
		return err
	}
	b.in[0] += int64(len(src))
	// Serial: the increments hit random rows, and the caller's parsing of
	// the chunk costs more than this loop.
	cnt := b.c.Indptr[1:]
	drop, sym := b.opt.DropSelfLoops, b.opt.Symmetrize
	for k, s := range src {
		d := dst[k]
		if s == d {
			if !drop {
				cnt[s]++
				b.counted++
			}
			continue
		}
		cnt[s]++
		b.counted++
		if sym {
			cnt[d]++
			b.counted++
		}
	}
	return nil
}

// Place adds the entries (src[k], dst[k], vals[k]) to the second pass; vals
// nil means every value is 1. The first call ends the first pass.
func (b *CSRBuilder) Place(src, dst []int32, vals []float32) error {
	if b.done {
		return fmt.Errorf("%w: Place after CSR", ErrCOO)
	}
	if len(src) != len(dst) {
		return fmt.Errorf("%w: %d row ids but %d column ids", ErrCOO, len(src), len(dst))
	}
	if vals != nil && len(vals) != len(src) {
		return fmt.Errorf("%w: %d entries but %d values", ErrCOO, len(src), len(vals))
	}
	if err := cooCheckIDs(b.rows, b.cols, src, dst, b.in[1]); err != nil {
		return err
	}
	b.startPlacing()
	c := b.c
	base := b.in[1]
	b.in[1] += int64(len(src))

	// Goroutine w scans the whole chunk and writes the entries of its rows,
	// so every row still receives its entries in input order.
	t := min(par.Threads(b.opt.Threads), len(src)/b.minPerThread+1, max(b.rows, 1))
	bounds := []int{0, b.rows}
	if t > 1 {
		bounds = cooSplitRows(c.Indptr, t)
	}
	bad := make([]int64, t) // first entry a goroutine could not place, or -1
	par.Do(t, func(w int) { bad[w] = b.place(src, dst, vals, int32(bounds[w]), int32(bounds[w+1])) })
	k := int64(-1)
	for _, x := range bad {
		if x >= 0 && (k < 0 || x < k) {
			k = x
		}
	}
	if k >= 0 {
		return fmt.Errorf("%w: entry %d: row %d gets more entries than the first pass counted (the input changed between the passes)",
			ErrCOO, base+k, src[k])
	}
	return nil
}

// startPlacing ends the first pass: it turns the row counts into offsets and
// allocates the arrays.
func (b *CSRBuilder) startPlacing() {
	if b.placed != nil {
		return
	}
	c := b.c
	for i := range b.rows {
		c.Indptr[i+1] += c.Indptr[i]
	}
	c.Indices = make([]int32, b.counted)
	c.Data = make([]float32, b.counted)
	b.placed = make([]int64, b.rows)
}

// place writes the entries of the chunk whose rows lie in [lo, hi) and
// returns the index of the first entry whose row is already full, or -1.
func (b *CSRBuilder) place(src, dst []int32, vals []float32, lo, hi int32) int64 {
	c := b.c
	drop, sym := b.opt.DropSelfLoops, b.opt.Symmetrize
	put := func(r, col int32, v float32) bool {
		if r < lo || r >= hi {
			return true
		}
		n := b.placed[r]
		p := c.Indptr[r] + n
		if p >= c.Indptr[r+1] {
			return false
		}
		c.Indices[p], c.Data[p] = col, v
		b.placed[r] = n + 1
		return true
	}
	for k, s := range src {
		d := dst[k]
		v := float32(1)
		if vals != nil {
			v = vals[k]
		}
		if s == d && drop {
			continue
		}
		if !put(s, d, v) || s != d && sym && !put(d, s, v) {
			return int64(k)
		}
	}
	return -1
}

// CSR ends the second pass and returns the matrix: rows sorted by column,
// duplicates merged by the policy. It returns an error wrapping ErrCOO when
// the second pass gave fewer entries than the first. The builder cannot be
// used afterwards.
func (b *CSRBuilder) CSR() (*CSR, error) {
	if b.done {
		return nil, fmt.Errorf("%w: CSR called twice", ErrCOO)
	}
	b.done = true
	b.startPlacing()
	if b.in[1] != b.in[0] {
		return nil, fmt.Errorf("%w: the second pass gave %d entries, the first %d (the input changed between the passes)",
			ErrCOO, b.in[1], b.in[0])
	}
	// No row overflowed (Place checked) and the totals agree, so every row
	// holds exactly the entries the first pass counted.
	var total int64
	for _, n := range b.placed {
		total += n
	}
	if total != b.counted {
		return nil, fmt.Errorf("%w: the second pass placed %d entries, the first counted %d (the input changed between the passes)",
			ErrCOO, total, b.counted)
	}
	c := b.c
	t := min(par.Threads(b.opt.Threads), int(b.counted/int64(b.minPerThread))+1, max(b.rows, 1))
	// Copying the arrays to give back dropped duplicates' memory would raise
	// the peak by the result's size; it pays only when most entries went.
	cooFinish(c, t, b.opt.Duplicates, b.placed, 2)
	b.c, b.placed = nil, nil
	return c, nil
}
