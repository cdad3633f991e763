package dataset

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// RowBlock is one contiguous block of rows of a graph's adjacency, read
// without holding the rest: what one rank of a row-distributed run keeps.
type RowBlock struct {
	// N is the number of vertices of the whole graph, NNZ its edges.
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
// where n is the graph's number of vertices. A native file is memory-mapped
// and only the header, the block's row offsets and its column ids and
// values are read (pages are read on first use), then the block's
// structure is checked; other formats (and a native file with a Split or
// Symmetrize option) are read whole and the block copied out: ok reports
// false then, so that callers can say so. The block's
// arrays may alias the mapping: call Close when done.
func LoadRowBlock(ctx context.Context, path string, rows func(n int) (lo, hi int), opt *LoadOptions) (b *RowBlock, ok bool, err error) {
	format, err := Detect(path)
	if err != nil {
		return nil, false, err
	}
	if format != FormatNative || (opt != nil && (opt.Split != "" || opt.Symmetry == Symmetrize)) {
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
		blk := &RowBlock{N: d.NumNodes(), NNZ: d.Adj.NNZ(), Lo: lo, Hi: hi, Adj: spgemm.GatherRows(d.Adj, ids, threads), Weighted: d.Weighted, Train: d.Train}
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
	blk := &spgemm.CSR{Rows: hi - lo, Cols: n, Indptr: make([]int64, hi-lo+1),
		Indices: d.Adj.Indices[s:e:e], Data: d.Adj.Data[s:e:e]}
	for i := range blk.Indptr {
		blk.Indptr[i] = ip[lo+i] - s
	}
	if err := blk.Validate(); err != nil {
		return nil, false, fmt.Errorf("%s: %w: rows [%d, %d): %w", path, ErrFormat, lo, hi, err)
	}
	for i, v := range d.Train {
		if uint32(v) >= uint32(n) || (i > 0 && v <= d.Train[i-1]) {
			return nil, false, fmt.Errorf("%s: %w: train[%d] = %d: out of range or not increasing", path, ErrFormat, i, v)
		}
	}
	return &RowBlock{N: n, NNZ: int64(len(d.Adj.Indices)), Lo: lo, Hi: hi, Adj: blk, Weighted: d.Weighted, Train: d.Train, release: unmap}, true, nil
}
