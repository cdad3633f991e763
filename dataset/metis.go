package dataset

// METIS graph files (.graph), as partitioners and mesh tools ship them
// (the METIS 5 manual, section 4.1.1): comment lines start with '%'; the
// first other line is the header "n m [fmt [ncon]]", n vertices and m
// undirected edges; then line i (1-based) lists vertex i's neighbours,
// each edge in both endpoints' lines, so the lists hold 2m entries. fmt's
// three digits say whether a line starts with the vertex's size (100)
// and its ncon weights (010), and whether each neighbour is followed by
// the edge's weight (001). A vertex without neighbours has an empty line,
// so blank lines count.
//
// The header gives the sizes, so the file is read once, row by row into
// the final arrays: a load holds the CSR and one line.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// loadMETIS reads a METIS .graph file (see readMETIS).
func loadMETIS(ctx context.Context, path string) (*Dataset, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readMETIS(ctx, path, f, size)
}

// metisHeader is what a METIS file's header line declares.
type metisHeader struct {
	n, m                  int64
	sizes, vwgts, ewgts   bool
	ncon                  int
	fields, perNeighbours int // leading fields of a vertex line; fields per neighbour
}

// parseMETISHeader parses "n m [fmt [ncon]]".
func parseMETISHeader(lr *lineReader, b []byte, size int64) (metisHeader, error) {
	var h metisHeader
	fs := fields(b, nil)
	if len(fs) < 2 || len(fs) > 4 {
		return h, lr.errf("header %q, want: n m [fmt [ncon]]", truncate(string(b), 80))
	}
	var ok bool
	if h.n, ok = parseID(fs[0]); !ok || h.n > math.MaxInt32 {
		return h, lr.errf("vertex count %q is not an integer in [0, 2^31)", truncate(string(fs[0]), 40))
	}
	if h.m, ok = parseID(fs[1]); !ok {
		return h, lr.errf("edge count %q is not a non-negative integer", truncate(string(fs[1]), 40))
	}
	if len(fs) >= 3 {
		code := string(fs[2])
		if len(code) > 3 || len(code) == 0 {
			return h, lr.errf("fmt %q: want up to three digits 0 or 1 (vertex sizes, vertex weights, edge weights)", truncate(code, 40))
		}
		code = fmt.Sprintf("%03s", code)
		for i, c := range code {
			if c != '0' && c != '1' {
				return h, lr.errf("fmt %q: want up to three digits 0 or 1 (vertex sizes, vertex weights, edge weights)", fs[2])
			}
			on := c == '1'
			switch i {
			case 0:
				h.sizes = on
			case 1:
				h.vwgts = on
			case 2:
				h.ewgts = on
			}
		}
	}
	if h.vwgts {
		h.ncon = 1
	}
	if len(fs) == 4 {
		c, ok := parseID(fs[3])
		if !ok || c < 1 || c > 1024 {
			return h, lr.errf("ncon %q: want an integer in [1, 1024]", truncate(string(fs[3]), 40))
		}
		if !h.vwgts {
			return h, lr.errf("ncon %d without vertex weights (fmt %s): the fmt's middle digit must be 1", c, fs[2])
		}
		h.ncon = int(c)
	}
	// Every vertex takes a line (at least its newline) and every entry at
	// least two bytes: sizes beyond the file are a corrupt header, not an
	// allocation.
	if size >= 0 && (h.n > size || 2*h.m > size+1) {
		return h, lr.errf("header declares %d vertices and %d edges, more than a %d-byte file holds", h.n, h.m, size)
	}
	h.fields = h.ncon
	if h.sizes {
		h.fields++
	}
	h.perNeighbours = 1
	if h.ewgts {
		h.perNeighbours = 2
	}
	return h, nil
}

