package dataset

// Reading one block of rows of a dataset's node features, for the ranks of
// a distributed run (featurex.NewDist): each holds only its block.

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// FeatureBlock is one contiguous block of rows of a dataset's node
// features, read without holding the others.
type FeatureBlock struct {
	// N is the number of vertices of the whole dataset, NumFeatures the
	// length of every row.
	N, NumFeatures int
	// Lo and Hi are the global rows of the block, [Lo, Hi).
	Lo, Hi int
	// Features is the block, (Hi-Lo) x NumFeatures, row-major: row r is
	// vertex Lo+r. It may alias a file mapping: see Close.
	Features []float32

	release func() error
}

// Close releases the file mapping behind the block; Features must not be
// used afterwards. It is idempotent.
func (b *FeatureBlock) Close() error {
	if b.release == nil {
		return nil
	}
	r := b.release
	b.release = nil
	return r()
}

// LoadFeatureBlock reads the rows [lo, hi) = rows(n) of the node features
// of the dataset at path, where n is its number of vertices, holding no
// more than the block:
//
//   - native: the file is memory-mapped and the block is read in place,
//     by its offsets (pages are read on first use);
//   - scipy .npz written by Save (features), gnn-benchmark .npz with dense
//     features (attr_matrix), and OGB binary folders (raw/data.npz,
//     node_feat, float16 and float64 converted to float32): a stored
//     (uncompressed) member is read at the block's offset, a deflated one
//     is decompressed up to the block's end;
//   - gnn-benchmark .npz with sparse features (attr_indptr, attr_indices,
//     attr_data, attr_shape, as Cora's): the row pointers, then only the
//     block's entries, made dense;
//   - OGB CSV folders (raw/node-feat.csv.gz): every line is read and its
//     width checked, only the block's are parsed and kept;
//   - Planetoid datasets (at most 20,000 vertices), DGL CSVDataset and
//     MUSAE folders: read whole, the block kept (sparse features made
//     dense);
//   - heterophilous-graphs .npz: its node_features member, as above;
//   - sparse features of a native file or a scipy .npz written by Save:
//     the block's rows, made dense.
//
// The zip CRC-32 of an .npz member covers all of it, so it is checked only
// where the read passes through the whole member: a block of every row, the
// last block of a deflated member (decompressed from its start anyway), and
// the sparse features' members, which are streamed to their ends; a
// mismatch is an error naming the file and the array. Any other block of a
// dense member reads part of it and cannot check it, as the native
// format's checksums are not checked either (VerifyNone). rows is called
// once, with n (or not at all on an error before n is known). Errors name the file and the array
// or line; a dataset without features, or a format that has none (edge
// lists, Matrix Market), is an error.
func LoadFeatureBlock(ctx context.Context, path string, rows func(n int) (lo, hi int)) (*FeatureBlock, error) {
	format, err := Detect(path)
	if err != nil {
		return nil, err
	}
	pick := func(n int) (int, int, error) {
		lo, hi := rows(n)
		if lo < 0 || lo > hi || hi > n {
			return 0, 0, fmt.Errorf("%s: feature block [%d, %d) outside the %d rows", path, lo, hi, n)
		}
		return lo, hi, nil
	}
	switch format {
	case FormatNative:
		return nativeFeatureBlock(path, pick)
	case FormatScipyNPZ, FormatGNNBench:
		z, err := openNPZ(path)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		return npzFeatureBlock(ctx, z, format, pick)
	case FormatOGB:
		raw := filepath.Join(path, "raw")
		if fileExists(filepath.Join(raw, "data.npz")) {
			z, err := openNPZ(filepath.Join(raw, "data.npz"))
			if err != nil {
				return nil, err
			}
			defer z.Close()
			return ogbBinaryFeatureBlock(z, pick)
		}
		return ogbCSVFeatureBlock(ctx, raw, pick)
	case FormatPlanetoid:
		return planetoidFeatureBlock(ctx, path, pick)
	case FormatHeterophilous:
		z, err := openNPZ(path)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		h, _, err := z.header(heteroFeatures)
		if err != nil {
			return nil, err
		}
		if len(h.shape) != 2 || h.shape[0] > maxDistinctIDs {
			return nil, z.errf(heteroFeatures, fmt.Errorf("%w: shape %v, want (nodes, features)", ErrFormat, h.shape))
		}
		return z.denseFeatureBlock(heteroFeatures, int(h.shape[0]), pick)
	case FormatDGLCSV, FormatMUSAE:
		return wholeFeatureBlock(ctx, path, pick)
	}
	return nil, fmt.Errorf("%s: %w: a %s file has no node features", path, ErrFormat, format)
}

