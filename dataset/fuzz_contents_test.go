package dataset

// Structure-aware fuzz targets. Random bytes fed to FuzzReadNPZ or
// FuzzReadNative almost never get past the zip CRC-32 or the native
// header's CRC-32C, so the array parsers behind them are barely reached.
// The targets here take a recipe instead: the contents of a container (the
// npy header dicts, the native JSON header, the raw array bytes) that the
// harness wraps in a well-formed container, recomputing the magic, the
// lengths, the sizes and the checksums, so that every mutation of a dtype
// string, a shape, an offset, a count or an id reaches the parser.
//
// Recipes are byte strings with separators rather than length fields, so
// that the fuzzer's inserts and deletes stay inside the field they hit:
//
//	npz recipe    = member *(recipeSep member)
//	member        = flags name "\n" dict "\n" data
//	                flags bit 0: deflate the member; bit 1: write an .npy
//	                version 2.0 header, bit 2 version 3.0; bit 3: no .npy
//	                header is built, the bytes after the name are the member
//	native recipe = flags header-json recipeSep arrays
//	                flags bit 0: recompute the arrays' CRC-32C in the header
//	ogb recipe    = npz recipe [fileSep npz recipe [fileSep split]]
//	                data.npz, raw/node-label.npz, split/time/{train,valid,test}
//	                as three id lists separated by "\n===\n"
//
// Whatever a reader accepts must be a valid Dataset that the native writer
// can write and read back unchanged.

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	recipeSep = "\xfe\xfd\xfc\xfb" // between the members of an npz recipe
	fileSep   = "\xfe\xfd\xfc\xfa" // between the files of an OGB recipe
)

// npyFromRecipe returns the .npy bytes of one member recipe (after its name):
// a header of the version flags ask for around dict, then data.
func npyFromRecipe(flags byte, rest []byte) []byte {
	if flags&8 != 0 {
		return rest
	}
	dict, data, _ := bytes.Cut(rest, []byte("\n"))
	dict = append(append([]byte{}, dict...), '\n')
	var b []byte
	switch {
	case flags&2 != 0 || len(dict) > 0xffff:
		b = append([]byte(npyMagic), 2, 0, 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(b[8:], uint32(len(dict)))
	case flags&4 != 0:
		b = append([]byte(npyMagic), 3, 0, 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(b[8:], uint32(len(dict)))
	default:
		b = append([]byte(npyMagic), 1, 0, 0, 0)
		binary.LittleEndian.PutUint16(b[8:], uint16(len(dict)))
	}
	return append(append(b, dict...), data...)
}

// npzFromRecipe builds a zip archive of the recipe's members; archive/zip
// computes the sizes and CRC-32s.
func npzFromRecipe(r []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range bytes.Split(r, []byte(recipeSep)) {
		if len(m) == 0 {
			continue
		}
		flags := m[0]
		name, rest, _ := bytes.Cut(m[1:], []byte("\n"))
		method := zip.Store
		if flags&1 != 0 {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: string(name) + ".npy", Method: method})
		if err != nil {
			continue // a name zip refuses (too long): leave the member out
		}
		w.Write(npyFromRecipe(flags, rest))
	}
	zw.Close()
	return buf.Bytes()
}

// npzRecipe turns an .npz file into a recipe that npzFromRecipe builds back
// into an equivalent archive (used to make the seeds).
func npzRecipe(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var r []byte
	for i, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		h, err := readNPYHeader(bytes.NewReader(content), int64(len(content)))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		var flags byte
		if f.Method == zip.Deflate {
			flags |= 1
		}
		if content[6] == 2 {
			flags |= 2
		}
		hdrStart := 10
		if content[6] > 1 {
			hdrStart = 12
		}
		dict := bytes.TrimRight(content[hdrStart:h.size], " \n")
		if i > 0 {
			r = append(r, recipeSep...)
		}
		r = append(r, flags)
		r = append(r, bytes.TrimSuffix([]byte(f.Name), []byte(".npy"))...)
		r = append(r, '\n')
		r = append(r, dict...)
		r = append(r, '\n')
		r = append(r, content[h.size:]...)
	}
	return r
}

