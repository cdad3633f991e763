package dataset

// This file reads .npz archives (zip files of .npy members, stored or
// deflated, as numpy.savez and savez_compressed write them) in two layouts:
// scipy.sparse.save_npz (indptr, indices, data, shape, format) and the
// gnn-benchmark layout of Shchur et al. (adj_*, attr_*, labels), and writes
// the scipy layout.

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/spgemm"
)

// npzArchive is an open .npz file.
type npzArchive struct {
	name    string // the file's path, for error messages
	size    int64  // the file's size in bytes
	members map[string]*zip.File
	ra      io.ReaderAt // the archive's bytes: stored members are read by offset
	closer  io.Closer
	// mem, when not nil, receives the large numeric arrays read (see
	// Dataset.settle); arrays a reader replaces go back with hugemem.Free.
	mem *hugemem.Arena
}

// openNPZ opens the .npz file at path.
func openNPZ(path string) (*npzArchive, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	z, err := newNPZ(path, f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	z.closer = f
	return z, nil
}

// newNPZ reads the zip directory of an .npz held by ra.
func newNPZ(name string, ra io.ReaderAt, size int64) (*npzArchive, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		// A file that starts like a zip but has no readable directory at its
		// end was cut short (an interrupted copy or download) or damaged.
		var magic [4]byte
		if n, _ := ra.ReadAt(magic[:], 0); n == 4 && string(magic[:]) == "PK\x03\x04" {
			return nil, fmt.Errorf("%s: %w: truncated or corrupt .npz (zip) archive of %d bytes: %w", name, ErrFormat, size, err)
		}
		return nil, fmt.Errorf("%s: %w: not a zip (.npz) archive: %w", name, ErrFormat, err)
	}
	z := &npzArchive{name: name, size: size, members: map[string]*zip.File{}, ra: ra}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := z.members[key]; dup {
			return nil, fmt.Errorf("%s: %w: array %q appears twice", name, ErrFormat, key)
		}
		z.members[key] = f
	}
	return z, nil
}

func (z *npzArchive) Close() error {
	if z.closer == nil {
		return nil
	}
	return z.closer.Close()
}

func (z *npzArchive) has(key string) bool { _, ok := z.members[key]; return ok }

// errf returns an error naming the archive and the array.
func (z *npzArchive) errf(key string, err error) error {
	return fmt.Errorf("%s: array %q: %w", z.name, key, err)
}

// open opens member key and reads its .npy header.
func (z *npzArchive) open(key string) (io.ReadCloser, npyHeader, error) {
	f, ok := z.members[key]
	if !ok {
		return nil, npyHeader{}, fmt.Errorf("%s: %w: missing array %q", z.name, ErrFormat, key)
	}
	// Sizes come from the zip directory, which may lie: a member cannot be
	// larger than the archive, and a deflate stream expands at most ~1032
	// times, so a larger declared size would make us allocate for data that
	// is not there.
	if f.CompressedSize64 > uint64(z.size) || f.Method == zip.Store && f.UncompressedSize64 != f.CompressedSize64 ||
		f.UncompressedSize64 > f.CompressedSize64*1100+1024 {
		return nil, npyHeader{}, z.errf(key, fmt.Errorf("%w: declared size %d (compressed %d) impossible in a %d-byte archive",
			ErrFormat, f.UncompressedSize64, f.CompressedSize64, z.size))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, npyHeader{}, z.errf(key, fmt.Errorf("%w: %w", ErrFormat, err))
	}
	h, err := readNPYHeader(rc, int64(f.UncompressedSize64))
	if err != nil {
		rc.Close()
		return nil, npyHeader{}, z.errf(key, err)
	}
	// A .npy member is its header and its elements, nothing more: a
	// larger declared size would be inflated (and its CRC checked) to the
	// end for nothing.
	if want := h.size + h.dataBytes(); uint64(want) != f.UncompressedSize64 {
		rc.Close()
		return nil, npyHeader{}, z.errf(key, fmt.Errorf("%w: the zip directory declares %d bytes, but the .npy header's shape %v of %s makes %d",
			ErrFormat, f.UncompressedSize64, h.shape, h.dtype.descr, want))
	}
	return rc, h, nil
}