// blockPicker returns the checked block [lo, hi) of n rows.
type blockPicker func(n int) (lo, hi int, err error)

func nativeFeatureBlock(path string, pick blockPicker) (b *FeatureBlock, err error) {
	buf, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unmap()
		}
	}()
	d, err := decodeNative(path, buf, VerifyNone, 1, nil) // the header and the bounds; nothing else is read
	if err != nil {
		return nil, err
	}
	if d.SparseFeatures != nil {
		// A block of sparse features is made dense; the mapping is not
		// needed beyond that.
		lo, hi, err := pick(d.NumNodes())
		if err != nil {
			return nil, err
		}
		if err := d.SparseFeatures.ValidateRows(lo, hi); err != nil {
			return nil, fmt.Errorf("%s: array \"sparse_indices\": %w: %w", path, ErrFormat, err)
		}
		x := denseRows(d.SparseFeatures, lo, hi)
		unmap()
		return &FeatureBlock{N: d.NumNodes(), NumFeatures: d.NumFeatures, Lo: lo, Hi: hi, Features: x}, nil
	}
	if d.Features == nil {
		return nil, fmt.Errorf("%s: %w: no node features (no array \"features\")", path, ErrFormat)
	}
	n, f := d.NumNodes(), d.NumFeatures
	lo, hi, err := pick(n)
	if err != nil {
		return nil, err
	}
	x := d.Features[lo*f : hi*f : hi*f]
	return &FeatureBlock{N: n, NumFeatures: f, Lo: lo, Hi: hi, Features: x, release: unmap}, nil
}

func npzFeatureBlock(ctx context.Context, z *npzArchive, format string, pick blockPicker) (*FeatureBlock, error) {
	shapeKey, key := "shape", npzFeatures
	if format == FormatGNNBench {
		shapeKey, key = "adj_shape", "attr_matrix"
	}
	n, nc, err := z.shape2(shapeKey)
	if err != nil {
		return nil, err
	}
	if n != nc {
		return nil, z.errf(shapeKey, fmt.Errorf("%w: adjacency is %d x %d, not square", ErrFormat, n, nc))
	}
	switch {
	case z.has(key):
		return z.denseFeatureBlock(key, n, pick)
	case format == FormatGNNBench && z.has("attr_data"):
		return z.sparseFeatureBlock(ctx, n, pick)
	case format == FormatScipyNPZ && z.has(npzSparseFeatures+"indptr"):
		d := &Dataset{Adj: &spgemm.CSR{Rows: n}}
		if err := z.readNPZExtras(d); err != nil {
			return nil, err
		}
		lo, hi, err := pick(n)
		if err != nil {
			return nil, err
		}
		return &FeatureBlock{N: n, NumFeatures: d.NumFeatures, Lo: lo, Hi: hi, Features: denseRows(d.SparseFeatures, lo, hi)}, nil
	}
	return nil, fmt.Errorf("%s: %w: no node features (no array %q)", z.name, ErrFormat, key)
}

func ogbBinaryFeatureBlock(z *npzArchive, pick blockPicker) (*FeatureBlock, error) {
	n, err := z.ogbNodeCount()
	if err != nil {
		return nil, err
	}
	if !z.has("node_feat") {
		return nil, fmt.Errorf("%s: %w: no node features (no array \"node_feat\")", z.name, ErrFormat)
	}
	return z.denseFeatureBlock("node_feat", n, pick)
}