// nativeBase is where the arrays of a recipe-built native file start when
// its header fits before it, as writeNative lays out small files.
const nativeBase = 4096

// nativeFromRecipe builds a native file: the prefix with the header's
// length and CRC-32C, the header, zero padding up to nativeBase (or the next
// 64-byte boundary after a longer header), then the arrays' bytes. With flag
// bit 0 and a header that decodes, every array's CRC-32C is recomputed over
// the bytes its offset and count point at; flag bit 1 writes the magic of
// an unfinished file (nativeMagicUnfinished), which every reader refuses.
func nativeFromRecipe(r []byte) []byte {
	if len(r) == 0 {
		return nil
	}
	flags := r[0]
	hdr, body, _ := bytes.Cut(r[1:], []byte(recipeSep))
	base := func(hlen int) int { return max(nativeBase, int(alignUp(int64(nativePrefixLen+hlen), nativeAlign))) }
	if flags&1 != 0 {
		var h nativeHeader
		if json.Unmarshal(hdr, &h) == nil {
			b0 := base(len(hdr))
			for i, a := range h.Arrays {
				size := dtypeSize(a.Dtype)
				lo, n := a.Offset-int64(b0), a.Count*size
				if size > 0 && a.Count >= 0 && a.Count < 1<<40 && lo >= 0 && lo+n <= int64(len(body)) {
					h.Arrays[i].CRC32C = crc32.Checksum(body[lo:lo+n], castagnoli)
				}
			}
			if fixed, err := json.Marshal(h); err == nil && base(len(fixed)) == b0 {
				hdr = fixed
			}
		}
	}
	out := make([]byte, nativePrefixLen, base(len(hdr))+len(body))
	copy(out, nativeMagic)
	if flags&2 != 0 {
		copy(out, nativeMagicUnfinished)
	}
	binary.LittleEndian.PutUint32(out[8:], nativeVersion)
	binary.LittleEndian.PutUint32(out[12:], crc32.Checksum(hdr, castagnoli))
	binary.LittleEndian.PutUint64(out[16:], uint64(len(hdr)))
	out = append(out, hdr...)
	out = append(out, make([]byte, base(len(hdr))-len(out))...)
	return append(out, body...)
}

// nativeRecipe splits a native file written by writeNative into a recipe.
func nativeRecipe(t testing.TB, d *Dataset) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeNative(&buf, d); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	hlen := int(binary.LittleEndian.Uint64(b[16:]))
	if nativePrefixLen+hlen > nativeBase {
		t.Fatalf("seed header of %d bytes does not fit before %d", hlen, nativeBase)
	}
	r := append([]byte{1}, b[nativePrefixLen:nativePrefixLen+hlen]...)
	r = append(r, recipeSep...)
	return append(r, b[nativeBase:]...)
}

// checkRoundTrip checks that a dataset a reader accepted is valid and comes
// back unchanged through the native writer and reader.
func checkRoundTrip(t *testing.T, d *Dataset, err error) {
	t.Helper()
	if err != nil {
		checkRefused(t, err)
		return
	}
	if verr := d.Validate(); verr != nil {
		t.Fatalf("accepted an invalid dataset: %v", verr)
	}
	var buf bytes.Buffer
	if err := writeNative(&buf, d); err != nil {
		t.Fatalf("writing an accepted dataset: %v", err)
	}
	back, err := decodeNative("back.bsn", buf.Bytes(), VerifyChecksums, 1, nil)
	if err != nil {
		t.Fatalf("reading back an accepted dataset: %v", err)
	}
	back.release = nil
	if !sameDataset(d, back) {
		t.Fatalf("round trip changed the dataset:\n%+v\n%+v", d, back)
	}
}

