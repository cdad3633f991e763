package dataset

// Text graph readers: the line and field parsing that edge lists
// (edgetext.go), METIS files and OGB's CSV files share, and Matrix Market
// coordinate files (1-based, with a header and a size line).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bulksample/bulksample/spgemm"
)

// maxLine bounds one text line; longer lines are an error, not an allocation.
const maxLine = 1 << 20

// lineReader yields the non-comment lines of a text file, with line numbers.
type lineReader struct {
	name string
	sc   *bufio.Scanner
	line int
}

func newLineReader(name string, r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return &lineReader{name: name, sc: sc}
}

// next returns the next line that is not blank (and, with skipComments,
// does not start with '#' or '%'), or nil at the end.
func (l *lineReader) next(skipComments bool) ([]byte, error) {
	for l.sc.Scan() {
		l.line++
		b := bytes.TrimSpace(l.sc.Bytes())
		if len(b) == 0 || skipComments && (b[0] == '#' || b[0] == '%') {
			continue
		}
		return b, nil
	}
	if err := l.sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("%s: line %d: %w: longer than %d bytes", l.name, l.line+1, ErrFormat, maxLine)
		}
		return nil, fmt.Errorf("%s: after line %d: %w", l.name, l.line, err)
	}
	return nil, nil
}

func (l *lineReader) errf(format string, a ...any) error {
	return fmt.Errorf("%s: line %d: %w: %s", l.name, l.line, ErrFormat, fmt.Sprintf(format, a...))
}

// fields splits b at runs of spaces, tabs and commas into dst.
func fields(b []byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(b) {
		for i < len(b) && isSep(b[i]) {
			i++
		}
		j := i
		for j < len(b) && !isSep(b[j]) {
			j++
		}
		if j > i {
			dst = append(dst, b[i:j])
		}
		i = j
	}
	return dst
}

func isSep(c byte) bool { return c == ' ' || c == '\t' || c == ',' || c == '\r' }

// parseID parses a non-negative decimal integer that fits int64.
func parseID(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' || v > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parseValue parses an edge weight.
func parseValue(b []byte) (float32, bool) {
	v, err := strconv.ParseFloat(string(b), 32)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return float32(v), true
}

// checkNodeCount rejects a vertex count far beyond what the edges can
// touch: the row offsets alone take 8 bytes per vertex, so a corrupt or
// sparse-id file could otherwise make us allocate gigabytes for a few edges.
// Up to 2^20 vertices, or 64 per edge, pass.
func checkNodeCount(name string, n, edges int64) error {
	if n > 1<<20 && n > 64*edges {
		return fmt.Errorf("%s: %w: %d vertices for only %d edges; ids must be dense and 0-based (relabel the vertices)",
			name, ErrFormat, n, edges)
	}
	return nil
}

// The readers build the CSR like the OGB readers (see ogb.go): the entries
// are streamed through a spgemm.CSRBuilder, ogbChunk at a time, once to
// count the entries of every row and once to place them, so a load holds
// the final CSR, 8 bytes per vertex and a chunk of ids, never a COO copy of
// the edges. A Matrix Market file declares its size, so it is parsed twice;
// an edge list's vertex count is the number of its distinct ids, which a
// first pass has to find before the builder exists, so it is parsed three
// times (edgetext.go). Both read
// regular files (io.ReadSeeker); Load accepts neither stdin nor compressed
// text, so no one-pass fallback is needed.

// rewind seeks r to its start for another pass.
func rewind(name string, r io.Seeker) error {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: rewinding for the next pass: %w", name, err)
	}
	return nil
}

// loadMatrixMarket reads a Matrix Market coordinate file (see readMatrixMarket).
func loadMatrixMarket(ctx context.Context, path string, threads int) (*Dataset, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readMatrixMarket(ctx, path, f, size, threads, ogbChunk)
}

// mmHeader is what a Matrix Market file's first lines declare.
type mmHeader struct {
	field, symmetry string
	dims            [3]int64 // rows, cols, entries
}

// readMMHeader reads the header and size lines.
func readMMHeader(name string, lr *lineReader) (mmHeader, error) {
	var h mmHeader
	head, err := lr.next(false)
	if err != nil {
		return h, err
	}
	if head == nil {
		return h, fmt.Errorf("%s: %w: empty file", name, ErrFormat)
	}
	f := bytes.Fields(bytes.ToLower(head))
	if len(f) != 5 || string(f[0]) != "%%matrixmarket" || string(f[1]) != "matrix" {
		return h, lr.errf("header %q, want %%%%MatrixMarket matrix coordinate <field> <symmetry>", truncate(string(head), 80))
	}
	if string(f[2]) != "coordinate" {
		return h, lr.errf("format %q: only sparse (coordinate) matrices are supported", f[2])
	}
	h.field, h.symmetry = string(f[3]), string(f[4])
	if h.field != "real" && h.field != "integer" && h.field != "pattern" {
		return h, lr.errf("field %q: want real, integer or pattern", h.field)
	}
	if h.symmetry != "general" && h.symmetry != "symmetric" {
		return h, lr.errf("symmetry %q: want general or symmetric", h.symmetry)
	}
	b, err := lr.next(true)
	if err != nil {
		return h, err
	}
	if b == nil {
		return h, fmt.Errorf("%s: %w: no size line", name, ErrFormat)
	}
	fs := fields(b, nil)
	if len(fs) != 3 {
		return h, lr.errf("size line %q, want: rows cols entries", truncate(string(b), 80))
	}
	for k := range 3 {
		v, ok := parseID(fs[k])
		if !ok {
			return h, lr.errf("size %q is not a non-negative integer", truncate(string(fs[k]), 40))
		}
		h.dims[k] = v
	}
	rows, cols := h.dims[0], h.dims[1]
	if rows > math.MaxInt32 || cols > math.MaxInt32 {
		return h, lr.errf("%d x %d exceeds the int32 vertex id range", rows, cols)
	}
	if rows != cols {
		return h, lr.errf("matrix is %d x %d; an adjacency must be square", rows, cols)
	}
	return h, nil
}

