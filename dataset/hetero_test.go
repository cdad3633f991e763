package dataset

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// heteroMembers returns the members of a small heterophilous-graphs file:
// 4 nodes, the edges 0-1, 1-2, 2-2 (a self loop) and 1-0 again, 2
// features, binary labels and 2 splits.
func heteroMembers() []npzMember {
	b := func(v ...uint8) []byte { return v }
	return []npzMember{
		{name: "edges", descr: "<i8", shape: []int64{4, 2}, data: le[int64](0, 1, 1, 2, 2, 2, 1, 0), deflate: true},
		{name: "node_features", descr: "<f4", shape: []int64{4, 2}, data: le[float32](1, 2, 3, 4, 5, 6, 7, 8)},
		{name: "node_labels", descr: "<i8", shape: []int64{4}, data: le[int64](0, 1, 1, 0)},
		{name: "train_masks", descr: "|b1", shape: []int64{2, 4}, data: b(1, 1, 0, 0, 0, 0, 1, 1)},
		{name: "val_masks", descr: "|b1", shape: []int64{2, 4}, data: b(0, 0, 1, 0, 1, 0, 0, 0)},
		{name: "test_masks", descr: "|b1", shape: []int64{2, 4}, data: b(0, 0, 0, 1, 0, 1, 0, 0)},
	}
}

func readHeteroBytes(b []byte, sym Symmetry, chunk int64) (*Dataset, error) {
	z, err := newNPZ("h.npz", bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	if !z.isHeterophilous() || z.layout() != layoutHeterophilous {
		return nil, errors.New("not detected as heterophilous")
	}
	return readHeterophilous(context.Background(), z, sym, 2, chunk)
}

func TestReadHeterophilous(t *testing.T) {
	file := buildNPZ(t, heteroMembers())
	for _, chunk := range []int64{1, 3, ogbChunk} {
		d, err := readHeteroBytes(file, SymmetryDefault, chunk)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		// Undirected as PyG makes it, the self loop dropped.
		want := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 1, 3, 4, 4}, Indices: []int32{1, 0, 2, 1}, Data: []float32{1, 1, 1, 1}}
		if !reflect.DeepEqual(d.Adj, want) {
			t.Errorf("chunk %d: adjacency %+v; want %+v", chunk, d.Adj, want)
		}
		if d.NumFeatures != 2 || !slices.Equal(d.Features, []float32{1, 2, 3, 4, 5, 6, 7, 8}) {
			t.Errorf("features %v (%d)", d.Features, d.NumFeatures)
		}
		if d.NumClasses != 2 || !slices.Equal(d.Labels, []int32{0, 1, 1, 0}) {
			t.Errorf("labels %v (%d classes)", d.Labels, d.NumClasses)
		}
		splits := []Split{
			{Train: []int32{0, 1}, Valid: []int32{2}, Test: []int32{3}},
			{Train: []int32{2, 3}, Valid: []int32{0}, Test: []int32{1}},
		}
		if !reflect.DeepEqual(d.Splits, splits) || !slices.Equal(d.Train, splits[0].Train) || !slices.Equal(d.Test, splits[0].Test) {
			t.Errorf("splits %+v, in use %v %v %v", d.Splits, d.Train, d.Valid, d.Test)
		}
		r := d.Report
		if r.Edges != 4 || r.SelfLoops != 1 || !r.SelfLoopsDropped || !r.Reversed || r.Merged != 2 {
			t.Errorf("report %+v", r)
		}
		if err := d.UseSplit(1); err != nil || !slices.Equal(d.Train, []int32{2, 3}) || !slices.Equal(d.Valid, []int32{0}) {
			t.Errorf("UseSplit(1): %v, train %v valid %v", err, d.Train, d.Valid)
		}
		if err := d.UseSplit(2); err == nil || !strings.Contains(err.Error(), "split index 2 outside [0, 2): the dataset stores 2 splits") {
			t.Errorf("UseSplit(2): %v", err)
		}
	}
	d, err := readHeteroBytes(file, AsStored, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 1, 2, 4, 4}, Indices: []int32{1, 0, 1, 2}, Data: []float32{1, 1, 1, 1}}
	if !reflect.DeepEqual(d.Adj, want) || d.Report.Reversed {
		t.Errorf("as stored: %+v, report %+v", d.Adj, d.Report)
	}
}

