package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// RowBlock is one contiguous block of rows of a graph's adjacency, read
// without holding the rest: what one rank of a row-distributed run keeps.
type RowBlock struct {
	// N is the number of vertices of the whole graph, NNZ its edges, or
	// -1 where only a reader of every row could count them (an OGB
	// folder, whose duplicate edges are dropped as the rows are built):
	// the sum of Adj.NNZ() over the blocks is the count then.
	N   int
	NNZ int64
	// Lo and Hi are the global rows of the block, [Lo, Hi).
	Lo, Hi int
	// Adj is the block: (Hi-Lo) x N, row r is global row Lo+r, columns
	// are global vertex ids.
	Adj      *spgemm.CSR
	Weighted bool
	// Train is the training split of the whole graph (nil when there is
	// none): every rank needs the seeds.
	Train []int32

	release func() error
}

// Close releases the file mapping behind the block; its arrays must not be
// used afterwards. It is idempotent.
func (b *RowBlock) Close() error {
	if b.release == nil {
		return nil
	}
	r := b.release
	b.release = nil
	return r()
}

// LoadRowBlock reads the rows [lo, hi) = rows(n) of the graph at path,
// where n is the graph's number of vertices, holding no more than the
// block: a native file is memory-mapped and only the header, the block's
// row offsets and its column ids and values are read (pages are read on
// first use); of a scipy CSR .npz the row pointers are read first, then
// only the block's column ids and values are kept while the members are
// streamed; of an OGB folder (either flavour, any option) the node count is
// read first, then the edges are streamed twice keeping only the block's
// entries, reverse edges included (features are not read; NNZ is -1, see
// RowBlock). The block's structure is checked. Other formats (edge lists,
// Matrix Market and gnn-benchmark files, and native or scipy files with a
// Split or Symmetrize option) are read whole and the block copied out: ok
// reports false then, so that callers can say so. rows is called once (or
// not at all on an error before n is known). The block's arrays may alias
// the mapping: call Close when done.
func LoadRowBlock(ctx context.Context, path string, rows func(n int) (lo, hi int), opt *LoadOptions) (b *RowBlock, ok bool, err error) {
	format, err := Detect(path)
	if err != nil {
		return nil, false, err
	}
	if format == FormatOGB {
		o, err := opt.checked()
		if err != nil {
			return nil, false, err
		}
		b, err := loadOGBRowBlock(ctx, path, rows, &o, ogbChunk)
		return b, err == nil, err
	}
	whole := opt != nil && (opt.Split != "" || opt.Symmetry == Symmetrize)
	var splitIndex int
	if opt != nil {
		splitIndex = opt.SplitIndex
	}
	if format == FormatScipyNPZ && !whole {
		var threads int
		if opt != nil {
			threads = opt.Threads
		}
		if b, ok, err := readScipyRowBlock(path, rows, threads, splitIndex); ok || err != nil {
			return b, ok, err
		}
	}
	if format != FormatNative || whole {
		d, err := LoadContext(ctx, path, opt)
		if err != nil {
			return nil, false, err
		}
		lo, hi := rows(d.NumNodes())
		ids := make([]int32, hi-lo)
		for i := range ids {
			ids[i] = int32(lo + i)
		}
		var threads int
		if opt != nil {
			threads = opt.Threads
		}
		blk := &RowBlock{N: d.NumNodes(), NNZ: d.Adj.NNZ(), Lo: lo, Hi: hi, Adj: spgemm.GatherRows(d.Adj, ids, threads), Weighted: d.Weighted,
			Train: slices.Clone(d.Train)} // a copy: Close frees d's arrays
		d.Close()
		return blk, false, nil
	}
	buf, unmap, err := mapFile(path)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if err != nil {
			unmap()
		}
	}()
	// VerifyNone: the header and the array bounds only; nothing else of
	// the file is read here. The block is checked below.
	d, err := decodeNative(path, buf, VerifyNone, 1, nil)
	if err != nil {
		return nil, false, err
	}
	n := d.NumNodes()
	lo, hi := rows(n)
	if lo < 0 || lo > hi || hi > n {
		return nil, false, fmt.Errorf("%s: row block [%d, %d) outside the %d rows", path, lo, hi, n)
	}
	ip := d.Adj.Indptr
	s, e := ip[lo], ip[hi]
	if s < 0 || s > e || e > int64(len(d.Adj.Indices)) {
		return nil, false, fmt.Errorf("%s: %w: indptr[%d] = %d, indptr[%d] = %d outside [0, %d]", path, ErrFormat, lo, s, hi, e, len(d.Adj.Indices))
	}
	blk := d.Adj.SliceRows(lo, hi, nil)
	if err := blk.Validate(); err != nil {
		return nil, false, fmt.Errorf("%s: %w: rows [%d, %d): %w", path, ErrFormat, lo, hi, err)
	}
	if err := d.UseSplit(splitIndex); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	for i, v := range d.Train {
		if uint32(v) >= uint32(n) || (i > 0 && v <= d.Train[i-1]) {
			return nil, false, fmt.Errorf("%s: %w: train[%d] = %d: out of range or not increasing", path, ErrFormat, i, v)
		}
	}
	return &RowBlock{N: n, NNZ: int64(len(d.Adj.Indices)), Lo: lo, Hi: hi, Adj: blk, Weighted: d.Weighted, Train: d.Train, release: unmap}, true, nil
}

