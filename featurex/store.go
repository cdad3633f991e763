package featurex

import (
	"context"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/internal/freelist"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// Store is where the input features of a graph's vertices come from: a local
// array (Local), rows fetched from the ranks that own them, or a cache in
// front of either. A trainer only asks it for the rows of the vertices a
// minibatch reads.
//
// Implementations must be safe for use by one goroutine at a time; Gather
// may use several goroutines internally.
type Store interface {
	// NumVertices returns n: the ids a Gather accepts are [0, n).
	NumVertices() int
	// NumFeatures returns f, the length of every vertex's feature row.
	NumFeatures() int
	// Gather writes the feature rows of ids into dst, row-major: row r of
	// dst (length f) is the features of vertex ids[r]. dst must have length
	// len(ids)*f. It returns an error naming the offending id when one is
	// outside [0, n), a spgemm.ShapeError when len(dst) is wrong, and ctx's error
	// when ctx is done before the rows are in place (dst is then
	// unspecified).
	Gather(ctx context.Context, dst []float32, ids []int32) error
}

// SparseGatherer is an optional capability of a Store whose features are
// sparse (bag-of-words features: Cora's are 1.3% nonzero): it gathers the
// rows as a CSR matrix, so that the cost follows the nonzeros rather than
// len(ids)*f.
type SparseGatherer interface {
	// Sparse reports whether the features are sparse enough for GatherCSR
	// to be the cheaper way to read them.
	Sparse() bool
	// GatherCSR sets dst to the len(ids) x f matrix whose row r is the
	// feature row of ids[r], with only its nonzero values stored, in
	// ascending column order: the matrix Gather would write, compressed.
	// dst's arrays are reused when their capacity suffices. Errors are
	// those of Gather.
	GatherCSR(ctx context.Context, dst *spgemm.CSR, ids []int32) error
}

// Compile-time checks that Local implements both.
var (
	_ Store          = (*Local)(nil)
	_ SparseGatherer = (*Local)(nil)
)

// SparseMaxDensity is the fraction of nonzero values under which NewLocal
// also keeps the features as a CSR matrix (LocalOptions.Sparse's default):
// it is the density under which the first layer of package gnn multiplies
// sparse inputs rather than dense ones.
const SparseMaxDensity = 1.0 / 8

// LocalOptions configure a Local store. The zero value of each field means
// its documented default.
type LocalOptions struct {
	// Threads is the number of goroutines of a large gather; 0 means
	// GOMAXPROCS. It never changes the result.
	Threads int
	// Sparse chooses whether the store keeps a CSR copy of the features and
	// implements GatherCSR with it: SparseAuto (the default) when under
	// SparseMaxDensity of the values are nonzero.
	Sparse SparseMode
}

// Validate returns an *option.Error naming the first bad field, or nil.
func (o *LocalOptions) Validate() error {
	switch {
	case o.Threads < 0:
		return option.Errorf("featurex", "LocalOptions", "Threads", o.Threads, "want >= 0 (0: GOMAXPROCS)")
	case o.Sparse < SparseAuto || o.Sparse > SparseAlways:
		return option.Errorf("featurex", "LocalOptions", "Sparse", int(o.Sparse), "want SparseAuto, SparseNever or SparseAlways")
	}
	return nil
}

// SparseMode says whether a Local store keeps a sparse copy of its features.
type SparseMode int

const (
	// SparseAuto keeps a sparse copy when the features are sparse enough.
	SparseAuto SparseMode = iota
	// SparseNever never does (GatherCSR then compresses dense rows).
	SparseNever
	// SparseAlways always does.
	SparseAlways
)

// Local is the in-memory Store: the n x f row-major feature array of this
// process, and, for sparse features, a CSR copy of it; or, made by
// NewLocalCSR, only a CSR matrix (features that were never dense).
type Local struct {
	features []float32 // nil for a CSR-only store
	n, f     int
	threads  int         // 0: GOMAXPROCS at the time of the call
	csr      *spgemm.CSR // nil unless the features are kept sparse
	// starts are GatherCSR's scratch arrays, kept across calls: the
	// start of each gathered row in csr.
	starts freelist.List[[]int64]
}

// NewLocal returns a store of features, an n x f row-major array that the
// store shares (it does not copy it; the caller must not modify it while
// the store is in use). It returns an error when f <= 0 or len(features) is
// not a multiple of f, or when an option is invalid.
func NewLocal(features []float32, f int, opt LocalOptions) (*Local, error) {
	switch {
	case f <= 0:
		return nil, fmt.Errorf("featurex: NewLocal: %d features per vertex, want > 0", f)
	case len(features)%f != 0:
		return nil, fmt.Errorf("featurex: NewLocal: %d values are not rows of %d features", len(features), f)
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	s := &Local{features: features, n: len(features) / f, f: f, threads: opt.Threads}
	nnz := 0
	for _, v := range features {
		if v != 0 {
			nnz++
		}
	}
	if opt.Sparse == SparseAlways || (opt.Sparse == SparseAuto && float64(nnz) < SparseMaxDensity*float64(len(features))) {
		s.csr = &spgemm.CSR{}
		compressRows(s.csr, features, s.n, f, nnz)
	}
	return s, nil
}

// NumVertices returns the number of vertices n.
func (s *Local) NumVertices() int { return s.n }

// NumFeatures returns the number of features per vertex f.
func (s *Local) NumFeatures() int { return s.f }

// Features returns the n x f row-major array the store reads (not a copy),
// nil for a store that holds only a CSR matrix (NewLocalCSR).
func (s *Local) Features() []float32 { return s.features }

// Sparse reports whether the store keeps a CSR copy of its features.
func (s *Local) Sparse() bool { return s.csr != nil }

// Gather copies the feature rows of ids into dst (see Store). A large
// gather is split over up to Threads goroutines (see parallelRanges); the
// result is the same for any number of them.
func (s *Local) Gather(ctx context.Context, dst []float32, ids []int32) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("featurex: gather: %w", err)
	}
	if len(dst) != len(ids)*s.f {
		return bufferError("Gather", len(ids), s.f, len(dst))
	}
	workers := s.workers(len(dst))
	if workers <= 1 {
		// A direct call, so that the serial path allocates nothing (the
		// closure below escapes to the goroutines).
		if r := s.firstBad(ids, 0, len(ids)); r >= 0 {
			return s.idError(ids, r)
		}
		s.gatherRows(dst, ids, 0, len(ids))
		return nil
	}
	// Every row costs f floats: ranges of equal counts are ranges of equal
	// cost. Each range checks its own ids before copying them, so that no
	// serial pass over ids precedes the copy.
	bad := parallelRanges(len(ids), workers, func(_, lo, hi int) int {
		if r := s.firstBad(ids, lo, hi); r >= 0 {
			return r
		}
		s.gatherRows(dst, ids, lo, hi)
		return -1
	})
	if bad >= 0 {
		return s.idError(ids, bad)
	}
	return nil
}

