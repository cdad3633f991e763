package spgemm

// Sorting of the column ids of one output row. Short rows (the common case
// in sampling and in hash-accumulated rows) use insertion sort; longer ones
// an LSD radix sort on the 31 significant bits when the row is long enough
// to pay for its passes, pdqsort (slices.Sort) otherwise.

import (
	"math"
	"slices"
	"unsafe"

	"github.com/bulksample/bulksample/internal/par"
)

// insertionSortMax is the row length below which insertion sort beats
// pdqsort's setup; pdqsort itself switches at 12.
const insertionSortMax = 32

// sortInt32s sorts s ascending.
func sortInt32s(s []int32) {
	if len(s) < insertionSortMax {
		insertionSortInt32s(s)
		return
	}
	slices.Sort(s)
}

// insertionSortInt32s sorts s ascending by insertion.
func insertionSortInt32s(s []int32) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for ; j > 0 && s[j-1] > v; j-- {
			s[j] = s[j-1]
		}
		s[j] = v
	}
}

// SortPairs sorts idx (ids >= 0) ascending and permutes val alongside,
// using buf (grown to len(idx) if needed and returned, for the next call)
// for long rows: the row sort of the kernels, for a caller that builds
// rows itself (the samplers' extraction and LADIES' hashed rows of P):
// insertion sort for short rows, pdqsort on (id, value) words for
// middling ones and, from radixSortMin ids, radixSortRow with buf as its
// two scratch arrays. It allocates nothing once buf is large enough. The
// order of equal ids is not specified.
func SortPairs(idx []int32, val []float32, buf []uint64) []uint64 {
	n := len(idx)
	if n < insertionSortMax {
		for i := 1; i < n; i++ {
			v, x := idx[i], val[i]
			j := i
			for ; j > 0 && idx[j-1] > v; j-- {
				idx[j], val[j] = idx[j-1], val[j-1]
			}
			idx[j], val[j] = v, x
		}
		return buf
	}
	buf = par.Resize(buf, n)
	if n >= radixSortMin {
		// buf's 8n bytes as radixSortRow's n ids and n values (4-byte
		// words, which a uint64 array's alignment suits).
		words := unsafe.Slice((*int32)(unsafe.Pointer(&buf[0])), 2*n)
		radixSortRow(idx, val, words[:n:n], unsafe.Slice((*float32)(unsafe.Pointer(&words[n])), n))
		return buf
	}
	for t, j := range idx {
		buf[t] = uint64(uint32(j))<<32 | uint64(math.Float32bits(val[t]))
	}
	slices.Sort(buf)
	for t, k := range buf {
		idx[t], val[t] = int32(k>>32), math.Float32frombits(uint32(k))
	}
	return buf
}

// radixSortMin is the shortest row SortIDs sorts by LSD radix sort: from a
// few hundred ids its linear passes beat pdqsort's comparisons (the same
// cut-off as FromCOO's, cooRadixMin).
const radixSortMin = 256

// SortIDs sorts the ids s (each >= 0) ascending, using buf (grown if
// needed and returned, for the next call) for long rows: insertion sort
// for short ones, pdqsort for middling ones and an LSD radix sort on 8-bit
// digits (skipping the digits above the largest id) from radixSortMin ids.
// It is the row sort for a caller that builds rows of ids itself (the
// R-MAT generator). It allocates nothing once buf is large enough.
func SortIDs(s, buf []int32) []int32 {
	n := len(s)
	switch {
	case n < insertionSortMax:
		insertionSortInt32s(s)
		return buf
	case n < radixSortMin:
		slices.Sort(s)
		return buf
	}
	buf, _ = radixSortRow(s, make([]struct{}, n), buf, nil)
	return buf
}