// readNumericRange reads elements [lo, hi) of the 1-d member key, skipping
// the elements before lo without keeping them, and drains the rest (so that
// the zip reader checks the member's CRC-32).
func readNumericRange[T int32 | int64 | float32](z *npzArchive, key string, lo, hi int64) ([]T, error) {
	rc, h, err := z.open(key)
	if err != nil {
		return nil, err
	}
	if len(h.shape) != 1 || lo < 0 || lo > hi || hi > h.shape[0] {
		rc.Close()
		return nil, z.errf(key, fmt.Errorf("%w: elements [%d, %d) of an array of shape %v", ErrFormat, lo, hi, h.shape))
	}
	if _, err := io.CopyN(io.Discard, rc, lo*int64(h.dtype.size)); err != nil {
		rc.Close()
		return nil, z.errf(key, fmt.Errorf("%w: skipping %d elements: %v", ErrFormat, lo, err))
	}
	part := h
	part.shape = []int64{hi - lo}
	v := make([]T, hi-lo)
	if err := readNPYData(rc, &part, v, nil); err != nil {
		rc.Close()
		return nil, z.errf(key, err)
	}
	return v, z.finish(key, rc)
}

// readScipyRowBlock reads rows [lo, hi) = rows(n) of a scipy CSR .npz: the
// row pointers first, then only the block's column ids and values are kept
// while the members are streamed. It returns ok false (and nothing read)
// for files it cannot cut this way: another layout or a CSC or COO matrix.
func readScipyRowBlock(path string, rows func(n int) (int, int), threads, splitIndex int) (b *RowBlock, ok bool, err error) {
	z, ok, err := openScipy(path)
	if !ok {
		return nil, false, err
	}
	defer z.Close()
	if z.has("format") {
		f, err := z.str("format")
		if err != nil {
			return nil, false, err
		}
		if f != "csr" {
			return nil, false, nil
		}
	}
	nr, nc, err := z.shape2("shape")
	if err != nil {
		return nil, false, err
	}
	if nr != nc {
		return nil, false, fmt.Errorf("%s: %w: adjacency is %d x %d, not square", path, ErrFormat, nr, nc)
	}
	if err := errors.Join(z.agree("indices", "data"), z.atMost(npzTrain, nr), z.atMost(npzValid, nr), z.atMost(npzTest, nr)); err != nil {
		return nil, false, err
	}
	indptr, err := z.int64s("indptr")
	if err != nil {
		return nil, false, err
	}
	if len(indptr) != nr+1 || indptr[0] != 0 {
		return nil, false, z.errf("indptr", fmt.Errorf("%w: length %d (want %d) or indptr[0] = %d", ErrFormat, len(indptr), nr+1, indptr[0]))
	}
	if h, _, err := z.header("indices"); err != nil {
		return nil, false, err
	} else if h.count() != indptr[nr] {
		return nil, false, z.errf("indptr", fmt.Errorf("%w: indptr[-1] = %d, but %q has %d values", ErrFormat, indptr[nr], "indices", h.count()))
	}
	lo, hi := rows(nr)
	if lo < 0 || lo > hi || hi > nr {
		return nil, false, fmt.Errorf("%s: row block [%d, %d) outside the %d rows", path, lo, hi, nr)
	}
	for i := lo; i < hi; i++ {
		if indptr[i+1] < indptr[i] {
			return nil, false, z.errf("indptr", fmt.Errorf("%w: decreases at row %d", ErrFormat, i))
		}
	}
	s, e := indptr[lo], indptr[hi]
	ind, err := readNumericRange[int32](z, "indices", s, e)
	if err != nil {
		return nil, false, err
	}
	data, err := readNumericRange[float32](z, "data", s, e)
	if err != nil {
		return nil, false, err
	}
	blk := &spgemm.CSR{Rows: hi - lo, Cols: nr, Indptr: make([]int64, hi-lo+1), Indices: ind, Data: data}
	for i := range blk.Indptr {
		blk.Indptr[i] = indptr[lo+i] - s
	}
	if err := canonicalize(path, "", blk, threads); err != nil {
		return nil, false, err
	}
	var d Dataset
	d.Adj = &spgemm.CSR{Rows: nr, Cols: nr}
	if err := z.readSplit(&d, npzTrain, npzValid, npzTest); err != nil {
		return nil, false, err
	}
	if err := z.readStoredSplits(&d); err != nil {
		return nil, false, err
	}
	if err := d.UseSplit(splitIndex); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return &RowBlock{N: nr, NNZ: indptr[nr], Lo: lo, Hi: hi, Adj: blk, Weighted: !allOnes(data), Train: d.Train}, true, nil
}

// openScipy opens the .npz at path when it has the scipy layout (a Save'd
// file); ok is false, and nothing is left open, for another layout or an
// error.
func openScipy(path string) (z *npzArchive, ok bool, err error) {
	if z, err = openNPZ(path); err != nil {
		return nil, false, err
	}
	if z.layout() != layoutScipy {
		z.Close()
		return nil, false, nil
	}
	return z, true, nil
}
