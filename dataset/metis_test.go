package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestReadMETIS reads METIS files of every fmt, checked by hand: the
// triangle 1-2-3 plus the isolated vertex 4 (an empty line).
func TestReadMETIS(t *testing.T) {
	tri := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 2, 4, 6, 6}, Indices: []int32{1, 2, 0, 2, 0, 1}, Data: []float32{1, 1, 1, 1, 1, 1}}
	weighted := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 2, 4, 6, 6}, Indices: []int32{1, 2, 0, 2, 0, 1}, Data: []float32{5, 7, 5, 2, 7, 2}}
	tests := []struct {
		name, text string
		want       *spgemm.CSR
		weighted   bool
		notes      int
	}{
		{"plain", "% a triangle\n4 3\n2 3\n1 3\n1 2\n\n", tri, false, 0},
		{"fmt 0, unsorted, trailing blank lines", "4 3 0\n3 2\n3 1\n2 1\n\n\n\n", tri, false, 0},
		{"edge weights", "4 3 1\n2 5 3 7\n1 5 3 2\n1 7 2 2\n\n", weighted, true, 0},
		{"edge weights as 001", "4 3 001\n2 5 3 7\n1 5 3 2\n1 7 2 2\n\n", weighted, true, 0},
		{"vertex weights ncon 2", "4 3 10 2\n1 9 2 3\n1 9 1 3\n% mid-file comment\n1 9 1 2\n4 4\n", tri, false, 1},
		{"all of them", "4 3 111\n1 1 2 5 3 7\n1 1 1 5 3 2\n1 1 1 7 2 2\n1 1\n", weighted, true, 1},
		{"CRLF", "4 3\r\n2 3\r\n1 3\r\n1 2\r\n\r\n", tri, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := readMETIS(context.Background(), "g.graph", strings.NewReader(tt.text), int64(len(tt.text)))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Adj, tt.want) || d.Weighted != tt.weighted {
				t.Errorf("got %+v (weighted %v); want %+v (weighted %v)", d.Adj, d.Weighted, tt.want, tt.weighted)
			}
			if r := d.Report; r.Edges != 6 || r.Merged != 0 || r.SelfLoops != 0 || len(r.Notes) != tt.notes || !strings.HasPrefix(r.IDs, "1-based") {
				t.Errorf("report %+v", r)
			}
		})
	}
	// Duplicates are merged and self loops kept, both counted.
	d, err := readMETIS(context.Background(), "g.graph", strings.NewReader("2 2\n2 2 1\n1\n"), -1)
	if err != nil {
		t.Fatal(err)
	}
	want := &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 2, 3}, Indices: []int32{0, 1, 0}, Data: []float32{1, 1, 1}}
	if !reflect.DeepEqual(d.Adj, want) || d.Report.Merged != 1 || d.Report.SelfLoops != 1 {
		t.Errorf("got %+v, report %+v", d.Adj, d.Report)
	}
}

// TestReadMETISErrors checks that a malformed METIS file is refused with
// an error naming the file, the line and what was expected.
func TestReadMETISErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"empty", "% only a comment\n", "g.graph: dataset: bad input: no header line (n m [fmt [ncon]])"},
		{"header fields", "3\n", `g.graph: line 1: dataset: bad input: header "3", want: n m [fmt [ncon]]`},
		{"bad n", "x 2\n", `line 1: dataset: bad input: vertex count "x" is not an integer`},
		{"bad fmt", "2 1 12\n", `line 1: dataset: bad input: fmt "12": want up to three digits 0 or 1`},
		{"ncon without weights", "2 1 1 3\n", "line 1: dataset: bad input: ncon 3 without vertex weights"},
		{"huge header", "100000 5\n2\n1\n", "header declares 100000 vertices and 5 edges, more than a 13-byte file holds"},
		{"neighbour out of range", "2 1\n3\n1\n", `g.graph: line 2: dataset: bad input: vertex 1: neighbour "3" is not a vertex in [1, 2]`},
		{"neighbour zero", "2 1\n0\n1\n", `line 2: dataset: bad input: vertex 1: neighbour "0" is not a vertex in [1, 2]`},
		{"missing weight", "2 1 1\n2 4\n1\n", "line 3: dataset: bad input: vertex 2: 1 fields, want 0 (size and weights) then 2 per neighbour"},
		{"bad weight", "2 1 1\n2 x\n1 1\n", `line 2: dataset: bad input: vertex 1: edge weight "x" is not a finite number`},
		{"bad vertex weight", "2 1 10\n-1 2\n1 1\n", `line 2: dataset: bad input: vertex 1: size or weight "-1" is not a non-negative integer`},
		{"truncated", "3 1\n2\n1\n", "g.graph: dataset: bad input: truncated: 2 of the 3 vertex lines the header declares"},
		{"extra line", "2 1\n2\n1\n1\n", "line 4: dataset: bad input: a line after the 2 vertex lines the header declares"},
		{"count mismatch", "3 2\n2\n1\n\n", "the header declares 2 edges, so 2 x 2 = 4 adjacency entries, but the lists hold 2"},
		{"too many entries", "2 1\n2 2 2\n1\n", "line 2: dataset: bad input: more adjacency entries than the 2 x 1 edges the header declares"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readMETIS(context.Background(), "g.graph", strings.NewReader(tt.text), int64(len(tt.text)))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrFormat) {
				t.Errorf("error %v; want one containing %q and wrapping ErrFormat", err, tt.want)
			}
		})
	}
}

// TestLoadMETISByExtension checks that Load picks METIS for .graph files.
func TestLoadMETISByExtension(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tri.graph")
	if err := os.WriteFile(p, []byte("3 3\n2 3\n1 3\n1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(p); err != nil || f != FormatMETIS {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	d, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumNodes() != 3 || d.Adj.NNZ() != 6 || d.Name != "tri" {
		t.Errorf("%s: %d nodes, %d entries", d.Name, d.NumNodes(), d.Adj.NNZ())
	}
}
