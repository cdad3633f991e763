package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestInputs: the files a load reads, whatever names the dataset: a
// Planetoid dataset's eight files from its folder, its parent or one of
// its files; an OGB folder's files under raw/ and split/ (not its other
// files); every file of another folder; a file itself.
func TestInputs(t *testing.T) {
	root := t.TempDir()
	raw := newTinyPlanetoid().write(t, filepath.Join(root, "Tiny", "raw"))
	var planetoid []string
	for _, ext := range planetoidExts {
		planetoid = append(planetoid, filepath.Join(raw, "ind.tiny."+ext))
	}
	ogb := filepath.Join(root, "ogb")
	var ogbFiles []string
	for _, p := range []string{"raw/edge.csv.gz", "raw/num-node-list.csv.gz", "split/time/train.csv.gz", "README.md"} {
		p = filepath.Join(ogb, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) != "README.md" {
			ogbFiles = append(ogbFiles, p)
		}
	}
	other := filepath.Join(root, "other")
	os.MkdirAll(filepath.Join(other, "sub"), 0o755)
	os.WriteFile(filepath.Join(other, "sub", "edges.csv"), []byte("0,1\n"), 0o644)
	file := filepath.Join(root, "g.txt")
	os.WriteFile(file, []byte("0 1\n"), 0o644)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{raw, planetoid},
		{filepath.Dir(raw), planetoid},
		{filepath.Join(raw, "ind.tiny.graph"), planetoid},
		{ogb, ogbFiles},
		{other, []string{filepath.Join(other, "sub", "edges.csv")}},
		{file, []string{file}},
	} {
		got, err := Inputs(tc.path)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Inputs(%s) = %v, %v; want %v", tc.path, got, err, want)
		}
	}
	if _, err := Inputs(filepath.Join(root, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing path: %v; want ErrNotExist", err)
	}
}
