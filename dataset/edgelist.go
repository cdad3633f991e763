package dataset

// Text graph readers: edge lists (one edge "u v" or "u v w" per line,
// separated by whitespace or commas, 0-based ids, '#' and '%' comment lines)
// and Matrix Market coordinate files (1-based, with a header and a size line).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
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

// parseID parses a decimal vertex id in [0, 2^31-1) (the bound leaves n =
// max id + 1 representable).
func parseID(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
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

// loadEdgeList reads an edge list file. An edge "u v" is a message u -> v:
// it becomes entry (v, u) of Adj, whose row v lists v's in-neighbours. The
// vertex count is the largest id + 1. With a third column the graph is
// weighted and duplicate edges sum; without, duplicates are dropped.
func loadEdgeList(ctx context.Context, path string, threads int) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readEdgeList(ctx, path, f, threads)
}

func readEdgeList(ctx context.Context, name string, r io.Reader, threads int) (*Dataset, error) {
	lr := newLineReader(name, r)
	var src, dst []int32
	var vals []float32
	weighted := -1 // unknown until the first edge
	maxID := int64(-1)
	var fs [][]byte
	for {
		b, err := lr.next(true)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if len(src)%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		fs = fields(b, fs)
		if len(fs) != 2 && len(fs) != 3 {
			return nil, lr.errf("%d fields, want 2 (u v) or 3 (u v weight)", len(fs))
		}
		if weighted < 0 {
			weighted = len(fs) - 2
		} else if len(fs)-2 != weighted {
			return nil, lr.errf("%d fields, but earlier lines have %d", len(fs), weighted+2)
		}
		var id [2]int64
		for k := range 2 {
			v, ok := parseID(fs[k])
			if !ok || v >= math.MaxInt32 {
				return nil, lr.errf("vertex id %q is not an integer in [0, %d)", truncate(string(fs[k]), 40), math.MaxInt32)
			}
			id[k] = v
			maxID = max(maxID, v)
		}
		src, dst = append(src, int32(id[0])), append(dst, int32(id[1]))
		if weighted == 1 {
			w, ok := parseValue(fs[2])
			if !ok {
				return nil, lr.errf("weight %q is not a finite number", truncate(string(fs[2]), 40))
			}
			vals = append(vals, w)
		}
	}
	n := int(maxID + 1)
	if err := checkNodeCount(name, int64(n), int64(len(src))); err != nil {
		return nil, err
	}
	opt := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Threads: threads}
	if weighted == 1 {
		opt.Duplicates = spgemm.SumDuplicates
	}
	adj, err := spgemm.FromCOO(n, n, dst, src, vals, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Dataset{Adj: adj, Weighted: weighted == 1}, nil
}

// loadMatrixMarket reads a Matrix Market coordinate file (see readMatrixMarket).
func loadMatrixMarket(ctx context.Context, path string, threads int) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readMatrixMarket(ctx, path, f, st.Size(), threads)
}

// readMatrixMarket reads "%%MatrixMarket matrix coordinate F S" with field
// F real, integer or pattern and symmetry S general or symmetric. The matrix
// is the adjacency as stored (row i, column j); a symmetric file's entries
// are mirrored. size bounds the preallocation (-1: unknown).
func readMatrixMarket(ctx context.Context, name string, r io.Reader, size int64, threads int) (*Dataset, error) {
	lr := newLineReader(name, r)
	head, err := lr.next(false)
	if err != nil {
		return nil, err
	}
	if head == nil {
		return nil, fmt.Errorf("%s: %w: empty file", name, ErrFormat)
	}
	h := bytes.Fields(bytes.ToLower(head))
	if len(h) != 5 || string(h[0]) != "%%matrixmarket" || string(h[1]) != "matrix" {
		return nil, lr.errf("header %q, want %%%%MatrixMarket matrix coordinate <field> <symmetry>", truncate(string(head), 80))
	}
	if string(h[2]) != "coordinate" {
		return nil, lr.errf("format %q: only sparse (coordinate) matrices are supported", h[2])
	}
	field, symmetry := string(h[3]), string(h[4])
	if field != "real" && field != "integer" && field != "pattern" {
		return nil, lr.errf("field %q: want real, integer or pattern", field)
	}
	if symmetry != "general" && symmetry != "symmetric" {
		return nil, lr.errf("symmetry %q: want general or symmetric", symmetry)
	}
	b, err := lr.next(true)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("%s: %w: no size line", name, ErrFormat)
	}
	fs := fields(b, nil)
	if len(fs) != 3 {
		return nil, lr.errf("size line %q, want: rows cols entries", truncate(string(b), 80))
	}
	var dims [3]int64
	for k := range 3 {
		v, ok := parseID(fs[k])
		if !ok {
			return nil, lr.errf("size %q is not a non-negative integer", truncate(string(fs[k]), 40))
		}
		dims[k] = v
	}
	rows, cols, nnz := dims[0], dims[1], dims[2]
	if rows > math.MaxInt32 || cols > math.MaxInt32 {
		return nil, lr.errf("%d x %d exceeds the int32 vertex id range", rows, cols)
	}
	if rows != cols {
		return nil, lr.errf("matrix is %d x %d; an adjacency must be square", rows, cols)
	}
	pattern := field == "pattern"
	// Each entry takes at least 4 bytes ("1 1\n"), which bounds an honest nnz.
	prealloc := nnz
	if size >= 0 {
		prealloc = min(prealloc, size/4)
	}
	src, dst := make([]int32, 0, prealloc), make([]int32, 0, prealloc)
	var vals []float32
	if !pattern {
		vals = make([]float32, 0, prealloc)
	}
	for int64(len(src)) < nnz {
		b, err := lr.next(true)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return nil, fmt.Errorf("%s: %w: truncated: %d of %d entries", name, ErrFormat, len(src), nnz)
		}
		if len(src)%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		fs = fields(b, fs)
		want := 3
		if pattern {
			want = 2
		}
		if len(fs) != want {
			return nil, lr.errf("%d fields, want %d for a %s matrix", len(fs), want, field)
		}
		var id [2]int64
		for k := range 2 {
			v, ok := parseID(fs[k])
			if !ok || v < 1 || v > dims[k] {
				return nil, lr.errf("index %q outside [1, %d]", truncate(string(fs[k]), 40), dims[k])
			}
			id[k] = v - 1
		}
		src, dst = append(src, int32(id[0])), append(dst, int32(id[1]))
		if !pattern {
			v, ok := parseValue(fs[2])
			if !ok || field == "integer" && v != float32(math.Trunc(float64(v))) {
				return nil, lr.errf("value %q is not a finite %s", truncate(string(fs[2]), 40), field)
			}
			vals = append(vals, v)
		}
	}
	if err := checkNodeCount(name, rows, nnz); err != nil {
		return nil, err
	}
	if b, err := lr.next(true); err != nil || b != nil {
		if err != nil {
			return nil, err
		}
		return nil, lr.errf("more entries than the %d the size line declares", nnz)
	}
	opt := &spgemm.COOOptions{Symmetrize: symmetry == "symmetric", Threads: threads}
	if pattern {
		opt.Duplicates = spgemm.DropDuplicates
	}
	adj, err := spgemm.FromCOO(int(rows), int(cols), src, dst, vals, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Dataset{Adj: adj, Weighted: !pattern}, nil
}