// sameDataset compares two datasets bit for bit (NaN features included),
// with nil and empty slices equal.
func sameDataset(a, b *Dataset) bool {
	bits := func(v []float32) []byte { return bytesOf(v) }
	eq := func(x, y []byte) bool { return bytes.Equal(x, y) }
	return a.Name == b.Name && a.Weighted == b.Weighted && a.NumFeatures == b.NumFeatures && a.NumClasses == b.NumClasses &&
		a.Adj.Rows == b.Adj.Rows && a.Adj.Cols == b.Adj.Cols &&
		eq(bytesOf(a.Adj.Indptr), bytesOf(b.Adj.Indptr)) && eq(bytesOf(a.Adj.Indices), bytesOf(b.Adj.Indices)) &&
		eq(bits(a.Adj.Data), bits(b.Adj.Data)) && eq(bits(a.Features), bits(b.Features)) &&
		eq(bytesOf(a.Labels), bytesOf(b.Labels)) && eq(bytesOf(a.Train), bytesOf(b.Train)) &&
		eq(bytesOf(a.Valid), bytesOf(b.Valid)) && eq(bytesOf(a.Test), bytesOf(b.Test))
}

// FuzzNPYContents builds a well-formed .npy prefix around a mutated header
// dict and data, and reads the array with every conversion the readers use.
func FuzzNPYContents(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzNPYContents"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, r []byte) {
		if len(r) == 0 {
			return
		}
		b := npyFromRecipe(r[0], r[1:])
		h, err := readNPYHeader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if h.count() > int64(len(b)) {
			t.Fatalf("accepted shape %v of %s (%d elements) in %d bytes", h.shape, h.dtype.descr, h.count(), len(b))
		}
		data := func() io.Reader { return bytes.NewReader(b[h.size:]) }
		if !h.dtype.isNumeric() {
			_, _ = readNPYString(data(), &h)
			return
		}
		_ = readNPYData(data(), &h, make([]float32, h.count()), nil)
		_ = readNPYData(data(), &h, make([]int64, h.count()), nil)
		_ = readNPYData(data(), &h, make([]int32, h.count()), nil)
		labels := make([]int32, h.count())
		if readNPYData(data(), &h, labels, toLabel) == nil {
			for i, l := range labels {
				if l < -1 {
					t.Fatalf("label %d read as %d", i, l)
				}
			}
		}
	})
}

// FuzzNPZContents reads a well-formed zip built from a recipe of .npy
// members, in the scipy or the gnn-benchmark layout.
func FuzzNPZContents(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzNPZContents"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, r []byte) {
		d, err := readNPZBytes("f.npz", npzFromRecipe(r))
		checkRoundTrip(t, d, err)
	})
}

// FuzzNativeContents reads a native file whose header length and CRC-32C
// (and, with flag bit 0, array checksums) are recomputed around a mutated
// JSON header and array bytes, at every verification level.
func FuzzNativeContents(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzNativeContents"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, r []byte) {
		b := nativeFromRecipe(r)
		for _, level := range []VerifyLevel{VerifyStructure, VerifyChecksums} {
			d, err := decodeNative("f.bsn", b, level, 2, nil)
			checkRoundTrip(t, d, err)
		}
		// A buffer that is not 8-byte aligned makes the arrays copies, not
		// views: the same dataset either way.
		odd := append(make([]byte, 1, len(b)+1), b...)[1:]
		d, err := decodeNative("f.bsn", b, VerifyStructure, 1, nil)
		d2, err2 := decodeNative("f.bsn", odd, VerifyStructure, 1, nil)
		if (err == nil) != (err2 == nil) || err == nil && !sameDataset(d, d2) {
			t.Fatalf("aligned and misaligned buffers differ: %v, %v", err, err2)
		}
		// VerifyNone trusts the arrays, but never the header or the bounds.
		_, _ = decodeNative("f.bsn", b, VerifyNone, 1, nil)
	})
}

