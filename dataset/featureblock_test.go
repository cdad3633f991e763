package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/testenv"
)

// checkFeatureBlocks reads several blocks of path's features and compares
// each with the rows of want (n x f).
func checkFeatureBlocks(t *testing.T, path string, want []float32, n, f int) {
	t.Helper()
	for _, r := range [][2]int{{0, n}, {0, 0}, {n / 3, 2 * n / 3}, {n - 1, n}, {1, 2}} {
		b, err := LoadFeatureBlock(context.Background(), path, func(m int) (int, int) {
			if m != n {
				t.Errorf("%s: rows called with n = %d; want %d", path, m, n)
			}
			return r[0], r[1]
		})
		if err != nil {
			t.Fatalf("%s rows %v: %v", path, r, err)
		}
		if b.N != n || b.NumFeatures != f || b.Lo != r[0] || b.Hi != r[1] || !slices.Equal(b.Features, want[r[0]*f:r[1]*f]) {
			t.Errorf("%s rows %v: block (n %d, f %d, [%d, %d)) differs from the rows of the whole features", path, r, b.N, b.NumFeatures, b.Lo, b.Hi)
		}
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := LoadFeatureBlock(context.Background(), path, func(int) (int, int) { return 1, n + 1 }); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("%s: block past the last row: err = %v; want one naming the file", path, err)
	}
}

// TestLoadFeatureBlockCora reads blocks of Cora's sparse gnn-benchmark
// features, and of its native and scipy copies, against Load's.
func TestLoadFeatureBlockCora(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "cora.npz")
	if _, err := os.Stat(path); err != nil {
		testenv.MissingData(t, "Cora not available (%v): the feature-block test needs %s", err, path)
	}
	d, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkFeatureBlocks(t, path, d.Features, d.NumNodes(), d.NumFeatures)
	dir := t.TempDir()
	for _, name := range []string{"cora.bsg", "cora.npz"} {
		p := filepath.Join(dir, name)
		if err := Save(p, d); err != nil {
			t.Fatal(err)
		}
		checkFeatureBlocks(t, p, d.Features, d.NumNodes(), d.NumFeatures)
	}
}

