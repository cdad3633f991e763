package dataset

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadLabelBlock: the label blocks of a labelled planted-partition
// dataset saved as a native file and as a scipy .npz (read without the
// graph: ok true), and of the .npz with a Split option (read whole: ok
// false), are the slices of Load's labels, with Load's split, name and
// class count, for blocks at the start, the end, empty and whole; a block
// outside the graph and a corrupt file are errors naming them.
func TestLoadLabelBlock(t *testing.T) {
	d, err := PlantedPartition(PlantedPartitionOptions{Nodes: 300, Classes: 4, Features: 5, Seed: 2, Split: "random:0.2,0.2,0.6"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	native, npz := filepath.Join(dir, "p.bsn"), filepath.Join(dir, "p.npz")
	for _, p := range []string{native, npz} {
		if err := Save(p, d); err != nil {
			t.Fatal(err)
		}
	}
	n := d.NumNodes()
	for _, tc := range []struct {
		path   string
		opt    *LoadOptions
		wantOK bool
	}{{native, nil, true}, {npz, nil, true}, {npz, &LoadOptions{Split: "planetoid:10,20,30", Seed: 3}, false}} {
		want, err := Load(tc.path, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]int{{0, n}, {0, 0}, {7, 120}, {n - 1, n}} {
			b, ok, err := LoadLabelBlock(context.Background(), tc.path, func(m int) (int, int) {
				if m != n {
					t.Errorf("rows called with n = %d; want %d", m, n)
				}
				return r[0], r[1]
			}, tc.opt)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.path, r, err)
			}
			switch {
			case ok != tc.wantOK:
				t.Errorf("%s: ok %v; want %v", tc.path, ok, tc.wantOK)
			case b.N != n || b.Lo != r[0] || b.Hi != r[1] || b.NumClasses != want.NumClasses || b.Name != want.Name:
				t.Errorf("%s %v: block %d vertices [%d, %d), %d classes, name %q; want %d, %d classes, %q", tc.path, r, b.N, b.Lo, b.Hi, b.NumClasses, b.Name, n, want.NumClasses, want.Name)
			case !slices.Equal(b.Labels, want.Labels[r[0]:r[1]]):
				t.Errorf("%s %v: labels differ from Load's", tc.path, r)
			case !slices.Equal(b.Train, want.Train) || !slices.Equal(b.Valid, want.Valid) || !slices.Equal(b.Test, want.Test):
				t.Errorf("%s %v: split %d/%d/%d; want Load's %d/%d/%d", tc.path, r, len(b.Train), len(b.Valid), len(b.Test), len(want.Train), len(want.Valid), len(want.Test))
			}
		}
		want.Close()
	}
	// A block outside the graph, and a file that is not one.
	if _, _, err := LoadLabelBlock(context.Background(), native, func(int) (int, int) { return 5, n + 1 }, nil); err == nil || !strings.Contains(err.Error(), "outside the 300 rows") {
		t.Errorf("block past the end: %v", err)
	}
	bad := filepath.Join(dir, "bad.bsn")
	if err := os.WriteFile(bad, []byte("BSNATIVE garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadLabelBlock(context.Background(), bad, func(int) (int, int) { return 0, 0 }, nil); err == nil || !strings.Contains(err.Error(), "bad.bsn") {
		t.Errorf("corrupt file: %v", err)
	}
}
