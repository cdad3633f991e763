package dataset

// Writing an R-MAT graph as a native file by row blocks, from one process
// or from several that write one file together (the MPI ranks of
// `bulksample gen rmat` under mpirun): each generates its block of rows
// (rmatBlock), the checksums of the blocks' pieces are combined
// (crc32Combine) into the arrays' so that every process can lay the header
// out alone, and each writes its pieces at their offsets. The file is the
// one Save writes of RMAT's graph, byte for byte, whatever the number of
// processes or threads.

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/bulksample/bulksample/internal/atomicfile"
)

// BlockComm is what a generation and write by several processes needs of
// them: their number, this one's rank, and three collectives.
// cmd/bulksample implements it over dist.Comm; nil means one process.
type BlockComm interface {
	Rank() int
	Size() int
	// AllgatherInt64 returns every rank's v, concatenated in rank order;
	// every rank gives the same length.
	AllgatherInt64(ctx context.Context, v []int64) ([]int64, error)
	// AllgathervInt32 returns every rank's v, concatenated in rank order;
	// counts[r] is rank r's length.
	AllgathervInt32(ctx context.Context, v []int32, counts []int) ([]int32, error)
	// AlltoallvInt64 sends send[off_d : off_d+counts[d]] to rank d, off_d
	// the sum of the counts before d, and returns what the ranks sent to
	// this one, concatenated in rank order, in recv's array when it is
	// large enough (a generation's batches reuse one buffer).
	AlltoallvInt64(ctx context.Context, send []int64, counts []int, recv []int64) ([]int64, error)
}

// oneProcess is the BlockComm of a single process.
type oneProcess struct{}

func (oneProcess) Rank() int { return 0 }
func (oneProcess) Size() int { return 1 }
func (oneProcess) AllgatherInt64(_ context.Context, v []int64) ([]int64, error) {
	return slices.Clone(v), nil
}
func (oneProcess) AllgathervInt32(_ context.Context, v []int32, _ []int) ([]int32, error) {
	return v, nil
}
func (oneProcess) AlltoallvInt64(_ context.Context, send []int64, _ []int, recv []int64) ([]int64, error) {
	return append(recv[:0], send...), nil
}

// RMATFile is one process's part of an R-MAT graph on its way to a native
// file: its block of rows, the contiguous range [Lo, Hi) of the ranks'
// equal cuts (i·n/p, as dist.BlockRange cuts).
type RMATFile struct {
	c       BlockComm
	n       int
	lo, hi  int
	rows    *rmatRows
	relabel *Relabelling // OrigIDs: this block's rows only
	base    int64        // entries of the blocks before this one
	total   int64
	blocks  []int64 // every block's entries
	// beforePiece, when not nil, is called before this process writes its
	// piece of the array named, and a non-nil error ends the write: a
	// test's way to stop a rank midway.
	beforePiece func(array string) error
}

