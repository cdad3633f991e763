package dataset

// CSV files with a header line (DGL's CSVDataset nodes.csv and edges.csv,
// MUSAE's target files), read record by record with encoding/csv, so
// that quoted fields (DGL's feature vectors, page names with commas) are
// read as CSV writers write them. Errors name the file and the line.

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/spgemm"
)

// csvFile is an open CSV file whose first record, the header, names the
// columns.
type csvFile struct {
	name   string
	f      *os.File
	size   int64 // bytes
	sep    rune
	r      *csv.Reader
	header []string
}

// openCSV opens the CSV file at path, whose fields are separated by sep,
// and reads its header.
func openCSV(path string, sep rune) (*csvFile, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{name: path, f: f, size: size, sep: sep}
	if err := c.start(); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// start reads the header from the file's current position (its start).
func (c *csvFile) start() error {
	c.r = csv.NewReader(c.f)
	c.r.Comma = c.sep
	c.r.ReuseRecord = true
	h, err := c.r.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: %w: empty file; want a header line naming the columns", c.name, ErrFormat)
	}
	if err != nil {
		return c.wrap(err)
	}
	c.header = slices.Clone(h)
	c.header[0] = strings.TrimPrefix(c.header[0], "\ufeff") // a byte-order mark
	for i, name := range c.header {
		c.header[i] = strings.TrimSpace(name)
		if j := slices.Index(c.header[:i], c.header[i]); j >= 0 {
			return fmt.Errorf("%s: line 1: %w: column %q appears twice in the header", c.name, ErrFormat, c.header[i])
		}
	}
	return nil
}

// rewind goes back to the first record after the header.
func (c *csvFile) rewind() error {
	if _, err := c.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: rewinding for the next pass: %w", c.name, err)
	}
	return c.start()
}

func (c *csvFile) Close() error { return c.f.Close() }

// column returns the index of the column called name, -1 when absent.
func (c *csvFile) column(name string) int { return slices.Index(c.header, name) }

// require returns the index of the column called name or an error naming
// the file, the header and why the column is needed.
func (c *csvFile) require(name, why string) (int, error) {
	if i := c.column(name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("%s: line 1: %w: no column %q (%s); the header has %s",
		c.name, ErrFormat, name, why, truncate(strings.Join(c.header, ", "), 200))
}

// next returns the next record (valid until the next call), or nil at the
// end of the file.
func (c *csvFile) next() ([]string, error) {
	rec, err := c.r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, c.wrap(err)
	}
	return rec, nil
}

// line returns the line on which the last record read starts.
func (c *csvFile) line() int {
	l, _ := c.r.FieldPos(0)
	return l
}

// errf returns an error naming the file and the last record's line.
func (c *csvFile) errf(format string, a ...any) error {
	return fmt.Errorf("%s: line %d: %w: %s", c.name, c.line(), ErrFormat, fmt.Sprintf(format, a...))
}

// wrap turns an error of encoding/csv into one naming the file and line.
func (c *csvFile) wrap(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = fmt.Sprintf("a record whose number of fields differs from the header's %d columns", len(c.header))
		}
		return fmt.Errorf("%s: line %d: %w: %s", c.name, pe.Line, ErrFormat, msg)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// others returns the header's columns that are not among used (indices),
// for the report's note of what was not read.
func (c *csvFile) others(used ...int) []string {
	var out []string
	for i, name := range c.header {
		if !slices.Contains(used, i) {
			out = append(out, name)
		}
	}
	return out
}

// parseInt64 parses a decimal integer field, allowing surrounding spaces
// and a float that is an integer ("3.0", as pandas writes a column with
// missing values).
func parseInt64(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
		return 0, false
	}
	return int64(f), true
}

// parseBool parses a mask value as pandas and DGL write them: True,
// False, true, false, 1, 0, 1.0, 0.0.
func parseBool(s string) (bool, bool) {
	switch strings.TrimSpace(s) {
	case "True", "true", "TRUE", "1", "1.0":
		return true, true
	case "False", "false", "FALSE", "0", "0.0":
		return false, true
	}
	return false, false
}

// csvEdgeSpec says how readEdges reads an edge file.
type csvEdgeSpec struct {
	src, dst, weight int // column indices; weight -1 when unweighted
	n                int // vertices
	// vertex maps a node id of the file to its vertex; ok is false for an
	// id that is no node, which what names ("a node_id of nodes.csv").
	vertex func(id int64) (int32, bool)
	what   string
	// threads and chunk: the builder's goroutines and the edges per chunk.
	threads int
	chunk   int64
}

// readEdges reads the edges of c twice through a spgemm.CSRBuilder: edge
// src -> dst is entry (dst, src) of the n x n result, reverse edges added
// (and self loops dropped) when rep.Reversed. It fills rep's edge, self
// loop and merge counts. A weighted file sums duplicate edges, or keeps the
// larger weight of a pair when symmetrised; an unweighted one drops them.
func (c *csvFile) readEdges(ctx context.Context, spec csvEdgeSpec, rep *ReadReport) (*spgemm.CSR, error) {
	weighted := spec.weight >= 0
	rep.SelfLoopsDropped = rep.Reversed
	opt := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Symmetrize: rep.Reversed, DropSelfLoops: rep.Reversed, Threads: spec.threads}
	if weighted && !rep.Reversed {
		opt.Duplicates = spgemm.SumDuplicates
	}
	var edges, loops int64
	adj, err := buildCSR(c.name, spec.n, opt, func(pass int, emit func(rows, cols []int32, vals []float32) error) (err error) {
		if pass > 0 {
			if err := c.rewind(); err != nil {
				return err
			}
		}
		edges, loops = 0, 0
		// A record takes at least 4 bytes ("0,1\n").
		pipe := newWeightedChunkPipe(max(min(spec.chunk, c.size/4), 1), weighted, func(src, dst []int32, vals []float32) error { return emit(dst, src, vals) })
		defer func() {
			if werr := pipe.wait(); err == nil && werr != nil {
				err = fmt.Errorf("%s: %w", c.name, werr)
			}
		}()
		src, dst := pipe.buffers()
		vals := pipe.values()
		j := 0
		for {
			rec, err := c.next()
			if err != nil {
				return err
			}
			if rec == nil {
				break
			}
			var v [2]int32
			for k, col := range [2]int{spec.src, spec.dst} {
				id, ok := parseInt64(rec[col])
				if !ok {
					return c.errf("%s %q is not an integer node id", c.header[col], truncate(rec[col], 40))
				}
				if v[k], ok = spec.vertex(id); !ok {
					return c.errf("%s %d is not %s", c.header[col], id, spec.what)
				}
			}
			src[j], dst[j] = v[0], v[1]
			if vals != nil {
				w, ok := parseValue([]byte(strings.TrimSpace(rec[spec.weight])))
				if !ok {
					return c.errf("%s %q is not a finite number", c.header[spec.weight], truncate(rec[spec.weight], 40))
				}
				vals[j] = w
			}
			if v[0] == v[1] {
				loops++
			}
			edges++
			if j++; j == len(src) {
				if err := pipe.send(j); err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				src, dst = pipe.buffers()
				vals = pipe.values()
				j = 0
			}
		}
		if j > 0 {
			if err := pipe.send(j); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Edges, rep.SelfLoops = edges, loops
	rep.merged(edges, adj)
	return adj, nil
}
