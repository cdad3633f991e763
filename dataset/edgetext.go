package dataset

// Edge lists as they ship: SNAP's text (comment lines starting with '#'
// or '%', tab- or space-separated ids), CSV with a header line that names
// the columns (MUSAE's "id_1,id_2"), KONECT's out.* files. One edge per
// line, "u v" or "u v weight"; ids are any non-negative integers that fit
// int64, renumbered to 0..n-1 when they are not that already (ids.go).
//
// A SNAP file says in its comments whether it is undirected ("#
// Undirected graph: ..."), as KONECT's first line does ("% sym ..."); such
// a file is symmetrised by default (reverse edges added, self loops
// dropped), everything else is read as stored unless LoadOptions.Symmetry
// says otherwise. A SNAP "# Nodes: N Edges: M" line is checked against
// what was read, and a disagreement noted in the report.
//
// The file is parsed three times (see the comment above loadEdgeList):
// pass 0 finds the header, the columns and the distinct ids, passes 1 and
// 2 stream the renumbered edges through a spgemm.CSRBuilder, so a load
// holds the final CSR, the id set (a bit per id up to the largest, or a
// hash set of the distinct ids when they are too sparse for a bitmap) and
// two chunks of edges.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/spgemm"
)

// Column names that an edge list's header may give its columns; the
// first two columns are the endpoints and a third the weight when the
// header names none of these.
var (
	srcColumnNames    = []string{"src", "src_id", "source", "from", "from_id", "id_1", "node_1", "node1", "u", "fromnodeid"}
	dstColumnNames    = []string{"dst", "dst_id", "target", "to", "to_id", "id_2", "node_2", "node2", "v", "tonodeid"}
	weightColumnNames = []string{"weight", "weights", "w", "value", "val"}
)

// loadEdgeList reads an edge list file (see readEdgeList).
func loadEdgeList(ctx context.Context, path string, o *LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readEdgeList(ctx, path, f, o.Symmetry, o.Threads, ogbChunk)
}

// edgeColumns is what the first pass learns of an edge list's layout.
type edgeColumns struct {
	header         bool // the first non-comment line names the columns
	fields         int  // fields per line; 0 until the first line
	src, dst, wcol int  // column indices; wcol -1 when unweighted
	names          []string
}

// edgeListScan is the first pass's findings.
type edgeListScan struct {
	cols          edgeColumns
	undirected    string // the comment that says the graph is undirected
	declaredNodes int64  // "# Nodes: N Edges: M"; -1 when absent
	declaredEdges int64
	ids           idSet
	edges         int64
	selfLoops     int64
}

