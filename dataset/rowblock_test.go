package dataset

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

func TestLoadRowBlock(t *testing.T) {
	a, err := RMAT(RMATOptions{Scale: 9, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{Adj: a, Train: []int32{1, 5, 9}}
	dir := t.TempDir()
	native := filepath.Join(dir, "g.bsg")
	if err := Save(native, d); err != nil {
		t.Fatal(err)
	}
	npz := filepath.Join(dir, "g.npz")
	if err := Save(npz, &Dataset{Adj: a}); err != nil {
		t.Fatal(err)
	}
	n := a.Rows
	for _, path := range []string{native, npz} {
		for _, r := range [][2]int{{0, n}, {0, 0}, {3, 77}, {n / 2, n}, {n - 1, n}} {
			b, mapped, err := LoadRowBlock(context.Background(), path, func(m int) (int, int) {
				if m != n {
					t.Errorf("rows called with n = %d; want %d", m, n)
				}
				return r[0], r[1]
			}, nil)
			if err != nil {
				t.Fatalf("%s rows %v: %v", path, r, err)
			}
			if !mapped {
				t.Errorf("%s: read whole, want only the block", path)
			}
			ids := make([]int32, r[1]-r[0])
			for i := range ids {
				ids[i] = int32(r[0] + i)
			}
			want := spgemm.GatherRows(a, ids, 1)
			if b.N != n || b.Lo != r[0] || b.Hi != r[1] || b.NNZ != a.NNZ() || !slices.Equal(b.Adj.Indptr, want.Indptr) ||
				!slices.Equal(b.Adj.Indices, want.Indices) || !slices.Equal(b.Adj.Data, want.Data) || b.Adj.Cols != n {
				t.Errorf("%s rows %v: block differs from rows of the whole graph", path, r)
			}
			if path == native && !slices.Equal(b.Train, d.Train) {
				t.Errorf("%s: train %v; want %v", path, b.Train, d.Train)
			}
			if err := b.Close(); err != nil {
				t.Error(err)
			}
		}
	}
	for _, path := range []string{native, npz} {
		if _, _, err := LoadRowBlock(context.Background(), path, func(int) (int, int) { return 5, n + 1 }, nil); err == nil {
			t.Errorf("%s: block past the last row: no error", path)
		}
	}
	// A gnn-benchmark or edge-list file is read whole.
	el := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(el, []byte("0 1\n1 2\n2 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, blockOnly, err := LoadRowBlock(context.Background(), el, func(int) (int, int) { return 1, 2 }, nil)
	if err != nil || blockOnly || b.N != 3 || b.Adj.Rows != 1 {
		t.Errorf("edge list: block %+v, read only the block %v, err %v", b, blockOnly, err)
	}
}

// TestLoadRowBlockCorrupt: a column id out of range inside the block is an
// error naming the file; outside the block it is not read at all.
func TestLoadRowBlockCorrupt(t *testing.T) {
	a := &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 1, 2, 3, 4}, Indices: []int32{1, 2, 3, 0}, Data: []float32{1, 1, 1, 1}}
	path := filepath.Join(t.TempDir(), "g.bsg")
	if err := Save(path, &Dataset{Adj: a}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Column ids 1, 2, 3, 0 as little-endian int32: make the last one 99.
	i := slices.Index(raw, 3)
	for ; i < len(raw)-8; i++ {
		if raw[i] == 1 && raw[i+4] == 2 && raw[i+8] == 3 && raw[i+12] == 0 {
			break
		}
	}
	raw[i+12] = 99
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadRowBlock(context.Background(), path, func(int) (int, int) { return 2, 4 }, nil); err == nil {
		t.Error("block with column 99 of 4: no error")
	}
	b, _, err := LoadRowBlock(context.Background(), path, func(int) (int, int) { return 0, 2 }, nil)
	if err != nil {
		t.Errorf("block before the corrupt row: %v", err)
	} else {
		b.Close()
	}
}
