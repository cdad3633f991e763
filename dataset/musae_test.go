package dataset

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// musaeFilesSmall is a MUSAE folder of 4 pages in Facebook's layout: a
// page name with a comma (quoted, as the real target file has them), a
// self loop, a page without features.
var musaeFilesSmall = map[string]string{
	"tiny_edges.csv":     "id_1,id_2\n0,1\n1,2\n3,3\n2,0\n",
	"tiny_features.json": `{"2": [5, 0], "0": [1, 5, 5], "3": []}`,
	"tiny_target.csv":    "id,facebook_id,page_name,page_type\n1,11,\"Page, One\",tvshow\n0,10,Zero,company\n2,12,Two,company\n3,13,Three,politician\n",
}

func TestLoadMUSAE(t *testing.T) {
	dir := writeFolder(t, musaeFilesSmall)
	if f, err := Detect(dir); err != nil || f != FormatMUSAE {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	d, err := Load(dir, &LoadOptions{Split: SplitNone})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "tiny" || d.Features != nil || d.NumFeatures != 6 {
		t.Errorf("%s: dense %v, %d features", d.Name, d.Features, d.NumFeatures)
	}
	wantF := &spgemm.CSR{Rows: 4, Cols: 6, Indptr: []int64{0, 2, 2, 4, 4}, Indices: []int32{1, 5, 0, 5}, Data: []float32{1, 1, 1, 1}}
	if !reflect.DeepEqual(d.SparseFeatures, wantF) {
		t.Errorf("sparse features %+v; want %+v", d.SparseFeatures, wantF)
	}
	if !slices.Equal(d.ClassNames, []string{"company", "politician", "tvshow"}) || !slices.Equal(d.Labels, []int32{0, 2, 0, 1}) || d.NumClasses != 3 {
		t.Errorf("classes %q, labels %v", d.ClassNames, d.Labels)
	}
	// Undirected, each edge once: reverse edges added, the self loop dropped.
	wantA := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 2, 4, 6, 6}, Indices: []int32{1, 2, 0, 2, 0, 1}, Data: []float32{1, 1, 1, 1, 1, 1}}
	if !reflect.DeepEqual(d.Adj, wantA) {
		t.Errorf("adjacency %+v; want %+v", d.Adj, wantA)
	}
	if r := d.Report; r.Edges != 4 || r.SelfLoops != 1 || !r.SelfLoopsDropped || !r.Reversed || r.Merged != 0 {
		t.Errorf("report %+v", r)
	}
	dense := d.DenseFeatures()
	if !slices.Equal(dense[:6], []float32{0, 1, 0, 0, 0, 1}) || len(dense) != 24 {
		t.Errorf("dense features %v", dense)
	}
	// The feature block of a distributed run's rank, dense.
	fb, err := LoadFeatureBlock(context.Background(), dir, func(n int) (int, int) { return 2, n })
	if err != nil {
		t.Fatal(err)
	}
	if fb.NumFeatures != 6 || !slices.Equal(fb.Features, dense[12:]) {
		t.Errorf("feature block %+v", fb)
	}
	stored, err := Load(dir, &LoadOptions{Symmetry: AsStored, Split: SplitNone})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Adj.NNZ() != 4 || stored.Report.Reversed {
		t.Errorf("as stored: %d entries", stored.Adj.NNZ())
	}
}