// TestReadHeterophilousErrors checks that each malformed member is
// refused with an error naming the file and the array.
func TestReadHeterophilousErrors(t *testing.T) {
	edit := func(key string, f func(m *npzMember)) []npzMember {
		ms := heteroMembers()
		for i := range ms {
			if ms[i].name == key {
				f(&ms[i])
			}
		}
		return ms
	}
	drop := func(key string) []npzMember {
		return slices.DeleteFunc(heteroMembers(), func(m npzMember) bool { return m.name == key })
	}
	tests := []struct {
		name    string
		members []npzMember
		want    string
	}{
		{"edges not pairs", edit("edges", func(m *npzMember) { m.shape = []int64{2, 4} }), `h.npz: array "edges": dataset: bad input: shape [2 4], want (E, 2)`},
		{"edge id out of range", edit("edges", func(m *npzMember) { m.data = le[int64](0, 1, 1, 9, 2, 2, 1, 0) }), `array "edges": dataset: bad input: edge 1: node id 9 outside [0, 4)`},
		{"negative edge id", edit("edges", func(m *npzMember) { m.data = le[int64](0, -1, 1, 2, 2, 2, 1, 0) }), `edge 0: node id -1 outside [0, 4)`},
		{"features 1-d", edit("node_features", func(m *npzMember) { m.shape = []int64{8} }), `array "node_features": dataset: bad input: shape [8], want (nodes, features)`},
		{"labels short", edit("node_labels", func(m *npzMember) { m.shape, m.data = []int64{3}, le[int64](0, 1, 1) }), `array "node_labels": dataset: bad input: shape [3], want 4 rows`},
		{"mask shape", edit("val_masks", func(m *npzMember) { m.shape = []int64{4, 2} }), `array "val_masks": dataset: bad input: shape [4 2], want (splits, 4) or (4,)`},
		{"mask counts differ", edit("test_masks", func(m *npzMember) { m.shape, m.data = []int64{1, 4}, []byte{0, 0, 0, 1} }), `arrays "train_masks" and "test_masks" hold 2 and 1 splits`},
		{"mask values", edit("train_masks", func(m *npzMember) { m.descr, m.data = "|u1", []byte{1, 2, 0, 0, 0, 0, 1, 1} }), `array "train_masks": dataset: bad input: element 1: a mask holds 0 or 1`},
		{"missing mask", drop("val_masks"), `missing array "val_masks" beside "train_masks"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readHeteroBytes(buildNPZ(t, tt.members), SymmetryDefault, 2)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// TestLoadTolokers reads the file PyG's HeterophilousGraphDataset reads,
// as it ships, and checks it against the published statistics (Platonov
// et al., ICLR 2023, Table 1: 11,758 nodes, 519,000 edges, 10 features, 2
// classes) and PyG's (1,038,000 directed edges after to_undirected).
func TestLoadTolokers(t *testing.T) {
	p := sharedData(t, "tolokers/tolokers.npz")
	d, err := Load(p, &LoadOptions{SplitIndex: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if f, _ := Detect(p); f != FormatHeterophilous {
		t.Errorf("format %q", f)
	}
	if d.Name != "tolokers" || d.NumNodes() != 11758 || d.Adj.NNZ() != 1038000 || d.NumFeatures != 10 || d.NumClasses != 2 {
		t.Errorf("%s: %d nodes, %d entries, %d features, %d classes", d.Name, d.NumNodes(), d.Adj.NNZ(), d.NumFeatures, d.NumClasses)
	}
	if r := d.Report; r.Edges != 519000 || r.SelfLoops != 0 || r.Merged != 0 {
		t.Errorf("report %+v", r)
	}
	var positive int
	for _, l := range d.Labels {
		positive += int(l)
	}
	if positive != 2566 {
		t.Errorf("%d nodes of class 1; want 2,566 (the data's README)", positive)
	}
	if len(d.Splits) != 10 {
		t.Fatalf("%d splits; want 10", len(d.Splits))
	}
	// The official splits are 50% / 25% / 25% of the nodes.
	for i, s := range d.Splits {
		if len(s.Train) != 5879 || len(s.Valid) != 2939 || len(s.Test) != 2940 {
			t.Errorf("split %d: %d / %d / %d", i, len(s.Train), len(s.Valid), len(s.Test))
		}
	}
	if !slices.Equal(d.Train, d.Splits[3].Train) || slices.Equal(d.Train, d.Splits[0].Train) {
		t.Errorf("SplitIndex 3 did not choose split 3")
	}
	if !Facts(d.Adj).Symmetric {
		t.Errorf("not symmetric")
	}
}