// readEdgeList reads the edge list r: an edge "u v" is a message u -> v
// and becomes entry (v, u) of Adj, whose row v lists v's in-neighbours.
// sym chooses whether reverse edges are added (SymmetryDefault: when the
// file says it is undirected). A weighted graph (a weight column) sums
// duplicate edges, or keeps the larger weight of a pair when
// symmetrised; an unweighted one drops them. Chunks hold at most chunk
// edges.
func readEdgeList(ctx context.Context, name string, r io.ReadSeeker, sym Symmetry, threads int, chunk int64) (*Dataset, error) {
	scan := edgeListScan{declaredNodes: -1, declaredEdges: -1}
	if err := scan.read(ctx, name, r); err != nil {
		return nil, err
	}
	if err := scan.ids.finish(name); err != nil {
		return nil, err
	}
	n := int(scan.ids.count)
	rep := &ReadReport{Edges: scan.edges, SelfLoops: scan.selfLoops, IDs: scan.ids.describe()}
	switch {
	case sym == Symmetrize:
		rep.Reversed, rep.ReversedWhy = true, "symmetrize was asked for"
	case sym == SymmetryDefault && scan.undirected != "":
		rep.Reversed, rep.ReversedWhy = true, fmt.Sprintf("the file says %q", scan.undirected)
	}
	rep.SelfLoopsDropped = rep.Reversed
	rep.Notes = scan.notes()
	weighted := scan.cols.fields > 0 && scan.cols.wcol >= 0
	opt := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Symmetrize: rep.Reversed, DropSelfLoops: rep.Reversed, Threads: threads}
	if weighted && !rep.Reversed {
		opt.Duplicates = spgemm.SumDuplicates
	}
	adj, err := buildCSR(name, n, opt, func(_ int, emit func(rows, cols []int32, vals []float32) error) error {
		if err := rewind(name, r); err != nil {
			return err
		}
		edges, err := scan.emit(ctx, name, r, chunk, func(src, dst []int32, vals []float32) error {
			return emit(dst, src, vals) // edge u -> v is entry (v, u)
		})
		if err == nil && edges != scan.edges {
			err = fmt.Errorf("%s: %w: %d edges, %d on the first pass (the file changed while being read)",
				name, ErrFormat, edges, scan.edges)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.merged(scan.edges, adj)
	d := &Dataset{Adj: adj, Weighted: weighted, Report: rep}
	if !scan.ids.identity {
		d.SourceIDs = scan.ids.sorted()
	}
	return d, nil
}

// notes returns what the report should add: the columns not read, and a
// SNAP header whose counts disagree with the file.
func (s *edgeListScan) notes() []string {
	var notes []string
	c := s.cols
	if c.header {
		var skipped []string
		for i, nm := range c.names {
			if i != c.src && i != c.dst && i != c.wcol {
				skipped = append(skipped, nm)
			}
		}
		cols := fmt.Sprintf("header columns %s: %s -> %s", strings.Join(c.names, ", "), c.names[c.src], c.names[c.dst])
		if c.wcol >= 0 {
			cols += ", weight " + c.names[c.wcol]
		}
		if len(skipped) > 0 {
			cols += "; not read: " + strings.Join(skipped, ", ")
		}
		notes = append(notes, cols)
	}
	if s.declaredNodes >= 0 && s.declaredNodes != s.ids.count {
		notes = append(notes, fmt.Sprintf("the header says %d nodes, the edges name %d", s.declaredNodes, s.ids.count))
	}
	if s.declaredEdges >= 0 && s.declaredEdges != s.edges {
		notes = append(notes, fmt.Sprintf("the header says %d edges, the file has %d", s.declaredEdges, s.edges))
	}
	return notes
}

// comment inspects a comment line before the first edge: SNAP's "#
// Undirected graph" and "# Nodes: N Edges: M", KONECT's "% sym".
func (s *edgeListScan) comment(b []byte) {
	text := strings.TrimSpace(string(b[1:]))
	lower := strings.ToLower(text)
	switch {
	case strings.HasPrefix(lower, "undirected graph"):
		s.undirected = truncate(text, 100)
	case b[0] == '%' && (lower == "sym" || strings.HasPrefix(lower, "sym ")):
		s.undirected = truncate(text, 100)
	}
	if f := strings.Fields(lower); len(f) >= 4 && f[0] == "nodes:" && f[2] == "edges:" {
		nodes, err1 := strconv.ParseInt(f[1], 10, 64)
		edges, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 == nil && err2 == nil {
			s.declaredNodes, s.declaredEdges = nodes, edges
		}
	}
}

// set sets the layout from the first non-comment line's fields fs: a
// header when none of them is a number.
func (c *edgeColumns) set(lr *lineReader, fs [][]byte) error {
	c.fields, c.src, c.dst, c.wcol = len(fs), 0, 1, -1
	if slices.ContainsFunc(fs, func(f []byte) bool { _, ok := parseValue(f); return ok }) {
		if len(fs) != 2 && len(fs) != 3 {
			return lr.errf("%d fields, want 2 (u v) or 3 (u v weight)", len(fs))
		}
		if len(fs) == 3 {
			c.wcol = 2
		}
		return nil
	}
	c.header = true
	for _, f := range fs {
		c.names = append(c.names, truncate(string(f), 40))
	}
	if len(fs) < 2 {
		return lr.errf("header %q names %d column; an edge list needs two (source, destination)", truncate(string(bytes.Join(fs, []byte(","))), 80), len(fs))
	}
	find := func(names []string) int {
		return slices.IndexFunc(c.names, func(s string) bool { return slices.Contains(names, strings.ToLower(s)) })
	}
	if s, d := find(srcColumnNames), find(dstColumnNames); s >= 0 && d >= 0 && s != d {
		c.src, c.dst = s, d
	}
	c.wcol = find(weightColumnNames)
	if c.wcol < 0 && len(fs) == 3 {
		c.wcol = 2
	}
	if c.wcol == c.src || c.wcol == c.dst {
		c.wcol = -1
	}
	return nil
}

// line parses one edge line's fields with the layout c.
func (c *edgeColumns) line(lr *lineReader, fs [][]byte) (u, v int64, w float32, err error) {
	if len(fs) != c.fields {
		if c.header {
			return 0, 0, 0, lr.errf("%d fields, but the header names %d columns", len(fs), c.fields)
		}
		return 0, 0, 0, lr.errf("%d fields, but earlier lines have %d", len(fs), c.fields)
	}
	var id [2]int64
	for k, col := range [2]int{c.src, c.dst} {
		x, ok := parseID(fs[col])
		if !ok {
			where := ""
			if c.header {
				where = " (column " + c.names[col] + ")"
			}
			return 0, 0, 0, lr.errf("vertex id %q%s is not an integer in [0, 2^63)", truncate(string(fs[col]), 40), where)
		}
		id[k] = x
	}
	w = 1
	if c.wcol >= 0 {
		var ok bool
		if w, ok = parseValue(fs[c.wcol]); !ok {
			return 0, 0, 0, lr.errf("weight %q is not a finite number", truncate(string(fs[c.wcol]), 40))
		}
	}
	return id[0], id[1], w, nil
}

// read is the first pass over the edge list r: the layout, the comments
// before the first edge, the distinct ids and the edge count.
func (s *edgeListScan) read(ctx context.Context, name string, r io.Reader) error {
	lr := newLineReader(name, r)
	var fs [][]byte
	for {
		b, err := lr.next(false)
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		if b[0] == '#' || b[0] == '%' {
			if s.cols.fields == 0 {
				s.comment(b)
			}
			continue
		}
		fs = fields(b, fs)
		if s.cols.fields == 0 {
			if err := s.cols.set(lr, fs); err != nil {
				return err
			}
			if s.cols.header {
				continue
			}
		}
		u, v, _, err := s.cols.line(lr, fs)
		if err != nil {
			return err
		}
		if s.edges%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.ids.add(u)
		s.ids.add(v)
		s.edges++
		if u == v {
			s.selfLoops++
		}
	}
}

// emit parses the edge list r again with the first pass's layout and ids
// and hands its renumbered edges to fn in chunks of at most chunk, in
// order, on another goroutine while it parses the next. It returns the
// number of edges.
func (s *edgeListScan) emit(ctx context.Context, name string, r io.Reader, chunk int64, fn func(src, dst []int32, vals []float32) error) (edges int64, err error) {
	lr := newLineReader(name, r)
	pipe := newWeightedChunkPipe(max(min(chunk, s.edges), 1), s.cols.fields > 0 && s.cols.wcol >= 0, fn)
	defer func() {
		if werr := pipe.wait(); err == nil && werr != nil {
			err = fmt.Errorf("%s: %w", name, werr)
		}
	}()
	src, dst := pipe.buffers()
	vals := pipe.values()
	var fs [][]byte
	skipHeader := s.cols.header
	j := 0 // edges in the buffers
	for {
		b, err := lr.next(true)
		if err != nil {
			return edges, err
		}
		if b == nil {
			break
		}
		if skipHeader {
			skipHeader = false
			continue
		}
		fs = fields(b, fs)
		u, v, w, err := s.cols.line(lr, fs)
		if err != nil {
			return edges, err
		}
		su, ok1 := s.ids.index(u)
		sv, ok2 := s.ids.index(v)
		if !ok1 || !ok2 {
			return edges, lr.errf("an id the first pass did not see (the file changed while being read)")
		}
		src[j], dst[j] = su, sv
		if vals != nil {
			vals[j] = w
		}
		edges++
		if j++; j == len(src) {
			if err := pipe.send(j); err != nil {
				return edges, fmt.Errorf("%s: %w", name, err)
			}
			if err := ctx.Err(); err != nil {
				return edges, err
			}
			src, dst = pipe.buffers()
			vals = pipe.values()
			j = 0
		}
	}
	if j > 0 {
		if err := pipe.send(j); err != nil {
			return edges, fmt.Errorf("%s: %w", name, err)
		}
	}
	return edges, nil
}