// TestLoadFeatureBlockOGB reads blocks of an OGB binary folder's node_feat
// in float16, float32 and float64, stored and deflated, and of a CSV
// folder's node-feat.csv.gz.
func TestLoadFeatureBlockOGB(t *testing.T) {
	const n, f = 5, 3
	want := make([]float32, n*f)
	halves := make([]uint16, n*f)
	for i := range want {
		want[i] = float32(i) - 2.5 // exact in float16
		halves[i] = float16Bits(want[i])
	}
	singles := slices.Clone(want)
	doubles := make([]float64, n*f)
	for i, x := range want {
		doubles[i] = float64(x)
	}
	for _, feat := range []npzMember{
		{descr: "<f2", data: le(halves...)},
		{descr: "<f2", data: le(halves...), deflate: true},
		{descr: "<f4", data: le(singles...)},
		{descr: "<f8", data: le(doubles...), deflate: true},
	} {
		dir := filepath.Join(t.TempDir(), "ogbn_feat")
		raw := filepath.Join(dir, "raw")
		os.MkdirAll(raw, 0o755)
		feat.name, feat.shape = "node_feat", []int64{n, f}
		data := buildNPZ(t, []npzMember{
			{name: "edge_index", descr: "<i8", shape: []int64{2, 2}, data: le[int64](0, 1, 1, 2)},
			{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](n)},
			feat,
		})
		if err := os.WriteFile(filepath.Join(raw, "data.npz"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkFeatureBlocks(t, dir, want, n, f)
	}
	dir := filepath.Join(t.TempDir(), "ogbn_csv")
	ogbCSVFolder(t, dir, "0,1\n1,2\n3,2\n")
	checkFeatureBlocks(t, dir, []float32{0, 1, 2, 3, 4, 5, 6, 7}, 4, 2)
}

// float16Bits returns the IEEE half-precision bits of x, which must be
// exactly representable (a test helper, not a general conversion).
func float16Bits(x float32) uint16 {
	if x == 0 {
		return 0
	}
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	return sign | uint16(exp)<<10 | uint16((b>>13)&0x3ff)
}

// TestLoadFeatureBlockErrors: every error names the file and the array or
// line at fault.
func TestLoadFeatureBlockErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noFeat := filepath.Join(dir, "nofeat.bsg")
	d := smallDataset()
	d.Features, d.NumFeatures = nil, 0
	if err := Save(noFeat, d); err != nil {
		t.Fatal(err)
	}
	scipy := func(feat npzMember) []byte {
		feat.name = "features"
		return buildNPZ(t, append(scipyMembers(
			npzMember{descr: "<i8", shape: []int64{4}, data: le[int64](0, 1, 1, 3)},
			npzMember{descr: "<i4", shape: []int64{3}, data: le[int32](1, 0, 2)},
			npzMember{descr: "<f4", shape: []int64{3}, data: le[float32](2, 1, 3)}), feat))
	}
	gnnSparse := func(indices []int32) []byte {
		return buildNPZ(t, []npzMember{
			{name: "adj_indptr", descr: "<i8", shape: []int64{3}, data: le[int64](0, 1, 2)},
			{name: "adj_indices", descr: "<i4", shape: []int64{2}, data: le[int32](1, 0)},
			{name: "adj_data", descr: "<f4", shape: []int64{2}, data: le[float32](1, 1)},
			{name: "adj_shape", descr: "<i8", shape: []int64{2}, data: le[int64](2, 2)},
			{name: "attr_indptr", descr: "<i8", shape: []int64{3}, data: le[int64](0, 1, 2)},
			{name: "attr_indices", descr: "<i4", shape: []int64{2}, data: le(indices...)},
			{name: "attr_data", descr: "<f4", shape: []int64{2}, data: le[float32](1, 1)},
			{name: "attr_shape", descr: "<i8", shape: []int64{2}, data: le[int64](2, 4)},
		})
	}
	tests := []struct {
		name, path string
		inside     []string
	}{
		{"edge list", write("g.txt", []byte("0 1\n1 2\n")), []string{"g.txt", "no node features"}},
		{"native without features", noFeat, []string{"nofeat.bsg", `"features"`}},
		{"scipy without features", write("nof.npz", buildNPZ(t, scipyMembers(
			npzMember{descr: "<i8", shape: []int64{4}, data: le[int64](0, 1, 1, 3)},
			npzMember{descr: "<i4", shape: []int64{3}, data: le[int32](1, 0, 2)},
			npzMember{descr: "<f4", shape: []int64{3}, data: le[float32](2, 1, 3)}))), []string{"nof.npz", `"features"`}},
		{"rows", write("rows.npz", scipy(npzMember{descr: "<f4", shape: []int64{2, 2}, data: le[float32](1, 2, 3, 4)})), []string{"rows.npz", `"features"`, "2 rows for 3 nodes"}},
		{"fortran", write("fortran.npz", bytes.Replace(scipy(npzMember{descr: "<f4", shape: []int64{3, 1}, data: le[float32](1, 2, 3)}),
			[]byte("'fortran_order': False, 'shape': (3, 1)"), []byte("'fortran_order': True,  'shape': (3, 1)"), 1)), []string{"fortran.npz", `"features"`, "Fortran"}},
		{"truncated", write("short.npz", scipy(npzMember{descr: "<f4", shape: []int64{3, 2}, data: le[float32](1, 2, 3, 4, 5)})), []string{"short.npz", `"features"`}},
		{"strings", write("str.npz", scipy(npzMember{descr: "<U3", shape: []int64{3, 1}, data: slices.Concat(unicode0d("abc"), unicode0d("def"), unicode0d("ghi"))})), []string{"str.npz", `"features"`, "not numeric"}},
		{"sparse column", write("col.npz", gnnSparse([]int32{0, 4})), []string{"col.npz", "attr_"}},
	}
	for _, tc := range tests {
		_, err := LoadFeatureBlock(context.Background(), tc.path, func(n int) (int, int) { return 0, n })
		for _, s := range tc.inside {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("%s: err = %v; want one containing %q", tc.name, err, s)
			}
		}
	}
	// A well-formed sparse file reads.
	b, err := LoadFeatureBlock(context.Background(), write("ok.npz", gnnSparse([]int32{0, 3})), func(n int) (int, int) { return 1, n })
	if err != nil || !slices.Equal(b.Features, []float32{0, 0, 0, 1}) {
		t.Errorf("sparse block: %v, %v; want [0 0 0 1]", b, err)
	}
}

