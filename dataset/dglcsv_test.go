package dataset

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// withFile returns a copy of files with name's text replaced.
func withFile(files map[string]string, name, text string) map[string]string {
	out := maps.Clone(files)
	out[name] = text
	return out
}

// writeFolder writes files (name -> contents) into a new folder.
func writeFolder(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), []byte(text))
	}
	return dir
}

// dglFeatureFiles is DGL's user-guide example of a single graph with
// features and labels (section 4.6, "Dataset of a single graph with
// features and labels"), shortened to 3 edge columns, its feature vectors
// written as DGL writes them.
var dglFeatureFiles = map[string]string{
	"meta.yaml": "dataset_name: mini_feature_dataset\nedge_data:\n- file_name: edges.csv\nnode_data:\n- file_name: nodes.csv\n",
	"nodes.csv": `node_id,label,train_mask,val_mask,test_mask,feat
0,1,False,True,True,"0.5, 0.25, 1"
1,1,True,True,True,"0.125, 0.875, 0.5"
2,1,True,False,True,"0.25,0.75,0.5"
3,0,False,True,False,"1, 0, 0"
4,1,True,True,False,"0, 1, 0"
`,
	"edges.csv": "src_id,dst_id,label\n4,0,2\n4,0,0\n0,3,1\n0,1,2\n0,2,1\n0,0,0\n2,2,1\n1,0,2\n3,0,0\n4,0,1\n",
}

func TestLoadDGLCSV(t *testing.T) {
	dir := writeFolder(t, dglFeatureFiles)
	if f, err := Detect(dir); err != nil || f != FormatDGLCSV {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	d, err := Load(dir, &LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Edge u -> v is entry (v, u); duplicates (4 -> 0 three times) dropped.
	want := &spgemm.CSR{Rows: 5, Cols: 5, Indptr: []int64{0, 4, 5, 7, 8, 8}, Indices: []int32{0, 1, 3, 4, 0, 0, 2, 0}, Data: []float32{1, 1, 1, 1, 1, 1, 1, 1}}
	if !reflect.DeepEqual(d.Adj, want) || d.Weighted {
		t.Errorf("adjacency %+v (weighted %v); want %+v", d.Adj, d.Weighted, want)
	}
	if d.Name != "mini_feature_dataset" || d.NumFeatures != 3 || d.NumClasses != 2 {
		t.Errorf("%s: %d features, %d classes", d.Name, d.NumFeatures, d.NumClasses)
	}
	if !slices.Equal(d.Features[:6], []float32{0.5, 0.25, 1, 0.125, 0.875, 0.5}) || !slices.Equal(d.Labels, []int32{1, 1, 1, 0, 1}) {
		t.Errorf("features %v labels %v", d.Features, d.Labels)
	}
	if !slices.Equal(d.Train, []int32{1, 2, 4}) || !slices.Equal(d.Valid, []int32{0, 1, 3, 4}) || !slices.Equal(d.Test, []int32{0, 1, 2}) {
		t.Errorf("split %v %v %v", d.Train, d.Valid, d.Test)
	}
	r := d.Report
	if r.Edges != 10 || r.SelfLoops != 2 || r.Merged != 2 || r.Reversed || d.SourceIDs != nil {
		t.Errorf("report %+v, source ids %v", r, d.SourceIDs)
	}
	if !slices.Contains(r.Notes, "edge columns not read: label") {
		t.Errorf("notes %q", r.Notes)
	}
	// Symmetrised on request.
	s, err := Load(dir, &LoadOptions{Symmetry: Symmetrize})
	if err != nil {
		t.Fatal(err)
	}
	if !Facts(s.Adj).Symmetric || s.Adj.NNZ() != 8 || !s.Report.Reversed {
		t.Errorf("symmetrised: %d entries, report %+v", s.Adj.NNZ(), s.Report)
	}
}

// TestLoadDGLCSVIDs checks DGL's id rule: ids 0..n-1 in any order are the
// vertices; other ids are mapped in the order of the node file.
func TestLoadDGLCSVIDs(t *testing.T) {
	meta := "dataset_name: ids\nseparator: ';' # semicolons\nedge_data:\n- file_name: e.csv\n  src_id_field: from\n  dst_id_field: to\n  etype: [v, e, v]\nnode_data:\n- file_name: n.csv\n  node_id_field: nid\n  ntype: v\n"
	shuffled := writeFolder(t, map[string]string{"meta.yaml": meta,
		"n.csv": "nid;label;feat\n2;0;\"2;2\"\n0;1;\"0,0\"\n1;0;1 1\n", "e.csv": "from;to;weight\n0;2;0.5\n2;1;2\n"})
	// The separator is ';', so the vector fields are quoted or space-separated.
	_, err := Load(shuffled, nil)
	if err == nil || !strings.Contains(err.Error(), `feat: "2;2" is not a number`) {
		t.Fatalf("vector with the separator inside: %v", err)
	}
	writeFile(t, filepath.Join(shuffled, "n.csv"), []byte("nid;label;feat\n2;0;2 2\n0;1;0,0\n1;0;1 1\n"))
	d, err := Load(shuffled, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceIDs != nil || !slices.Equal(d.Labels, []int32{1, 0, 0}) || !slices.Equal(d.Features, []float32{0, 0, 1, 1, 2, 2}) {
		t.Errorf("ids 0..n-1 shuffled: source ids %v, labels %v, features %v", d.SourceIDs, d.Labels, d.Features)
	}
	want := &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 0, 1, 2}, Indices: []int32{2, 0}, Data: []float32{2, 0.5}}
	if !reflect.DeepEqual(d.Adj, want) || !d.Weighted {
		t.Errorf("adjacency %+v; want %+v", d.Adj, want)
	}
	sparse := writeFolder(t, map[string]string{"meta.yaml": meta,
		"n.csv": "nid;label\n100;0\n7;1\n-5;0\n", "e.csv": "from;to\n100;-5\n-5;7\n"})
	if d, err = Load(sparse, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.SourceIDs, []int64{100, 7, -5}) || !strings.HasPrefix(d.Report.IDs, "renumbered: the 3 nid values") {
		t.Errorf("sparse ids: source ids %v, report %+v", d.SourceIDs, d.Report)
	}
	want = &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 0, 1, 2}, Indices: []int32{2, 0}, Data: []float32{1, 1}}
	if !reflect.DeepEqual(d.Adj, want) {
		t.Errorf("adjacency %+v; want %+v", d.Adj, want)
	}
}

