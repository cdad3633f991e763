package dataset

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/atomicfile"
	"github.com/bulksample/bulksample/spgemm"
)

// smallDataset is a hand-checkable 4-node labelled dataset:
// edges 0-1, 1-2, 2-3 in both directions, weights 1.
func smallDataset() *Dataset {
	return &Dataset{
		Name: "small",
		Adj: &spgemm.CSR{Rows: 4, Cols: 4,
			Indptr:  []int64{0, 1, 3, 5, 6},
			Indices: []int32{1, 0, 2, 1, 3, 2},
			Data:    []float32{1, 1, 1, 1, 1, 1}},
		Features:    []float32{0, 1, 2, 3, 4, 5, 6, 7},
		NumFeatures: 2,
		Labels:      []int32{0, 1, -1, 1},
		NumClasses:  2,
		Train:       []int32{0}, Valid: []int32{1}, Test: []int32{3},
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"g.npz", "g.bsn", "g"} {
		t.Run(name, func(t *testing.T) {
			want := smallDataset()
			p := filepath.Join(dir, name)
			if err := Save(p, want); err != nil {
				t.Fatal(err)
			}
			got, err := Load(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			got.Name, got.release = want.Name, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
			// No temporary files are left next to the output.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func TestSaveNativeWeightedRMAT(t *testing.T) {
	a, err := RMAT(RMATOptions{Scale: 9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Data {
		a.Data[i] = float32(i%7) + 0.5
	}
	want := &Dataset{Name: "rmat9", Adj: a, Weighted: true}
	p := filepath.Join(t.TempDir(), "rmat9")
	if err := Save(p, want); err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		got, err := Load(p, &LoadOptions{SkipVerify: skip})
		if err != nil {
			t.Fatal(err)
		}
		got.release = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SkipVerify=%v: loaded dataset differs", skip)
		}
	}
}

// TestNativeCorrupt damages a native file in the ways the brief lists and
// checks for an error naming the file and the problem.
func TestNativeCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := writeNative(&buf, smallDataset()); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	hlen := int(binary.LittleEndian.Uint64(good[16:]))
	var h nativeHeader
	if err := json.Unmarshal(good[nativePrefixLen:nativePrefixLen+hlen], &h); err != nil {
		t.Fatal(err)
	}
	arrayStart := h.Arrays[0].Offset
	tests := []struct {
		name   string
		modify func(b []byte) []byte
		want   string
	}{
		{"truncated prefix", func(b []byte) []byte { return b[:10] }, "truncated"},
		{"truncated arrays", func(b []byte) []byte { return b[:len(b)-8] }, "truncated"},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, "bad magic"},
		{"wrong version", func(b []byte) []byte { b[8] = 9; return b }, "version 9"},
		{"header bit flip", func(b []byte) []byte { b[nativePrefixLen+5] ^= 1; return b }, "header checksum"},
		{"huge header length", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 1<<40); return b }, "header length"},
		{"array bit flip", func(b []byte) []byte { b[arrayStart+9] ^= 0x10; return b }, `array "indptr": format: checksum mismatch`},
		{"last array bit flip", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, `array "test"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.modify(bytes.Clone(good))
			_, err := decodeNative("x.bsn", b, VerifyChecksums, 2, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(strings.ReplaceAll(err.Error(), "dataset: bad input", "format"), tt.want) || !strings.HasPrefix(err.Error(), "x.bsn") {
				t.Errorf("error %q does not start with the file name or lacks %q", err, tt.want)
			}
		})
	}
	// A corrupted file on disk is caught by Load.
	p := filepath.Join(t.TempDir(), "bad.bsn")
	b := bytes.Clone(good)
	b[len(b)-1] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, &LoadOptions{Verify: VerifyChecksums}); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("Load of a corrupt file: %v", err)
	}
	// The default level catches it too, as a structure error: the flipped
	// byte is the high byte of the test split's node id 3.
	if _, err := Load(p, nil); err == nil || !strings.Contains(err.Error(), "test split: entry 0: node 16777219 outside [0, 4)") {
		t.Errorf("Load of a corrupt file at the default level: %v", err)
	}
}

// TestNativeArrayBounds: an array whose offset lies past the end of the file
// is an error naming it, even when empty. An empty "test" array at an offset
// a few bytes past the end passed the bounds check (the quotient of a
// negative remainder truncates to zero) and panicked slicing the mapping
// (FuzzNativeContents found it: testdata/fuzz/FuzzNativeContents/46a4168f3033c61f).
func TestNativeArrayBounds(t *testing.T) {
	r := nativeRecipe(t, smallDataset())
	hdr, body, _ := bytes.Cut(r[1:], []byte(recipeSep))
	// Cut the file (the last array's bytes, which the cases replace) to end
	// 3 bytes before a multiple of 8, the next possible offset.
	for (nativeBase+len(body))%8 != 5 {
		body = body[:len(body)-1]
	}
	end := int64(nativeBase + len(body))
	tests := []struct {
		name          string
		offset, count int64 // of the last array
		want          string
	}{
		{"empty, 3 bytes past the end", end + 3, 0, `array "test": truncated`},
		{"empty, far past the end", end + 3 + 1<<20, 0, `array "test": truncated`},
		{"one element, 3 bytes past the end", end + 3, 1, `array "test": truncated`},
		{"empty, before the end", end - 5, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h nativeHeader
			if err := json.Unmarshal(hdr, &h); err != nil {
				t.Fatal(err)
			}
			last := &h.Arrays[len(h.Arrays)-1]
			if last.Name != "test" {
				t.Fatalf("last array %q, want test", last.Name)
			}
			last.Offset, last.Count = tt.offset, tt.count
			fixed, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			b := nativeFromRecipe(append(append(append([]byte{0}, fixed...), recipeSep...), body...))
			_, err = decodeNative("x.bsn", b, VerifyStructure, 1, nil)
			switch {
			case tt.want == "" && err != nil && strings.Contains(err.Error(), "truncated"):
				t.Errorf("an empty array within the file: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// npzMember is one array of a hand-built .npz.
type npzMember struct {
	name, descr string
	shape       []int64
	data        []byte
	deflate     bool
}

func buildNPZ(t testing.TB, members []npzMember) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		method := zip.Store
		if m.deflate {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name + ".npy", Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(npyHeaderBytes(m.descr, m.shape))
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func le[T int8 | int16 | int32 | int64 | uint8 | float32 | float64 | uint16](v ...T) []byte {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, v)
	return buf.Bytes()
}

func be[T int32 | int64 | float64](v ...T) []byte {
	var buf bytes.Buffer
	binary.Write(&buf, binary.BigEndian, v)
	return buf.Bytes()
}

func unicode0d(s string) []byte {
	var b []byte
	for _, c := range s {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	return b
}

// scipyMembers is a 3 x 3 matrix [[0 2 0] [0 0 0] [1 0 3]] in the given dtypes.
func scipyMembers(indptr, indices, data npzMember) []npzMember {
	indptr.name, indices.name, data.name = "indptr", "indices", "data"
	return []npzMember{
		indptr, indices, data,
		{name: "shape", descr: "<i8", shape: []int64{2}, data: le[int64](3, 3)},
		{name: "format", descr: "<U3", data: unicode0d("csr")},
	}
}

func TestReadScipyNPZDtypes(t *testing.T) {
	want := &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 1, 3}, Indices: []int32{1, 0, 2}, Data: []float32{2, 1, 3}}
	tests := []struct {
		name                  string
		indptr, indices, data npzMember
	}{
		{"int32 float32", npzMember{descr: "<i4", shape: []int64{4}, data: le[int32](0, 1, 1, 3)},
			npzMember{descr: "<i4", shape: []int64{3}, data: le[int32](1, 0, 2)},
			npzMember{descr: "<f4", shape: []int64{3}, data: le[float32](2, 1, 3)}},
		{"int64 float64 deflated", npzMember{descr: "<i8", shape: []int64{4}, data: le[int64](0, 1, 1, 3), deflate: true},
			npzMember{descr: "<i8", shape: []int64{3}, data: le[int64](1, 0, 2), deflate: true},
			npzMember{descr: "<f8", shape: []int64{3}, data: le[float64](2, 1, 3), deflate: true}},
		{"big-endian", npzMember{descr: ">i8", shape: []int64{4}, data: be[int64](0, 1, 1, 3)},
			npzMember{descr: ">i4", shape: []int64{3}, data: be[int32](1, 0, 2)},
			npzMember{descr: ">f8", shape: []int64{3}, data: be[float64](2, 1, 3)}},
		{"small ints and float16", npzMember{descr: "|u1", shape: []int64{4}, data: le[uint8](0, 1, 1, 3)},
			npzMember{descr: "<i2", shape: []int64{3}, data: le[int16](1, 0, 2)},
			npzMember{descr: "<f2", shape: []int64{3}, data: le[uint16](0x4000, 0x3c00, 0x4200)}},
		{"int data", npzMember{descr: "<i4", shape: []int64{4}, data: le[int32](0, 1, 1, 3)},
			npzMember{descr: "<i4", shape: []int64{3}, data: le[int32](1, 0, 2)},
			npzMember{descr: "|i1", shape: []int64{3}, data: le[int8](2, 1, 3)}},
		{"unsorted row with duplicates", npzMember{descr: "<i4", shape: []int64{4}, data: le[int32](0, 1, 1, 4)},
			npzMember{descr: "<i4", shape: []int64{4}, data: le[int32](1, 2, 0, 2)},
			npzMember{descr: "<f4", shape: []int64{4}, data: le[float32](2, 1, 1, 2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := buildNPZ(t, scipyMembers(tt.indptr, tt.indices, tt.data))
			d, err := readNPZBytes("m.npz", b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Adj, want) {
				t.Errorf("got %+v, want %+v", d.Adj, want)
			}
		})
	}
	// bool data: the pattern.
	b := buildNPZ(t, scipyMembers(npzMember{descr: "<i4", shape: []int64{4}, data: le[int32](0, 1, 1, 3)},
		npzMember{descr: "<i4", shape: []int64{3}, data: le[int32](1, 0, 2)},
		npzMember{descr: "|b1", shape: []int64{3}, data: []byte{1, 1, 1}}))
	d, err := readNPZBytes("m.npz", b)
	if err != nil || !reflect.DeepEqual(d.Adj.Data, []float32{1, 1, 1}) || d.Weighted {
		t.Errorf("bool data: %v, %+v", err, d)
	}
}

func readNPZBytes(name string, b []byte) (*Dataset, error) {
	z, err := newNPZ(name, bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	d, err := readNPZDataset(context.Background(), z, 1)
	return d, err
}

func TestReadNPZErrors(t *testing.T) {
	i4 := func(v ...int32) npzMember {
		return npzMember{descr: "<i4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	f4 := func(v ...float32) npzMember {
		return npzMember{descr: "<f4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	good := buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), i4(1, 0, 2), f4(2, 1, 3)))
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"truncated zip", good[:len(good)/2], "truncated or corrupt .npz"},
		{"not a zip", []byte("hello world"), "not a zip"},
		{"column out of range", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), i4(1, 0, 7), f4(2, 1, 3))), `array "indices": dataset: bad input: entry 2 (row 2): column id 7 outside [0, 3)`},
		{"negative column", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), i4(1, -1, 2), f4(2, 1, 3))), "column id -1"},
		{"indptr decreasing", buildNPZ(t, scipyMembers(i4(0, 2, 1, 3), i4(1, 0, 2), f4(2, 1, 3))), `array "indptr"`},
		{"mismatched lengths", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), i4(1, 0, 2), f4(2, 1))), `arrays "indices" (shape [3]) and "data" (shape [2]) must have as many elements`},
		{"indptr too short", buildNPZ(t, scipyMembers(i4(0, 1, 3), i4(1, 0, 2), f4(2, 1, 3))), `array "indptr": dataset: bad input: shape [3], want 4 entries`},
		{"unsupported dtype", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), npzMember{descr: "<c8", shape: []int64{3}, data: make([]byte, 24)}, f4(2, 1, 3))), `array "indices"`},
		{"object dtype", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), npzMember{descr: "|O", shape: []int64{3}, data: make([]byte, 24)}, f4(2, 1, 3))), `unsupported .npy dtype "|O"`},
		{"truncated member", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), npzMember{descr: "<i4", shape: []int64{5}, data: le[int32](1, 0, 2)}, f4(2, 1, 3))), "truncated"},
		{"int64 index overflow", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), npzMember{descr: "<i8", shape: []int64{3}, data: le[int64](1, 0, 1<<40)}, f4(2, 1, 3))), "overflows int32"},
		{"csc unsupported format", buildNPZ(t, append(scipyMembers(i4(0, 1, 1, 3), i4(1, 0, 2), f4(2, 1, 3))[:4], npzMember{name: "format", descr: "<U3", data: unicode0d("bsr")})), `unsupported sparse format "bsr"`},
		{"missing array", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), i4(1, 0, 2), f4(2, 1, 3))[1:]), `missing array "indptr"`},
		{"unknown layout", buildNPZ(t, []npzMember{{name: "x", descr: "<i4", shape: []int64{1}, data: le[int32](1)}}), "neither a scipy"},
		{"2-d indices", buildNPZ(t, scipyMembers(i4(0, 1, 1, 3), npzMember{descr: "<i4", shape: []int64{3, 1}, data: le[int32](1, 0, 2)}, f4(2, 1, 3))), "want a 1-d array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readNPZBytes("m.npz", tt.file)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "m.npz") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not start with m.npz or lacks %q", err, tt.want)
			}
		})
	}
}

func TestReadGNNBenchmarkSparseLabels(t *testing.T) {
	i4 := func(v ...int32) npzMember {
		return npzMember{descr: "<i4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	f4 := func(v ...float32) npzMember {
		return npzMember{descr: "<f4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	named := func(name string, m npzMember) npzMember { m.name = name; return m }
	b := buildNPZ(t, []npzMember{
		named("adj_indptr", i4(0, 1, 1, 2)), named("adj_indices", i4(1, 0)), named("adj_data", f4(1, 1)),
		{name: "adj_shape", descr: "<i8", shape: []int64{2}, data: le[int64](3, 3)},
		{name: "attr_matrix", descr: "<f8", shape: []int64{3, 2}, data: le[float64](1, 2, 3, 4, 5, 6)},
		named("labels_indptr", i4(0, 1, 2, 2)), named("labels_indices", i4(2, 0)), named("labels_data", f4(1, 1)),
		{name: "labels_shape", descr: "<i8", shape: []int64{2}, data: le[int64](3, 4)},
		{name: "idx_to_node", descr: "<U5", shape: []int64{3}, data: make([]byte, 60)},
		{name: "idx_train", descr: "<i8", shape: []int64{2}, data: le[int64](2, 0)},
		{name: "class_names", descr: "|O", shape: []int64{4}, data: make([]byte, 32)},
	})
	d, err := readNPZBytes("g.npz", b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Train, []int32{0, 2}) {
		t.Errorf("train %v, want [0 2]", d.Train)
	}
	if !reflect.DeepEqual(d.Labels, []int32{2, 0, -1}) || d.NumClasses != 4 ||
		!reflect.DeepEqual(d.Features, []float32{1, 2, 3, 4, 5, 6}) || d.NumFeatures != 2 {
		t.Errorf("got labels %v (%d classes), features %v (%d)", d.Labels, d.NumClasses, d.Features, d.NumFeatures)
	}
}

func TestNPYHeader(t *testing.T) {
	tests := []struct {
		header string
		want   string // "" for success
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (5429,), }", ""},
		{"{'descr': '<i8', 'fortran_order': False, 'shape': (), }", ""},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (10L, 3L), }", ""},
		{"{'descr': '<f4', 'shape': (1,)}", "missing \"fortran_order\""},
		{"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "structured"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "shape is not a tuple"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", "too large"},
		{"{'descr': '<q9', 'fortran_order': False, 'shape': (1,), }", "unsupported .npy dtype"},
		{"[1, 2]", "not a dict"},
	}
	for _, tt := range tests {
		_, err := parseNPYDict(tt.header)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.header, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one containing %q", tt.header, err, tt.want)
		}
	}
	if v := halfToFloat32(0x3555); math.Abs(float64(v)-0.33325195) > 1e-7 {
		t.Errorf("half 0x3555 = %v", v)
	}
	if v := halfToFloat32(0x0001); v != float32(math.Ldexp(1, -24)) {
		t.Errorf("smallest subnormal half = %v", v)
	}
	if v := halfToFloat32(0xfc00); !math.IsInf(float64(v), -1) {
		t.Errorf("half 0xfc00 = %v", v)
	}
}

func TestReadEdgeList(t *testing.T) {
	tests := []struct {
		name, text string
		weighted   bool
		want       *spgemm.CSR // nil: error
		wantErr    string
	}{
		{"whitespace", "# comment\n0 1\n1\t2\n\n% other comment\n2 0\n0 1\n", false,
			&spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 3}, Indices: []int32{2, 0, 1}, Data: []float32{1, 1, 1}}, ""},
		{"comma weighted", "0,1,2.5\n1,0,1\n0,1,0.5\r\n", true,
			&spgemm.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Indices: []int32{1, 0}, Data: []float32{1, 3}}, ""},
		{"empty", "# nothing\n", false, &spgemm.CSR{Indptr: []int64{0}, Indices: []int32{}, Data: []float32{}}, ""},
		{"non-numeric", "0 1\n1 x\n", false, nil, "g.txt: line 2: dataset: bad input: vertex id \"x\""},
		{"negative", "0 1\n-1 2\n", false, nil, "line 2"},
		{"too big", "0 99999999999999999999\n", false, nil, "line 1"},
		{"bad weight", "0 1 2\n1 2 nan\n", false, nil, "line 2: dataset: bad input: weight \"nan\""},
		{"mixed columns", "0 1 2\n1 2\n", false, nil, "line 2"},
		{"one field", "0\n", false, nil, "1 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := readEdgeList(context.Background(), "g.txt", strings.NewReader(tt.text), AsStored, 1, ogbChunk)
			if tt.want == nil {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Adj, tt.want) || d.Weighted != tt.weighted {
				t.Errorf("got %+v (weighted %v), want %+v", d.Adj, d.Weighted, tt.want)
			}
		})
	}
}

func TestReadMatrixMarket(t *testing.T) {
	tests := []struct {
		name, text string
		want       *spgemm.CSR
		wantErr    string
	}{
		{"general real", "%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 2 0.5\n3 1 2\n3 3 1\n",
			&spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 1, 3}, Indices: []int32{1, 0, 2}, Data: []float32{0.5, 2, 1}}, ""},
		{"symmetric pattern", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n",
			&spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 3}, Indices: []int32{1, 0, 2}, Data: []float32{1, 1, 1}}, ""},
		{"truncated", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.5\n", nil, "truncated: 1 of 3 entries"},
		{"index zero", "%%MatrixMarket matrix coordinate real general\n3 3 1\n0 2 0.5\n", nil, "line 3: dataset: bad input: index \"0\" outside [1, 3]"},
		{"index too big", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n", nil, "index \"4\" outside [1, 3]"},
		{"array format", "%%MatrixMarket matrix array real general\n3 3\n", nil, "coordinate"},
		{"not square", "%%MatrixMarket matrix coordinate real general\n3 4 0\n", nil, "square"},
		{"too many", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n2 1\n", nil, "more entries"},
		{"bad value", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", nil, "not a finite integer"},
		{"huge nnz", "%%MatrixMarket matrix coordinate pattern general\n2 2 999999999999\n1 2\n", nil, "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := readMatrixMarket(context.Background(), "m.mtx", strings.NewReader(tt.text), int64(len(tt.text)), 1, ogbChunk)
			if tt.want == nil {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "m.mtx") {
					t.Errorf("error %v, want one starting with m.mtx containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Adj, tt.want) {
				t.Errorf("got %+v, want %+v", d.Adj, tt.want)
			}
		})
	}
}

func TestLoadDetectsFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	el := write("g.txt", "0 1\n1 2\n")
	mtx := write("g.dat", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n")
	for _, p := range []string{el, mtx} {
		d, err := Load(p, &LoadOptions{Symmetry: Symmetrize})
		if err != nil {
			t.Fatal(err)
		}
		if d.NumNodes() != 3 || d.Adj.NNZ() != 4 || d.Name != "g" {
			t.Errorf("%s: %d nodes, %d entries, name %q", p, d.NumNodes(), d.Adj.NNZ(), d.Name)
		}
	}
	gz := write("g.csv.gz", "\x1f\x8b\x08junk")
	bin := write("g.bin", "abc\x00def")
	trunc := write("g.npz", "PK")
	for _, p := range []string{gz, bin, trunc, filepath.Join(dir, "missing.txt"), dir} {
		if _, err := Load(p, nil); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%s): error %v does not name the file", p, err)
		}
	}
}

func TestSplits(t *testing.T) {
	labels := make([]int32, 3000)
	for i := range labels {
		labels[i] = int32(i % 3)
		if i%10 == 9 {
			labels[i] = -1
		}
	}
	d := &Dataset{Labels: labels, NumClasses: 3, Adj: &spgemm.CSR{Rows: 3000, Cols: 3000, Indptr: make([]int64, 3001)}}
	tests := []struct {
		spec               string
		train, valid, test int
		wantErr            bool
	}{
		{"planetoid", 60, 500, 1000, false},
		{"planetoid:5,10,20", 15, 10, 20, false},
		{"planetoid:100,5000,5000", 300, 2400, 0, false},
		{"random:0.1,0.2,0.7", 270, 540, 1890, false},
		{"none", 0, 0, 0, false},
		{"random", 0, 0, 0, true},
		{"random:0.5,0.5,0.5", 0, 0, 0, true},
		{"planetoid:1,2", 0, 0, 0, true},
		{"bogus", 0, 0, 0, true},
	}
	for _, tt := range tests {
		err := applySplit(d, tt.spec, 1)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%s: no error", tt.spec)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if len(d.Train) != tt.train || len(d.Valid) != tt.valid || len(d.Test) != tt.test {
			t.Errorf("%s: sizes %d/%d/%d, want %d/%d/%d", tt.spec, len(d.Train), len(d.Valid), len(d.Test), tt.train, tt.valid, tt.test)
		}
		seen := map[int32]bool{}
		for _, s := range [][]int32{d.Train, d.Valid, d.Test} {
			for _, v := range s {
				if seen[v] || labels[v] < 0 {
					t.Fatalf("%s: node %d repeated or unlabelled", tt.spec, v)
				}
				seen[v] = true
			}
		}
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", tt.spec, err)
		}
	}
	// Same seed, same split; another seed, another split.
	applySplit(d, "planetoid", 1)
	a := d.Train
	applySplit(d, "planetoid", 1)
	if !reflect.DeepEqual(a, d.Train) {
		t.Error("split not reproducible")
	}
	applySplit(d, "planetoid", 2)
	if reflect.DeepEqual(a, d.Train) {
		t.Error("seeds 1 and 2 give the same split")
	}
}

// gzWrite writes text gzip-compressed to path.
func gzWrite(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression) // cheap: the fuzz targets write several per input
	zw.Write([]byte(text))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ogbCSVFolder writes a 4-node OGB CSV-flavour folder: path 0-1-2-3 stored
// once per edge, 2 features, labels, and a split.
func ogbCSVFolder(t testing.TB, dir string, edges string) {
	raw := filepath.Join(dir, "raw")
	gzWrite(t, filepath.Join(raw, "num-node-list.csv.gz"), "4\n")
	gzWrite(t, filepath.Join(raw, "num-edge-list.csv.gz"), "3\n")
	gzWrite(t, filepath.Join(raw, "edge.csv.gz"), edges)
	gzWrite(t, filepath.Join(raw, "node-feat.csv.gz"), "0,1\n2,3\n4,5\n6,7\n")
	gzWrite(t, filepath.Join(raw, "node-label.csv.gz"), "0\n1\nnan\n1\n")
	sp := filepath.Join(dir, "split", "sales_ranking")
	gzWrite(t, filepath.Join(sp, "train.csv.gz"), "0\n")
	gzWrite(t, filepath.Join(sp, "valid.csv.gz"), "1\n")
	gzWrite(t, filepath.Join(sp, "test.csv.gz"), "3\n")
}

func TestLoadOGBCSV(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ogbn_small")
	ogbCSVFolder(t, dir, "0,1\n1,2\n3,2\n")
	d, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := smallDataset()
	want.Name = "ogbn_small"
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got %+v\nwant %+v", d, want)
	}
	// Without symmetrisation, edge u,v is entry (v, u).
	d, err = Load(dir, &LoadOptions{Symmetry: AsStored})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Adj.Indptr, []int64{0, 0, 1, 3, 3}) || !reflect.DeepEqual(d.Adj.Indices, []int32{0, 1, 3}) {
		t.Errorf("as stored: %+v", d.Adj)
	}
}

func TestLoadOGBCSVErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(dir string)
		want   string
	}{
		{"id out of range", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "edge.csv.gz"), "0,1\n1,4\n3,2\n") }, "edge.csv.gz: line 2: dataset: bad input: node id \"4\""},
		{"negative id", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "edge.csv.gz"), "0,1\n-1,2\n3,2\n") }, "line 2"},
		{"non-numeric", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "edge.csv.gz"), "0,1\n1,two\n3,2\n") }, "line 2"},
		{"too few edges", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "edge.csv.gz"), "0,1\n1,2\n") }, "truncated: 2 edges"},
		{"too many edges", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "edge.csv.gz"), "0,1\n1,2\n3,2\n0,3\n") }, "more edges"},
		{"bad gzip", func(dir string) {
			os.WriteFile(filepath.Join(dir, "raw", "edge.csv.gz"), []byte("not gzip at all"), 0o644)
		}, "edge.csv.gz: dataset: bad input: not a gzip stream"},
		{"corrupt gzip body", func(dir string) {
			p := filepath.Join(dir, "raw", "edge.csv.gz")
			b, _ := os.ReadFile(p)
			b[len(b)-6] ^= 0xff // inside the CRC-32 trailer
			os.WriteFile(p, b, 0o644)
		}, "edge.csv.gz"},
		{"truncated gzip", func(dir string) {
			p := filepath.Join(dir, "raw", "edge.csv.gz")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-10], 0o644)
		}, "edge.csv.gz"},
		{"feature not a number", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "node-feat.csv.gz"), "0,1\n2,x\n4,5\n6,7\n") }, "node-feat.csv.gz: line 2: dataset: bad input: value 2"},
		{"ragged features", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "node-feat.csv.gz"), "0,1\n2\n4,5\n6,7\n") }, "node-feat.csv.gz: line 2"},
		{"label not a number", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "node-label.csv.gz"), "0\n1\nfoo\n1\n") }, "node-label.csv.gz: line 3"},
		{"huge edge count", func(dir string) { gzWrite(t, filepath.Join(dir, "raw", "num-edge-list.csv.gz"), "99999999999\n") }, "more than the file can hold"},
		{"split id out of range", func(dir string) {
			gzWrite(t, filepath.Join(dir, "split", "sales_ranking", "test.csv.gz"), "9\n")
		}, "test.csv.gz: line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ogbn")
			ogbCSVFolder(t, dir, "0,1\n1,2\n3,2\n")
			tt.modify(dir)
			_, err := Load(dir, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadOGBBinary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "papers_small")
	raw := filepath.Join(dir, "raw")
	os.MkdirAll(raw, 0o755)
	// Directed edges 0->1, 1->2, 3->2 (int64 2 x E), float16 features.
	data := buildNPZ(t, []npzMember{
		{name: "edge_index", descr: "<i8", shape: []int64{2, 3}, data: le[int64](0, 1, 3, 1, 2, 2)},
		{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](4)},
		{name: "num_edges_list", descr: "<i8", shape: []int64{1}, data: le[int64](3)},
		{name: "node_feat", descr: "<f2", shape: []int64{4, 1}, data: le[uint16](0x3c00, 0x4000, 0x4200, 0x4400)},
	})
	labels := buildNPZ(t, []npzMember{
		{name: "node_label", descr: "<f4", shape: []int64{4, 1}, data: le[float32](1, float32(math.NaN()), 0, 1)},
	})
	os.WriteFile(filepath.Join(raw, "data.npz"), data, 0o644)
	os.WriteFile(filepath.Join(raw, "node-label.npz"), labels, 0o644)
	sp := filepath.Join(dir, "split", "time")
	gzWrite(t, filepath.Join(sp, "train.csv.gz"), "0\n3\n")
	gzWrite(t, filepath.Join(sp, "valid.csv.gz"), "2\n")
	gzWrite(t, filepath.Join(sp, "test.csv.gz"), "1\n")
	d, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Dataset{
		Name: "papers_small",
		Adj: &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 0, 1, 3, 3},
			Indices: []int32{0, 1, 3}, Data: []float32{1, 1, 1}},
		Features: []float32{1, 2, 3, 4}, NumFeatures: 1,
		Labels: []int32{1, -1, 0, 1}, NumClasses: 2,
		Train: []int32{0, 3}, Valid: []int32{2}, Test: []int32{1},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got %+v\nwant %+v", d, want)
	}
	// An edge id out of range is named.
	bad := buildNPZ(t, []npzMember{
		{name: "edge_index", descr: "<i8", shape: []int64{2, 3}, data: le[int64](0, 1, 3, 1, 2, 9)},
		{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](4)},
	})
	// int32 ids are read in place, and still range-checked.
	bad32 := buildNPZ(t, []npzMember{
		{name: "edge_index", descr: "<i4", shape: []int64{2, 3}, data: le[int32](0, 1, 3, 1, -2, 2)},
		{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](4)},
	})
	for _, b := range [][]byte{bad, bad32} {
		os.WriteFile(filepath.Join(raw, "data.npz"), b, 0o644)
		if _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), `array "edge_index"`) || !strings.Contains(err.Error(), "node id") {
			t.Errorf("error %v", err)
		}
	}
}

// TestSaveFailureLeavesNoFile checks that a failed write leaves neither the
// output nor a temporary file.
func TestSaveFailureLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bsn")
	boom := errors.New("boom")
	err := atomicfile.Write(context.Background(), p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind", entries)
	}
	// An invalid dataset is refused before anything is written.
	bad := smallDataset()
	bad.Labels[0] = 5
	if err := Save(p, bad); err == nil || !strings.Contains(err.Error(), "label 5") {
		t.Errorf("Save of an invalid dataset: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind", entries)
	}
}

// TestLoadCancelled checks that the long readers stop on a done context.
func TestLoadCancelled(t *testing.T) {
	dir := t.TempDir()
	ogb := filepath.Join(dir, "ogbn")
	ogbCSVFolder(t, ogb, "0,1\n1,2\n3,2\n")
	el := filepath.Join(dir, "g.txt")
	os.WriteFile(el, []byte("0 1\n"), 0o644)
	mtx := filepath.Join(dir, "g.mtx")
	os.WriteFile(mtx, []byte("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{ogb, el, mtx} {
		if _, err := LoadContext(ctx, p, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", p, err)
		}
	}
	// Progress lines go to LoadOptions.Progress.
	var log bytes.Buffer
	if _, err := Load(ogb, &LoadOptions{Progress: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "reading 3 edges of 4 nodes") {
		t.Errorf("progress %q", log.String())
	}
}

// TestReadLabelsInPlace checks the label rule (negative = unlabelled) on
// int32 labels, which are read in place.
func TestReadLabelsInPlace(t *testing.T) {
	b := buildNPZ(t, []npzMember{
		{name: "adj_indptr", descr: "<i4", shape: []int64{4}, data: le[int32](0, 0, 0, 0)},
		{name: "adj_indices", descr: "<i4", shape: []int64{0}},
		{name: "adj_data", descr: "<f4", shape: []int64{0}},
		{name: "adj_shape", descr: "<i8", shape: []int64{2}, data: le[int64](3, 3)},
		{name: "labels", descr: "<i4", shape: []int64{3}, data: le[int32](-5, 1, 0)},
	})
	d, err := readNPZBytes("g.npz", b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Labels, []int32{-1, 1, 0}) || d.NumClasses != 2 {
		t.Errorf("labels %v (%d classes)", d.Labels, d.NumClasses)
	}
}