// denseFeatureBlock reads rows [lo, hi) = pick(n) of member key, an n x f
// C-ordered numeric array, and checks the member's CRC-32 when it has read
// all of it (see LoadFeatureBlock).
func (z *npzArchive) denseFeatureBlock(key string, n int, pick blockPicker) (*FeatureBlock, error) {
	rc, h, err := z.open(key)
	if err != nil {
		return nil, err
	}
	finished := false // z.finish closed rc
	defer func() {
		if !finished {
			rc.Close()
		}
	}()
	switch {
	case len(h.shape) != 2:
		return nil, z.errf(key, fmt.Errorf("%w: want an n x f array, have shape %v", ErrFormat, h.shape))
	case h.shape[0] != int64(n):
		return nil, z.errf(key, fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, h.shape[0], n))
	case h.fortran:
		return nil, z.errf(key, fmt.Errorf("%w: Fortran-ordered features cannot be read by rows; save them C-ordered", ErrFormat))
	case !h.dtype.isNumeric():
		return nil, z.errf(key, fmt.Errorf("%w: dtype %s is not numeric", ErrFormat, h.dtype.descr))
	}
	lo, hi, err := pick(n)
	if err != nil {
		return nil, err
	}
	f := h.shape[1]
	item := int64(h.dtype.size)
	part := h
	part.shape = []int64{int64(hi-lo) * f}
	var r io.Reader = rc
	if m := z.members[key]; m.Method == zip.Store && z.ra != nil && (lo > 0 || hi < n) {
		// Stored: straight to the block's bytes. A block of every row
		// goes through the zip reader instead, which checks the CRC-32.
		off, err := m.DataOffset()
		if err != nil {
			return nil, z.errf(key, fmt.Errorf("%w: %w", ErrFormat, err))
		}
		r = io.NewSectionReader(z.ra, off+h.size+int64(lo)*f*item, int64(hi-lo)*f*item)
	} else if _, err := io.CopyN(io.Discard, rc, int64(lo)*f*item); err != nil {
		return nil, z.errf(key, fmt.Errorf("%w: skipping %d rows: %w", ErrFormat, lo, shortRead(err)))
	}
	x := make([]float32, int64(hi-lo)*f)
	if err := readNPYData(r, &part, x, nil); err != nil {
		return nil, z.errf(key, fmt.Errorf("rows [%d, %d): %w", lo, hi, err))
	}
	if r == rc && hi == n {
		// The whole member went through the zip reader: reaching its end
		// checks the CRC-32.
		finished = true
		if err := z.finish(key, rc); err != nil {
			return nil, err
		}
	}
	return &FeatureBlock{N: n, NumFeatures: int(f), Lo: lo, Hi: hi, Features: x}, nil
}