// header returns the .npy header of member key, inflating only the header
// (open checks its size against the zip directory's); ok is false when
// there is no such member.
func (z *npzArchive) header(key string) (h npyHeader, ok bool, err error) {
	if !z.has(key) {
		return npyHeader{}, false, nil
	}
	rc, h, err := z.open(key)
	if err != nil {
		return npyHeader{}, true, err
	}
	rc.Close()
	return h, true, nil
}

// agree returns an error naming both arrays unless members a and b, when
// both present, hold the same number of elements. It reads only their
// headers: a member whose size disagrees with the others' is refused before
// any payload is inflated (a 1 MB .npz whose indices inflated to 1 GiB was
// refused only after inflating them, at a 1.04 GB peak).
func (z *npzArchive) agree(a, b string) error {
	ha, okA, err := z.header(a)
	if err != nil {
		return err
	}
	hb, okB, err := z.header(b)
	if err != nil || !okA || !okB {
		return err
	}
	if ha.count() != hb.count() {
		return fmt.Errorf("%s: %w: arrays %q (shape %v) and %q (shape %v) must have as many elements", z.name, ErrFormat, a, ha.shape, b, hb.shape)
	}
	return nil
}

// rowsAre returns an error naming key unless member key, when present, has
// want rows (its first dimension), checked from its header alone.
func (z *npzArchive) rowsAre(key string, want int) error {
	h, ok, err := z.header(key)
	if err != nil || !ok {
		return err
	}
	if len(h.shape) == 0 || h.shape[0] != int64(want) {
		return z.errf(key, fmt.Errorf("%w: shape %v, want %d rows (one per node): refused before reading it", ErrFormat, h.shape, want))
	}
	return nil
}

// atMost returns an error naming key unless member key, when present,
// has at most want elements (a split's ids), checked from its header.
func (z *npzArchive) atMost(key string, want int) error {
	h, ok, err := z.header(key)
	if err != nil || !ok {
		return err
	}
	if h.count() > int64(want) {
		return z.errf(key, fmt.Errorf("%w: %d ids for %d nodes: refused before reading them", ErrFormat, h.count(), want))
	}
	return nil
}

// finish drains a member to its end, so that the zip reader checks its
// CRC-32, and closes it.
func (z *npzArchive) finish(key string, rc io.ReadCloser) error {
	_, err := io.Copy(io.Discard, rc)
	rc.Close()
	switch {
	case errors.Is(err, zip.ErrChecksum):
		return z.errf(key, fmt.Errorf("%w: the member's CRC-32 does not match its contents: %w", ErrFormat, err))
	case err != nil:
		return z.errf(key, fmt.Errorf("%w: %w", ErrFormat, err))
	}
	return nil
}

// readNumeric reads member key, converting each element with conv. ndim, if
// non-zero, is the required number of dimensions.
func readNumeric[T int32 | int64 | float32](z *npzArchive, key string, ndim int, conv npyConv[T]) ([]T, []int64, error) {
	rc, h, err := z.open(key)
	if err != nil {
		return nil, nil, err
	}
	if ndim != 0 && len(h.shape) != ndim {
		rc.Close()
		return nil, nil, z.errf(key, fmt.Errorf("%w: want a %d-d array, have shape %v", ErrFormat, ndim, h.shape))
	}
	v := hugemem.Make[T](z.mem, int(h.count()))
	if err := readNPYData(rc, &h, v, conv); err != nil {
		rc.Close()
		return nil, nil, z.errf(key, err)
	}
	if err := z.finish(key, rc); err != nil {
		return nil, nil, err
	}
	return v, h.shape, nil
}

func (z *npzArchive) int64s(key string) ([]int64, error) {
	v, _, err := readNumeric[int64](z, key, 1, nil)
	return v, err
}

func (z *npzArchive) int32s(key string) ([]int32, error) {
	v, _, err := readNumeric[int32](z, key, 1, nil)
	return v, err
}

func (z *npzArchive) float32s(key string) ([]float32, error) {
	v, _, err := readNumeric[float32](z, key, 1, nil)
	return v, err
}