// FuzzLoadFeatureBlock feeds arbitrary bytes to the feature-block reader as
// a file and as an OGB folder's data.npz: it may not panic, and a block it
// reads must equal the rows that Load reads from the same file.
func FuzzLoadFeatureBlock(f *testing.F) {
	file, folder := blockFuzzInputs(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		writeBlockFuzzInput(t, file, folder, b)
		for _, path := range []string{file, folder} {
			blk, err := LoadFeatureBlock(context.Background(), path, func(n int) (int, int) { return n / 3, n - n/3 })
			if err != nil {
				continue
			}
			if len(blk.Features) != (blk.Hi-blk.Lo)*blk.NumFeatures {
				t.Fatalf("%s: %d values for rows [%d, %d) of %d", path, len(blk.Features), blk.Lo, blk.Hi, blk.NumFeatures)
			}
			d, err := Load(path, &LoadOptions{Threads: 1})
			if err == nil && d.Features != nil && !slices.Equal(blk.Features, d.Features[blk.Lo*blk.NumFeatures:blk.Hi*blk.NumFeatures]) {
				t.Fatalf("%s: block [%d, %d) differs from Load's rows", path, blk.Lo, blk.Hi)
			}
			blk.Close()
			if err == nil {
				d.Close()
			}
		}
	})
}

// TestLoadFeatureBlockCRC: a features member whose contents do not match
// its zip CRC-32, stored or deflated, is an error naming the file, the
// array and the CRC-32 wherever the block's read covers the whole member
// (all rows; the last block of a deflated member), and reads without a
// check where it covers part of it (documented).
func TestLoadFeatureBlockCRC(t *testing.T) {
	const n, f = 3, 2
	data := le[float32](1, 2, 3, 4, 5, 6)
	shape := []int64{n, f}
	crc := crc32.ChecksumIEEE(slices.Concat(npyHeaderBytes("<f4", shape), data))
	for _, deflate := range []bool{false, true} {
		good := buildNPZ(t, append(scipyMembers(
			npzMember{descr: "<i8", shape: []int64{4}, data: le[int64](0, 1, 1, 3)},
			npzMember{descr: "<i4", shape: []int64{3}, data: le[int32](1, 0, 2)},
			npzMember{descr: "<f4", shape: []int64{3}, data: le[float32](2, 1, 3)}),
			npzMember{name: "features", descr: "<f4", shape: shape, data: data, deflate: deflate}))
		// The member's CRC-32, in its data descriptor and the central
		// directory, no longer matches its contents.
		bad := bytes.ReplaceAll(good, binary.LittleEndian.AppendUint32(nil, crc), binary.LittleEndian.AppendUint32(nil, crc^0x5a5a5a5a))
		if bytes.Equal(bad, good) {
			t.Fatal("the test archive does not hold the member's CRC-32")
		}
		path := filepath.Join(t.TempDir(), "crc.npz")
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]int{{0, n}, {1, n}, {0, 1}, {1, 2}} {
			checked := r == [2]int{0, n} || deflate && r[1] == n
			b, err := LoadFeatureBlock(context.Background(), path, func(int) (int, int) { return r[0], r[1] })
			switch {
			case checked && (err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"features"`) || !strings.Contains(err.Error(), "CRC-32")):
				t.Errorf("deflate %v, rows %v: err = %v; want a CRC-32 mismatch naming %s and \"features\"", deflate, r, err, path)
			case !checked && err != nil:
				t.Errorf("deflate %v, rows %v (part of the member, unchecked): %v", deflate, r, err)
			case !checked && !slices.Equal(b.Features, le2f32(data)[r[0]*f:r[1]*f]):
				t.Errorf("deflate %v, rows %v: %v", deflate, r, b.Features)
			}
		}
	}
}

// le2f32 decodes little-endian float32s.
func le2f32(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

// blockFuzzInputs adds the readers' fuzz seeds to f and returns the paths
// at which the block fuzzers write each input: as a file, and as an OGB
// folder whose raw/data.npz it is (writeBlockFuzzInput).
func blockFuzzInputs(f *testing.F) (file, folder string) {
	seeds := fuzzSeeds(f)
	for _, name := range []string{"FuzzReadNPZ", "FuzzReadNative", "FuzzReadOGBBinary"} {
		for _, s := range seeds[name] {
			f.Add(s)
		}
	}
	dir := f.TempDir()
	return filepath.Join(dir, "in.npz"), filepath.Join(dir, "ogbn")
}

// writeBlockFuzzInput writes b at both of blockFuzzInputs' paths.
func writeBlockFuzzInput(t *testing.T, file, folder string, b []byte) {
	t.Helper()
	writeFile(t, file, b)
	writeFile(t, filepath.Join(folder, "raw", "data.npz"), b)
}
