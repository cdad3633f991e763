package dataset

// The native format: a fixed prefix, a JSON header, and the little-endian
// arrays, each starting at a multiple of 64 bytes so that a memory-mapped
// file can be used in place as []int64, []int32 and []float32. The layout is
// documented in doc.go.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/bulksample/bulksample/internal/lebin"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

const (
	nativeMagic = "BSNATIVE"
	// nativeMagicUnfinished stands in the place of the magic while the
	// processes of GenerateRMATFile write their parts of one file: the
	// real magic is written last, once every part is written and synced,
	// so that a file whose writers were killed before (kill -9 of a rank,
	// a node lost) is refused rather than read with a part of zeros.
	nativeMagicUnfinished = "BSNPART\x00"
	nativeVersion         = 1
	// nativeVersionRelabel is the version of a file whose graph was
	// relabelled: the header's relabel and relabel_seed and the orig_ids
	// array. Readers read both versions.
	nativeVersionRelabel = 2
	nativePrefixLen      = 24 // magic, version, header CRC-32C, header length
	nativeAlign          = 64
	maxNativeHeader      = 1 << 20
)

var castagnoli = lebin.Castagnoli

// unfinishedNative says what a file with nativeMagicUnfinished is.
const unfinishedNative = "an unfinished native file: its writers (the ranks of bulksample gen rmat) stopped before every rank " +
	"had written and synced its part, so part of it is missing; generate it again"

// nativeHeader is the JSON header of a native file.
type nativeHeader struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	Name        string        `json:"name"`
	Nodes       int64         `json:"nodes"`
	Edges       int64         `json:"edges"`
	Weighted    bool          `json:"weighted"`
	NumFeatures int64         `json:"num_features"`
	NumClasses  int64         `json:"num_classes"`
	Arrays      []nativeArray `json:"arrays"`
	// Version 2: the relabelling's method and seed (see Relabelling).
	Relabel     string `json:"relabel,omitempty"`
	RelabelSeed uint64 `json:"relabel_seed,omitempty"`
	// ClassNames: Dataset.ClassNames (native_extras.go).
	ClassNames []string `json:"class_names,omitempty"`
}

// nativeArray locates one array of a native file.
type nativeArray struct {
	Name   string `json:"name"`
	Dtype  string `json:"dtype"` // int64, int32 or float32, little-endian
	Offset int64  `json:"offset"`
	Count  int64  `json:"count"`
	CRC32C uint32 `json:"crc32c"`
}

func dtypeSize(dtype string) int64 {
	switch dtype {
	case "int64":
		return 8
	case "int32", "float32":
		return 4
	}
	return 0
}

// nativeSchema lists the arrays of a native file with their dtypes; the
// first three are required.
var nativeSchema = []struct{ name, dtype string }{
	{"indptr", "int64"}, {"indices", "int32"}, {"data", "float32"},
	{"features", "float32"}, {"labels", "int32"},
	{"train", "int32"}, {"valid", "int32"}, {"test", "int32"},
	{"orig_ids", "int32"},
	// native_extras.go
	{"sparse_indptr", "int64"}, {"sparse_indices", "int32"}, {"sparse_data", "float32"},
	{"source_ids", "int64"}, {"splits_offsets", "int64"}, {"splits", "int32"},
}

// bytesOf views a numeric slice as its bytes.
func bytesOf[T int32 | int64 | float32](v []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(*new(T))))
}

// nativeOut is one array of a native file about to be written.
type nativeOut struct {
	name, dtype string
	count       int64
	// bytes are the array's bytes when it is held in memory on a
	// little-endian host (the checksum is computed from them); nil when
	// only write can produce them (a constant array, a big-endian host).
	bytes []byte
	write func(io.Writer) error
}

