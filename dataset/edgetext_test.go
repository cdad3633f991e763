package dataset

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestReadEdgeListAsShipped reads edge lists in the layouts they ship in:
// SNAP's comments and tabs, CSV headers, 1-based and sparse ids, the
// directedness SNAP and KONECT files state.
func TestReadEdgeListAsShipped(t *testing.T) {
	tests := []struct {
		name, text string
		sym        Symmetry
		want       *spgemm.CSR
		weighted   bool
		sourceIDs  []int64
		report     ReadReport // Notes are checked for containing notes
		notes      []string
	}{
		{
			name:   "musae csv header",
			text:   "id_1,id_2\n0,1\n1,2\n",
			want:   &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 0, 1, 2}, Indices: []int32{0, 1}, Data: []float32{1, 1}},
			report: ReadReport{Edges: 2},
			notes:  []string{"header columns id_1, id_2: id_1 -> id_2"},
		},
		{
			name:      "snap directed 1-based",
			text:      "# Directed graph (each unordered pair of nodes is saved once): x.txt\n# Nodes: 3 Edges: 3\n# FromNodeId\tToNodeId\n1\t2\n2\t3\n3\t1\n",
			want:      &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 3}, Indices: []int32{2, 0, 1}, Data: []float32{1, 1, 1}},
			sourceIDs: []int64{1, 2, 3},
			report:    ReadReport{Edges: 3, IDs: "1-based: the file's ids 1..3 are vertices 0..2 (source ids kept)"},
		},
		{
			name:      "snap undirected symmetrised by default",
			text:      "# Undirected graph: ../../data/output/ca.txt\n# Nodes: 4 Edges: 3\n10 20\n20 30\n30 30\n20 10\n",
			want:      &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 4}, Indices: []int32{1, 0, 2, 1}, Data: []float32{1, 1, 1, 1}},
			sourceIDs: []int64{10, 20, 30},
			report: ReadReport{Edges: 4, SelfLoops: 1, SelfLoopsDropped: true, Reversed: true,
				ReversedWhy: `the file says "Undirected graph: ../../data/output/ca.txt"`, Merged: 2,
				IDs: "renumbered: 3 distinct ids in [10, 30] are vertices 0..2 in ascending order (source ids kept)"},
			notes: []string{"the header says 4 nodes, the edges name 3", "the header says 3 edges, the file has 4"},
		},
		{
			name:   "snap undirected kept as stored",
			text:   "# Undirected graph: g\n0 1\n",
			sym:    AsStored,
			want:   &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 0, 1}, Indices: []int32{0}, Data: []float32{1}},
			report: ReadReport{Edges: 1},
		},
		{
			name:   "konect sym",
			text:   "% sym unweighted\n% 2 3 3\n0 1\n1 2\n",
			want:   &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 4}, Indices: []int32{1, 0, 2, 1}, Data: []float32{1, 1, 1, 1}},
			report: ReadReport{Edges: 2, Reversed: true, SelfLoopsDropped: true, ReversedWhy: `the file says "sym unweighted"`},
		},
		{
			name:   "symmetrize asked",
			text:   "0 1\n1 0\n1 1\n",
			sym:    Symmetrize,
			want:   &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Indices: []int32{1, 0}, Data: []float32{1, 1}},
			report: ReadReport{Edges: 3, SelfLoops: 1, SelfLoopsDropped: true, Reversed: true, ReversedWhy: "symmetrize was asked for", Merged: 2},
		},
		{
			name:      "named columns and weight",
			text:      "time source target weight\n5 2 0 0.5\n6 0 2 1.5\n7 2 0 1\n",
			want:      &spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Indices: []int32{1, 0}, Data: []float32{1.5, 1.5}},
			weighted:  true,
			sourceIDs: []int64{0, 2},
			report: ReadReport{Edges: 3, Merged: 1,
				IDs: "renumbered: 2 distinct ids in [0, 2] are vertices 0..1 in ascending order (source ids kept)"},
			notes: []string{"header columns time, source, target, weight: source -> target, weight weight; not read: time"},
		},
		{
			name:      "64-bit ids",
			text:      "9223372036854775807 5\n5 123456789012\n",
			want:      &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 2}, Indices: []int32{2, 0}, Data: []float32{1, 1}},
			sourceIDs: []int64{5, 123456789012, 9223372036854775807},
			report: ReadReport{Edges: 2,
				IDs: "renumbered: 3 distinct ids in [5, 9223372036854775807] are vertices 0..2 in ascending order (source ids kept)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range []int64{1, ogbChunk} {
				d, err := readEdgeList(context.Background(), "g.txt", strings.NewReader(tt.text), tt.sym, 2, chunk)
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Validate(); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(d.Adj, tt.want) || d.Weighted != tt.weighted {
					t.Errorf("got %+v (weighted %v); want %+v (weighted %v)", d.Adj, d.Weighted, tt.want, tt.weighted)
				}
				if !slices.Equal(d.SourceIDs, tt.sourceIDs) {
					t.Errorf("source ids %v; want %v", d.SourceIDs, tt.sourceIDs)
				}
				got := *d.Report
				got.Notes = nil
				if !reflect.DeepEqual(got, tt.report) {
					t.Errorf("report %+v; want %+v", got, tt.report)
				}
				for _, n := range tt.notes {
					if !slices.Contains(d.Report.Notes, n) {
						t.Errorf("notes %q lack %q", d.Report.Notes, n)
					}
				}
			}
		})
	}
}