// readMatrixMarket reads "%%MatrixMarket matrix coordinate F S" with field
// F real, integer or pattern and symmetry S general or symmetric, in two
// passes with chunks of at most chunk entries. The matrix is the adjacency
// as stored (row i, column j); a symmetric file's entries are mirrored. size
// is the file's size in bytes (-1: unknown), which bounds an honest entry
// count.
func readMatrixMarket(ctx context.Context, name string, r io.ReadSeeker, size int64, threads int, chunk int64) (*Dataset, error) {
	h, err := readMMHeader(name, newLineReader(name, r))
	if err != nil {
		return nil, err
	}
	rows, nnz := h.dims[0], h.dims[2]
	// Each entry takes at least 4 bytes ("1 1\n"), which bounds an honest
	// nnz before the builder allocates its row offsets.
	entries := nnz
	if size >= 0 {
		entries = min(entries, size/4)
	}
	if err := checkNodeCount(name, rows, entries); err != nil {
		return nil, err
	}
	pattern := h.field == "pattern"
	opt := &spgemm.COOOptions{Symmetrize: h.symmetry == "symmetric", Threads: threads}
	if pattern {
		opt.Duplicates = spgemm.DropDuplicates
	}
	adj, err := buildCSR(name, int(rows), opt, func(_ int, emit func(rows, cols []int32, vals []float32) error) error {
		if err := rewind(name, r); err != nil {
			return err
		}
		return readMMEntries(ctx, name, r, h, min(chunk, entries), emit)
	})
	if err != nil {
		return nil, err
	}
	return &Dataset{Adj: adj, Weighted: !pattern}, nil
}

// readMMEntries parses the Matrix Market file r from its start, which must
// have header h, and hands its entries to fn in chunks of at most chunk, in
// order, on another goroutine while it parses the next.
func readMMEntries(ctx context.Context, name string, r io.Reader, h mmHeader, chunk int64, fn func(src, dst []int32, vals []float32) error) (err error) {
	lr := newLineReader(name, r)
	if again, err := readMMHeader(name, lr); err != nil || again != h {
		if err != nil {
			return err
		}
		return fmt.Errorf("%s: %w: the header changed between passes", name, ErrFormat)
	}
	pattern := h.field == "pattern"
	pipe := newWeightedChunkPipe(max(chunk, 1), !pattern, fn)
	defer func() {
		if werr := pipe.wait(); err == nil && werr != nil {
			err = fmt.Errorf("%s: %w", name, werr)
		}
	}()
	src, dst := pipe.buffers()
	vals := pipe.values()
	nnz := h.dims[2]
	var fs [][]byte
	var k int64 // entries read
	j := 0      // entries in the buffers
	for k < nnz {
		b, err := lr.next(true)
		if err != nil {
			return err
		}
		if b == nil {
			return fmt.Errorf("%s: %w: truncated: %d of %d entries", name, ErrFormat, k, nnz)
		}
		fs = fields(b, fs)
		want := 3
		if pattern {
			want = 2
		}
		if len(fs) != want {
			return lr.errf("%d fields, want %d for a %s matrix", len(fs), want, h.field)
		}
		for i, ids := range [2][]int32{src, dst} {
			v, ok := parseID(fs[i])
			if !ok || v < 1 || v > h.dims[i] {
				return lr.errf("index %q outside [1, %d]", truncate(string(fs[i]), 40), h.dims[i])
			}
			ids[j] = int32(v - 1)
		}
		if !pattern {
			v, ok := parseValue(fs[2])
			if !ok || h.field == "integer" && v != float32(math.Trunc(float64(v))) {
				return lr.errf("value %q is not a finite %s", truncate(string(fs[2]), 40), h.field)
			}
			vals[j] = v
		}
		k++
		if j++; j == len(src) {
			if err := pipe.send(j); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			src, dst = pipe.buffers()
			vals = pipe.values()
			j = 0
		}
	}
	if b, err := lr.next(true); err != nil || b != nil {
		if err != nil {
			return err
		}
		return lr.errf("more entries than the %d the size line declares", nnz)
	}
	if j > 0 {
		if err := pipe.send(j); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
