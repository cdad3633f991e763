package dataset

// OGB node-property folders, as OGB's downloader unpacks them:
//
//	CSV flavour (ogbn-products, ogbn-arxiv):
//	  raw/edge.csv.gz          one "src,dst" line per edge
//	  raw/num-node-list.csv.gz the node count
//	  raw/num-edge-list.csv.gz the edge count
//	  raw/node-feat.csv.gz     optional, one line of comma-separated floats per node
//	  raw/node-label.csv.gz    optional, one label per line (nan = unlabelled)
//	binary flavour (ogbn-papers100M):
//	  raw/data.npz             edge_index (2 x E ints), num_nodes_list, node_feat (N x F, float32 or float16)
//	  raw/node-label.npz       optional, node_label (N or N x 1, NaN = unlabelled)
//	split/<name>/{train,valid,test}.csv.gz  optional, one node id per line
//
// Edge src -> dst becomes entry (dst, src) of Adj (row = the receiving node).
// The edges are streamed twice through a spgemm.CSRBuilder, ogbChunk edges
// at a time: the first pass counts the entries of every row (reverse edges
// included), the second writes each entry into the final arrays, which are
// then sorted and deduplicated row by row in place. A load therefore holds
// the final CSR (plus the slots of dropped duplicates and self loops until
// they are packed away), 8 bytes per node of counters and one chunk of ids;
// never the text, nor a COO copy of the edges. The price is parsing (and
// decompressing) the edges twice.
//
// A row-block load (loadOGBRowBlock, for one rank of a distributed run)
// learns the node count first (num-node-list, num_nodes_list), then keeps
// only the entries of its rows on both passes: it holds the block, not the
// graph. It reads no features, and the labels only when a split must be
// made from them.

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/bulksample/bulksample/spgemm"
)