func (z *npzArchive) str(key string) (string, error) {
	rc, h, err := z.open(key)
	if err != nil {
		return "", err
	}
	s, err := readNPYString(rc, &h)
	if err != nil {
		rc.Close()
		return "", z.errf(key, err)
	}
	return s, z.finish(key, rc)
}

// shape2 reads a 2-element shape array (rows, cols).
func (z *npzArchive) shape2(key string) (int, int, error) {
	s, err := z.int64s(key)
	if err != nil {
		return 0, 0, err
	}
	if len(s) != 2 {
		return 0, 0, z.errf(key, fmt.Errorf("%w: shape has %d entries, want 2", ErrFormat, len(s)))
	}
	if s[0] < 0 || s[1] < 0 || s[0] > 1<<31 || s[1] > 1<<31 {
		return 0, 0, z.errf(key, fmt.Errorf("%w: shape %d x %d outside the int32 id range", ErrFormat, s[0], s[1]))
	}
	return int(s[0]), int(s[1]), nil
}

// readCSR reads a sparse matrix stored under prefix (e.g. "" for scipy,
// "adj_" for gnn-benchmark): prefix+indptr, indices, data, shape and, when
// present, format ("csr", "csc" or "coo"; gnn-benchmark files have no format
// member and are CSR). The result is canonical: rows sorted, duplicates
// summed, as scipy's sum_duplicates would make it.
func (z *npzArchive) readCSR(prefix string, threads int) (*spgemm.CSR, error) {
	format := "csr"
	if z.has(prefix + "format") {
		f, err := z.str(prefix + "format")
		if err != nil {
			return nil, err
		}
		format = f
	}
	rows, cols, err := z.shape2(prefix + "shape")
	if err != nil {
		return nil, err
	}
	// The members' headers against each other and the shape, before any
	// payload is read.
	major := rows
	if format == "csc" {
		major = cols
	}
	for _, pair := range [][2]string{{"indices", "data"}, {"row", "data"}, {"col", "data"}} {
		if err := z.agree(prefix+pair[0], prefix+pair[1]); err != nil {
			return nil, err
		}
	}
	if format == "csr" || format == "csc" {
		if h, ok, err := z.header(prefix + "indptr"); err != nil {
			return nil, err
		} else if ok && h.count() != int64(major)+1 {
			return nil, z.errf(prefix+"indptr", fmt.Errorf("%w: shape %v, want %d entries (rows + 1 of the shape %d x %d): refused before reading it",
				ErrFormat, h.shape, major+1, rows, cols))
		}
	}
	// The row pointers, small next to the entries, bound them: read them
	// first, and refuse entries that their last one does not count
	// before inflating any (headers that agreed on 1 GiB of indices and
	// data beside indptr[-1] = 4 inflated the data first: 1.04 GB, 18.8 s).
	var indptr []int64
	if format == "csr" || format == "csc" {
		if indptr, err = z.int64s(prefix + "indptr"); err != nil {
			return nil, err
		}
		nnz := indptr[len(indptr)-1]
		for _, key := range []string{prefix + "data", prefix + "indices"} {
			if h, ok, err := z.header(key); err != nil {
				return nil, err
			} else if ok && h.count() != nnz {
				return nil, fmt.Errorf("%s: array %q: %w: indptr[-1] = %d, but %q holds %d values (its header): refused before reading it",
					z.name, prefix+"indptr", ErrFormat, nnz, key, h.count())
			}
		}
	}
	data, err := z.float32s(prefix + "data")
	if err != nil {
		return nil, err
	}
	// COO builds and CSC transposes allocate offsets for the shape's rows
	// and columns, which must therefore be plausible for the entries.
	if format != "csr" {
		if err := checkNodeCount(z.name, int64(max(rows, cols)), int64(len(data))); err != nil {
			return nil, err
		}
	}
	switch format {
	case "coo":
		r, err := z.int32s(prefix + "row")
		if err != nil {
			return nil, err
		}
		c, err := z.int32s(prefix + "col")
		if err != nil {
			return nil, err
		}
		if len(r) != len(data) || len(c) != len(data) {
			return nil, fmt.Errorf("%s: %w: arrays %q, %q and %q have lengths %d, %d and %d",
				z.name, ErrFormat, prefix+"row", prefix+"col", prefix+"data", len(r), len(c), len(data))
		}
		m, err := spgemm.FromCOO(rows, cols, r, c, data, &spgemm.COOOptions{Threads: threads})
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", z.name, ErrFormat, err)
		}
		z.free(&spgemm.CSR{Indices: c, Data: data}, m)
		z.free(&spgemm.CSR{Indices: r}, m)
		return m, nil
	case "csr", "csc":
	default:
		return nil, z.errf(prefix+"format", fmt.Errorf("%w: unsupported sparse format %q (want csr, csc or coo)", ErrFormat, format))
	}
	indices, err := z.int32s(prefix + "indices")
	if err != nil {
		return nil, err
	}
	minor := cols
	if format == "csc" {
		minor = rows
	}
	m := &spgemm.CSR{Rows: major, Cols: minor, Indptr: indptr, Indices: indices, Data: data}
	read := *m
	if err := canonicalize(z.name, prefix, m, threads); err != nil {
		return nil, err
	}
	if format == "csc" {
		m = spgemm.Transpose(m, threads)
	}
	z.free(&read, m)
	return m, nil
}

