package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

func TestSplitFileRoundTrip(t *testing.T) {
	d := &Dataset{Adj: &spgemm.CSR{Rows: 10, Cols: 10, Indptr: make([]int64, 11)},
		Train: []int32{0, 3, 9}, Valid: []int32{1}, Test: []int32{2, 4, 5}}
	path := filepath.Join(t.TempDir(), "split.json")
	if err := WriteSplitFile(path, d); err != nil {
		t.Fatal(err)
	}
	got := &Dataset{Adj: d.Adj}
	if err := ReadSplitFile(path, got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Train, d.Train) || !slices.Equal(got.Valid, d.Valid) || !slices.Equal(got.Test, d.Test) {
		t.Errorf("read back %v/%v/%v; want %v/%v/%v", got.Train, got.Valid, got.Test, d.Train, d.Valid, d.Test)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}

func TestReadSplit(t *testing.T) {
	tests := []struct {
		in   string
		want [3][]int32 // train, valid, test; nil: an error containing err
		err  string
	}{
		{in: `{"train":[4,0],"valid":[],"test":[3,1]}`, want: [3][]int32{{0, 4}, {}, {1, 3}}},
		{in: ` {"test":[2],"valid":[1],"train":[0]} ` + "\n", want: [3][]int32{{0}, {1}, {2}}},
		{in: `{"train":[0],"valid":[1]}`, err: `no "test" array`},
		{in: `{"train":[0],"valid":[1],"test":[2],"extra":[]}`, err: `unknown field "extra"`},
		{in: `{"train":[5],"valid":[1],"test":[2]}`, err: "train[0] = 5 is not a vertex of the graph (5 vertices)"},
		{in: `{"train":[0],"valid":[-1],"test":[2]}`, err: "valid[0] = -1 is not a vertex"},
		{in: `{"train":[0],"valid":[1],"test":[2,2]}`, err: "test[1] = 2 appears twice in test"},
		{in: `{"train":[0,1],"valid":[1],"test":[2]}`, err: "valid[0] = 1 is also in train"},
		{in: `{"train":[0.5],"valid":[1],"test":[2]}`, err: "not a split file"},
		{in: `{"train":[0],"valid":[1],"test":[2]} {}`, err: "data after"},
		{in: `[0, 1, 2]`, err: "not a split file"},
		{in: ``, err: "not a split file"},
	}
	for _, tt := range tests {
		train, valid, test, err := ReadSplit(strings.NewReader(tt.in), 5)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrFormat) {
				t.Errorf("%s: error %v; want ErrFormat containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		for i, got := range [][]int32{train, valid, test} {
			if !slices.Equal(got, tt.want[i]) || got == nil {
				t.Errorf("%s: set %d = %v; want %v", tt.in, i, got, tt.want[i])
			}
		}
	}
}

// TestReadSplitFileKeeps: a bad split file names the file and leaves the
// dataset's split as it was.
func TestReadSplitFileKeeps(t *testing.T) {
	d := &Dataset{Adj: &spgemm.CSR{Rows: 3, Cols: 3, Indptr: make([]int64, 4)}, Train: []int32{0}, Valid: []int32{1}, Test: []int32{2}}
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(`{"train":[0],"valid":[1],"test":[7]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := ReadSplitFile(path, d)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "test[0] = 7") {
		t.Errorf("error %v; want one naming %s and test[0] = 7", err, path)
	}
	if !slices.Equal(d.Test, []int32{2}) {
		t.Errorf("the failed read changed the split: test %v", d.Test)
	}
	if err := ReadSplitFile(filepath.Join(t.TempDir(), "missing.json"), d); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: error %v; want one naming it", err)
	}
}

// FuzzReadSplit: whatever ReadSplit accepts is three sorted, disjoint sets
// of vertices of the graph, and writing them back reads back the same.
func FuzzReadSplit(f *testing.F) {
	f.Add([]byte(`{"train":[4,0],"valid":[],"test":[3,1]}`))
	f.Add([]byte(`{"train":[0],"valid":[1],"test":[2,2]}`))
	f.Add([]byte(`{"train":[1e2],"valid":[1],"test":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		const n = 8
		train, valid, test, err := ReadSplit(bytes.NewReader(b), n)
		if err != nil {
			return
		}
		d := &Dataset{Adj: &spgemm.CSR{Rows: n, Cols: n, Indptr: make([]int64, n+1)}, Train: train, Valid: valid, Test: test}
		if err := d.Validate(); err != nil {
			t.Fatalf("accepted an invalid split: %v", err)
		}
		seen := map[int32]bool{}
		for _, s := range [][]int32{train, valid, test} {
			for _, v := range s {
				if seen[v] {
					t.Fatalf("vertex %d in two sets", v)
				}
				seen[v] = true
			}
		}
		var buf bytes.Buffer
		if err := WriteSplit(&buf, d); err != nil {
			t.Fatal(err)
		}
		t2, v2, e2, err := ReadSplit(&buf, n)
		if err != nil || !slices.Equal(t2, train) || !slices.Equal(v2, valid) || !slices.Equal(e2, test) {
			t.Fatalf("round trip: %v/%v/%v, %v; want %v/%v/%v", t2, v2, e2, err, train, valid, test)
		}
	})
}
