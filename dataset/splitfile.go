package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/bulksample/bulksample/internal/atomicfile"
)

// A split file holds a train/valid/test split as one JSON object with three
// arrays of vertex ids, the 0-based rows of the dataset's adjacency (the
// node order of the file the dataset was read from):
//
//	{"train": [0, 7, 12], "valid": [3, 4], "test": [1, 2, 5]}
//
// WriteSplit writes the split a run used, so that another program (a
// PyTorch peer, a second run) trains on exactly the same vertices;
// ReadSplit reads a supplied split, such as Planetoid's public one mapped to
// the file's node order. The arrays may be in any order; an id outside the
// graph, an id listed twice in a set, an id in two sets, a missing array and
// any other key are errors.

// splitJSON is the layout of a split file.
type splitJSON struct {
	Train []int64 `json:"train"`
	Valid []int64 `json:"valid"`
	Test  []int64 `json:"test"`
}

// WriteSplit writes d's split to w as a split file.
func WriteSplit(w io.Writer, d *Dataset) error {
	s := splitJSON{Train: widen(d.Train), Valid: widen(d.Valid), Test: widen(d.Test)}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func widen(ids []int32) []int64 {
	out := make([]int64, len(ids))
	for i, v := range ids {
		out[i] = int64(v)
	}
	return out
}

// WriteSplitFile writes d's split to the file path: to a temporary file in
// the same directory, renamed over path once complete, so that a failed
// write leaves whatever path held before.
func WriteSplitFile(path string, d *Dataset) error {
	var buf bytes.Buffer
	if err := WriteSplit(&buf, d); err != nil {
		return fmt.Errorf("split file %s: %w", path, err)
	}
	err := atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("split file: %w", err)
	}
	return nil
}

// ReadSplit reads a split file of a graph of n vertices and returns its
// three sets, each sorted ascending. The error names the set and the entry
// at fault.
func ReadSplit(r io.Reader, n int) (train, valid, test []int32, err error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	// Pointers tell a missing array (nil) from an empty one.
	var raw struct {
		Train *[]int64 `json:"train"`
		Valid *[]int64 `json:"valid"`
		Test  *[]int64 `json:"test"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: not a split file (want a JSON object {\"train\": [ids], \"valid\": [ids], \"test\": [ids]}): %v", ErrFormat, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, nil, fmt.Errorf("%w: data after the split's JSON object", ErrFormat)
	}
	owner := map[int32]string{}
	sets := []struct {
		name string
		ids  *[]int64
		out  *[]int32
	}{{"train", raw.Train, &train}, {"valid", raw.Valid, &valid}, {"test", raw.Test, &test}}
	for _, s := range sets {
		if s.ids == nil {
			return nil, nil, nil, fmt.Errorf("%w: no %q array", ErrFormat, s.name)
		}
		out := make([]int32, len(*s.ids))
		for i, v := range *s.ids {
			if v < 0 || v >= int64(n) {
				return nil, nil, nil, fmt.Errorf("%w: %s[%d] = %d is not a vertex of the graph (%d vertices)", ErrFormat, s.name, i, v, n)
			}
			if prev, ok := owner[int32(v)]; ok {
				if prev == s.name {
					return nil, nil, nil, fmt.Errorf("%w: %s[%d] = %d appears twice in %s", ErrFormat, s.name, i, v, s.name)
				}
				return nil, nil, nil, fmt.Errorf("%w: %s[%d] = %d is also in %s", ErrFormat, s.name, i, v, prev)
			}
			owner[int32(v)] = s.name
			out[i] = int32(v)
		}
		slices.Sort(out)
		*s.out = out
	}
	return train, valid, test, nil
}

// ReadSplitFile sets d's split from the split file path, replacing the
// split d had. On an error, which names the file, d is left unchanged.
func ReadSplitFile(path string, d *Dataset) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("split file: %w", err)
	}
	defer f.Close()
	train, valid, test, err := ReadSplit(f, d.NumNodes())
	if err != nil {
		return fmt.Errorf("split file %s: %w", path, err)
	}
	d.Train, d.Valid, d.Test = train, valid, test
	return nil
}