// sparseFeatureBlock reads rows [lo, hi) = pick(n) of the gnn-benchmark
// sparse features attr_* (CSR) and makes them dense.
func (z *npzArchive) sparseFeatureBlock(ctx context.Context, n int, pick blockPicker) (*FeatureBlock, error) {
	rows, f, err := z.shape2("attr_shape")
	if err != nil {
		return nil, err
	}
	if rows != n {
		return nil, z.errf("attr_shape", fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, rows, n))
	}
	if z.has("attr_format") {
		if s, err := z.str("attr_format"); err != nil {
			return nil, err
		} else if s != "csr" {
			return nil, z.errf("attr_format", fmt.Errorf("%w: %q features cannot be read by rows; store them as CSR", ErrFormat, s))
		}
	}
	indptr, err := z.int64s("attr_indptr")
	if err != nil {
		return nil, err
	}
	if len(indptr) != n+1 || indptr[0] != 0 {
		return nil, z.errf("attr_indptr", fmt.Errorf("%w: length %d (want %d) or attr_indptr[0] = %d", ErrFormat, len(indptr), n+1, indptr[0]))
	}
	lo, hi, err := pick(n)
	if err != nil {
		return nil, err
	}
	for i := lo; i < hi; i++ {
		if indptr[i+1] < indptr[i] {
			return nil, z.errf("attr_indptr", fmt.Errorf("%w: decreases at row %d", ErrFormat, i))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, e := indptr[lo], indptr[hi]
	ind, err := readNumericRange[int32](z, "attr_indices", s, e)
	if err != nil {
		return nil, err
	}
	val, err := readNumericRange[float32](z, "attr_data", s, e)
	if err != nil {
		return nil, err
	}
	blk := &spgemm.CSR{Rows: hi - lo, Cols: f, Indptr: make([]int64, hi-lo+1), Indices: ind, Data: val}
	for i := range blk.Indptr {
		blk.Indptr[i] = indptr[lo+i] - s
	}
	// The whole-file reader's canonical form (duplicates summed), so that
	// blocks equal its rows bit for bit.
	if err := canonicalize(z.name, "attr_", blk, 1); err != nil {
		return nil, err
	}
	x := make([]float32, (hi-lo)*f)
	for r := range hi - lo {
		idx, v := blk.Row(r)
		for j, c := range idx {
			x[r*f+int(c)] = v[j]
		}
	}
	return &FeatureBlock{N: n, NumFeatures: f, Lo: lo, Hi: hi, Features: x}, nil
}

// ogbCSVFeatureBlock reads rows [lo, hi) = pick(n) of raw/node-feat.csv.gz,
// n from raw/num-node-list.csv.gz.
func ogbCSVFeatureBlock(ctx context.Context, raw string, pick blockPicker) (*FeatureBlock, error) {
	n64, err := readCount(filepath.Join(raw, "num-node-list.csv.gz"))
	if err != nil {
		return nil, err
	}
	if n64 > 1<<31-1 {
		return nil, fmt.Errorf("%s: %w: %d nodes exceed int32 ids", filepath.Join(raw, "num-node-list.csv.gz"), ErrFormat, n64)
	}
	n := int(n64)
	path := filepath.Join(raw, "node-feat.csv.gz")
	if !fileExists(path) {
		return nil, fmt.Errorf("%s: %w: no node features (no node-feat.csv.gz)", raw, ErrFormat)
	}
	lo, hi, err := pick(n)
	if err != nil {
		return nil, err
	}
	x, f, err := readFeatureCSV(ctx, path, n, lo, hi)
	if err != nil {
		return nil, err
	}
	return &FeatureBlock{N: n, NumFeatures: f, Lo: lo, Hi: hi, Features: x}, nil
}

// wholeFeatureBlock loads the dataset at path whole (a format read in one
// piece: DGL's CSV folders, MUSAE's) and keeps the block of its features,
// dense.
func wholeFeatureBlock(ctx context.Context, path string, pick blockPicker) (*FeatureBlock, error) {
	d, err := LoadContext(ctx, path, &LoadOptions{Split: SplitNone})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if !d.HasFeatures() {
		return nil, fmt.Errorf("%s: %w: no node features", path, ErrFormat)
	}
	lo, hi, err := pick(d.NumNodes())
	if err != nil {
		return nil, err
	}
	f := d.NumFeatures
	var x []float32
	if d.SparseFeatures != nil {
		x = denseRows(d.SparseFeatures, lo, hi)
	} else {
		x = slices.Clone(d.Features[lo*f : hi*f])
	}
	return &FeatureBlock{N: d.NumNodes(), NumFeatures: f, Lo: lo, Hi: hi, Features: x}, nil
}

// denseRows returns rows [lo, hi) of the sparse matrix a, dense and
// row-major.
func denseRows(a *spgemm.CSR, lo, hi int) []float32 {
	f := a.Cols
	x := make([]float32, (hi-lo)*f)
	for r := lo; r < hi; r++ {
		cols, vals := a.Row(r)
		row := x[(r-lo)*f:]
		for p, c := range cols {
			row[c] = vals[p]
		}
	}
	return x
}