// nativeArraysOf returns the arrays of d's native file, in file order.
func nativeArraysOf(d *Dataset) []nativeOut {
	a := d.Adj
	var arrays []nativeOut
	add := func(name, dtype string, b []byte, count int64, write func(io.Writer) error) {
		if !hostLittleEndian {
			b = nil
		}
		arrays = append(arrays, nativeOut{name, dtype, count, b, write})
	}
	add("indptr", "int64", bytesOf(a.Indptr), int64(len(a.Indptr)), func(w io.Writer) error { return writeLE(w, a.Indptr) })
	add("indices", "int32", bytesOf(a.Indices), int64(len(a.Indices)), func(w io.Writer) error { return writeLE(w, a.Indices) })
	add("data", "float32", bytesOf(a.Data), int64(len(a.Data)), func(w io.Writer) error { return writeLE(w, a.Data) })
	if d.Features != nil {
		add("features", "float32", bytesOf(d.Features), int64(len(d.Features)), func(w io.Writer) error { return writeLE(w, d.Features) })
	}
	for _, x := range []struct {
		name string
		v    []int32
	}{{"labels", d.Labels}, {"train", d.Train}, {"valid", d.Valid}, {"test", d.Test}} {
		if x.v != nil {
			v := x.v
			add(x.name, "int32", bytesOf(v), int64(len(v)), func(w io.Writer) error { return writeLE(w, v) })
		}
	}
	if d.Relabel != nil {
		v := d.Relabel.OrigIDs
		add("orig_ids", "int32", bytesOf(v), int64(len(v)), func(w io.Writer) error { return writeLE(w, v) })
	}
	nativeExtraArrays(d, add)
	return arrays
}

// newNativeHeader returns the header of a native file of a graph of nodes
// vertices and edges stored entries, without its arrays: version 2 when
// the graph was relabelled (the relabel fields and the orig_ids array,
// which a reader of version 1 would not know), else version 1, the same
// bytes as before relabelling existed.
func newNativeHeader(name string, nodes, edges int64, weighted bool, features, classes int, r *Relabelling) nativeHeader {
	h := nativeHeader{
		Format: "bulksample-native", Version: nativeVersion, Name: name,
		Nodes: nodes, Edges: edges, Weighted: weighted,
		NumFeatures: int64(features), NumClasses: int64(classes),
	}
	if r != nil {
		h.Version, h.Relabel, h.RelabelSeed = nativeVersionRelabel, r.Method, r.Seed
	}
	return h
}

// writeNative writes d in the native format.
func writeNative(w io.Writer, d *Dataset) error {
	arrays := nativeArraysOf(d)
	h := newNativeHeader(d.Name, int64(d.Adj.Rows), d.Adj.NNZ(), d.Weighted, d.NumFeatures, d.NumClasses, d.Relabel)
	h.ClassNames = d.ClassNames
	// Checksums are of the little-endian bytes: the held bytes, computed
	// in parallel, or what write produces.
	sums := make([]uint32, len(arrays))
	par.Do(len(arrays), func(i int) { sums[i] = arrays[i].checksum() })
	prefix, err := layoutNative(&h, arrays, sums)
	if err != nil {
		return err
	}
	if _, err := w.Write(prefix); err != nil {
		return err
	}
	return writeNativeArrays(w, h, arrays)
}

// checksum returns the CRC-32C of the array's little-endian bytes.
func (x nativeOut) checksum() uint32 {
	if x.bytes != nil || x.count == 0 {
		return crc32.Checksum(x.bytes, castagnoli)
	}
	c := crc32.New(castagnoli)
	x.write(c) // a hash.Hash never fails a write
	return c.Sum32()
}

// layoutNative sets the offsets of h's arrays (arrays, with checksums
// sums) and returns the file's prefix: magic, version, header checksum,
// header length, the JSON header and the zero padding up to the first
// array's offset.
func layoutNative(h *nativeHeader, arrays []nativeOut, sums []uint32) ([]byte, error) {
	// The header's length depends on the offsets, which depend on its length:
	// lay out with a generous guess and grow until it fits.
	var hdr []byte
	for reserve := int64(4096); ; reserve *= 2 {
		h.Arrays = h.Arrays[:0]
		off := reserve
		for i, x := range arrays {
			h.Arrays = append(h.Arrays, nativeArray{Name: x.name, Dtype: x.dtype, Offset: off, Count: x.count, CRC32C: sums[i]})
			off = alignUp(off+x.count*dtypeSize(x.dtype), nativeAlign)
		}
		var err error
		if hdr, err = json.Marshal(h); err != nil {
			return nil, err
		}
		if nativePrefixLen+int64(len(hdr)) <= reserve {
			break
		}
	}
	prefix := make([]byte, nativePrefixLen, h.Arrays[0].Offset)
	copy(prefix, nativeMagic)
	binary.LittleEndian.PutUint32(prefix[8:], uint32(h.Version))
	binary.LittleEndian.PutUint32(prefix[12:], crc32.Checksum(hdr, castagnoli))
	binary.LittleEndian.PutUint64(prefix[16:], uint64(len(hdr)))
	prefix = append(prefix, hdr...)
	return append(prefix, make([]byte, h.Arrays[0].Offset-int64(len(prefix)))...), nil
}