// free gives back to z.mem the arrays of old that m does not use.
func (z *npzArchive) free(old, m *spgemm.CSR) { freeReplaced(z.mem, old, m) }

// canonicalize checks the structure of m as read from file name (indptr
// shape, monotonicity, lengths, ids in range), naming the array at fault,
// and sorts rows and sums duplicates if the file's rows were not canonical.
func canonicalize(name, prefix string, m *spgemm.CSR, threads int) error {
	bad := func(array, format string, a ...any) error {
		return fmt.Errorf("%s: array %q: %w: %s", name, prefix+array, ErrFormat, fmt.Sprintf(format, a...))
	}
	if len(m.Indptr) != m.Rows+1 {
		return bad("indptr", "length %d, want rows+1 = %d", len(m.Indptr), m.Rows+1)
	}
	if m.Indptr[0] != 0 {
		return bad("indptr", "indptr[0] = %d, want 0", m.Indptr[0])
	}
	for i := range m.Rows {
		if m.Indptr[i+1] < m.Indptr[i] {
			return bad("indptr", "decreases at row %d (%d then %d)", i, m.Indptr[i], m.Indptr[i+1])
		}
	}
	nnz := m.Indptr[m.Rows]
	if int64(len(m.Indices)) != nnz {
		return bad("indices", "length %d, want indptr[-1] = %d", len(m.Indices), nnz)
	}
	if int64(len(m.Data)) != nnz {
		return bad("data", "length %d, want indptr[-1] = %d", len(m.Data), nnz)
	}
	sorted := true
	for i := range m.Rows {
		prev := int32(-1)
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			c := m.Indices[p]
			if uint32(c) >= uint32(m.Cols) {
				return bad("indices", "entry %d (row %d): column id %d outside [0, %d)", p, i, c, m.Cols)
			}
			if c <= prev {
				sorted = false
			}
			prev = c
		}
	}
	if sorted {
		return nil
	}
	src := make([]int32, nnz)
	for i := range m.Rows {
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			src[p] = int32(i)
		}
	}
	c, err := spgemm.FromCOO(m.Rows, m.Cols, src, m.Indices, m.Data, &spgemm.COOOptions{Threads: threads})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	*m = *c
	return nil
}

// npzLayout is the kind of .npz file.
type npzLayout int

const (
	layoutUnknown npzLayout = iota
	layoutScipy
	layoutGNNBenchmark
	layoutHeterophilous // hetero.go
)

func (z *npzArchive) layout() npzLayout {
	switch {
	case z.isHeterophilous():
		return layoutHeterophilous
	case z.has("adj_data") || z.has("adj_indptr") || z.has("adj_matrix"):
		return layoutGNNBenchmark
	case z.has("indptr") || z.has("format") || z.has("row"):
		return layoutScipy
	}
	return layoutUnknown
}