// minParallelWords is the work, in 4-byte words copied or scanned, under
// which a gather stays on one goroutine: below about 64 KiB starting
// goroutines costs more than the copy itself.
const minParallelWords = 16 << 10

// workers returns the number of goroutines for a gather of about words
// words: Threads (0: GOMAXPROCS), but at most one per minParallelWords.
func (s *Local) workers(words int) int {
	return max(1, min(par.Threads(s.threads), words/minParallelWords))
}

// parallelRanges runs body(w, lo, hi) on workers contiguous ranges of
// [0, n) of about equal length (par.Ranges) and returns the smallest
// non-negative value a body returned, or -1. With one worker it is a
// direct call.
func parallelRanges(n, workers int, body func(w, lo, hi int) int) int {
	workers = max(1, min(workers, n))
	if workers == 1 {
		return body(0, 0, n)
	}
	res := make([]int, workers)
	for w := range res {
		res[w] = -1
	}
	par.Ranges(n, workers, 1, func(w, lo, hi int) { res[w] = body(w, lo, hi) })
	first := -1
	for _, r := range res {
		if r >= 0 && (first < 0 || r < first) {
			first = r
		}
	}
	return first
}

// check returns the error of a gather of ids: ctx's, or one naming the
// first id out of range.
func (s *Local) check(ctx context.Context, ids []int32) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("featurex: gather: %w", err)
	}
	if r := s.firstBad(ids, 0, len(ids)); r >= 0 {
		return s.idError(ids, r)
	}
	return nil
}

