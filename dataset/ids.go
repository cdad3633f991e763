package dataset

// Renumbering a source's vertex ids to 0..n-1. An edge list names its
// vertices by whatever ids its writer used: SNAP's are often 1-based or
// have gaps, Twitter's are 64-bit user ids. A first pass collects the
// distinct ids (idSet); if they are exactly 0..n-1 nothing changes,
// otherwise vertex v becomes the v-th smallest id and Dataset.SourceIDs
// keeps the mapping.

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// idSet is the set of distinct ids of a pass: a bitmap (one bit per id up
// to the largest) while the ids are dense enough for it to cost no more
// than a few bytes per id seen, else a hash set. After finish, index maps
// an id to its rank among the distinct ids.
type idSet struct {
	bits     []uint64
	hash     map[int64]int32 // sparse ids; the values are ranks after finish
	added    int64           // ids added, with repeats
	count    int64           // distinct ids
	min, max int64
	rank     []int32 // bitmap mode after finish: distinct ids below word w
	identity bool    // after finish: the ids are exactly 0..count-1
}

// maxDistinctIDs bounds the vertex count of a renumbered graph: ids are
// int32.
const maxDistinctIDs = math.MaxInt32

// bitmapBound is the largest id the bitmap takes while added ids have
// been seen: 64 bits per id seen, or 2^24 (2 MiB) at least.
func bitmapBound(added int64) int64 { return max(64*added, 1<<24) }

// add records id (>= 0).
func (s *idSet) add(id int64) {
	if s.added == 0 {
		s.min, s.max = id, id
	}
	s.added++
	s.min, s.max = min(s.min, id), max(s.max, id)
	if s.hash == nil && id >= bitmapBound(s.added) {
		s.toHash()
	}
	if s.hash != nil {
		if _, ok := s.hash[id]; !ok {
			s.hash[id] = 0
			s.count++
		}
		return
	}
	w := int(id >> 6)
	if w >= len(s.bits) {
		s.bits = slices.Grow(s.bits, w+1-len(s.bits))
		s.bits = s.bits[:cap(s.bits)]
	}
	m := uint64(1) << (id & 63)
	if s.bits[w]&m == 0 {
		s.bits[w] |= m
		s.count++
	}
}

// toHash moves the bitmap's ids into the hash set.
func (s *idSet) toHash() {
	s.hash = make(map[int64]int32, s.count)
	for w, b := range s.bits {
		for b != 0 {
			s.hash[int64(w)<<6|int64(bits.TrailingZeros64(b))] = 0
			b &= b - 1
		}
	}
	s.bits = nil
}

// finish prepares index and returns an error (naming name) when there
// are more distinct ids than int32 vertex ids allow.
func (s *idSet) finish(name string) error {
	if s.count > maxDistinctIDs {
		return fmt.Errorf("%s: %w: %d distinct vertex ids; at most %d fit int32 ids", name, ErrFormat, s.count, maxDistinctIDs)
	}
	s.identity = s.count == 0 || s.min == 0 && s.max == s.count-1
	if s.identity {
		return nil
	}
	if s.hash != nil {
		for i, id := range s.sorted() {
			s.hash[id] = int32(i)
		}
		return nil
	}
	s.rank = make([]int32, len(s.bits))
	var r int32
	for w, b := range s.bits {
		s.rank[w] = r
		r += int32(bits.OnesCount64(b))
	}
	return nil
}

// sorted returns the distinct ids in ascending order.
func (s *idSet) sorted() []int64 {
	ids := make([]int64, 0, s.count)
	if s.hash != nil {
		for id := range s.hash {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids
	}
	for w, b := range s.bits {
		for b != 0 {
			ids = append(ids, int64(w)<<6|int64(bits.TrailingZeros64(b)))
			b &= b - 1
		}
	}
	return ids
}

// index returns the vertex of id after finish; ok is false for an id the
// first pass did not see (the file changed between passes).
func (s *idSet) index(id int64) (int32, bool) {
	switch {
	case s.identity:
		return int32(id), id >= 0 && id < s.count
	case s.hash != nil:
		v, ok := s.hash[id]
		return v, ok
	}
	w := id >> 6
	if id < 0 || w >= int64(len(s.bits)) {
		return 0, false
	}
	m := uint64(1) << (id & 63)
	if s.bits[w]&m == 0 {
		return 0, false
	}
	return s.rank[w] + int32(bits.OnesCount64(s.bits[w]&(m-1))), true
}

// describe returns the report's phrase for the renumbering (see
// ReadReport.IDs), "" when the ids are 0..n-1 already.
func (s *idSet) describe() string {
	switch {
	case s.identity:
		return ""
	case s.min == 1 && s.max == s.count:
		return fmt.Sprintf("1-based: the file's ids 1..%d are vertices 0..%d (source ids kept)", s.max, s.max-1)
	}
	return fmt.Sprintf("renumbered: %d distinct ids in [%d, %d] are vertices 0..%d in ascending order (source ids kept)",
		s.count, s.min, s.max, s.count-1)
}
