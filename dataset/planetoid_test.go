package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/testenv"
)

// planetoidTestRow is what a test vertex of a Planetoid file holds.
type planetoidTestRow struct {
	vertex     int32
	label      int32
	features   int     // nonzero feature columns
	firstCols  []int32 // the first of them
	neighbours []int32 // nil: not checked
}

// TestLoadPlanetoidShared loads the real Cora and CiteSeer files. The
// expected figures were checked outside the project: with Python's own
// pickle module (a find_class that returns inert stand-ins, so nothing of
// numpy or scipy ran) and a re-implementation of Kipf's load_data on the
// result; the counts are PyG's (Planetoid('Cora'): 2,708 nodes, 10,556
// edges; CiteSeer: 3,327 and 9,104).
func TestLoadPlanetoidShared(t *testing.T) {
	tests := []struct {
		dir                       string
		name                      string
		nodes, features, classes  int
		edges                     int64
		train, labelled, holesLen int
		holes                     []int32 // CiteSeer's test-range ids that are no test vertex
		rows                      []planetoidTestRow
	}{
		{dir: "Planetoid/Cora", name: "cora", nodes: 2708, features: 1433, classes: 7, edges: 10556, train: 140, labelled: 2708,
			rows: []planetoidTestRow{ // the first lines of ind.cora.test.index: 2692, 2532, 2050
				{2692, 3, 15, []int32{311, 314, 353}, []int32{1310}},
				{2532, 1, 17, []int32{78, 121, 228}, nil},
				{2050, 6, 19, []int32{173, 191, 192}, nil},
				{0, 3, 9, []int32{19, 81, 146}, nil}, // a training vertex, from allx and ally
			}},
		{dir: "Planetoid/CiteSeer", name: "citeseer", nodes: 3327, features: 3703, classes: 6, edges: 9104, train: 120, labelled: 3312,
			holes: []int32{2407, 2489, 2553, 2682, 2781, 2953, 3042, 3063, 3212, 3214, 3250, 3292, 3305, 3306, 3309},
			rows: []planetoidTestRow{ // ind.citeseer.test.index starts 2488, 2644, 3261
				{2488, 2, 41, []int32{19, 21, 169}, []int32{138, 755, 1853, 1965, 2435, 2487}},
				{2644, 0, 43, []int32{384, 570, 571}, nil},
				{3261, 1, 38, []int32{24, 168, 169}, nil},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testenv.SharedData(t, tt.dir)
			d, err := Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.Name != tt.name || d.NumNodes() != tt.nodes || d.Adj.NNZ() != tt.edges || d.NumFeatures != tt.features || d.NumClasses != tt.classes {
				t.Fatalf("%s: %d nodes, %d stored edges, %d features, %d classes; want %s, %d, %d, %d, %d", d.Name, d.NumNodes(), d.Adj.NNZ(),
					d.NumFeatures, d.NumClasses, tt.name, tt.nodes, tt.edges, tt.features, tt.classes)
			}
			checkPublicSplit(t, d, tt.train, 1000)
			labelled := 0
			for _, l := range d.Labels {
				if l >= 0 {
					labelled++
				}
			}
			if labelled != tt.labelled {
				t.Errorf("%d labelled vertices; want %d", labelled, tt.labelled)
			}
			checkSymmetric(t, d)
			for _, h := range tt.holes {
				if d.Labels[h] != -1 || slices.ContainsFunc(d.Features[int(h)*d.NumFeatures:int(h+1)*d.NumFeatures], func(x float32) bool { return x != 0 }) ||
					slices.Contains(d.Test, h) {
					t.Errorf("hole %d: label %d, a nonzero feature or a test vertex; want an isolated zero row, unlabelled, in no split", h, d.Labels[h])
				}
			}
			for _, r := range tt.rows {
				var cols []int32
				for j, x := range d.Features[int(r.vertex)*d.NumFeatures : int(r.vertex+1)*d.NumFeatures] {
					if x != 0 {
						cols = append(cols, int32(j))
					}
				}
				if d.Labels[r.vertex] != r.label || len(cols) != r.features || !slices.Equal(cols[:len(r.firstCols)], r.firstCols) {
					t.Errorf("vertex %d: label %d, %d features %v...; want %d, %d, %v...", r.vertex, d.Labels[r.vertex], len(cols),
						cols[:min(3, len(cols))], r.label, r.features, r.firstCols)
				}
				if nb, _ := d.Adj.Row(int(r.vertex)); r.neighbours != nil && !slices.Equal(nb, r.neighbours) {
					t.Errorf("vertex %d: neighbours %v; want %v", r.vertex, nb, r.neighbours)
				}
			}
			// The same dataset through the raw folder and one of its files.
			for _, p := range []string{filepath.Join(dir, "raw"), filepath.Join(dir, "raw", "ind."+tt.name+".test.index")} {
				e, err := Load(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(e.Adj, d.Adj) || !slices.Equal(e.Features, d.Features) || !slices.Equal(e.Test, d.Test) {
					t.Errorf("%s: another dataset than %s", p, dir)
				}
				e.Close()
			}
		})
	}
}

// checkPublicSplit checks Planetoid's public split: train the first nTrain
// vertices, valid the next 500, nTest test ids.
func checkPublicSplit(t *testing.T, d *Dataset, nTrain, nTest int) {
	t.Helper()
	if len(d.Train) != nTrain || len(d.Valid) != 500 || len(d.Test) != nTest {
		t.Fatalf("split %d/%d/%d; want %d/500/%d", len(d.Train), len(d.Valid), len(d.Test), nTrain, nTest)
	}
	for i, v := range d.Train {
		if v != int32(i) {
			t.Fatalf("train[%d] = %d; want %d", i, v, i)
		}
	}
	for i, v := range d.Valid {
		if v != int32(nTrain+i) {
			t.Fatalf("valid[%d] = %d; want %d", i, v, nTrain+i)
		}
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// checkSymmetric checks that d.Adj equals its transpose and has no self loop.
func checkSymmetric(t *testing.T, d *Dataset) {
	t.Helper()
	a := d.Adj
	for i := range a.Rows {
		idx, _ := a.Row(i)
		for _, j := range idx {
			back, _ := a.Row(int(j))
			if _, ok := slices.BinarySearch(back, int32(i)); !ok || int(j) == i {
				t.Fatalf("entry (%d, %d): a self loop or no reverse entry", i, j)
			}
		}
	}
}

// TestLoadPlanetoidTiny checks the assembly on a dataset whose every row is
// known (tinyPlanetoid): the test rows placed by test.index, the hole, the
// public split, the symmetric graph and, with AsStored, the graph as stored.
func TestLoadPlanetoidTiny(t *testing.T) {
	dir := newTinyPlanetoid().write(t, filepath.Join(t.TempDir(), "raw"))
	d, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "tiny" || d.NumNodes() != 507 || d.NumFeatures != 3 || d.NumClasses != 2 {
		t.Fatalf("%s: %d nodes, %d features, %d classes; want tiny, 507, 3, 2", d.Name, d.NumNodes(), d.NumFeatures, d.NumClasses)
	}
	checkPublicSplit(t, d, 2, 3)
	if !slices.Equal(d.Test, []int32{503, 504, 506}) {
		t.Errorf("test %v; want [503 504 506]", d.Test)
	}
	rows := []struct {
		v        int
		features []float32
		label    int32
	}{
		{7, []float32{0, 3, 0}, 1},    // allx: feature 7%3 = 1, value 1+7%5 = 3, class 7%2
		{502, []float32{0, 3, 0}, 0},  // the last allx row
		{506, []float32{10, 0, 0}, 1}, // test.index line 1: tx and ty row 0
		{503, []float32{0, 20, 0}, 0}, // line 2
		{504, []float32{0, 0, 30}, 1}, // line 3
		{505, []float32{0, 0, 0}, -1}, // the hole
	}
	for _, r := range rows {
		if got := d.Features[r.v*3 : r.v*3+3]; !slices.Equal(got, r.features) || d.Labels[r.v] != r.label {
			t.Errorf("vertex %d: features %v, label %d; want %v, %d", r.v, got, d.Labels[r.v], r.features, r.label)
		}
	}
	// The path 0-1-...-506 both ways; the self loop at 0 and the
	// duplicate 2->3 gone.
	checkSymmetric(t, d)
	if d.Adj.NNZ() != 2*506 {
		t.Errorf("%d stored edges; want 1012", d.Adj.NNZ())
	}
	if nb, _ := d.Adj.Row(3); !slices.Equal(nb, []int32{2, 4}) {
		t.Errorf("neighbours of 3: %v; want [2 4]", nb)
	}
	s, err := Load(dir, &LoadOptions{Symmetry: AsStored})
	if err != nil {
		t.Fatal(err)
	}
	if nb, _ := s.Adj.Row(0); s.Adj.NNZ() != 507 || !slices.Equal(nb, []int32{0, 1}) {
		t.Errorf("as stored: %d entries, row 0 %v; want 507 (the lists, the duplicate merged) and [0 1]", s.Adj.NNZ(), nb)
	}
	// --split draws another split instead of the public one.
	r, err := Load(dir, &LoadOptions{Split: "random:0.5,0.25,0.25"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Train) == 2 {
		t.Errorf("Split random: train %d vertices, the public split's size", len(r.Train))
	}
}

// TestPlanetoidPaths: the raw folder, its parent, PyG's root holding one
// dataset, and any one of the files name the same dataset; a folder of
// several datasets is an error listing them, and a file picks one.
func TestPlanetoidPaths(t *testing.T) {
	tiny := newTinyPlanetoid()
	root := t.TempDir()
	raw := tiny.write(t, filepath.Join(root, "Tiny", "raw"))
	for _, p := range []string{raw, filepath.Dir(raw), root, filepath.Join(raw, "ind.tiny.x"), filepath.Join(raw, "ind.tiny.test.index")} {
		if f, err := Detect(p); err != nil || f != FormatPlanetoid {
			t.Errorf("Detect(%s) = %q, %v; want %s", p, f, err, FormatPlanetoid)
		}
		d, err := Load(p, nil)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if d.NumNodes() != 507 || d.Name != "tiny" {
			t.Errorf("%s: %s with %d nodes; want tiny with 507", p, d.Name, d.NumNodes())
		}
	}
	// Two datasets under the root, and two in one folder (as in Kipf's
	// repository, whose gcn/data holds cora, citeseer and pubmed).
	for name, b := range tiny.files {
		if err := os.WriteFile(filepath.Join(raw, "ind.other."+name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := tiny.write(t, filepath.Join(root, "Other", "raw"))
	for _, tc := range []struct{ path, want string }{
		{root, filepath.Join(root, "Other")},
		{raw, "ind.other.x"},
	} {
		_, err := Load(tc.path, nil)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one listing %s", tc.path, err, tc.want)
		}
	}
	if d, err := Load(filepath.Join(raw, "ind.other.graph"), nil); err != nil || d.Name != "other" {
		t.Errorf("ind.other.graph: %v; want the dataset other", err)
	}
	if d, err := Load(other, nil); err != nil || d.Name != "tiny" {
		t.Errorf("%s: %v; want the dataset tiny", other, err)
	}
}

// TestPlanetoidMalformed: every malformed file is an error naming it (and,
// where it applies, the class, array, shape or line); nothing panics.
func TestPlanetoidMalformed(t *testing.T) {
	tiny := newTinyPlanetoid()
	truncated := func(ext string) []byte { b := tiny.files[ext]; return b[:len(b)/2] }
	onehot := func(rows, classes int) []byte {
		p := newPickle()
		p.oneHot(make([]int32, rows), classes)
		return p.bytes()
	}
	csr := func(rows, cols int, indices []int32) []byte {
		p := newPickle()
		indptr := make([]int32, rows+1)
		for i := range indptr[1:] {
			indptr[i+1] = int32(min(i+1, len(indices)))
		}
		indptr[rows] = int32(len(indices))
		p.csr(rows, cols, indptr, indices, make([]float32, len(indices)))
		return p.bytes()
	}
	graph := func(adj [][]int64) []byte {
		p := newPickle()
		p.graph(adj)
		return p.bytes()
	}
	tests := []struct {
		ext  string
		file []byte
		want string // in the error, besides the file's path
	}{
		{"x", truncated("x"), "truncated"},
		{"allx", tiny.files["allx"][:len(tiny.files["allx"])-20], "truncated: BINSTRING needs"},
		{"graph", truncated("graph"), "truncated"},
		{"ty", truncated("ty"), "truncated"},
		{"graph", []byte("\x80\x02cos\nsystem\n(U\x02lstR."), "class os.system is not one"},
		{"allx", []byte("\x80\x02c__builtin__\neval\nq\x00."), "class __builtin__.eval"},
		{"x", []byte("\x80\x04K\x01."), "protocol 4"},
		{"x", graph(nil), "not a scipy.sparse.csr_matrix"},
		{"y", tiny.files["x"], "not a numpy array"},
		{"ty", onehot(2, 2), "shape (2, 2), want (3, 2)"},
		{"y", onehot(2, 3), "shape (2, 3), want (2, 2)"},
		{"ally", onehot(500, 2), "500 rows for the 503"},
		{"tx", csr(3, 4, nil), "4 features"},
		{"x", csr(2, 3, []int32{0, 7}), "column id 7 outside [0, 3)"},
		{"test.index", []byte("506\nabc\n504\n"), "line 2"},
		{"test.index", []byte("506\n503\n"), "2 test ids for the 3 rows"},
		{"test.index", []byte("506\n5\n504\n"), "line 2: test id 5 is below 503"},
		{"test.index", []byte("506\n503\n503\n"), "line 3: test id 503 is listed twice"},
		{"test.index", []byte("506\n503\n99999\n"), "without a test row"},
		{"graph", graph([][]int64{{1}, {999}}), "key 1: neighbour 0 is 999"},
		{"graph", tiny.files["x"], "not a dict"},
	}
	for i, tt := range tests {
		dir := tiny.with(tt.ext, tt.file).write(t, filepath.Join(t.TempDir(), "raw"))
		_, err := Load(dir, nil)
		file := filepath.Join(dir, "ind.tiny."+tt.ext)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("case %d, %s: error %v; want ErrFormat naming %s and %q", i, tt.ext, err, file, tt.want)
		}
	}
	// A missing file is named by the open error.
	dir := tiny.write(t, filepath.Join(t.TempDir(), "raw"))
	if err := os.Remove(filepath.Join(dir, "ind.tiny.ally")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "ind.tiny.ally")) {
		t.Errorf("missing ally: error %v; want one naming it", err)
	}
}

// TestPlanetoidBlocksAndIdentity: a rank's feature block of a Planetoid
// dataset is its rows of the whole load, and Identity covers the eight
// files (a change to one changes it).
func TestPlanetoidBlocksAndIdentity(t *testing.T) {
	tiny := newTinyPlanetoid()
	dir := tiny.write(t, filepath.Join(t.TempDir(), "Tiny", "raw"))
	d, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadFeatureBlock(context.Background(), filepath.Dir(dir), func(n int) (int, int) { return 500, n })
	if err != nil {
		t.Fatal(err)
	}
	if b.N != 507 || !slices.Equal(b.Features, d.Features[500*3:]) {
		t.Errorf("feature block of rows [500, 507): %d rows, %v; want %v", b.N, b.Features, d.Features[500*3:])
	}
	id, err := Identity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 2*len(planetoidExts) {
		t.Errorf("identity %q: want two lines for each of the %d files", id, len(planetoidExts))
	}
	tiny.with("test.index", []byte("506\n504\n503\n")).write(t, dir)
	if id2, err := Identity(filepath.Dir(dir)); err != nil || reflect.DeepEqual(id, id2) {
		t.Errorf("identity after test.index changed: %v, the same lines %v", err, reflect.DeepEqual(id, id2))
	}
}
