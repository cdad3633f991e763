package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedData returns the path of a file of /work/shared/data (two levels up
// from this package) or skips the test when it is absent.
func sharedData(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared dataset %s not available (%v); it is not part of the repository", name, err)
	}
	return p
}

func TestLoadCitation(t *testing.T) {
	tests := []struct {
		file                     string
		nodes, features, classes int
		storedEdges              int64
	}{
		{"cora.npz", 2708, 1433, 7, 5429},
		{"citeseer.npz", 3312, 3703, 6, 4715},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := sharedData(t, tt.file)
			raw, err := Load(p, &LoadOptions{Symmetry: AsStored})
			if err != nil {
				t.Fatal(err)
			}
			if raw.NumNodes() != tt.nodes || raw.NumFeatures != tt.features || raw.NumClasses != tt.classes {
				t.Fatalf("got %d nodes, %d features, %d classes; want %d, %d, %d",
					raw.NumNodes(), raw.NumFeatures, raw.NumClasses, tt.nodes, tt.features, tt.classes)
			}
			if raw.Adj.NNZ() != tt.storedEdges {
				t.Errorf("stored edges %d, want %d", raw.Adj.NNZ(), tt.storedEdges)
			}
			d, err := Load(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Symmetrised: A == Aᵀ, no self loops, at least the stored edges.
			a := d.Adj
			for i := range a.Rows {
				idx, _ := a.Row(i)
				for _, j := range idx {
					if int(j) == i {
						t.Fatalf("self loop at %d", i)
					}
					if _, found := slices.BinarySearch(func() []int32 { c, _ := a.Row(int(j)); return c }(), int32(i)); !found {
						t.Fatalf("edge %d-%d has no reverse", i, j)
					}
				}
			}
			t.Logf("%s: %d stored edges, %d after symmetrisation; split %d/%d/%d",
				tt.file, raw.Adj.NNZ(), a.NNZ(), len(d.Train), len(d.Valid), len(d.Test))
			if len(d.Train) != 20*tt.classes || len(d.Valid) != 500 || len(d.Test) != 1000 {
				t.Errorf("planetoid split sizes %d/%d/%d, want %d/500/1000", len(d.Train), len(d.Valid), len(d.Test), 20*tt.classes)
			}
			// Binary bag-of-words features.
			for _, x := range d.Features {
				if x != 0 && x != 1 {
					t.Fatalf("feature value %v, want 0 or 1", x)
				}
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