// readNPZDataset reads an .npz of either layout into a Dataset. It leaves
// symmetrisation and splitting to the caller.
func readNPZDataset(ctx context.Context, z *npzArchive, threads int) (*Dataset, error) {
	layout := z.layout()
	var d Dataset
	var err error
	switch layout {
	case layoutScipy:
		if d.Adj, err = z.readCSR("", threads); err != nil {
			return nil, err
		}
		if err := z.readExtras(&d); err != nil {
			return nil, err
		}
	case layoutGNNBenchmark:
		if err := z.readGNNBenchmark(ctx, &d, threads); err != nil {
			return nil, err
		}
	default:
		names := slices.Sorted(maps.Keys(z.members))
		return nil, fmt.Errorf("%s: %w: neither a scipy sparse .npz (indptr, indices, data, shape, format) nor a gnn-benchmark .npz (adj_*, attr_*, labels); arrays: %s",
			z.name, ErrFormat, truncate(strings.Join(names, ", "), 200))
	}
	if d.Adj.Rows != d.Adj.Cols {
		return nil, fmt.Errorf("%s: %w: adjacency is %d x %d, not square", z.name, ErrFormat, d.Adj.Rows, d.Adj.Cols)
	}
	d.Weighted = !allOnes(d.Adj.Data)
	return &d, nil
}

func allOnes(v []float32) bool {
	for _, x := range v {
		if x != 1 {
			return false
		}
	}
	return true
}

// Names of the extra arrays that Save writes next to the scipy CSR arrays
// when a Dataset has features, labels or a split. scipy.sparse.load_npz
// ignores them.
const (
	npzFeatures = "features"
	npzLabels   = "labels"
	npzTrain    = "idx_train"
	npzValid    = "idx_valid"
	npzTest     = "idx_test"
	// A relabelled graph's Relabelling: orig_ids (int32), and relabel, a
	// string: "degree", or "random:SEED".
	npzOrigIDs = "orig_ids"
	npzRelabel = "relabel"
)

// readExtras reads the optional features, labels and split of a scipy-layout
// file written by Save.
func (z *npzArchive) readExtras(d *Dataset) error {
	n := d.Adj.Rows
	if err := errors.Join(z.rowsAre(npzFeatures, n), z.rowsAre(npzLabels, n),
		z.atMost(npzTrain, n), z.atMost(npzValid, n), z.atMost(npzTest, n)); err != nil {
		return err
	}
	if z.has(npzFeatures) {
		f, shape, err := readNumeric[float32](z, npzFeatures, 2, nil)
		if err != nil {
			return err
		}
		if shape[0] != int64(n) {
			return z.errf(npzFeatures, fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, shape[0], n))
		}
		d.Features, d.NumFeatures = f, int(shape[1])
	}
	if z.has(npzLabels) {
		if err := z.readLabels(npzLabels, d); err != nil {
			return err
		}
	}
	if err := z.readRelabel(d); err != nil {
		return err
	}
	if err := z.readNPZExtras(d); err != nil {
		return err
	}
	return z.readSplit(d, npzTrain, npzValid, npzTest)
}

// readRelabel reads the relabelling a file written by Save records, if any.
func (z *npzArchive) readRelabel(d *Dataset) error {
	if !z.has(npzOrigIDs) && !z.has(npzRelabel) {
		return nil
	}
	if !z.has(npzOrigIDs) || !z.has(npzRelabel) {
		return fmt.Errorf("%s: %w: arrays %s and %s come together (a relabelled graph's permutation and method)", z.name, ErrFormat, npzOrigIDs, npzRelabel)
	}
	spec, err := z.str(npzRelabel)
	if err != nil {
		return err
	}
	r := &Relabelling{Method: spec}
	if m, seed, ok := strings.Cut(spec, ":"); ok && m == RelabelRandom {
		if r.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return z.errf(npzRelabel, fmt.Errorf("%w: %q: bad seed", ErrFormat, spec))
		}
		r.Method = m
	}
	if r.OrigIDs, err = z.int32s(npzOrigIDs); err != nil {
		return err
	}
	if err := r.validate(d.NumNodes()); err != nil {
		return z.errf(npzOrigIDs, fmt.Errorf("%w: %w", ErrFormat, err))
	}
	d.Relabel = r
	return nil
}