// FuzzOGBBinaryContents writes an OGB binary folder from a recipe (data.npz,
// node-label.npz and a split) and loads it through the streaming reader with
// chunks of 3 edges.
func FuzzOGBBinaryContents(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzOGBBinaryContents"] {
		f.Add(s)
	}
	// One folder per process, rewritten by every input: a fresh folder per
	// input would cost more than the load.
	dir := f.TempDir()
	raw := filepath.Join(dir, "raw")
	f.Fuzz(func(t *testing.T, r []byte) {
		parts := bytes.SplitN(r, []byte(fileSep), 3)
		for len(parts) < 3 {
			parts = append(parts, nil)
		}
		writeFile(t, filepath.Join(raw, "data.npz"), npzFromRecipe(parts[0]))
		writeFile(t, filepath.Join(raw, "node-label.npz"), npzFromRecipe(parts[1]))
		if len(parts[1]) == 0 {
			os.Remove(filepath.Join(raw, "node-label.npz"))
		}
		os.RemoveAll(filepath.Join(dir, "split"))
		if len(parts[2]) > 0 {
			lists := bytes.SplitN(parts[2], []byte("\n===\n"), 3)
			for len(lists) < 3 {
				lists = append(lists, nil)
			}
			for i, name := range []string{"train", "valid", "test"} {
				gzWrite(t, filepath.Join(dir, "split", "time", name+".csv.gz"), string(lists[i]))
			}
		}
		for _, sym := range []Symmetry{SymmetryDefault, Symmetrize} {
			d, _, err := loadOGB(context.Background(), dir, &LoadOptions{Symmetry: sym, Threads: 2}, 3)
			checkRoundTrip(t, d, err)
		}
	})
}

// writeFile writes b to path, making its folder.
func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadContents goes through the public entry point, LoadContext, on a
// file written from the recipe: byte 0 picks the format (0: npz recipe, 1:
// native recipe, 2: edge list text, 3: Matrix Market text), byte 1 the
// options (bits 0-1: Symmetry, bits 2-3: Verify, bit 4: a random split).
func FuzzLoadContents(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzLoadContents"] {
		f.Add(s)
	}
	dir := f.TempDir() // one folder per process, rewritten by every input
	f.Fuzz(func(t *testing.T, r []byte) {
		if len(r) < 2 {
			return
		}
		var name string
		var b []byte
		switch r[0] % 4 {
		case 0:
			name, b = "g.npz", npzFromRecipe(r[2:])
		case 1:
			name, b = "g.bsn", nativeFromRecipe(r[2:])
		case 2:
			name, b = "g.txt", r[2:]
		case 3:
			name, b = "g.mtx", r[2:]
		}
		p := filepath.Join(dir, name)
		writeFile(t, p, b)
		o := &LoadOptions{Symmetry: Symmetry(r[1] % 3), Verify: VerifyLevel(r[1] >> 2 % 4), Threads: 2}
		if r[1]&16 != 0 {
			o.Split = "random:0.5,0.25,0.25"
		}
		d, err := LoadContext(context.Background(), p, o)
		if err == nil && o.Verify != VerifyNone {
			checkRoundTrip(t, d, err)
		}
		if err == nil {
			d.Close()
		}
		os.Remove(p)
	})
}