func TestLoadMUSAEErrors(t *testing.T) {
	with := func(name, text string) map[string]string { return withFile(musaeFilesSmall, name, text) }
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"ids not 0..n-1", with("tiny_target.csv", "id,page_type\n0,a\n5,b\n"), "tiny_target.csv: dataset: bad input: the ids are not 0..1, each once (record 2 has id 5)"},
		{"duplicate id", with("tiny_target.csv", "id,page_type\n0,a\n0,b\n"), "the ids are not 0..1, each once (record 2 has id 0)"},
		{"no class column", with("tiny_target.csv", "id,name\n0,a\n"), "tiny_target.csv: line 1: dataset: bad input: no class column (one of page_type, ml_target, target, label, mature)"},
		{"bad target id", with("tiny_target.csv", "id,page_type\nx,a\n"), `tiny_target.csv: line 2: dataset: bad input: id "x" is not a vertex id`},
		{"edge to no page", with("tiny_edges.csv", "id_1,id_2\n0,1\n1,9\n"), "tiny_edges.csv: line 3: dataset: bad input: id_2 9 is not a node of the 4 in tiny_target.csv"},
		{"edge header", with("tiny_edges.csv", "a,b,c\n0,1,2\n"), `tiny_edges.csv: line 1: dataset: bad input: header "a,b,c"; want the two columns of an edge`},
		{"features not an object", with("tiny_features.json", "[1, 2]"), "tiny_features.json: byte 1: dataset: bad input: want an object"},
		{"feature key", with("tiny_features.json", `{"9": [1]}`), `tiny_features.json: byte 4: dataset: bad input: key "9" is not a vertex id in [0, 4)`},
		{"feature id", with("tiny_features.json", `{"1": [1, -2]}`), "dataset: bad input: vertex 1: feature id -2 is not an integer in [0, 2^31)"},
		{"feature float", with("tiny_features.json", `{"1": [1.5]}`), "vertex 1: feature id 1.5 is not an integer"},
		{"feature list", with("tiny_features.json", `{"1": 3}`), "vertex 1: want a list of feature ids, have 3"},
		{"duplicate key", with("tiny_features.json", `{"1": [1], "1": [2]}`), "vertex 1 appears twice"},
		{"truncated json", with("tiny_features.json", `{"1": [1, 2`), "dataset: bad input: the file ends inside the object"},
		{"trailing data", with("tiny_features.json", `{"1": [1]} {}`), "dataset: bad input: data after the object"},
		{"sparse feature ids", with("tiny_features.json", `{"1": [2000000000]}`), "feature id 2000000000 for only 1 entries; feature ids must be dense"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeFolder(t, tt.files), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// TestSaveExtrasRoundTrip writes a dataset with sparse features, stored
// splits, source ids and class names to both formats Save writes and
// reads it back, whole and by blocks.
func TestSaveExtrasRoundTrip(t *testing.T) {
	src := extrasDataset()
	dir := t.TempDir()
	for _, name := range []string{"x.bsn", "x.npz"} {
		p := filepath.Join(dir, name)
		if err := Save(p, src); err != nil {
			t.Fatal(err)
		}
		for _, verify := range []VerifyLevel{VerifyStructure, VerifyChecksums} {
			d, err := Load(p, &LoadOptions{Verify: verify, SplitIndex: 1})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(d.SparseFeatures, src.SparseFeatures) || d.Features != nil || d.NumFeatures != 4 {
				t.Errorf("%s: sparse features %+v (dense %v, %d)", name, d.SparseFeatures, d.Features, d.NumFeatures)
			}
			if !slices.Equal(d.SourceIDs, src.SourceIDs) || !reflect.DeepEqual(d.Splits, src.Splits) {
				t.Errorf("%s: source ids %v, splits %+v", name, d.SourceIDs, d.Splits)
			}
			if !slices.Equal(d.Train, []int32{1, 2}) || !slices.Equal(d.Test, []int32{0}) {
				t.Errorf("%s: split index 1: %v %v %v", name, d.Train, d.Valid, d.Test)
			}
			if strings.HasSuffix(name, ".bsn") && !slices.Equal(d.ClassNames, src.ClassNames) {
				t.Errorf("%s: class names %q", name, d.ClassNames)
			}
			d.Close()
		}
		fb, err := LoadFeatureBlock(context.Background(), p, func(n int) (int, int) { return 1, 3 })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fb.Features, []float32{0, 0, 0, 0, 0.5, 0, 0, 2}) {
			t.Errorf("%s: feature block %v", name, fb.Features)
		}
		fb.Close()
		lb, _, err := LoadLabelBlock(context.Background(), p, func(n int) (int, int) { return 0, 1 }, &LoadOptions{SplitIndex: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lb.Train, []int32{1, 2}) {
			t.Errorf("%s: label block's train %v; want split 1's", name, lb.Train)
		}
		if _, err := Load(p, &LoadOptions{SplitIndex: 2}); err == nil || !strings.Contains(err.Error(), "split index 2 outside [0, 2)") {
			t.Errorf("%s: split index 2: %v", name, err)
		}
	}
	// A file without the extras is the same bytes as before they existed.
	var a, b bytes.Buffer
	plain := smallDataset()
	if err := writeNative(&a, plain); err != nil {
		t.Fatal(err)
	}
	plain.ClassNames = nil
	if err := writeNative(&b, plain); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Contains(a.Bytes(), []byte("class_names")) {
		t.Errorf("a plain native file changed: %v", err)
	}
}

// TestLoadFacebookPagePage reads MUSAE's Facebook page-page folder as it
// ships and checks it against the published statistics (Rozemberczki et
// al.: 22,470 pages, 171,002 edges, 4 classes; 4,714 distinct feature
// ids) and PyG's FacebookPagePage (342,004 directed edges, which count
// the 179 self loops twice as PyG keeps them).
func TestLoadFacebookPagePage(t *testing.T) {
	dir := sharedData(t, "musae-facebook")
	d, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Name != "facebook" || d.NumNodes() != 22470 || d.NumFeatures != 4714 || d.NumClasses != 4 || d.Features != nil {
		t.Errorf("%s: %d nodes, %d features, %d classes", d.Name, d.NumNodes(), d.NumFeatures, d.NumClasses)
	}
	r := d.Report
	if r.Edges != 171002 || r.SelfLoops != 179 || d.Adj.NNZ() != 342004-2*179 {
		t.Errorf("report %+v, %d entries", r, d.Adj.NNZ())
	}
	if !slices.Equal(d.ClassNames, []string{"company", "government", "politician", "tvshow"}) {
		t.Errorf("classes %q", d.ClassNames)
	}
	// The sparse features take a few MB where dense ones take 424 MB.
	if nnz := d.SparseFeatures.NNZ(); nnz < 100000 || 12*nnz > 8<<20 {
		t.Errorf("%d feature entries", nnz)
	}
	f := Facts(d.Adj)
	if !f.Symmetric || f.SelfLoops != 0 || f.Components < 1 {
		t.Errorf("facts %+v", f)
	}
	// The edge file alone, as it ships: its header names the columns.
	e, err := Load(filepath.Join(dir, "facebook_edges.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.NumNodes() != 22470 || e.Adj.NNZ() != 171002 || e.SourceIDs != nil || len(e.Report.Notes) != 1 {
		t.Errorf("edge file: %d nodes, %d entries, report %+v", e.NumNodes(), e.Adj.NNZ(), e.Report)
	}
	// Saved natively, the features stay sparse and the load is the same.
	p := filepath.Join(t.TempDir(), "fb.bsn")
	if err := Save(p, d); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Size() > 16<<20 {
		t.Errorf("native file of %d bytes", st.Size())
	}
	n, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !reflect.DeepEqual(n.SparseFeatures, d.SparseFeatures) || !slices.Equal(n.Labels, d.Labels) || !slices.Equal(n.ClassNames, d.ClassNames) {
		t.Errorf("native copy differs")
	}
}

// extrasDataset is a small dataset with every optional part: sparse
// features, two stored splits, source ids and class names.
func extrasDataset() *Dataset {
	d := &Dataset{
		Name: "extras",
		Adj:  &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 2}, Indices: []int32{1, 0}, Data: []float32{1, 1}},
		SparseFeatures: &spgemm.CSR{Rows: 3, Cols: 4, Indptr: []int64{0, 1, 1, 3},
			Indices: []int32{2, 0, 3}, Data: []float32{1, 0.5, 2}},
		NumFeatures: 4,
		Labels:      []int32{0, 1, 1}, NumClasses: 2, ClassNames: []string{"a", "b"},
		SourceIDs: []int64{10, 20, 1 << 40},
		Splits: []Split{{Train: []int32{0}, Valid: []int32{1}, Test: []int32{2}},
			{Train: []int32{1, 2}, Valid: []int32{}, Test: []int32{0}}},
	}
	d.Train, d.Valid, d.Test = d.Splits[0].Train, d.Splits[0].Valid, d.Splits[0].Test
	return d
}

// TestNameOfFolders checks that NameOf gives the folders' names as Load
// does.
func TestNameOfFolders(t *testing.T) {
	for _, files := range []map[string]string{musaeFilesSmall, dglFeatureFiles} {
		dir := writeFolder(t, files)
		d, err := Load(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if name, err := NameOf(dir); err != nil || name != d.Name {
			t.Errorf("NameOf = %q, %v; Load's name %q", name, err, d.Name)
		}
	}
}

// TestIdentityOfFolders checks that the identity of a MUSAE folder changes
// with any of its files.
func TestIdentityOfFolders(t *testing.T) {
	a, err := Identity(writeFolder(t, musaeFilesSmall))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Identity(writeFolder(t, withFile(musaeFilesSmall, "tiny_target.csv", "id,page_type\n0,a\n1,b\n2,a\n3,b\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 6 || slices.Equal(a, b) {
		t.Errorf("identities %q and %q", a, b)
	}
}