// readMETIS reads the METIS file r of size bytes (-1: unknown). Line i is
// row i-1 of Adj (its neighbours, undirected), sorted; duplicate
// neighbours are merged (weights summed) and self loops kept, both
// counted in the report. Vertex sizes and weights are checked and not
// kept.
func readMETIS(ctx context.Context, name string, r io.Reader, size int64) (*Dataset, error) {
	lr := newLineReader(name, r)
	b, err := lr.next(true)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("%s: %w: no header line (n m [fmt [ncon]])", name, ErrFormat)
	}
	h, err := parseMETISHeader(lr, b, size)
	if err != nil {
		return nil, err
	}
	n := int(h.n)
	adj := &rowCSR{indptr: make([]int64, n+1), indices: make([]int32, 0, 2*h.m), data: make([]float32, 0, 2*h.m)}
	rep := &ReadReport{IDs: "1-based, as METIS numbers them: line i is vertex i-1"}
	if h.sizes || h.vwgts {
		rep.Notes = append(rep.Notes, fmt.Sprintf("vertex sizes or weights (fmt %d%d%d, ncon %d) checked and not kept",
			b2i(h.sizes), b2i(h.vwgts), b2i(h.ewgts), h.ncon))
	}
	var fs [][]byte
	var keys []uint64
	v := 0
	for lr.sc.Scan() {
		lr.line++
		b := trimSpace(lr.sc.Bytes())
		if len(b) > 0 && b[0] == '%' {
			continue
		}
		if v == n {
			if len(b) > 0 {
				return nil, lr.errf("a line after the %d vertex lines the header declares", n)
			}
			continue
		}
		if v%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		fs = fields(b, fs)
		if len(fs) < h.fields || (len(fs)-h.fields)%h.perNeighbours != 0 {
			return nil, lr.errf("vertex %d: %d fields, want %d (size and weights) then %d per neighbour", v+1, len(fs), h.fields, h.perNeighbours)
		}
		for k := range h.fields {
			if _, ok := parseID(fs[k]); !ok {
				return nil, lr.errf("vertex %d: size or weight %q is not a non-negative integer", v+1, truncate(string(fs[k]), 40))
			}
		}
		keys = keys[:0]
		for k := h.fields; k < len(fs); k += h.perNeighbours {
			u, ok := parseID(fs[k])
			if !ok || u < 1 || u > h.n {
				return nil, lr.errf("vertex %d: neighbour %q is not a vertex in [1, %d]", v+1, truncate(string(fs[k]), 40), n)
			}
			w := float32(1)
			if h.ewgts {
				if w, ok = parseValue(fs[k+1]); !ok {
					return nil, lr.errf("vertex %d: edge weight %q is not a finite number", v+1, truncate(string(fs[k+1]), 40))
				}
			}
			if int64(len(adj.indices)+len(keys)) >= 2*h.m {
				return nil, lr.errf("more adjacency entries than the 2 x %d edges the header declares", h.m)
			}
			if u-1 == int64(v) {
				rep.SelfLoops++
			}
			keys = append(keys, uint64(u-1)<<32|uint64(math.Float32bits(w)))
		}
		rep.Edges += int64(len(keys))
		rep.Merged += adj.appendRow(keys, h.ewgts)
		v++
		adj.indptr[v] = int64(len(adj.indices))
	}
	if err := lr.sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("%s: line %d: %w: longer than %d bytes", name, lr.line+1, ErrFormat, maxLine)
		}
		return nil, fmt.Errorf("%s: after line %d: %w", name, lr.line, err)
	}
	if v < n {
		return nil, fmt.Errorf("%s: %w: truncated: %d of the %d vertex lines the header declares", name, ErrFormat, v, n)
	}
	if rep.Edges != 2*h.m {
		return nil, fmt.Errorf("%s: %w: the header declares %d edges, so 2 x %d = %d adjacency entries, but the lists hold %d",
			name, ErrFormat, h.m, h.m, 2*h.m, rep.Edges)
	}
	return &Dataset{Adj: adj.csr(n), Weighted: h.ewgts, Report: rep}, nil
}

// trimSpace trims spaces, tabs and carriage returns.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// rowCSR is a CSR built row by row, into arrays sized by a header.
type rowCSR struct {
	indptr  []int64
	indices []int32
	data    []float32
}

// appendRow appends a row given as keys column<<32 | float32 bits: sorted
// by column, duplicates merged (weights summed when weighted, else one
// kept). It returns the number of entries merged away.
func (a *rowCSR) appendRow(keys []uint64, weighted bool) int64 {
	slices.Sort(keys)
	var merged int64
	start := len(a.indices)
	for _, k := range keys {
		c, w := int32(k>>32), math.Float32frombits(uint32(k))
		if last := len(a.indices) - 1; last >= start && a.indices[last] == c {
			merged++
			if weighted {
				a.data[last] += w
			}
			continue
		}
		a.indices = append(a.indices, c)
		a.data = append(a.data, w)
	}
	return merged
}

func (a *rowCSR) csr(n int) *spgemm.CSR {
	return &spgemm.CSR{Rows: n, Cols: n, Indptr: a.indptr, Indices: a.indices, Data: a.data}
}