// moreNPZSeeds are .npz files of the layouts and options the container
// seeds lack: a gnn-benchmark file with dense features, one-hot sparse
// labels and a split; scipy COO and CSC files; unsorted rows with a
// duplicate.
func moreNPZSeeds(t testing.TB) [][]byte {
	i4 := func(name string, v ...int32) npzMember {
		return npzMember{name: name, descr: "<i4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	f4 := func(name string, v ...float32) npzMember {
		return npzMember{name: name, descr: "<f4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	shape := func(name string, r, c int64) npzMember {
		return npzMember{name: name, descr: "<i8", shape: []int64{2}, data: le(r, c)}
	}
	format := func(f string) npzMember {
		return npzMember{name: "format", descr: fmt.Sprintf("<U%d", len(f)), data: unicode0d(f)}
	}
	return [][]byte{
		buildNPZ(t, []npzMember{
			i4("adj_indptr", 0, 1, 1, 2), i4("adj_indices", 1, 0), f4("adj_data", 1, 1), shape("adj_shape", 3, 3),
			{name: "attr_matrix", descr: "<f8", shape: []int64{3, 2}, data: le[float64](1, 2, 3, 4, 5, 6)},
			i4("labels_indptr", 0, 1, 2, 2), i4("labels_indices", 2, 0), f4("labels_data", 1, 1), shape("labels_shape", 3, 4),
			{name: "idx_train", descr: "<i8", shape: []int64{2}, data: le[int64](2, 0)},
			i4("idx_val", 1), i4("idx_test", 2),
		}),
		buildNPZ(t, []npzMember{i4("row", 2, 0, 2), i4("col", 0, 1, 2), f4("data", 1, 2, 3), shape("shape", 3, 3), format("coo")}),
		buildNPZ(t, []npzMember{i4("indptr", 0, 1, 2, 3), i4("indices", 2, 0, 2), f4("data", 1, 2, 3), shape("shape", 3, 3), format("csc")}),
		buildNPZ(t, []npzMember{i4("indptr", 0, 3, 3, 4), i4("indices", 2, 0, 2, 1), f4("data", 1, 2, 3, 4), shape("shape", 3, 3), format("csr"),
			{name: "labels", descr: "<f4", shape: []int64{3, 1}, data: le[float32](0, 1, float32(math.NaN()))}}),
		// Issue 39's bomb, small: features whose indices and data agree
		// with each other, not with attr_indptr's last entry.
		buildNPZ(t, []npzMember{
			i4("adj_indptr", 0, 1, 1, 2), i4("adj_indices", 1, 0), f4("adj_data", 1, 1), shape("adj_shape", 3, 3),
			i4("attr_indptr", 0, 1, 2, 4), i4("attr_indices", make([]int32, 64)...), f4("attr_data", make([]float32, 64)...), shape("attr_shape", 3, 2),
		}),
	}
}

// contentSeeds returns the seeds of the structure-aware targets, made from
// the container-level seeds.
func contentSeeds(t testing.TB, container map[string][][]byte) map[string][][]byte {
	seeds := map[string][][]byte{}
	for _, b := range container["FuzzReadNPY"] {
		h, err := readNPYHeader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		r := append([]byte{0}, bytes.TrimRight(b[10:h.size], " \n")...)
		r = append(append(r, '\n'), b[h.size:]...)
		seeds["FuzzNPYContents"] = append(seeds["FuzzNPYContents"], r)
	}
	for _, b := range container["FuzzReadNPZ"] {
		seeds["FuzzNPZContents"] = append(seeds["FuzzNPZContents"], npzRecipe(t, b))
	}
	for _, b := range moreNPZSeeds(t) {
		seeds["FuzzNPZContents"] = append(seeds["FuzzNPZContents"], npzRecipe(t, b))
	}
	weighted := smallDataset()
	weighted.Adj.Data = []float32{0.5, 0.5, 2, 2, 1e-3, 1e-3}
	weighted.Weighted = true
	weighted.Labels, weighted.NumClasses, weighted.Train, weighted.Valid, weighted.Test = nil, 0, nil, nil, nil
	unfinished := nativeRecipe(t, smallDataset())
	unfinished[0] |= 2
	seeds["FuzzNativeContents"] = [][]byte{nativeRecipe(t, smallDataset()), nativeRecipe(t, weighted), unfinished}
	var ogb [][]byte
	for _, b := range container["FuzzReadOGBBinary"] {
		ogb = append(ogb, npzRecipe(t, b))
	}
	labels := npzRecipe(t, buildNPZ(t, []npzMember{
		{name: "node_label", descr: "<f8", shape: []int64{4, 1}, data: le[float64](1, 0, -1, 2)},
	}))
	ogb = append(ogb, bytes.Join([][]byte{ogb[0], labels, []byte("0\n1\n===\n2\n===\n3\n")}, []byte(fileSep)))
	seeds["FuzzOGBBinaryContents"] = ogb
	load := [][]byte{
		append([]byte{1, 0}, seeds["FuzzNativeContents"][0]...),
		append([]byte{1, 8}, seeds["FuzzNativeContents"][1]...),
		append([]byte{0, 16 | 2}, seeds["FuzzNPZContents"][0]...),
		append([]byte{0, 1}, seeds["FuzzNPZContents"][2]...),
	}
	for _, b := range container["FuzzReadEdgeList"] {
		load = append(load, append([]byte{2, 16}, b...))
	}
	for _, b := range container["FuzzReadMatrixMarket"] {
		load = append(load, append([]byte{3, 1}, b...))
	}
	seeds["FuzzLoadContents"] = load
	return seeds
}

// TestRecipesRebuildSeeds checks that the recipe builders rebuild the
// container seeds they were made from: the same arrays, hence the same
// datasets, so the structure-aware targets start from files the readers
// accept, or refuse alike for the seeds of refused inputs (issue 39's).
func TestRecipesRebuildSeeds(t *testing.T) {
	seeds := fuzzSeeds(t)
	for i, b := range seeds["FuzzReadNPZ"] {
		// A seed the reader refuses (issue 39's bomb) is refused alike.
		want, werr := readNPZBytes("seed.npz", b)
		got, gerr := readNPZBytes("seed.npz", npzFromRecipe(seeds["FuzzNPZContents"][i]))
		switch {
		case werr != nil || gerr != nil:
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Errorf("npz seed %d: rebuilt, %v; want %v", i, gerr, werr)
			}
		case !reflect.DeepEqual(got, want):
			t.Errorf("npz seed %d: rebuilt %+v; want %+v", i, got, want)
		}
	}
	for i, r := range seeds["FuzzNativeContents"] {
		if r[0]&2 != 0 {
			// The magic of an unfinished file: refused at every level.
			if _, err := decodeNative("seed.bsn", nativeFromRecipe(r), VerifyNone, 1, nil); err == nil || !strings.Contains(err.Error(), "an unfinished native file") {
				t.Errorf("native seed %d, unfinished: %v; want it refused", i, err)
			}
			continue
		}
		for _, level := range []VerifyLevel{VerifyStructure, VerifyChecksums} {
			if _, err := decodeNative("seed.bsn", nativeFromRecipe(r), level, 1, nil); err != nil {
				t.Errorf("native seed %d, level %v: %v", i, level, err)
			}
		}
		// Without the checksum fix a changed value is caught; with it, the
		// structure check is what catches an out-of-range column id.
		bad := bytes.Clone(r)
		body := bad[bytes.Index(bad, []byte(recipeSep))+len(recipeSep):]
		body[nativeAlign+3] ^= 0x40 // the first column id (after indptr: 5 int64s, padded to 64)
		_, err := decodeNative("bad.bsn", nativeFromRecipe(bad), VerifyChecksums, 1, nil)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("adjacency")) {
			t.Errorf("native seed %d with a changed column id and fixed checksums: %v; want a structure error", i, err)
		}
		bad[0] = 0
		_, err = decodeNative("bad.bsn", nativeFromRecipe(bad), VerifyChecksums, 1, nil)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("checksum")) {
			t.Errorf("native seed %d with a changed column id: %v; want a checksum error", i, err)
		}
	}
	for i, r := range seeds["FuzzNPYContents"] {
		b := npyFromRecipe(r[0], r[1:])
		if !bytes.Equal(b[:6], []byte(npyMagic)) {
			t.Fatalf("npy seed %d: no magic", i)
		}
		if _, err := readNPYHeader(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Errorf("npy seed %d: %v", i, err)
		}
	}
}