// TestReadEdgeListErrors checks that each malformed edge list is refused
// with an error naming the file, the line and what was expected.
func TestReadEdgeListErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"header only one column", "id\n0\n", `g.txt: line 1: dataset: bad input: header "id" names 1 column`},
		{"header then short line", "id_1,id_2\n0,1\n2\n", "g.txt: line 3: dataset: bad input: 1 fields, but the header names 2 columns"},
		{"header then bad id", "id_1,id_2\n0,x\n", `g.txt: line 2: dataset: bad input: vertex id "x" (column id_2) is not an integer in [0, 2^63)`},
		{"negative id", "0 1\n-3 1\n", `line 2: dataset: bad input: vertex id "-3" is not an integer`},
		{"bad first line", "0 x\n", `line 1: dataset: bad input: vertex id "x"`},
		{"bad weight", "src,dst,weight\n0,1,abc\n", `line 2: dataset: bad input: weight "abc" is not a finite number`},
		{"four numeric fields", "0 1 2 3\n", "line 1: dataset: bad input: 4 fields, want 2 (u v) or 3 (u v weight)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readEdgeList(context.Background(), "g.txt", strings.NewReader(tt.text), SymmetryDefault, 1, 3)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrFormat) {
				t.Errorf("error %v; want one containing %q and wrapping ErrFormat", err, tt.want)
			}
		})
	}
}

// TestIDSet checks the id set in both modes against a map: ranks, source
// ids and what it says of them.
func TestIDSet(t *testing.T) {
	tests := []struct {
		name string
		ids  []int64
		hash bool
	}{
		{"dense 0-based", []int64{3, 0, 1, 2, 1}, false},
		{"gaps", []int64{7, 0, 64, 65, 200}, false},
		{"sparse", []int64{5, 1 << 40, 77, 1<<62 + 3}, true},
		{"late sparse", []int64{0, 1, 2, 1 << 30, 5}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s idSet
			for _, id := range tt.ids {
				s.add(id)
			}
			if (s.hash != nil) != tt.hash {
				t.Errorf("hash mode %v; want %v", s.hash != nil, tt.hash)
			}
			if err := s.finish("x"); err != nil {
				t.Fatal(err)
			}
			distinct := slices.Compact(slices.Sorted(slices.Values(tt.ids)))
			if got := s.sorted(); !slices.Equal(got, distinct) {
				t.Errorf("sorted %v; want %v", got, distinct)
			}
			for r, id := range distinct {
				if v, ok := s.index(id); !ok || int(v) != r {
					t.Errorf("index(%d) = %d, %v; want %d", id, v, ok, r)
				}
			}
			if _, ok := s.index(123456); ok {
				t.Errorf("index of an unseen id is ok")
			}
		})
	}
}

// TestWriteSNAPRoundTrip writes graphs as SNAP text and reads them back:
// an undirected one (each edge once, symmetrised again on reading) and a
// directed weighted one with renumbered ids.
func TestWriteSNAPRoundTrip(t *testing.T) {
	undirected := &Dataset{Name: "u", Adj: &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 2, 3, 4},
		Indices: []int32{1, 2, 0, 0}, Data: []float32{1, 1, 1, 1}}}
	directed := &Dataset{Name: "d", Weighted: true, SourceIDs: []int64{4, 9, 1 << 33},
		Adj: &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 3}, Indices: []int32{2, 0, 1}, Data: []float32{0.5, 2, 1}}}
	for _, d := range []*Dataset{undirected, directed} {
		var b strings.Builder
		if err := WriteSNAP(&b, d); err != nil {
			t.Fatal(err)
		}
		got, err := readEdgeList(context.Background(), "g.txt", strings.NewReader(b.String()), SymmetryDefault, 1, 2)
		if err != nil {
			t.Fatalf("%s: %v\n%s", d.Name, err, b.String())
		}
		if !reflect.DeepEqual(got.Adj, d.Adj) || got.Weighted != d.Weighted || !slices.Equal(got.SourceIDs, d.SourceIDs) {
			t.Errorf("%s: read back %+v (source ids %v) from\n%s", d.Name, got.Adj, got.SourceIDs, b.String())
		}
		if len(got.Report.Notes) != 0 {
			t.Errorf("%s: notes %q: the header's counts disagree", d.Name, got.Report.Notes)
		}
	}
}