// writeNativeArrays writes the arrays laid out in h after the prefix,
// with the zero padding between them.
func writeNativeArrays(w io.Writer, h nativeHeader, arrays []nativeOut) error {
	pos := h.Arrays[0].Offset
	for i, x := range arrays {
		if pad := h.Arrays[i].Offset - pos; pad > 0 {
			if _, err := w.Write(make([]byte, pad)); err != nil {
				return err
			}
		}
		if err := x.write(w); err != nil {
			return fmt.Errorf("array %q: %w", x.name, err)
		}
		pos = h.Arrays[i].Offset + x.count*dtypeSize(x.dtype)
	}
	return nil
}

func alignUp(x, a int64) int64 { return (x + a - 1) / a * a }

// loadNative maps the native file at path and decodes it in place.
func loadNative(path string, level VerifyLevel, threads int) (*Dataset, error) {
	buf, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	d, err := decodeNative(path, buf, level, threads, populate)
	if err != nil {
		unmap()
		return nil, err
	}
	d.release = unmap
	return d, nil
}

// nativePrefixFields returns what the prefix of a native file (at least
// nativePrefixLen bytes: magic, version, header CRC-32C, header length)
// records of its JSON header: its CRC-32C and its length in bytes.
func nativePrefixFields(prefix []byte) (headerCRC uint32, headerLen uint64) {
	return binary.LittleEndian.Uint32(prefix[12:]), binary.LittleEndian.Uint64(prefix[16:])
}

