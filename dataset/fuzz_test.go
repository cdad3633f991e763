package dataset

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets feed arbitrary bytes to every parser: none may panic,
// hang or allocate beyond the input's size, and whatever a parser accepts
// must be a valid Dataset. Their seed corpora live in testdata/fuzz/<Name>/
// (TestFuzzSeedCorpus writes them with -write-fuzz-seeds).

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite the seed corpora under testdata/fuzz")

func checkAccepted(t *testing.T, d *Dataset, err error) {
	t.Helper()
	if err != nil {
		checkRefused(t, err)
		return
	}
	if verr := d.Validate(); verr != nil {
		t.Fatalf("accepted an invalid dataset: %v", verr)
	}
}

// checkRefused checks the error of a refused input: it says the package's
// prefix once ("dataset: bad input: dataset: ..." repeated it) and quotes
// no long run of the input.
func checkRefused(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	for _, line := range strings.Split(msg, "\n") { // errors.Join's errors, one a line
		if strings.Count(line, "dataset: bad input") > 1 || strings.Contains(line, "bad input: dataset:") {
			t.Fatalf("the error repeats the package's prefix: %s", line)
		}
	}
	if len(msg) > 4096 {
		t.Fatalf("an error of %d bytes: %.300s...", len(msg), msg)
	}
}

func FuzzReadNPY(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadNPY"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		h, err := readNPYHeader(r, int64(len(b)))
		if err != nil {
			return
		}
		if h.dtype.isNumeric() {
			v := make([]float32, h.count())
			_ = readNPYData(r, &h, v, toFloat32)
		} else {
			_, _ = readNPYString(r, &h)
		}
	})
}

func FuzzReadNPZ(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadNPZ"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readNPZBytes("f.npz", b)
		checkAccepted(t, d, err)
	})
}

func FuzzReadNative(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadNative"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, level := range []VerifyLevel{VerifyStructure, VerifyChecksums} {
			d, err := decodeNative("f.bsn", b, level, 2, nil)
			checkAccepted(t, d, err)
		}
		_, _ = decodeNative("f.bsn", b, VerifyNone, 1, nil)
	})
}

func FuzzReadEdgeList(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadEdgeList"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readEdgeList(context.Background(), "f.txt", bytes.NewReader(b), SymmetryDefault, 1, 3)
		checkAccepted(t, d, err)
	})
}

func FuzzReadMatrixMarket(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadMatrixMarket"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readMatrixMarket(context.Background(), "f.mtx", bytes.NewReader(b), int64(len(b)), 1, 3)
		checkAccepted(t, d, err)
	})
}

// FuzzReadOGBCSV feeds an OGB CSV folder to the streaming loader. The input
// holds the texts of num-node-list, num-edge-list, edge.csv, node-label.csv
// and node-feat.csv, separated by lines "===" (missing sections are empty);
// they are gzipped into a temporary folder and loaded with chunks of 3
// edges, so that every input crosses chunk boundaries.
func FuzzReadOGBCSV(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadOGBCSV"] {
		f.Add(s)
	}
	dir := f.TempDir() // one folder per process, rewritten by every input
	raw := filepath.Join(dir, "raw")
	f.Fuzz(func(t *testing.T, b []byte) {
		parts := bytes.SplitN(b, []byte("\n===\n"), 5)
		for len(parts) < 5 {
			parts = append(parts, nil)
		}
		for i, name := range []string{"num-node-list.csv.gz", "num-edge-list.csv.gz", "edge.csv.gz", "node-label.csv.gz", "node-feat.csv.gz"} {
			if i < 3 || len(parts[i]) > 0 {
				gzWrite(t, filepath.Join(raw, name), string(parts[i]))
			} else {
				os.Remove(filepath.Join(raw, name))
			}
		}
		for _, sym := range []Symmetry{SymmetryDefault, AsStored} {
			d, _, err := loadOGB(context.Background(), dir, &LoadOptions{Symmetry: sym, Threads: 2}, 3)
			checkAccepted(t, d, err)
		}
	})
}

