package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records whether MissingData skipped or failed.
type fakeT struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Skip(...any)           { f.skipped = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }

func TestMissingData(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		f := &fakeT{}
		MissingData(f, "cora.npz not found")
		if f.failed != (ci != "") || f.skipped != (ci == "") {
			t.Errorf("CI=%q: skipped %v, failed %v", ci, f.skipped, f.failed)
		}
	}
}

func TestFindShared(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "shared", "data", "Planetoid", "Cora")
	wd := filepath.Join(root, "repo", "dataset")
	for _, d := range []string{data, wd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(wd)
	got, err := findShared("Planetoid/Cora")
	if err != nil || got != data {
		t.Errorf("findShared(Planetoid/Cora) = %q, %v; want %q", got, err, data)
	}
	if got, err := findShared("Planetoid/PubMed"); err == nil {
		t.Errorf("findShared(Planetoid/PubMed) = %q; want an error", got)
	}
}