// decodeNative decodes a native file held in buf; the Dataset's arrays alias
// buf where it is suitably aligned. The header and the array bounds are
// always checked (O(1) work: nothing is read but the header); level says what
// else is (see VerifyLevel). populate, if non-nil, is called on the bytes
// about to be verified.
func decodeNative(name string, buf []byte, level VerifyLevel, threads int, populate func([]byte)) (*Dataset, error) {
	bad := func(format string, a ...any) (*Dataset, error) {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrFormat, fmt.Sprintf(format, a...))
	}
	if len(buf) < nativePrefixLen {
		return bad("truncated: %d bytes, shorter than the %d-byte native prefix", len(buf), nativePrefixLen)
	}
	if string(buf[:8]) == nativeMagicUnfinished {
		return bad("%s", unfinishedNative)
	}
	if string(buf[:8]) != nativeMagic {
		return bad("not a native bulksample file (bad magic %q)", buf[:8])
	}
	version := binary.LittleEndian.Uint32(buf[8:])
	if version != nativeVersion && version != nativeVersionRelabel {
		return bad("unsupported native format version %d (this build reads versions %d and %d)", version, nativeVersion, nativeVersionRelabel)
	}
	recorded, hlen := nativePrefixFields(buf)
	if hlen > maxNativeHeader || hlen > uint64(len(buf)-nativePrefixLen) {
		return bad("truncated or corrupt: header length %d, file %d bytes", hlen, len(buf))
	}
	hdr := buf[nativePrefixLen : nativePrefixLen+int(hlen)]
	if sum := crc32.Checksum(hdr, castagnoli); sum != recorded {
		return bad("header checksum mismatch (CRC-32C %08x, recorded %08x): the file is corrupt", sum, recorded)
	}
	var h nativeHeader
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return bad("header: %v", err)
	}
	if h.Format != "bulksample-native" || h.Version != int(version) {
		return bad("header: format %q version %d, want bulksample-native version %d", h.Format, h.Version, version)
	}
	if h.Version < nativeVersionRelabel && (h.Relabel != "" || h.RelabelSeed != 0) {
		return bad("header: relabel %q in a version %d file (relabelled graphs are version %d)", h.Relabel, h.Version, nativeVersionRelabel)
	}
	if h.Nodes < 0 || h.Nodes > 1<<31 || h.Edges < 0 || h.NumFeatures < 0 || h.NumClasses < 0 || h.NumClasses > 1<<31 {
		return bad("header: nodes %d, edges %d, num_features %d, num_classes %d out of range", h.Nodes, h.Edges, h.NumFeatures, h.NumClasses)
	}
	// Locate every array, checking its name, dtype, bounds and overlap.
	byName := map[string]nativeArray{}
	end := alignUp(nativePrefixLen+int64(hlen), 8)
	for _, a := range h.Arrays {
		i := slices.IndexFunc(nativeSchema, func(s struct{ name, dtype string }) bool { return s.name == a.Name })
		switch {
		case i < 0:
			return bad("header: unknown array %q", a.Name)
		case nativeSchema[i].dtype != a.Dtype:
			return bad("array %q: dtype %q, want %q", a.Name, a.Dtype, nativeSchema[i].dtype)
		case byName[a.Name] != nativeArray{}:
			return bad("array %q appears twice", a.Name)
		case a.Offset < end || a.Offset%8 != 0 || a.Count < 0:
			return bad("array %q: offset %d count %d overlaps the header or the previous array, or is misaligned", a.Name, a.Offset, a.Count)
		// The offset first: for an empty array past the end the quotient
		// below truncates towards zero and let it through.
		case a.Offset > int64(len(buf)) || a.Count > (int64(len(buf))-a.Offset)/dtypeSize(a.Dtype):
			return bad("array %q: truncated: %d elements at offset %d need %d bytes, the file has %d",
				a.Name, a.Count, a.Offset, a.Offset+a.Count*dtypeSize(a.Dtype), len(buf))
		}
		end = a.Offset + a.Count*dtypeSize(a.Dtype)
		byName[a.Name] = a
	}
	want := map[string]int64{"indptr": h.Nodes + 1, "indices": h.Edges, "data": h.Edges}
	if _, ok := byName["features"]; ok {
		if h.NumFeatures == 0 || h.Nodes*h.NumFeatures/h.NumFeatures != h.Nodes {
			return bad("header: features present but num_features %d", h.NumFeatures)
		}
		want["features"] = h.Nodes * h.NumFeatures
	}
	if _, ok := byName["labels"]; ok {
		want["labels"] = h.Nodes
	}
	// A relabelled graph carries its permutation, and only it does.
	if _, ok := byName["orig_ids"]; ok || h.Relabel != "" {
		if h.Relabel == "" {
			return bad("array %q without the header's relabel", "orig_ids")
		}
		want["orig_ids"] = h.Nodes
	}
	for k, n := range want {
		a, ok := byName[k]
		if !ok {
			return bad("missing array %q", k)
		}
		if a.Count != n {
			return bad("array %q has %d elements, want %d", k, a.Count, n)
		}
	}
	d := &Dataset{Name: h.Name, Weighted: h.Weighted, NumFeatures: int(h.NumFeatures), NumClasses: int(h.NumClasses)}
	d.Adj = &spgemm.CSR{
		Rows: int(h.Nodes), Cols: int(h.Nodes),
		Indptr:  view[int64](buf, byName["indptr"]),
		Indices: view[int32](buf, byName["indices"]),
		Data:    view[float32](buf, byName["data"]),
	}
	if a, ok := byName["features"]; ok {
		d.Features = view[float32](buf, a)
	} else {
		d.NumFeatures = 0
	}
	if msg := decodeNativeExtras(buf, &h, byName, d); msg != "" {
		return bad("%s", msg)
	}
	for _, x := range []struct {
		name string
		dst  *[]int32
	}{{"labels", &d.Labels}, {"train", &d.Train}, {"valid", &d.Valid}, {"test", &d.Test}} {
		if a, ok := byName[x.name]; ok {
			*x.dst = view[int32](buf, a)
		}
	}
	if d.Labels == nil {
		d.NumClasses = 0
	}
	if a, ok := byName["orig_ids"]; ok {
		d.Relabel = &Relabelling{Method: h.Relabel, Seed: h.RelabelSeed, OrigIDs: view[int32](buf, a)}
	}
	if level != VerifyNone {
		if err := verifyNative(name, buf, h.Arrays, d, level, threads, populate); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// view returns array a of buf as a []T, in place when buf is aligned for T
// and the host is little-endian, else as a converted copy.
func view[T int32 | int64 | float32](buf []byte, a nativeArray) []T {
	size := int64(unsafe.Sizeof(*new(T)))
	b := buf[a.Offset : a.Offset+a.Count*size]
	if a.Count == 0 {
		return []T{}
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if hostLittleEndian && uintptr(p)%uintptr(size) == 0 {
		return unsafe.Slice((*T)(p), a.Count)
	}
	v := make([]T, a.Count)
	for i := range v {
		e := b[int64(i)*size:]
		var x any
		switch any(v[0]).(type) {
		case int64:
			x = int64(binary.LittleEndian.Uint64(e))
		case int32:
			x = int32(binary.LittleEndian.Uint32(e))
		case float32:
			x = math.Float32frombits(binary.LittleEndian.Uint32(e))
		}
		v[i] = x.(T)
	}
	return v
}