// FuzzReadOGBBinary feeds arbitrary bytes as raw/data.npz of an OGB binary
// folder to the streaming edge_index reader, with chunks of 3 edges.
func FuzzReadOGBBinary(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadOGBBinary"] {
		f.Add(s)
	}
	dir := f.TempDir() // one folder per process, rewritten by every input
	f.Fuzz(func(t *testing.T, b []byte) {
		writeFile(t, filepath.Join(dir, "raw", "data.npz"), b)
		d, _, err := loadOGB(context.Background(), dir, &LoadOptions{Threads: 2}, 3)
		checkAccepted(t, d, err)
	})
}

// fuzzSeeds returns the seed inputs of every fuzz target, built from the
// same hand-made files the unit tests use.
func fuzzSeeds(t testing.TB) map[string][][]byte {
	var native bytes.Buffer
	if err := writeNative(&native, smallDataset()); err != nil {
		t.Fatal(err)
	}
	var npz bytes.Buffer
	if err := writeNPZ(&npz, smallDataset()); err != nil {
		t.Fatal(err)
	}
	// A relabelled dataset: the header's relabel fields and orig_ids.
	relabelled, err := Relabel(smallDataset(), RelabelOptions{Method: RelabelRandom, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var nativeRelabelled, npzRelabelled bytes.Buffer
	if err := writeNative(&nativeRelabelled, relabelled); err != nil {
		t.Fatal(err)
	}
	if err := writeNPZ(&npzRelabelled, relabelled); err != nil {
		t.Fatal(err)
	}
	// Sparse features, stored splits, source ids and class names
	// (native_extras.go, npz_extras.go).
	var nativeExtras, npzExtras bytes.Buffer
	if err := writeNative(&nativeExtras, extrasDataset()); err != nil {
		t.Fatal(err)
	}
	if err := writeNPZ(&npzExtras, extrasDataset()); err != nil {
		t.Fatal(err)
	}
	i4 := func(v ...int32) npzMember {
		return npzMember{descr: "<i4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	f4 := func(v ...float32) npzMember {
		return npzMember{descr: "<f4", shape: []int64{int64(len(v))}, data: le(v...)}
	}
	deflated := scipyMembers(i4(0, 1, 1, 3), i4(1, 0, 2), f4(2, 1, 3))
	for i := range deflated {
		deflated[i].deflate = true
	}
	gnn := buildNPZ(t, []npzMember{
		{name: "adj_indptr", descr: "<i4", shape: []int64{3}, data: le[int32](0, 1, 2)},
		{name: "adj_indices", descr: "<i4", shape: []int64{2}, data: le[int32](1, 0)},
		{name: "adj_data", descr: "<f4", shape: []int64{2}, data: le[float32](1, 1)},
		{name: "adj_shape", descr: "<i8", shape: []int64{2}, data: le[int64](2, 2)},
		{name: "attr_indptr", descr: "<i4", shape: []int64{3}, data: le[int32](0, 1, 1)},
		{name: "attr_indices", descr: "<i4", shape: []int64{1}, data: le[int32](2)},
		{name: "attr_data", descr: "<f4", shape: []int64{1}, data: le[float32](1)},
		{name: "attr_shape", descr: "<i8", shape: []int64{2}, data: le[int64](2, 3)},
		{name: "labels", descr: "|i1", shape: []int64{2}, data: le[int8](0, 1)},
		{name: "class_names", descr: "<U2", shape: []int64{2}, data: make([]byte, 16)},
	})
	// Issue 39's bomb, small: indices and data agreeing with each other,
	// not with indptr's last entry.
	agreeing := buildNPZ(t, scipyMembers(i4(0, 1, 2, 4), i4(make([]int32, 64)...), f4(make([]float32, 64)...)))
	// A native file its writers did not finish (gen rmat's ranks killed).
	unfinished := slices.Clone(native.Bytes())
	copy(unfinished, nativeMagicUnfinished)
	npy := func(descr string, shape []int64, data []byte) []byte {
		return append(npyHeaderBytes(descr, shape), data...)
	}
	seeds := map[string][][]byte{
		"FuzzReadNPY": {
			npy("<f4", []int64{3}, le[float32](1, 2, 3)),
			npy(">i8", []int64{2, 1}, be[int64](5, 6)),
			npy("<f2", []int64{2}, le[uint16](0x3c00, 0x7e00)),
			npy("|b1", []int64{2}, []byte{0, 1}),
			npy("<U3", nil, unicode0d("csr")),
		},
		"FuzzReadNPZ":    {npz.Bytes(), buildNPZ(t, deflated), gnn, npzRelabelled.Bytes(), agreeing},
		"FuzzReadNative": {native.Bytes(), nativeRelabelled.Bytes(), unfinished},
		"FuzzReadEdgeList": {
			[]byte("# c\n0 1\n1 2\n2 0\n"),
			[]byte("0,1,0.5\n1,0,2\n"),
			[]byte("%x\n3\t4\n"),
		},
		"FuzzReadOGBCSV": {
			[]byte("4\n===\n5\n===\n0,1\n1,2\n3,2\n2,2\n0,1\n===\n0\n1\nnan\n1\n"),
			[]byte("3\n===\n2\n===\n# c\n0 1\n\n2,0\n"),
			[]byte("1\n===\n0\n===\n"),
			[]byte("3\n===\n2\n===\n0,1\n1,2\n===\n0\n1\n2\n===\n0.5,1\n-2,3e-1\n0,0\n"),
		},
		"FuzzReadOGBBinary": {
			buildNPZ(t, []npzMember{
				{name: "edge_index", descr: "<i8", shape: []int64{2, 4}, data: le[int64](0, 1, 3, 2, 1, 2, 2, 2)},
				{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](4)},
			}),
			buildNPZ(t, []npzMember{
				{name: "edge_index", descr: "<i4", shape: []int64{2, 2}, data: le[int32](0, 1, 1, 0), deflate: true},
				{name: "num_nodes_list", descr: "<i8", shape: []int64{1}, data: le[int64](2)},
				{name: "node_feat", descr: "<f2", shape: []int64{2, 1}, data: le[uint16](0x3c00, 0x4000)},
			}),
		},
		"FuzzReadMatrixMarket": {
			[]byte("%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 2 0.5\n3 1 2\n3 3 1\n"),
			[]byte("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n"),
			[]byte("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 7\n"),
		},
	}
	maps.Copy(seeds, contentSeeds(t, seeds))
	// After the content seeds, whose first ones rebuild FuzzReadNPZ's.
	seeds["FuzzReadNative"] = append(seeds["FuzzReadNative"], nativeExtras.Bytes())
	seeds["FuzzNPZContents"] = append(seeds["FuzzNPZContents"], npzRecipe(t, npzExtras.Bytes()))
	seeds["FuzzNativeContents"] = append(seeds["FuzzNativeContents"], nativeRecipe(t, extrasDataset()))
	maps.Copy(seeds, formatSeeds(t)) // fuzz_formats_test.go
	return seeds
}

// TestFuzzSeedCorpus checks that the committed seed corpora hold the seeds
// of fuzzSeeds (so `go test` runs every parser on them), and rewrites them
// when run with -write-fuzz-seeds.
func TestFuzzSeedCorpus(t *testing.T) {
	for name, seeds := range fuzzSeeds(t) {
		dir := filepath.Join("testdata", "fuzz", name)
		for i, s := range seeds {
			p := filepath.Join(dir, fmt.Sprintf("seed%d", i))
			want := []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n")
			if *writeFuzzSeeds {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("%v (run go test ./dataset -run TestFuzzSeedCorpus -write-fuzz-seeds)", err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale (run go test ./dataset -run TestFuzzSeedCorpus -write-fuzz-seeds)", p)
			}
		}
	}
}
