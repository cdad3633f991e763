package dataset

import (
	"path/filepath"
	"testing"
)

// TestNameOf: NameOf gives Load's name, for a native file that records one
// (another than its file's), a scipy .npz and an edge list.
func TestNameOf(t *testing.T) {
	d, err := PlantedPartition(PlantedPartitionOptions{Nodes: 50, Classes: 2, Features: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d.Name = "recorded"
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "a.bsn"), filepath.Join(dir, "b.npz")} {
		if err := Save(p, d); err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := NameOf(p); err != nil || got != loaded.Name {
			t.Errorf("NameOf(%s) = %q, %v; Load names it %q", p, got, err, loaded.Name)
		}
		loaded.Close()
	}
	if _, err := NameOf(filepath.Join(dir, "missing.bsn")); err == nil {
		t.Error("a missing file: no error")
	}
}