func isOGBFolder(dir string) bool {
	for _, f := range []string{"edge.csv.gz", "data.npz"} {
		if st, err := os.Stat(filepath.Join(dir, "raw", f)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}

// gzFile is an open .csv.gz file with its compressed size.
type gzFile struct {
	path string
	f    *os.File
	zr   *gzip.Reader
	ra   *readAhead // decompresses zr ahead of the parser
	size int64      // compressed bytes
}

// ogbCSVFiles says what an OGB folder of the CSV flavour holds, for the
// error about a file it lacks.
const ogbCSVFiles = "an OGB node-property folder (CSV flavour, as OGB's download unpacks it) holds raw/edge.csv.gz, " +
	"raw/num-node-list.csv.gz and raw/num-edge-list.csv.gz, and for training raw/node-feat.csv.gz, raw/node-label.csv.gz " +
	"and split/<name>/{train,valid,test}.csv.gz"

// openGz opens the .csv.gz file of an OGB folder; a missing one is an
// error naming it and what such a folder holds (it was the bare "open ...:
// no such file or directory").
func openGz(path string) (*gzFile, error) {
	f, size, err := openSized(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing: %s: %w", path, ogbCSVFiles, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w: not a gzip stream: %w", path, ErrFormat, err)
	}
	return &gzFile{path: path, f: f, zr: zr, ra: newReadAhead(zr, 256<<10, 4), size: size}, nil
}

func (g *gzFile) Close() error { g.ra.Close(); g.zr.Close(); return g.f.Close() }

// maxLines bounds the lines an honest gzip file of this size can hold.
func (g *gzFile) maxLines() int64 { return gzMaxLines(g.size) }

// gzMaxLines bounds the lines of a gzip file of size compressed bytes (a
// deflate stream expands at most ~1032 times; a line has >= 2 bytes).
func gzMaxLines(size int64) int64 { return size*1100/2 + 1024 }

// gzLines reads the lines of a .csv.gz file; errors name the file and line.
type gzLines struct {
	*lineReader
	g *gzFile
}

func openGzLines(path string) (*gzLines, error) {
	g, err := openGz(path)
	if err != nil {
		return nil, err
	}
	return &gzLines{newLineReader(path, g.ra), g}, nil
}

// readCount reads a num-*-list file: one count per graph, summed.
func readCount(path string) (int64, error) {
	l, err := openGzLines(path)
	if err != nil {
		return 0, err
	}
	defer l.g.Close()
	var total int64
	lines := 0
	for {
		b, err := l.next(true)
		if err != nil {
			return 0, err
		}
		if b == nil {
			break
		}
		v, ok := parseID(b)
		if !ok || total+v > 1<<40 {
			return 0, l.errf("count %q is not a non-negative integer", truncate(string(b), 40))
		}
		total += v
		lines++
	}
	if lines == 0 {
		return 0, fmt.Errorf("%s: %w: no count", path, ErrFormat)
	}
	return total, nil
}

// loadOGB reads an OGB node-property folder (see the file comment). It adds
// reverse edges (and drops self loops) while building the CSR when o asks
// for it, or by default for the CSV flavour, as OGB's own loaders do, and
// reports whether it did.
func loadOGB(ctx context.Context, dir string, o *LoadOptions, chunk int64) (d *Dataset, symmetrized bool, err error) {
	d, symmetrized, err = readOGB(ctx, dir, o, chunk, nil)
	if err != nil {
		return nil, false, err
	}
	if err := loadOGBSplit(dir, d.NumNodes(), d); err != nil {
		return nil, false, err
	}
	return d, symmetrized, nil
}

// ogbRows picks the rows [lo, hi) of an n-node graph that a row-block load
// keeps (buildCSRRows checks them); nil means all of them, with the
// features and labels.
type ogbRows func(n int) (lo, hi int)

// readOGB reads the graph of an OGB folder, with its features and labels
// when rows is nil; otherwise only the rows [lo, hi) = rows(n) of the
// adjacency (a (hi-lo) x n CSR), and neither features nor labels.
func readOGB(ctx context.Context, dir string, o *LoadOptions, chunk int64, rows ogbRows) (d *Dataset, symmetrized bool, err error) {
	raw := filepath.Join(dir, "raw")
	binary := fileExists(filepath.Join(raw, "data.npz"))
	coo := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Threads: o.Threads}
	if o.Symmetry == Symmetrize || o.Symmetry == SymmetryDefault && !binary {
		coo.Symmetrize, coo.DropSelfLoops = true, true
	}
	if binary {
		d, err = loadOGBBinary(ctx, raw, coo, o, chunk, rows)
	} else {
		d, err = loadOGBCSV(ctx, raw, coo, o, chunk, rows)
	}
	if err != nil {
		return nil, false, err
	}
	return d, coo.Symmetrize, nil
}

// loadOGBRowBlock reads rows [lo, hi) = rows(n) of the adjacency of an OGB
// folder (see the file comment) and the training split of the whole graph:
// the stored split, or the one o.Split (or, for a labelled folder without
// one, the default) makes, as LoadContext would. NNZ is -1: the entries of
// the whole graph, after duplicates are dropped, are known only to a reader
// of every row.
func loadOGBRowBlock(ctx context.Context, dir string, rows func(n int) (lo, hi int), o *LoadOptions, chunk int64) (*RowBlock, error) {
	var n, lo, hi int
	pick := func(nodes int) (int, int) {
		n = nodes
		lo, hi = rows(n)
		return lo, hi
	}
	progress(o, "loading rows of %s (%s)", dir, FormatOGB)
	d, _, err := readOGB(ctx, dir, o, chunk, pick)
	if err != nil {
		return nil, err
	}
	// The split is the whole graph's: it needs n, and the labels only when
	// it is made rather than stored.
	meta := &Dataset{Adj: &spgemm.CSR{Rows: n, Cols: n}}
	if err := loadOGBSplit(dir, n, meta); err != nil {
		return nil, err
	}
	if o.Split != "" || meta.Train == nil && meta.Valid == nil && meta.Test == nil {
		if err := readOGBLabels(filepath.Join(dir, "raw"), meta); err != nil {
			return nil, err
		}
	}
	if err := applySplit(meta, o.Split, o.Seed); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &RowBlock{N: n, NNZ: -1, Lo: lo, Hi: hi, Adj: d.Adj, Train: meta.Train}, nil
}