// TestLoadDGLCSVErrors checks that each malformed folder is refused with
// an error naming the file, the line or key and what was expected.
func TestLoadDGLCSVErrors(t *testing.T) {
	with := func(name, text string) map[string]string { return withFile(dglFeatureFiles, name, text) }
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"hetero", with("meta.yaml", "dataset_name: h\nedge_data:\n- file_name: edges.csv\n  etype: [user, follow, user]\n- file_name: edges.csv\n  etype: [user, like, item]\nnode_data:\n- file_name: nodes.csv\n"),
			"meta.yaml: line 5: dataset: bad input: edge_data lists 2 files: a heterogeneous graph"},
		{"etype", with("meta.yaml", "edge_data:\n- file_name: edges.csv\n  etype: [user, like, item]\nnode_data:\n- file_name: nodes.csv\n"),
			"meta.yaml: line 3: dataset: bad input: etype [user like item] joins node types"},
		{"graphs", with("meta.yaml", "edge_data:\n- file_name: edges.csv\nnode_data:\n- file_name: nodes.csv\ngraph_data:\n  file_name: graphs.csv\n"),
			"meta.yaml: line 6: dataset: bad input: graph_data: a dataset of several graphs"},
		{"unknown key", with("meta.yaml", "edge_data:\n- file_name: edges.csv\n  weight_field: w\nnode_data:\n- file_name: nodes.csv\n"),
			`meta.yaml: line 3: dataset: bad input: unknown key "weight_field" in edge_data (DGL's CSVDataset knows file_name, etype, src_id_field, dst_id_field)`},
		{"no node_data", with("meta.yaml", "edge_data:\n- file_name: edges.csv\n"), "meta.yaml: line 1: dataset: bad input: no node_data"},
		{"escaping file name", with("meta.yaml", "edge_data:\n- file_name: ../edges.csv\nnode_data:\n- file_name: nodes.csv\n"),
			`meta.yaml: line 2: dataset: bad input: file_name "../edges.csv": want a file in the dataset's folder`},
		{"bad yaml", with("meta.yaml", "edge_data:\n- file_name: edges.csv\n   bad: indent\nnode_data:\n"), "meta.yaml: line 3: dataset: bad input"},
		{"missing file", with("meta.yaml", "edge_data:\n- file_name: nope.csv\nnode_data:\n- file_name: nodes.csv\n"), "nope.csv: no such file"},
		{"no id column", with("nodes.csv", "id,label\n0,1\n"), `nodes.csv: line 1: dataset: bad input: no column "node_id"`},
		{"bad id", with("nodes.csv", "node_id\n0\nx\n"), `nodes.csv: line 3: dataset: bad input: node_id "x" is not an integer`},
		{"duplicate id", with("nodes.csv", "node_id\n0\n1\n0\n"), "nodes.csv: line 4: dataset: bad input: node_id 0 appears twice (rows 1 and 3 of the file)"},
		{"bad mask", with("nodes.csv", "node_id,train_mask\n0,yes\n"), `nodes.csv: line 2: dataset: bad input: train_mask "yes" is not True or False`},
		{"bad label", with("nodes.csv", "node_id,label\n0,cat\n"), `nodes.csv: line 2: dataset: bad input: label "cat" is not a class id`},
		{"ragged feat", with("nodes.csv", "node_id,feat\n0,\"1,2\"\n1,\"1,2,3\"\n"), "nodes.csv: line 3: dataset: bad input: feat has 3 values, the first row's 2"},
		{"bad feat", with("nodes.csv", "node_id,feat\n0,\"1,zz\"\n"), `nodes.csv: line 2: dataset: bad input: feat: "zz" is not a number`},
		{"field count", with("nodes.csv", "node_id,label\n0,1,2\n"), "nodes.csv: line 2: dataset: bad input: a record whose number of fields differs from the header's 2 columns"},
		{"unterminated quote", with("nodes.csv", "node_id,feat\n0,\"1,2\n"), "nodes.csv: line 2: dataset: bad input"},
		{"graph_id", with("nodes.csv", "graph_id,node_id\n0,0\n"), "nodes.csv: line 1: dataset: bad input: a graph_id column"},
		{"edge to no node", with("edges.csv", "src_id,dst_id\n0,1\n0,9\n"), "edges.csv: line 3: dataset: bad input: dst_id 9 is not a node_id of nodes.csv"},
		{"no dst column", with("edges.csv", "src_id,target\n0,1\n"), `edges.csv: line 1: dataset: bad input: no column "dst_id"`},
		{"bad weight", with("edges.csv", "src_id,dst_id,weight\n0,1,heavy\n"), `edges.csv: line 2: dataset: bad input: weight "heavy" is not a finite number`},
		{"empty edges", with("edges.csv", ""), "edges.csv: dataset: bad input: empty file; want a header line naming the columns"},
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

