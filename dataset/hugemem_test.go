package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/spgemm"
)

// owned reports whether s lies in d's huge-page memory.
func owned[T any](d *Dataset, s []T) bool {
	return d.mem.Owns(unsafe.Pointer(unsafe.SliceData(s)))
}

// TestLoadIntoHugePages loads one graph, large enough for huge pages, from
// every format the loaders share the placement for: the matrices are those
// stored, the large arrays lie in the Dataset's huge-page memory, it holds
// nothing else (arrays a reader replaced went back), and Close gives it all
// back, however often the graph is loaded.
func TestLoadIntoHugePages(t *testing.T) {
	if testing.Short() {
		t.Skip("3 s (40 s under -race); the full test run covers it")
	}
	a, err := RMAT(RMATOptions{Scale: 15, Seed: 2, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.NNZ()*4 < hugemem.MinBytes {
		t.Fatalf("test graph of %d entries too small for huge pages", a.NNZ())
	}
	dir := t.TempDir()
	orig := &Dataset{Adj: a}
	for _, name := range []string{"g.npz", "g.bsn"} {
		if err := Save(filepath.Join(dir, name), orig); err != nil {
			t.Fatal(err)
		}
	}
	// An unsorted, directed npz: the reader replaces its arrays (sorting),
	// and Symmetrize replaces them again.
	unsorted := &spgemm.CSR{Rows: 4096, Cols: 4096, Indptr: make([]int64, 4097)}
	for i := range unsorted.Rows {
		for j := range 200 {
			unsorted.Indices = append(unsorted.Indices, int32((i*7+4095-j*13)%4096))
			unsorted.Data = append(unsorted.Data, 1)
		}
		unsorted.Indptr[i+1] = int64(len(unsorted.Indices))
	}
	var z bytesWriter
	if err := writeNPZ(&z, &Dataset{Adj: unsorted}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "u.npz"), z.b, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		file     string
		symmetry Symmetry
		mapped   bool // whether the arrays go to huge-page memory
	}{
		{"g.npz", AsStored, true},
		{"g.bsn", AsStored, false}, // a native file's mapping stays
		{"g.bsn", Symmetrize, true},
		{"u.npz", AsStored, true},
		{"u.npz", Symmetrize, true},
	} {
		name := tc.file + map[Symmetry]string{AsStored: "/as-stored", Symmetrize: "/symmetrize"}[tc.symmetry]
		t.Run(name, func(t *testing.T) {
			const reps = 3
			var before int
			for rep := range reps {
				if rep == 1 {
					before = mappings(t)
				}
				d, err := Load(filepath.Join(dir, tc.file), &LoadOptions{Symmetry: tc.symmetry, Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				if tc.file == "g.npz" || tc.file == "g.bsn" {
					if !reflect.DeepEqual(d.Adj, a) {
						t.Fatal("loaded adjacency differs from the saved one")
					}
				} else if err := d.Adj.Validate(); err != nil {
					t.Fatal(err)
				}
				if got := owned(d, d.Adj.Indices) && owned(d, d.Adj.Data); got != tc.mapped {
					t.Fatalf("adjacency arrays in huge-page memory: %v; want %v", got, tc.mapped)
				}
				// Nothing but the final arrays (each with its alignment
				// slack of one huge page) is held.
				arrays := int64(len(d.Adj.Indptr))*8 + d.Adj.NNZ()*8
				if b := d.mem.Bytes(); b > arrays+3*(2<<20) {
					t.Errorf("huge-page memory holds %d bytes for %d bytes of arrays", b, arrays)
				}
				if err := d.Close(); err != nil {
					t.Fatal(err)
				}
				if d.mem != nil || d.Close() != nil {
					t.Fatal("Close left memory held, or a second Close failed")
				}
			}
			if after := mappings(t); after > before+2 {
				t.Errorf("mappings grew from %d to %d over %d loads and closes", before, after, reps-1)
			}
		})
	}
}

// TestPlantedPartitionHugePages: the generator's features and adjacency go
// to huge-page memory, and its output is the same as on the heap.
func TestPlantedPartitionHugePages(t *testing.T) {
	if testing.Short() {
		t.Skip("the full test run covers it")
	}
	opt := PlantedPartitionOptions{Nodes: 20000, Features: 32, Seed: 4, Threads: 2}
	d, err := PlantedPartition(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !owned(d, d.Features) {
		t.Error("features of 2.4 MiB are not in huge-page memory")
	}
	opt.Threads = 1
	e, err := PlantedPartition(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !reflect.DeepEqual(d.Adj, e.Adj) || !reflect.DeepEqual(d.Features, e.Features) || !reflect.DeepEqual(d.Labels, e.Labels) {
		t.Error("PlantedPartition differs between 2 threads and 1")
	}
}

// mappings counts the process's memory mappings.
func mappings(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	return strings.Count(string(b), "\n")
}

type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