func progress(o *LoadOptions, format string, a ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", a...)
	}
}

func loadOGBCSV(ctx context.Context, raw string, coo *spgemm.COOOptions, o *LoadOptions, chunk int64, rows ogbRows) (*Dataset, error) {
	n64, err := readCount(filepath.Join(raw, "num-node-list.csv.gz"))
	if err != nil {
		return nil, err
	}
	m, err := readCount(filepath.Join(raw, "num-edge-list.csv.gz"))
	if err != nil {
		return nil, err
	}
	if n64 > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %w: %d nodes exceed the int32 id range", filepath.Join(raw, "num-node-list.csv.gz"), ErrFormat, n64)
	}
	n := int(n64)
	path := filepath.Join(raw, "edge.csv.gz")
	// The CSR builder allocates 8 bytes per node before it reads an edge:
	// the counts must be plausible for the edge file that is there.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if m > gzMaxLines(st.Size()) {
		return nil, fmt.Errorf("%s: %w: num-edge-list declares %d edges, more than the file can hold", path, ErrFormat, m)
	}
	if err := checkNodeCount(filepath.Join(raw, "num-node-list.csv.gz"), n64, m); err != nil {
		return nil, err
	}
	adj, err := ogbAdjacency(path, n, m, rows, coo, o, func(each func(src, dst []int32) error) error {
		return readEdgeCSV(ctx, path, n64, m, chunk, each)
	})
	if err != nil {
		return nil, err
	}
	d := &Dataset{Name: filepath.Base(filepath.Dir(raw)), Adj: adj}
	if rows != nil {
		return d, nil
	}
	if feat := filepath.Join(raw, "node-feat.csv.gz"); fileExists(feat) {
		progress(o, "reading node features from %s", feat)
		if d.Features, d.NumFeatures, err = readFeatureCSV(ctx, feat, n, 0, n); err != nil {
			return nil, err
		}
	}
	if err := readOGBLabels(raw, d); err != nil {
		return nil, err
	}
	return d, nil
}

// readOGBLabels reads the labels of the folder's flavour, if it has them,
// into d, whose Adj gives the node count.
func readOGBLabels(raw string, d *Dataset) error {
	binary := fileExists(filepath.Join(raw, "data.npz")) // as readOGB decides
	if lab := filepath.Join(raw, "node-label.csv.gz"); !binary && fileExists(lab) {
		var err error
		if d.Labels, err = readLabelCSV(lab, d.NumNodes()); err != nil {
			return err
		}
		d.NumClasses = numClasses(d.Labels)
		return nil
	}
	lp := filepath.Join(raw, "node-label.npz")
	if !binary || !fileExists(lp) {
		return nil
	}
	lz, err := openNPZ(lp)
	if err != nil {
		return err
	}
	defer lz.Close()
	return lz.readLabels("node_label", d)
}

// ogbChunk is the number of edges a streaming reader parses before handing
// them to the CSR builder: 8 MiB of ids, small next to any graph worth
// streaming, large enough to amortise the builder's per-chunk work.
const ogbChunk = 1 << 20