// GenerateRMATFile generates this process's block of the rows of
// RMAT(opt), relabelled by relabel when relabel.Method is not "" (the graph
// Relabel(RMAT(opt), relabel) returns; relabel.Threads is ignored, opt's
// is used). With the degree relabelling every process first builds its
// block of the unrelabelled graph for the degrees, which are gathered.
// Every process of c (nil: this one alone) must call it with the same
// arguments. It holds the block's column ids (4 bytes per entry, and per
// duplicate entry while it is built), 12 bytes per row of the block, a
// quarter of that again in batch buffers while it is built, and 4 bytes per
// vertex of the whole graph (the permutation; 16 while a relabelling is
// computed), not the values. Each process generates every edge twice (four
// times with the degree relabelling) and keeps those of its rows: p
// processes spend p times the work of one, in a p-th of the memory each.
func GenerateRMATFile(ctx context.Context, opt RMATOptions, relabel RelabelOptions, c BlockComm) (*RMATFile, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if c == nil {
		c = oneProcess{}
	}
	n := 1 << o.Scale
	p, r := c.Size(), c.Rank()
	f := &RMATFile{c: c, n: n, lo: int(int64(r) * int64(n) / int64(p)), hi: int(int64(r+1) * int64(n) / int64(p))}
	ids := randomPermutation(n, o.Seed, streamRMATPerm)
	var order []int32
	switch relabel.Method {
	case "":
	case RelabelRandom:
		order = RandomOrder(n, relabel.Seed)
	case RelabelDegree:
		if relabel.Seed != 0 {
			return nil, fmt.Errorf("dataset: relabel Seed %d with method %q, which draws nothing", relabel.Seed, relabel.Method)
		}
		b, err := rmatBlock(ctx, o, ids, f.lo, f.hi, c)
		if err != nil {
			return nil, err
		}
		deg := b.rowLengths()
		// The block is garbage now, and as large as the one built next:
		// give it back rather than let the heap hold both.
		debug.FreeOSMemory()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		counts := make([]int, p)
		for i := range counts {
			counts[i] = int(int64(i+1)*int64(n)/int64(p) - int64(i)*int64(n)/int64(p))
		}
		all, err := c.AllgathervInt32(ctx, deg, counts)
		if err != nil {
			return nil, fmt.Errorf("dataset: gathering the degrees: %w", err)
		}
		order = DegreeOrder(all, o.Threads)
	default:
		return nil, fmt.Errorf("dataset: relabel Method %q, want \"\", %q or %q", relabel.Method, RelabelRandom, RelabelDegree)
	}
	if order != nil {
		inv := inverse(order)
		for u, v := range ids {
			ids[u] = inv[v]
		}
		f.relabel = &Relabelling{Method: relabel.Method, Seed: relabel.Seed, OrigIDs: slices.Clone(order[f.lo:f.hi])}
		order = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.rows, err = rmatBlock(ctx, o, ids, f.lo, f.hi, c); err != nil {
		return nil, err
	}
	if f.blocks, err = c.AllgatherInt64(ctx, []int64{f.rows.nnz()}); err != nil {
		return nil, fmt.Errorf("dataset: gathering the block sizes: %w", err)
	}
	for i, e := range f.blocks {
		if i < r {
			f.base += e
		}
		f.total += e
	}
	return f, nil
}

// Nodes returns the graph's vertex count.
func (f *RMATFile) Nodes() int { return f.n }

// Edges returns the graph's stored entries, over every block.
func (f *RMATFile) Edges() int64 { return f.total }

// BlockEdges returns every block's stored entries, in rank order.
func (f *RMATFile) BlockEdges() []int64 { return slices.Clone(f.blocks) }

// rmatPieces are the arrays of the file and this block's piece of each:
// its bytes' offset within the array, its length, its checksum and how to
// write it.
type rmatPiece struct {
	off, size int64
	crc       uint32
	write     func(w io.Writer) error
}

// pieces returns this block's piece of each array (indptr, indices, data
// and, relabelled, orig_ids): the indptr piece is entries [lo, hi) of the
// global row offsets, and the last block's also holds entry n.
func (f *RMATFile) pieces() []rmatPiece {
	rows := f.rows
	nr := int64(f.hi - f.lo)
	indptr := func(w io.Writer) error {
		buf := make([]int64, 0, 1<<16)
		end := len(rows.indptr) - 1
		if f.hi == f.n {
			end++
		}
		for i := 0; i < end; i += cap(buf) {
			buf = buf[:0]
			for _, x := range rows.indptr[i:min(i+cap(buf), end)] {
				buf = append(buf, f.base+x)
			}
			if err := writeLE(w, buf); err != nil {
				return err
			}
		}
		return nil
	}
	ones := func(w io.Writer) error {
		buf := make([]float32, 1<<16)
		for i := range buf {
			buf[i] = 1
		}
		for left := rows.nnz(); left > 0; left -= int64(len(buf)) {
			if err := writeLE(w, buf[:min(left, int64(len(buf)))]); err != nil {
				return err
			}
		}
		return nil
	}
	idx := rows.indices[:rows.nnz()]
	ps := []rmatPiece{
		{off: 8 * int64(f.lo), size: 8 * nr, write: indptr},
		{off: 4 * f.base, size: 4 * rows.nnz(), write: func(w io.Writer) error { return writeLE(w, idx) }},
		{off: 4 * f.base, size: 4 * rows.nnz(), write: ones},
	}
	if f.hi == f.n {
		ps[0].size += 8
	}
	if f.relabel != nil {
		orig := f.relabel.OrigIDs
		ps = append(ps, rmatPiece{off: 4 * int64(f.lo), size: 4 * nr, write: func(w io.Writer) error { return writeLE(w, orig) }})
	}
	for i := range ps {
		h := crc32.New(castagnoli)
		ps[i].write(h) // a hash.Hash never fails a write
		ps[i].crc = h.Sum32()
	}
	return ps
}

// Write writes the graph to path in the native format with the header's
// name: every process of the BlockComm calls it, and each writes its
// block's pieces at their offsets of one file, which rank 0 creates under a
// temporary name in path's folder (which every process must see: a folder
// on a shared file system for processes on several machines) and renames
// to path once every process has written and synced its pieces. Rank 0's
// error names the rank that failed.
//
// The file is marked complete only then: until every process has reported
// its pieces written and synced, it begins with nativeMagicUnfinished,
// which readers refuse, and rank 0 writes the real magic last, syncs and
// renames. Every process that fails removes the temporary file, and so
// does every process whose ctx is done (a signal: SIGTERM from mpirun when
// a rank died, or scancel), even while it waits in a collective, which a
// signal cannot interrupt. Rank 0 holds the temporary file locked
// (atomicfile.CreateTemp) until it is renamed or removed, and removes the
// temporaries that dead writers of path left (atomicfile.RemoveStale)
// before it creates its own: a file of a write in progress is spared.
func (f *RMATFile) Write(ctx context.Context, path, name string) (err error) {
	c := f.c
	ps := f.pieces()
	sums := make([]int64, len(ps))
	for i, x := range ps {
		sums[i] = int64(x.crc)
	}
	all, err := c.AllgatherInt64(ctx, sums)
	if err != nil {
		return fmt.Errorf("write %s: gathering the checksums: %w", path, err)
	}
	// Every process lays the file out alone, from the gathered checksums
	// and block sizes.
	p := c.Size()
	arrays := []nativeOut{{name: "indptr", dtype: "int64", count: int64(f.n) + 1},
		{name: "indices", dtype: "int32", count: f.total}, {name: "data", dtype: "float32", count: f.total}}
	if f.relabel != nil {
		arrays = append(arrays, nativeOut{name: "orig_ids", dtype: "int32", count: int64(f.n)})
	}
	combined := make([]uint32, len(arrays))
	for r := range p {
		lo, hi := int64(r)*int64(f.n)/int64(p), int64(r+1)*int64(f.n)/int64(p)
		sizes := []int64{8 * (hi - lo), 4 * f.blocks[r], 4 * f.blocks[r], 4 * (hi - lo)}
		if r == p-1 {
			sizes[0] += 8
		}
		for i := range arrays {
			combined[i] = crc32Combine(combined[i], uint32(all[r*len(arrays)+i]), sizes[i])
		}
	}
	h := newNativeHeader(name, int64(f.n), f.total, false, 0, 0, f.relabel)
	prefix, err := layoutNative(&h, arrays, combined)
	if err != nil {
		return err
	}
	last := h.Arrays[len(h.Arrays)-1]
	size := last.Offset + last.Count*dtypeSize(last.Dtype)

	// Rank 0 creates the temporary file and says under which name.
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var file *os.File // rank 0's, locked
	var token uint64
	var created error
	if c.Rank() == 0 {
		file, token, created = createUnfinished(ctx, dir, base, size, prefix)
	}
	hello, err := c.AllgatherInt64(ctx, []int64{int64(token), b2i(created == nil)})
	if err != nil {
		if file != nil {
			os.Remove(file.Name())
			file.Close()
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := atomicfile.TempName(dir, base, uint64(hello[0]))
	// From here on, every way out but the rename removes tmp.
	renamed := false
	stop := context.AfterFunc(ctx, func() { os.Remove(tmp) })
	defer func() {
		stop()
		if !renamed {
			os.Remove(tmp)
		}
		if file != nil {
			file.Close()
		}
	}()
	if hello[1] == 0 {
		if created != nil {
			return fmt.Errorf("write %s: %w", path, created)
		}
		return fmt.Errorf("write %s: rank 0 could not create it", path)
	}
	werr := f.writePieces(ctx, tmp, h, ps)
	oks, err := c.AllgatherInt64(ctx, []int64{b2i(werr == nil)})
	if err != nil {
		if werr != nil {
			err = werr // the cause; the collective failed after it
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	failed := slices.Index(oks, 0)
	if c.Rank() != 0 {
		// Rank 0 completes and renames the file when every rank wrote.
		renamed = failed < 0
		if werr != nil {
			return fmt.Errorf("write %s: %w", path, werr)
		}
		return nil
	}
	if failed >= 0 {
		if werr != nil {
			return fmt.Errorf("write %s: %w", path, werr)
		}
		return fmt.Errorf("write %s: rank %d could not write its rows into %s (is the folder shared by every rank?)", path, failed, tmp)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Every part is written and synced: mark the file complete.
	if _, err := file.WriteAt([]byte(nativeMagic), 0); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := file.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync folder %s: %w", path, dir, err)
	}
	return nil
}

// writePieces writes this block's pieces into the file tmp, laid out by h,
// and syncs it.
func (f *RMATFile) writePieces(ctx context.Context, tmp string, h nativeHeader, ps []rmatPiece) (err error) {
	file, err := os.OpenFile(tmp, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}()
	for i, x := range ps {
		if f.beforePiece != nil {
			if err := f.beforePiece(h.Arrays[i].Name); err != nil {
				return err
			}
		}
		w := &offsetWriter{ctx: ctx, f: file, off: h.Arrays[i].Offset + x.off}
		if err := x.write(w); err != nil {
			return fmt.Errorf("array %q: %w", h.Arrays[i].Name, err)
		}
		if w.off != h.Arrays[i].Offset+x.off+x.size {
			return fmt.Errorf("array %q: wrote %d bytes of a %d-byte piece", h.Arrays[i].Name, w.off-h.Arrays[i].Offset-x.off, x.size)
		}
	}
	return file.Sync()
}

// offsetWriter writes to f at off, advancing it, and fails with ctx's
// error once ctx is done.
type offsetWriter struct {
	ctx context.Context
	f   *os.File
	off int64
}

func (w *offsetWriter) Write(b []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := w.f.WriteAt(b, w.off)
	w.off += int64(n)
	return n, err
}

// createUnfinished removes the temporaries of base in dir that no writer
// holds, then creates a new one of size bytes, locked (atomicfile.CreateTemp),
// with prefix at its start under the magic nativeMagicUnfinished (the rest
// zeros, which the writers fill), and returns it open with its token.
func createUnfinished(ctx context.Context, dir, base string, size int64, prefix []byte) (*os.File, uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	_, _ = atomicfile.RemoveStale(dir, base) // best effort: a leftover it cannot remove costs only space
	file, token, err := atomicfile.CreateTemp(dir, base)
	if err != nil {
		return nil, 0, err
	}
	head := slices.Clone(prefix)
	copy(head, nativeMagicUnfinished)
	_, err = file.WriteAt(head, 0)
	if err == nil {
		err = file.Truncate(size)
	}
	if err != nil {
		os.Remove(file.Name())
		file.Close()
		return nil, 0, err
	}
	return file, token, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