// firstBad returns the first position in [lo, hi) of an id outside [0, n),
// or -1.
func (s *Local) firstBad(ids []int32, lo, hi int) int {
	for r := lo; r < hi; r++ {
		if uint(ids[r]) >= uint(s.n) {
			return r
		}
	}
	return -1
}

// idError is the error of the id at position r of ids, which is outside
// [0, n).
func (s *Local) idError(ids []int32, r int) error {
	return fmt.Errorf("featurex: gather: ids[%d] = %d is not a vertex of the feature store (n = %d)", r, ids[r], s.n)
}

// gatherRows copies the feature rows of ids[lo:hi] into rows lo..hi-1 of
// dst: from the dense array, or for a CSR-only store by expanding its rows.
func (s *Local) gatherRows(dst []float32, ids []int32, lo, hi int) {
	f := s.f
	if s.features == nil {
		a := s.csr
		for r := lo; r < hi; r++ {
			row := dst[r*f : (r+1)*f]
			clear(row)
			id := ids[r]
			for q := a.Indptr[id]; q < a.Indptr[id+1]; q++ {
				row[a.Indices[q]] = a.Data[q]
			}
		}
		return
	}
	for r := lo; r < hi; r++ {
		src := int(ids[r]) * f
		copy(dst[r*f:(r+1)*f], s.features[src:src+f])
	}
}

// GatherCSR sets dst to the rows of ids (see SparseGatherer): from the CSR
// copy when the store keeps one, in O(len(ids) + nnz of the rows), else by
// compressing the dense rows. A large gather runs on up to Threads
// goroutines in three passes: each counts the entries of a range of rows,
// the ranges' offsets are summed, and each copies its rows in place; the
// copy of the CSR rows is cut by entries (its cost), not by rows, so that a
// few long rows do not hold one goroutine. The result is the same for any
// number of goroutines.
func (s *Local) GatherCSR(ctx context.Context, dst *spgemm.CSR, ids []int32) error {
	if err := s.check(ctx, ids); err != nil {
		return err
	}
	a := s.csr
	// The count pass reads one offset pair per row from the CSR copy, or a
	// whole row of f values from the dense array.
	perRow := 2
	if a == nil {
		perRow = s.f
	}
	workers := s.workers(len(ids) * perRow)
	resetCSR(dst, len(ids), s.f, 0)
	ptr := dst.Indptr
	// start[r] is where row ids[r] starts in the CSR copy: read with its
	// length in pass 1, so that pass 3 reads it in order rather than from
	// the n-entry offsets a second time (a cache miss per row of a large
	// graph).
	var start []int64
	if a != nil {
		start, _ = s.starts.Get()
		start = par.Resize(start, len(ids))
		defer s.starts.Put(start)
	}
	// Pass 1: ptr[r+1] is the number of entries of rows lo..r of the range;
	// ends[w] that of the whole range w.
	ends := make([]int64, workers+1)
	parallelRanges(len(ids), workers, func(w, lo, hi int) int {
		var n int64
		for r := lo; r < hi; r++ {
			if a != nil {
				id := ids[r]
				lo := a.Indptr[id]
				start[r] = lo
				n += a.Indptr[id+1] - lo
			} else {
				for _, v := range s.features[int(ids[r])*s.f : int(ids[r]+1)*s.f] {
					if v != 0 {
						n++
					}
				}
			}
			ptr[r+1] = n
		}
		ends[w+1] = n
		return -1
	})
	for w := range workers {
		ends[w+1] += ends[w]
	}
	nnz := int(ends[workers])
	dst.Indices = par.Resize(dst.Indices, nnz)
	dst.Data = par.Resize(dst.Data, nnz)
	// Pass 2: offsets; for the dense store the rows are compressed in the
	// same ranges (each row costs f).
	parallelRanges(len(ids), workers, func(w, lo, hi int) int {
		base := ends[w]
		for r := lo; r < hi; r++ {
			ptr[r+1] += base
		}
		if a == nil {
			p := base // ptr[lo], which the range before writes
			for r := lo; r < hi; r++ {
				for c, v := range s.features[int(ids[r])*s.f : int(ids[r]+1)*s.f] {
					if v != 0 {
						dst.Indices[p], dst.Data[p] = int32(c), v
						p++
					}
				}
			}
		}
		return -1
	})
	if a == nil {
		return nil
	}
	// Pass 3: the CSR rows, cut into ranges of about equal entries.
	parallelRanges(workers, workers, func(w, _, _ int) int {
		lo := sortSearch(ptr, int64(w)*int64(nnz)/int64(workers))
		hi := sortSearch(ptr, int64(w+1)*int64(nnz)/int64(workers))
		if w == workers-1 {
			hi = len(ids)
		}
		for r := lo; r < hi; r++ {
			src := start[r]
			n := copy(dst.Indices[ptr[r]:ptr[r+1]], a.Indices[src:])
			copy(dst.Data[ptr[r]:ptr[r]+int64(n)], a.Data[src:])
		}
		return -1
	})
	return nil
}

