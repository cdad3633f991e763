package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestBadInputPrefixOnce: a native file whose labels are out of range says
// "dataset: bad input" once ("dataset: bad input: dataset: node 1: ..."
// repeated the package's prefix).
func TestBadInputPrefixOnce(t *testing.T) {
	a := &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 3}, Indices: []int32{1, 2, 0}, Data: []float32{1, 1, 1}}
	path := filepath.Join(t.TempDir(), "bad.bsn")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// writeNative does not validate, as Save does: a file from elsewhere.
	if err := writeNative(f, &Dataset{Adj: a, Labels: []int32{0, 7, 0}, NumClasses: 2}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "dataset: bad input: node 1: label 7 outside [-1, 2)") || strings.Count(err.Error(), "dataset:") != 1 {
		t.Errorf("err %v; want \"dataset: bad input: node 1: label 7 ...\" with the prefix once", err)
	}
	if err := (&Dataset{Adj: a, Labels: []int32{0, 7, 0}, NumClasses: 2}).Validate(); err == nil || err.Error() != "dataset: node 1: label 7 outside [-1, 2)" {
		t.Errorf("Validate: %v", err)
	}
}

// TestOGBMissingFile: an OGB folder without one of its files is an error
// naming the file and what such a folder holds (it was the bare "open
// .../num-node-list.csv.gz: no such file or directory").
func TestOGBMissingFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "raw"), 0o755); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("0,1\n1,2\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "raw", "edge.csv.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, nil)
	missing := filepath.Join(dir, "raw", "num-node-list.csv.gz")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing+" is missing: an OGB node-property folder") {
		t.Errorf("err %v; want %s named as missing, with what the folder holds", err, missing)
	}
	// A split folder without one of its three files (it was a format
	// error, "missing (the split folder has no train.csv.gz)").
	for _, f := range []struct{ name, body string }{{"num-node-list.csv.gz", "3\n"}, {"num-edge-list.csv.gz", "2\n"}} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(f.body))
		zw.Close()
		os.WriteFile(filepath.Join(dir, "raw", f.name), b.Bytes(), 0o644)
	}
	split := filepath.Join(dir, "split", "time")
	os.MkdirAll(split, 0o755)
	os.WriteFile(filepath.Join(split, "valid.csv.gz"), gz.Bytes(), 0o644)
	_, err = Load(dir, nil)
	missing = filepath.Join(split, "train.csv.gz")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing+" is missing: an OGB split folder ("+split+") holds train.csv.gz") {
		t.Errorf("split: err %v; want %s named as missing", err, missing)
	}
}

// TestPlanetoidMissingFile: a Planetoid folder without one of its eight
// files is an error naming the file and what such a dataset holds (it was
// the bare "open .../ind.cora.tx: no such file or directory").
func TestPlanetoidMissingFile(t *testing.T) {
	for _, ext := range []string{"tx", "graph", "test.index"} {
		raw := newTinyPlanetoid().write(t, filepath.Join(t.TempDir(), "raw"))
		missing := filepath.Join(raw, "ind.tiny."+ext)
		if err := os.Remove(missing); err != nil {
			t.Fatal(err)
		}
		_, err := Load(raw, nil)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing+" is missing: a Planetoid dataset holds the eight files") {
			t.Errorf("without %s: %v; want it named as missing, with what the folder holds", ext, err)
		}
	}
}

// TestBadOrigIDsPrefixOnce: a native or .npz file whose orig_ids is no
// permutation says "dataset: bad input" once (it said "dataset: bad
// input: dataset: orig_ids[1] = 0 appears twice").
func TestBadOrigIDsPrefixOnce(t *testing.T) {
	a := &spgemm.CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 2, 3}, Indices: []int32{1, 2, 0}, Data: []float32{1, 1, 1}}
	d := &Dataset{Adj: a, Relabel: &Relabelling{Method: RelabelRandom, Seed: 1, OrigIDs: []int32{0, 0, 2}}}
	for _, tc := range []struct {
		name  string
		write func(io.Writer, *Dataset) error
	}{{"bad.bsn", writeNative}, {"bad.npz", writeNPZ}} {
		var b bytes.Buffer
		if err := tc.write(&b, d); err != nil { // the writers do not validate, as Save does
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), tc.name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, nil)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "orig_ids[1] = 0 appears twice") || strings.Count(err.Error(), "dataset:") != 1 {
			t.Errorf("%s: %v; want the orig_ids named and \"dataset:\" once", tc.name, err)
		}
	}
	if err := d.Validate(); err == nil || strings.Count(err.Error(), "dataset:") != 1 {
		t.Errorf("Validate: %v; want \"dataset:\" once", err)
	}
}
