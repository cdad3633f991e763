package dataset

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestLoadRowBlockOGB: a row block of an OGB folder, read by streaming the
// edges and keeping only the block's entries (reverse edges included), is
// bit for bit those rows of the whole load, for both flavours, directed
// and undirected, empty blocks, the first and last blocks, and chunks
// smaller than the edge count; the split is the whole load's.
func TestLoadRowBlockOGB(t *testing.T) {
	const n, m = 300, 2000
	src, dst := randomEdges(3, n, m)
	labels := make([]string, n)
	for v := range labels {
		labels[v] = fmt.Sprint(v % 5)
		if v%7 == 0 {
			labels[v] = "nan"
		}
	}
	ranges := [][2]int{{0, n}, {0, 0}, {n / 2, n / 2}, {n, n}, {0, 75}, {75, 150}, {3, 77}, {225, n}, {n - 1, n}}
	for _, flavour := range []string{"csv", "i8", "i4-deflate"} {
		dir := filepath.Join(t.TempDir(), "ogbn_rand")
		writeOGBEdges(t, dir, n, src, dst, flavour)
		if flavour == "csv" { // labels, no split: the default split is made from them
			gzWrite(t, filepath.Join(dir, "raw", "node-label.csv.gz"), strings.Join(labels, "\n")+"\n")
		} else { // a stored split
			sp := filepath.Join(dir, "split", "time")
			gzWrite(t, filepath.Join(sp, "train.csv.gz"), "4\n1\n250\n")
			gzWrite(t, filepath.Join(sp, "valid.csv.gz"), "2\n")
			gzWrite(t, filepath.Join(sp, "test.csv.gz"), "3\n")
		}
		for _, opt := range []*LoadOptions{nil, {Symmetry: Symmetrize, Threads: 2}, {Symmetry: AsStored}, {Split: "random:0.5,0.2,0.3", Seed: 9}} {
			whole, err := Load(dir, opt)
			if err != nil {
				t.Fatal(err)
			}
			if flavour == "csv" && len(whole.Train) == 0 || flavour != "csv" && opt == nil && !slices.Equal(whole.Train, []int32{1, 4, 250}) {
				t.Fatalf("%s %+v: the whole load's split %v is not the one the test means", flavour, opt, whole.Train)
			}
			for _, r := range ranges {
				for _, chunk := range []int64{333, ogbChunk} {
					var b *RowBlock
					if chunk == ogbChunk {
						var ok bool
						b, ok, err = LoadRowBlock(context.Background(), dir, func(k int) (int, int) {
							if k != n {
								t.Errorf("rows called with n = %d; want %d", k, n)
							}
							return r[0], r[1]
						}, opt)
						if err == nil && !ok {
							t.Errorf("%s %+v: read whole, want only the block", flavour, opt)
						}
					} else {
						o, _ := opt.checked()
						b, err = loadOGBRowBlock(context.Background(), dir, func(int) (int, int) { return r[0], r[1] }, &o, chunk)
					}
					if err != nil {
						t.Fatalf("%s %+v rows %v chunk %d: %v", flavour, opt, r, chunk, err)
					}
					ids := make([]int32, r[1]-r[0])
					for i := range ids {
						ids[i] = int32(r[0] + i)
					}
					want := spgemm.GatherRows(whole.Adj, ids, 1)
					if b.N != n || b.Lo != r[0] || b.Hi != r[1] || b.NNZ != -1 || b.Weighted || b.Adj.Rows != r[1]-r[0] || b.Adj.Cols != n ||
						!slices.Equal(b.Adj.Indptr, want.Indptr) || !slices.Equal(b.Adj.Indices, want.Indices) || !slices.Equal(b.Adj.Data, want.Data) {
						t.Fatalf("%s %+v rows %v chunk %d: block differs from those rows of the whole load", flavour, opt, r, chunk)
					}
					if !slices.Equal(b.Train, whole.Train) {
						t.Errorf("%s %+v: train %v; want the whole load's %v", flavour, opt, b.Train, whole.Train)
					}
				}
			}
			// The blocks of a partition add up to the whole graph's entries.
			var sum int64
			for _, r := range [][2]int{{0, 75}, {75, 150}, {150, 225}, {225, n}} {
				b, _, err := LoadRowBlock(context.Background(), dir, func(int) (int, int) { return r[0], r[1] }, opt)
				if err != nil {
					t.Fatal(err)
				}
				sum += b.Adj.NNZ()
			}
			if sum != whole.Adj.NNZ() {
				t.Errorf("%s %+v: the blocks hold %d entries; the whole graph %d", flavour, opt, sum, whole.Adj.NNZ())
			}
		}
		if _, _, err := LoadRowBlock(context.Background(), dir, func(int) (int, int) { return 5, n + 1 }, nil); err == nil || !strings.Contains(err.Error(), "outside the 300 rows") {
			t.Errorf("%s: block past the last row: error %v", flavour, err)
		}
		if _, _, err := LoadRowBlock(context.Background(), dir, func(int) (int, int) { return 0, 1 }, &LoadOptions{Symmetry: 7}); err == nil || !strings.Contains(err.Error(), "Symmetry") {
			t.Errorf("%s: unknown symmetry: error %v", flavour, err)
		}
	}
}