func TestParseYAML(t *testing.T) {
	src := `# DGL's full specification, abridged
version: 1.0.0
dataset_name: "some \"complex\" data"
separator: ','   # CSV separator
edge_data:
- file_name: edges_0.csv
  etype: [user, 'follow', "user"]
  src_id_field: src_id
node_data:
  - file_name: nodes_0.csv
    ntype: user
empty:
nested:
  deeper:
    - a
    -
      b
    - - c
`
	root, err := parseYAML("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := root.keys; !slices.Equal(got, []string{"version", "dataset_name", "separator", "edge_data", "node_data", "empty", "nested"}) {
		t.Errorf("keys %q", got)
	}
	if s := root.get("dataset_name").scalar; s != `some "complex" data` {
		t.Errorf("dataset_name %q", s)
	}
	if s := root.get("separator").scalar; s != "," {
		t.Errorf("separator %q", s)
	}
	e := root.get("edge_data")
	if e.kind != yamlSeq || len(e.items) != 1 || e.items[0].get("src_id_field").scalar != "src_id" {
		t.Fatalf("edge_data %+v", e)
	}
	var etype []string
	for _, it := range e.items[0].get("etype").items {
		etype = append(etype, it.scalar)
	}
	if !slices.Equal(etype, []string{"user", "follow", "user"}) {
		t.Errorf("etype %q", etype)
	}
	if n := root.get("node_data"); n.kind != yamlSeq || n.items[0].get("ntype").scalar != "user" || n.items[0].line != 10 {
		t.Errorf("node_data %+v", n)
	}
	if v := root.get("empty"); v.kind != yamlScalar || !v.null {
		t.Errorf("empty %+v", v)
	}
	d := root.get("nested").get("deeper")
	if len(d.items) != 3 || d.items[0].scalar != "a" || d.items[1].scalar != "b" || d.items[2].items[0].scalar != "c" {
		t.Errorf("nested %+v", d)
	}
	bad := []struct{ src, want string }{
		{"a: 1\na: 2\n", `line 2: dataset: bad input: key "a" appears twice`},
		{"a:\n\t- x\n", "line 2: dataset: bad input: a tab in the indentation"},
		{"a: {b: 1}\n", "line 1: dataset: bad input: flow mapping"},
		{"a: &x 1\n", "line 1: dataset: bad input: \"&x 1\": anchors"},
		{"a: |\n  text\n", "line 1: dataset: bad input: \"|\": anchors, aliases, tags and multi-line scalars"},
		{"a: 'open\n", "line 1: dataset: bad input: unterminated '-quoted string"},
		{"a: [x, y\n", "line 1: dataset: bad input: flow sequence \"[x, y\" does not end with ]"},
		{"a: b: c\n", "line 1: dataset: bad input: \"b: c\": a mapping on the line of its key"},
		{"a: 1\n  b: 2\n", "line 2: dataset: bad input: indentation 2 under a key that has a value"},
		{"a: 1\n---\nb: 2\n", `line 2: dataset: bad input: "---": one document only`},
		{"  a: 1\nb: 2\n", "line 2: dataset: bad input: indentation 0 does not continue the value above it"},
		{`a: "x\q"` + "\n", `escape \q is not supported`},
	}
	for _, tt := range bad {
		_, err := parseYAML("m.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%q: error %v; want one containing %q", tt.src, err, tt.want)
		}
	}
}

// TestLoadDGLCSVNotAFolder checks the error for a folder of none of the
// known kinds.
func TestLoadUnknownFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "a DGL CSVDataset (no meta.yaml) nor a MUSAE one") {
		t.Errorf("error %v", err)
	}
	_, err = LoadContext(context.Background(), dir, nil)
	if !errors.Is(err, ErrFormat) {
		t.Errorf("error %v does not wrap ErrFormat", err)
	}
}