// sortSearch returns the first row r with ptr[r] >= x (ptr is the
// non-decreasing offsets of len(ptr)-1 rows), at most len(ptr)-1.
func sortSearch(ptr []int64, x int64) int {
	r, _ := slices.BinarySearch(ptr[:len(ptr)-1], x)
	return r
}

// compressRows sets dst to the rows x cols row-major matrix x with its nnz
// nonzero values, reusing dst's arrays when they are large enough. It is
// the one dense-to-CSR conversion of feature rows: package gnn builds its
// sparse first-layer input with it, so that a gathered CSR and a compressed
// dense gather are the same matrix bit for bit.
func compressRows(dst *spgemm.CSR, x []float32, rows, cols, nnz int) {
	resetCSR(dst, rows, cols, nnz)
	for r := range rows {
		appendRow(dst, x[r*cols:(r+1)*cols])
		dst.Indptr[r+1] = int64(len(dst.Indices))
	}
}

// CompressRows sets dst to the rows x cols row-major matrix x, storing only
// its nonzero values in ascending column order, and returns the number of
// them. dst's arrays are reused when their capacity suffices. It panics
// with a spgemm.ShapeError if len(x) != rows*cols.
func CompressRows(dst *spgemm.CSR, x []float32, rows, cols int) int {
	if rows < 0 || cols < 0 || len(x) != rows*cols {
		panic(bufferError("CompressRows", rows, cols, len(x)))
	}
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	compressRows(dst, x, rows, cols, nnz)
	return nnz
}

func resetCSR(dst *spgemm.CSR, rows, cols, nnz int) {
	dst.Rows, dst.Cols = rows, cols
	if cap(dst.Indptr) >= rows+1 {
		dst.Indptr = dst.Indptr[:rows+1]
	} else {
		dst.Indptr = make([]int64, rows+1, rows+1+rows/4)
	}
	dst.Indptr[0] = 0
	if cap(dst.Indices) >= nnz {
		dst.Indices = dst.Indices[:0]
	} else {
		dst.Indices = make([]int32, 0, nnz+nnz/4)
	}
	if cap(dst.Data) >= nnz {
		dst.Data = dst.Data[:0]
	} else {
		dst.Data = make([]float32, 0, nnz+nnz/4)
	}
}

func appendRow(dst *spgemm.CSR, row []float32) {
	for c, v := range row {
		if v != 0 {
			dst.Indices = append(dst.Indices, int32(c))
			dst.Data = append(dst.Data, v)
		}
	}
}