// TestLoadRowBlockOGBBadEdge: an edge id out of range is an error naming
// the file even when neither end lies in the block.
func TestLoadRowBlockOGBBadEdge(t *testing.T) {
	for _, flavour := range []string{"csv", "i8"} {
		dir := filepath.Join(t.TempDir(), "ogbn_bad")
		writeOGBEdges(t, dir, 4, []int32{0, 3}, []int32{1, 9}, flavour)
		_, _, err := LoadRowBlock(context.Background(), dir, func(int) (int, int) { return 0, 1 }, nil)
		if err == nil || !strings.Contains(err.Error(), filepath.Join("raw", map[string]string{"csv": "edge.csv.gz", "i8": "data.npz"}[flavour])) {
			t.Errorf("%s: error %v; want one naming the edge file", flavour, err)
		}
	}
}

// FuzzLoadRowBlock feeds arbitrary bytes to the row-block reader as a file
// and as an OGB folder's data.npz: it may not panic, a block it reads must
// be a valid CSR of the rows it asked for, and where Load reads the same
// file the block must equal Load's rows.
func FuzzLoadRowBlock(f *testing.F) {
	file, folder := blockFuzzInputs(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		writeBlockFuzzInput(t, file, folder, b)
		for _, path := range []string{file, folder} {
			blk, _, err := LoadRowBlock(context.Background(), path, func(n int) (int, int) { return n / 3, n - n/3 }, &LoadOptions{Threads: 1})
			if err != nil {
				continue
			}
			if blk.Adj.Rows != blk.Hi-blk.Lo || blk.Adj.Cols != blk.N || blk.Adj.Validate() != nil {
				t.Fatalf("%s: block [%d, %d) of %d vertices is %d x %d: %v", path, blk.Lo, blk.Hi, blk.N, blk.Adj.Rows, blk.Adj.Cols, blk.Adj.Validate())
			}
			d, err := Load(path, &LoadOptions{Threads: 1})
			if err == nil {
				if d.NumNodes() != blk.N {
					t.Fatalf("%s: block of a graph of %d vertices, Load reads %d", path, blk.N, d.NumNodes())
				}
				for r := blk.Lo; r < blk.Hi; r++ {
					a, c := d.Adj, blk.Adj
					i := r - blk.Lo
					if !slices.Equal(a.Indices[a.Indptr[r]:a.Indptr[r+1]], c.Indices[c.Indptr[i]:c.Indptr[i+1]]) ||
						!slices.EqualFunc(a.Data[a.Indptr[r]:a.Indptr[r+1]], c.Data[c.Indptr[i]:c.Indptr[i+1]], sameBits) {
						t.Fatalf("%s: row %d of the block differs from Load's", path, r)
					}
				}
				d.Close()
			}
			blk.Close()
		}
	})
}

// sameBits reports whether x and y are the same float32, NaNs included.
func sameBits(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }
