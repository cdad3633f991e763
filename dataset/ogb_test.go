package dataset

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// randomEdges returns m random directed edges over n nodes, with repeats,
// self loops and edges stored in both directions.
func randomEdges(seed uint64, n, m int) (src, dst []int32) {
	r := rand.New(rand.NewPCG(seed, 5))
	src, dst = make([]int32, m), make([]int32, m)
	for k := range m {
		src[k], dst[k] = int32(r.IntN(n)), int32(r.IntN(n))
		if k > 0 && r.IntN(10) == 0 { // the previous edge reversed
			src[k], dst[k] = dst[k-1], src[k-1]
		}
	}
	return src, dst
}

// writeOGBEdges writes an OGB folder of n nodes and the given edges, in the
// CSV flavour or (binary) with an int64 or int32 edge_index, stored or
// deflated.
func writeOGBEdges(t *testing.T, dir string, n int, src, dst []int32, flavour string) {
	t.Helper()
	raw := filepath.Join(dir, "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	m := len(src)
	if flavour == "csv" {
		var b strings.Builder
		for k := range src {
			fmt.Fprintf(&b, "%d,%d\n", src[k], dst[k])
		}
		gzWrite(t, filepath.Join(raw, "edge.csv.gz"), b.String())
		gzWrite(t, filepath.Join(raw, "num-node-list.csv.gz"), fmt.Sprintf("%d\n", n))
		gzWrite(t, filepath.Join(raw, "num-edge-list.csv.gz"), fmt.Sprintf("%d\n", m))
		return
	}
	ei := npzMember{name: "edge_index", shape: []int64{2, int64(m)}, deflate: strings.HasSuffix(flavour, "deflate")}
	if strings.HasPrefix(flavour, "i4") {
		ei.descr, ei.data = "<i4", le(append(append([]int32{}, src...), dst...)...)
	} else {
		ids := make([]int64, 0, 2*m)
		for _, v := range append(append([]int32{}, src...), dst...) {
			ids = append(ids, int64(v))
		}
		ei.descr, ei.data = "<i8", le(ids...)
	}
	data := buildNPZ(t, []npzMember{ei, {name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le(int64(n))}})
	if err := os.WriteFile(filepath.Join(raw, "data.npz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadOGBStreamed checks that the two-pass streaming loads of both OGB
// flavours give the CSR that FromCOO builds from the edges held in memory,
// with chunks smaller than the edge count (many chunks, a partial last one)
// and larger.
func TestLoadOGBStreamed(t *testing.T) {
	const n, m = 300, 2000
	src, dst := randomEdges(1, n, m)
	for _, flavour := range []string{"csv", "i8", "i4", "i8-deflate"} {
		dir := filepath.Join(t.TempDir(), "ogbn_rand")
		writeOGBEdges(t, dir, n, src, dst, flavour)
		for _, sym := range []Symmetry{SymmetryDefault, Symmetrize, AsStored} {
			opt := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates}
			if sym == Symmetrize || sym == SymmetryDefault && flavour == "csv" {
				opt.Symmetrize, opt.DropSelfLoops = true, true
			}
			want, err := spgemm.FromCOO(n, n, dst, src, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int64{1, 333, ogbChunk} {
				d, built, err := loadOGB(context.Background(), dir, &LoadOptions{Symmetry: sym, Threads: 2}, chunk)
				if err != nil {
					t.Fatalf("%s %v chunk %d: %v", flavour, sym, chunk, err)
				}
				if built != opt.Symmetrize {
					t.Errorf("%s %v: symmetrised %v, want %v", flavour, sym, built, opt.Symmetrize)
				}
				if !reflect.DeepEqual(d.Adj, want) {
					t.Fatalf("%s %v chunk %d: adjacency differs from FromCOO's", flavour, sym, chunk)
				}
			}
		}
	}
}

// TestLoadOGBBinaryErrors checks the errors of the streamed edge_index reader.
func TestLoadOGBBinaryErrors(t *testing.T) {
	ei := func(descr string, shape []int64, data []byte) []byte {
		return buildNPZ(t, []npzMember{
			{name: "edge_index", descr: descr, shape: shape, data: data},
			{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](4)},
		})
	}
	tests := []struct {
		name string
		npz  []byte
		want string
	}{
		{"wrong shape", ei("<i8", []int64{3, 2}, le[int64](0, 1, 2, 3, 0, 1)), `array "edge_index": dataset: bad input: shape [3 2], want (2, E)`},
		{"1-d", ei("<i8", []int64{4}, le[int64](0, 1, 2, 3)), "want (2, E)"},
		{"id in row 1 out of range", ei("<i8", []int64{2, 2}, le[int64](0, 1, 2, 4)), "element 3: node id 4 outside [0, 4)"},
		{"negative id in row 0", ei("<i4", []int64{2, 2}, le[int32](0, -1, 2, 3)), "element 1: node id -1"},
		{"float ids", ei("<f8", []int64{2, 1}, le[float64](0.5, 1)), `array "edge_index"`},
		{"unsupported dtype", ei("<U2", []int64{2, 1}, make([]byte, 16)), `array "edge_index"`},
		{"truncated member", ei("<i8", []int64{2, 3}, le[int64](0, 1, 2, 3)), `array "edge_index"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "papers")
			os.MkdirAll(filepath.Join(dir, "raw"), 0o755)
			os.WriteFile(filepath.Join(dir, "raw", "data.npz"), tt.npz, 0o644)
			_, err := Load(dir, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "data.npz") {
				t.Errorf("error %v, want one naming data.npz and containing %q", err, tt.want)
			}
		})
	}
}

// TestLoadOGBBinaryNodeCountFirst: a node count far beyond the edges is
// refused before the CSR builder allocates its 8 bytes per node (found by
// FuzzOGBBinaryContents: 2^30 nodes for 2 edges allocated 8 GiB and took the
// fuzzing process down).
func TestLoadOGBBinaryNodeCountFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "papers")
	writeFile(t, filepath.Join(dir, "raw", "data.npz"), buildNPZ(t, []npzMember{
		{name: "edge_index", descr: "<i4", shape: []int64{2, 2}, data: le[int32](0, 1, 1, 0)},
		{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](1<<30 + 2)},
	}))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(dir, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "1073741826 vertices for only 2 edges") || !strings.Contains(err.Error(), "data.npz") {
		t.Errorf("error %v; want one naming data.npz and the node and edge counts", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("allocated %d MiB to refuse the file", d>>20)
	}
}

// TestLoadOGBCSVNodeCountFirst: node and edge counts far beyond what the
// edge file can hold are refused before the CSR builder allocates its 8
// bytes per node.
func TestLoadOGBCSVNodeCountFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "products")
	raw := filepath.Join(dir, "raw")
	gzWrite(t, filepath.Join(raw, "num-node-list.csv.gz"), "1073741826\n")
	gzWrite(t, filepath.Join(raw, "num-edge-list.csv.gz"), "1000000000000\n")
	gzWrite(t, filepath.Join(raw, "edge.csv.gz"), "0,1\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(dir, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "edge.csv.gz") || !strings.Contains(err.Error(), "1000000000000 edges, more than the file can hold") {
		t.Errorf("error %v; want one naming edge.csv.gz and the declared edge count", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("allocated %d MiB to refuse the folder", d>>20)
	}
}