// readSplit reads split index arrays when present, checking every id.
func (z *npzArchive) readSplit(d *Dataset, keys ...string) error {
	dst := []*[]int32{&d.Train, &d.Valid, &d.Test}
	for i, k := range keys {
		if !z.has(k) {
			continue
		}
		v, err := z.int32s(k)
		if err != nil {
			return err
		}
		if err := checkIDs(v, d.NumNodes()); err != nil {
			return z.errf(k, err)
		}
		slices.Sort(v)
		*dst[i] = v
	}
	return nil
}

// checkIDs returns an error naming the first id outside [0, n).
func checkIDs(ids []int32, n int) error {
	for i, v := range ids {
		if uint32(v) >= uint32(n) {
			return fmt.Errorf("%w: entry %d: vertex id %d outside [0, %d)", ErrFormat, i, v, n)
		}
	}
	return nil
}

// readLabels reads a 1-d label array (any integer or float dtype; NaN or
// negative = unlabelled) and sets NumClasses to max label + 1.
func (z *npzArchive) readLabels(key string, d *Dataset) error {
	v, shape, err := readNumeric(z, key, 0, toLabel)
	if err != nil {
		return err
	}
	// OGB stores labels as an N x 1 column.
	if len(shape) == 2 && shape[1] == 1 {
		shape = shape[:1]
	}
	if len(shape) != 1 || shape[0] != int64(d.NumNodes()) {
		return z.errf(key, fmt.Errorf("%w: shape %v, want (%d,)", ErrFormat, shape, d.NumNodes()))
	}
	d.Labels = v
	d.NumClasses = numClasses(v)
	return nil
}

func numClasses(labels []int32) int {
	m := int32(-1)
	for _, l := range labels {
		m = max(m, l)
	}
	return int(m) + 1
}

// readGNNBenchmark reads the layout of Shchur et al.'s gnn-benchmark files:
// adj_{data,indices,indptr,shape}; features as attr_{data,indices,indptr,shape}
// (sparse) or attr_matrix (dense); labels as a 1-d array or as
// labels_{data,indices,indptr,shape} (sparse one-hot); string arrays
// (node_names, attr_names, class_names, idx_to_node, ...) are ignored.
func (z *npzArchive) readGNNBenchmark(ctx context.Context, d *Dataset, threads int) error {
	var err error
	if z.has("adj_matrix") {
		return fmt.Errorf("%s: %w: dense adj_matrix is not supported; store the adjacency as adj_data/adj_indices/adj_indptr/adj_shape",
			z.name, ErrFormat)
	}
	if d.Adj, err = z.readCSR("adj_", threads); err != nil {
		return err
	}
	n := d.Adj.Rows
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(z.rowsAre("attr_matrix", n), z.rowsAre("labels", n),
		z.atMost("idx_train", n), z.atMost("idx_val", n), z.atMost("idx_test", n)); err != nil {
		return err
	}
	for _, p := range []string{"attr_", "labels_"} {
		if z.has(p + "shape") {
			rows, _, err := z.shape2(p + "shape")
			if err != nil {
				return err
			}
			if rows != n {
				return z.errf(p+"shape", fmt.Errorf("%w: %d rows for %d nodes: refused before reading its arrays", ErrFormat, rows, n))
			}
		}
	}
	switch {
	case z.has("attr_data"):
		a, err := z.readCSR("attr_", threads)
		if err != nil {
			return err
		}
		if a.Rows != n {
			return z.errf("attr_shape", fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, a.Rows, n))
		}
		// Dense features of a sparse file: allow 64 MiB, or 1024 times the
		// file (Cora's are 1.3% dense), so that a corrupt shape cannot make
		// us allocate without bound.
		if dense := 4 * int64(a.Rows) * int64(a.Cols); dense > 1<<26 && dense > 1024*z.size {
			return z.errf("attr_shape", fmt.Errorf("%w: dense %d x %d features are too large for a %d-byte file", ErrFormat, a.Rows, a.Cols, z.size))
		}
		d.NumFeatures = a.Cols
		d.Features = hugemem.Make[float32](z.mem, a.Rows*a.Cols)
		for i := range a.Rows {
			idx, val := a.Row(i)
			for j, c := range idx {
				d.Features[i*a.Cols+int(c)] = val[j]
			}
		}
		z.free(a, &spgemm.CSR{})
	case z.has("attr_matrix"):
		f, shape, err := readNumeric[float32](z, "attr_matrix", 2, nil)
		if err != nil {
			return err
		}
		if shape[0] != int64(n) {
			return z.errf("attr_matrix", fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, shape[0], n))
		}
		d.Features, d.NumFeatures = f, int(shape[1])
	}
	switch {
	case z.has("labels_data"):
		l, err := z.readCSR("labels_", threads)
		if err != nil {
			return err
		}
		if l.Rows != n {
			return z.errf("labels_shape", fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, l.Rows, n))
		}
		d.Labels = make([]int32, n)
		for i := range n {
			d.Labels[i] = -1
			idx, val := l.Row(i)
			best := float32(0)
			for j, c := range idx {
				if val[j] > best {
					best, d.Labels[i] = val[j], c
				}
			}
		}
		d.NumClasses = l.Cols
		z.free(l, &spgemm.CSR{})
	case z.has("labels"):
		if err := z.readLabels("labels", d); err != nil {
			return err
		}
	}
	return z.readSplit(d, "idx_train", "idx_val", "idx_test")
}