// readEdgeCSV parses the "src,dst" lines of an OGB edge.csv.gz, which must
// hold exactly m edges with ids in [0, n), and calls fn with chunks of at
// most chunk edges, in order, on another goroutine while it parses the next.
func readEdgeCSV(ctx context.Context, path string, n, m, chunk int64, fn func(src, dst []int32) error) (err error) {
	l, err := openGzLines(path)
	if err != nil {
		return err
	}
	defer l.g.Close()
	if m > l.g.maxLines() {
		return fmt.Errorf("%s: %w: num-edge-list declares %d edges, more than the file can hold", path, ErrFormat, m)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pipe := newChunkPipe(max(min(m, chunk), 1), fn)
	defer func() {
		if werr := pipe.wait(); err == nil && werr != nil {
			err = fmt.Errorf("%s: %w", path, werr)
		}
	}()
	src, dst := pipe.buffers()
	var fs [][]byte
	var k int64 // edges read
	j := 0      // edges in the buffers
	for {
		b, err := l.next(true)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if k >= m {
			return l.errf("more edges than the %d of num-edge-list.csv.gz", m)
		}
		fs = fields(b, fs)
		if len(fs) != 2 {
			return l.errf("%d fields, want 2 (src,dst)", len(fs))
		}
		for i, ids := range [2][]int32{src, dst} {
			v, ok := parseID(fs[i])
			if !ok || v >= n {
				return l.errf("node id %q is not an integer in [0, %d)", truncate(string(fs[i]), 40), n)
			}
			ids[j] = int32(v)
		}
		k++
		if j++; j == len(src) {
			if err := pipe.send(j); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			src, dst = pipe.buffers()
			j = 0
		}
	}
	if k != m {
		return fmt.Errorf("%s: %w: truncated: %d edges, num-edge-list.csv.gz declares %d", path, ErrFormat, k, m)
	}
	if j > 0 {
		if err := pipe.send(j); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// readFeatureCSV reads n lines of comma-separated floats, all of one width,
// and returns the rows [lo, hi) of them (every line is read and its width
// checked; only the block's values are parsed and kept) with the width.
func readFeatureCSV(ctx context.Context, path string, n, lo, hi int) ([]float32, int, error) {
	l, err := openGzLines(path)
	if err != nil {
		return nil, 0, err
	}
	defer l.g.Close()
	var feats []float32
	f := 0
	var fs [][]byte
	for v := 0; ; v++ {
		b, err := l.next(true)
		if err != nil {
			return nil, 0, err
		}
		if b == nil {
			if v != n {
				return nil, 0, fmt.Errorf("%s: %w: truncated: %d feature rows for %d nodes", path, ErrFormat, v, n)
			}
			return feats, f, nil
		}
		if v >= n {
			return nil, 0, l.errf("more feature rows than the %d nodes", n)
		}
		if v%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		fs = fields(b, fs)
		if v == 0 {
			f = len(fs)
			// Every value takes at least 2 bytes of text.
			if int64(n)*int64(f) > l.g.size*1100/2+1024 {
				return nil, 0, l.errf("%d nodes x %d features cannot fit in the file", n, f)
			}
			feats = make([]float32, (hi-lo)*f)
		}
		if len(fs) != f {
			return nil, 0, l.errf("%d values, want %d as on the first line", len(fs), f)
		}
		if v < lo || v >= hi {
			continue
		}
		row := feats[(v-lo)*f:][:f]
		for j, s := range fs {
			x, err := strconv.ParseFloat(string(s), 32)
			if err != nil {
				return nil, 0, l.errf("value %d: %q is not a number", j+1, truncate(string(s), 40))
			}
			row[j] = float32(x)
		}
	}
}

// readLabelCSV reads one label per line; "nan" or a negative value means
// unlabelled (-1).
func readLabelCSV(path string, n int) ([]int32, error) {
	l, err := openGzLines(path)
	if err != nil {
		return nil, err
	}
	defer l.g.Close()
	labels := make([]int32, 0, min(int64(n), l.g.maxLines()))
	for {
		b, err := l.next(true)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if len(labels) >= n {
			return nil, l.errf("more labels than the %d nodes", n)
		}
		x, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return nil, l.errf("label %q is not a number", truncate(string(b), 40))
		}
		lv, err := toLabel(int64(len(labels)), 0, x, false)
		if err != nil {
			return nil, l.errf("label %q: %v", truncate(string(b), 40), err)
		}
		labels = append(labels, lv)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("%s: %w: truncated: %d labels for %d nodes", path, ErrFormat, len(labels), n)
	}
	return labels, nil
}

// ogbAdjacency builds the rows [lo, hi) = rows(n) (every row when rows is
// nil) of the adjacency of the OGB graph of n nodes and m edges that read
// streams from path, as (src, dst) pairs: edge src -> dst is entry (dst,
// src). It reads the edges twice (buildCSRRows).
func ogbAdjacency(path string, n int, m int64, rows ogbRows, coo *spgemm.COOOptions, o *LoadOptions, read func(each func(src, dst []int32) error) error) (*spgemm.CSR, error) {
	lo, hi := 0, n
	if rows != nil {
		lo, hi = rows(n)
	}
	return buildCSRRows(path, n, lo, hi, coo, func(pass int, emit func(rows, cols []int32, vals []float32) error) error {
		progress(o, "reading %d edges of %d nodes from %s for rows [%d, %d) (pass %d of 2)", m, n, path, lo, hi, pass+1)
		err := read(func(src, dst []int32) error { return emit(dst, src, nil) })
		if err == nil && pass == 1 {
			progress(o, "sorting the rows of the CSR")
		}
		return err
	})
}

// ogbNodeCount returns the number of nodes of an OGB binary archive: the
// sum of num_nodes_list, which must fit int32 ids.
func (z *npzArchive) ogbNodeCount() (int, error) {
	nodes, err := z.int64s("num_nodes_list")
	if err != nil {
		return 0, err
	}
	var n int64
	for _, v := range nodes {
		if v < 0 || n+v > math.MaxInt32 {
			return 0, z.errf("num_nodes_list", fmt.Errorf("%w: node count outside [0, 2^31-1)", ErrFormat))
		}
		n += v
	}
	return int(n), nil
}

func loadOGBBinary(ctx context.Context, raw string, coo *spgemm.COOOptions, o *LoadOptions, chunk int64, rows ogbRows) (*Dataset, error) {
	path := filepath.Join(raw, "data.npz")
	z, err := openNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	n, err := z.ogbNodeCount()
	if err != nil {
		return nil, err
	}
	n64 := int64(n)
	// The CSR builder allocates 8 bytes per node before it reads an edge:
	// the node count must be plausible for the edges that are there.
	h, err := edgeIndexHeader(z, "edge_index")
	if err != nil {
		return nil, err
	}
	if err := checkNodeCount(z.name, n64, h.shape[1]); err != nil {
		return nil, err
	}
	adj, err := ogbAdjacency(path, n, h.shape[1], rows, coo, o, func(each func(src, dst []int32) error) error {
		return readEdgeIndex(ctx, z, "edge_index", n64, chunk, each)
	})
	if err != nil {
		return nil, err
	}
	d := &Dataset{Name: filepath.Base(filepath.Dir(raw)), Adj: adj}
	if rows != nil {
		return d, nil
	}
	if z.has("node_feat") {
		progress(o, "reading node_feat")
		f, shape, err := readNumeric[float32](z, "node_feat", 2, nil)
		if err != nil {
			return nil, err
		}
		if shape[0] != n64 {
			return nil, z.errf("node_feat", fmt.Errorf("%w: %d rows for %d nodes", ErrFormat, shape[0], n))
		}
		d.Features, d.NumFeatures = f, int(shape[1])
	}
	if err := readOGBLabels(raw, d); err != nil {
		return nil, err
	}
	return d, nil
}

// readEdgeIndex reads member key of z, a 2 x E integer array of node ids in
// [0, n) (row 0 the sources, row 1 the destinations), and calls fn with
// chunks of at most chunk edges. The two rows are read side by side
// through two readers of the member, so only one chunk is ever held.
func readEdgeIndex(ctx context.Context, z *npzArchive, key string, n, chunk int64, fn func(src, dst []int32) error) (err error) {
	if _, err := edgeIndexHeader(z, key); err != nil {
		return err
	}
	rs, h, err := z.open(key)
	if err != nil {
		return err
	}
	defer rs.Close()
	m := h.shape[1]
	if err := checkNodeCount(z.name, n, m); err != nil {
		return err
	}
	rd, _, err := z.open(key)
	if err != nil {
		return err
	}
	defer rd.Close()
	if _, err := io.CopyN(io.Discard, rd, m*int64(h.dtype.size)); err != nil {
		return z.errf(key, fmt.Errorf("%w: reading row 1: %w", ErrFormat, shortRead(err)))
	}
	// ids checks and converts one element; element i of the chunk at
	// element base of the array is element base+i.
	ids := func(base int64) npyConv[int32] {
		return func(i, iv int64, fv float64, isInt bool) (int32, error) {
			v, err := toInt64(base+i, iv, fv, isInt)
			if err == nil && uint64(v) >= uint64(n) {
				err = fmt.Errorf("%w: element %d: node id %d outside [0, %d)", ErrFormat, base+i, v, n)
			}
			return int32(v), err
		}
	}
	c := max(min(m, chunk), 1)
	pipe := newChunkPipe(c, fn)
	defer func() {
		if werr := pipe.wait(); err == nil && werr != nil {
			err = z.errf(key, werr)
		}
	}()
	for off := int64(0); off < m; off += c {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(c, m-off)
		src, dst := pipe.buffers()
		if err := readNPYData(rs, &h, src[:k], ids(off)); err != nil {
			return z.errf(key, err)
		}
		if err := readNPYData(rd, &h, dst[:k], ids(m+off)); err != nil {
			return z.errf(key, err)
		}
		if err := pipe.send(int(k)); err != nil {
			return z.errf(key, err)
		}
	}
	if err := pipe.wait(); err != nil {
		return z.errf(key, err)
	}
	// Reading the member to its end makes the zip reader check its CRC-32.
	return z.finish(key, rd)
}

// edgeIndexHeader returns the .npy header of member key of z after checking
// that it is a 2 x E array.
func edgeIndexHeader(z *npzArchive, key string) (npyHeader, error) {
	rc, h, err := z.open(key)
	if err != nil {
		return npyHeader{}, err
	}
	rc.Close()
	if len(h.shape) != 2 || h.shape[0] != 2 {
		return npyHeader{}, z.errf(key, fmt.Errorf("%w: shape %v, want (2, E)", ErrFormat, h.shape))
	}
	return h, nil
}

// loadOGBSplit reads split/<name>/{train,valid,test}.csv.gz of a folder of
// n nodes into d when the folder has exactly one split.
func loadOGBSplit(dir string, n int, d *Dataset) error {
	entries, err := os.ReadDir(filepath.Join(dir, "split"))
	if err != nil {
		return nil // no split folder: the caller applies the default
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 1 {
		return fmt.Errorf("%s: %w: several splits %v; remove all but one", filepath.Join(dir, "split"), ErrFormat, names)
	}
	sd := filepath.Join(dir, "split", names[0])
	for _, s := range []struct {
		file string
		dst  *[]int32
	}{{"train.csv.gz", &d.Train}, {"valid.csv.gz", &d.Valid}, {"test.csv.gz", &d.Test}} {
		p := filepath.Join(sd, s.file)
		if !fileExists(p) {
			return fmt.Errorf("%s is missing: an OGB split folder (%s) holds train.csv.gz, valid.csv.gz and test.csv.gz: %w", p, sd, fs.ErrNotExist)
		}
		ids, err := readIDList(p, n)
		if err != nil {
			return err
		}
		*s.dst = ids
	}
	return nil
}

// readIDList reads one node id per line, sorted and deduplicated.
func readIDList(path string, n int) ([]int32, error) {
	l, err := openGzLines(path)
	if err != nil {
		return nil, err
	}
	defer l.g.Close()
	var ids []int32
	for {
		b, err := l.next(true)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		v, ok := parseID(b)
		if !ok || v >= int64(n) {
			return nil, l.errf("node id %q is not an integer in [0, %d)", truncate(string(b), 40), n)
		}
		ids = append(ids, int32(v))
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
