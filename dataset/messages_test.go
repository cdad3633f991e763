package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
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
}