// writeNPZ writes d's adjacency in the scipy.sparse.save_npz layout
// (stored, not deflated: it loads faster and scipy reads both), plus the
// extra arrays named above for features, labels and split.
func writeNPZ(w io.Writer, d *Dataset) error {
	zw := zip.NewWriter(w)
	a := d.Adj
	member := func(name string, write func(io.Writer) error) error {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		return write(fw)
	}
	arrays := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"indices", func(w io.Writer) error { return writeNPY(w, []int64{int64(len(a.Indices))}, a.Indices) }},
		{"indptr", func(w io.Writer) error { return writeNPY(w, []int64{int64(len(a.Indptr))}, a.Indptr) }},
		{"format", func(w io.Writer) error { return writeNPYString(w, "csr") }},
		{"shape", func(w io.Writer) error { return writeNPY(w, []int64{2}, []int64{int64(a.Rows), int64(a.Cols)}) }},
		{"data", func(w io.Writer) error { return writeNPY(w, []int64{int64(len(a.Data))}, a.Data) }},
	}
	if d.Features != nil {
		arrays = append(arrays, struct {
			name  string
			write func(io.Writer) error
		}{npzFeatures, func(w io.Writer) error {
			return writeNPY(w, []int64{int64(d.NumNodes()), int64(d.NumFeatures)}, d.Features)
		}})
	}
	for _, x := range []struct {
		name string
		v    []int32
	}{{npzLabels, d.Labels}, {npzTrain, d.Train}, {npzValid, d.Valid}, {npzTest, d.Test}} {
		if x.v == nil {
			continue
		}
		arrays = append(arrays, struct {
			name  string
			write func(io.Writer) error
		}{x.name, func(w io.Writer) error { return writeNPY(w, []int64{int64(len(x.v))}, x.v) }})
	}
	if r := d.Relabel; r != nil {
		spec := r.Method
		if r.Method == RelabelRandom {
			spec += ":" + strconv.FormatUint(r.Seed, 10)
		}
		arrays = append(arrays, []struct {
			name  string
			write func(io.Writer) error
		}{
			{npzOrigIDs, func(w io.Writer) error { return writeNPY(w, []int64{int64(len(r.OrigIDs))}, r.OrigIDs) }},
			{npzRelabel, func(w io.Writer) error { return writeNPYString(w, spec) }},
		}...)
	}
	arrays = append(arrays, npzExtraMembers(d)...)
	for _, m := range arrays {
		if err := member(m.name, m.write); err != nil {
			return fmt.Errorf("array %q: %w", m.name, err)
		}
	}
	return zw.Close()
}
