package dataset

// The optional arrays of a native file beyond the graph, the dense
// features, the labels and the split in use (doc.go lists them):
//
//	sparse_indptr   int64, nodes+1   SparseFeatures, nodes x num_features
//	sparse_indices  int32            (in place of features)
//	sparse_data     float32
//	source_ids      int64, nodes     SourceIDs
//	splits_offsets  int64, 3k+1      the k stored splits (Splits): split i's
//	splits          int32            train, valid and test ids are
//	                                 splits[o[3i]:o[3i+1]], [o[3i+1]:o[3i+2]],
//	                                 [o[3i+2]:o[3i+3]]
//
// and the header's class_names. A file without them is laid out byte for
// byte as before they existed, so older files load as they did.

import (
	"fmt"
	"io"

	"github.com/bulksample/bulksample/spgemm"
)

// nativeExtraArrays adds d's optional arrays to a native file's list.
func nativeExtraArrays(d *Dataset, add func(name, dtype string, b []byte, count int64, write func(io.Writer) error)) {
	if sf := d.SparseFeatures; sf != nil {
		add("sparse_indptr", "int64", bytesOf(sf.Indptr), int64(len(sf.Indptr)), func(w io.Writer) error { return writeLE(w, sf.Indptr) })
		add("sparse_indices", "int32", bytesOf(sf.Indices), int64(len(sf.Indices)), func(w io.Writer) error { return writeLE(w, sf.Indices) })
		add("sparse_data", "float32", bytesOf(sf.Data), int64(len(sf.Data)), func(w io.Writer) error { return writeLE(w, sf.Data) })
	}
	if v := d.SourceIDs; v != nil {
		add("source_ids", "int64", bytesOf(v), int64(len(v)), func(w io.Writer) error { return writeLE(w, v) })
	}
	if len(d.Splits) > 0 {
		offsets, ids := flattenSplits(d.Splits)
		add("splits_offsets", "int64", bytesOf(offsets), int64(len(offsets)), func(w io.Writer) error { return writeLE(w, offsets) })
		add("splits", "int32", bytesOf(ids), int64(len(ids)), func(w io.Writer) error { return writeLE(w, ids) })
	}
}

// flattenSplits returns the offsets and ids of the splits' layout above.
func flattenSplits(splits []Split) ([]int64, []int32) {
	offsets := []int64{0}
	var ids []int32
	for _, s := range splits {
		for _, part := range [][]int32{s.Train, s.Valid, s.Test} {
			ids = append(ids, part...)
			offsets = append(offsets, int64(len(ids)))
		}
	}
	if ids == nil {
		ids = []int32{}
	}
	return offsets, ids
}

// unflattenSplits returns the splits of the layout above, or an error
// saying why offsets cannot be them.
func unflattenSplits(offsets []int64, ids []int32) ([]Split, error) {
	if len(offsets) < 4 || (len(offsets)-1)%3 != 0 {
		return nil, fmt.Errorf("%d split offsets; want 3 per split plus 1", len(offsets))
	}
	if offsets[0] != 0 || offsets[len(offsets)-1] != int64(len(ids)) {
		return nil, fmt.Errorf("split offsets run from %d to %d; want 0 to the %d ids", offsets[0], offsets[len(offsets)-1], len(ids))
	}
	for i := 1; i < len(offsets); i++ {
		if offsets[i] < offsets[i-1] {
			return nil, fmt.Errorf("split offsets decrease at entry %d", i)
		}
	}
	splits := make([]Split, (len(offsets)-1)/3)
	for i := range splits {
		o := offsets[3*i:]
		splits[i] = Split{Train: ids[o[0]:o[1]:o[1]], Valid: ids[o[1]:o[2]:o[2]], Test: ids[o[2]:o[3]:o[3]]}
	}
	return splits, nil
}

// decodeNativeExtras sets d's optional parts from the arrays of a native
// file held in buf (byName: the header's arrays), checking what indexing
// them needs (their counts, the split offsets); the rest is checked with
// the dataset (validateAttributes). It returns a description of the
// first problem, "" when there is none.
func decodeNativeExtras(buf []byte, h *nativeHeader, byName map[string]nativeArray, d *Dataset) string {
	d.ClassNames = h.ClassNames
	_, hasSparse := byName["sparse_indptr"]
	if _, ok := byName["features"]; ok && hasSparse {
		return "both features and sparse_indptr: a file holds dense or sparse features, not both"
	}
	if hasSparse {
		p, i, v := byName["sparse_indptr"], byName["sparse_indices"], byName["sparse_data"]
		switch {
		case i.Name == "" || v.Name == "":
			return "sparse_indptr without sparse_indices and sparse_data"
		case p.Count != h.Nodes+1:
			return fmt.Sprintf("array \"sparse_indptr\" has %d elements, want %d", p.Count, h.Nodes+1)
		case i.Count != v.Count:
			return fmt.Sprintf("arrays \"sparse_indices\" and \"sparse_data\" have %d and %d elements", i.Count, v.Count)
		case h.NumFeatures == 0 || h.NumFeatures > 1<<31:
			return fmt.Sprintf("header: sparse features but num_features %d", h.NumFeatures)
		}
		sf := &spgemm.CSR{Rows: int(h.Nodes), Cols: int(h.NumFeatures),
			Indptr: view[int64](buf, p), Indices: view[int32](buf, i), Data: view[float32](buf, v)}
		// The offsets are read by whoever slices a row: check them even
		// when the file is trusted.
		if err := sf.ValidateOffsets(); err != nil {
			return fmt.Sprintf("sparse features: %v", err)
		}
		d.SparseFeatures, d.NumFeatures = sf, int(h.NumFeatures)
	} else if _, ok := byName["sparse_indices"]; ok {
		return "sparse_indices without sparse_indptr"
	}
	if a, ok := byName["source_ids"]; ok {
		if a.Count != h.Nodes {
			return fmt.Sprintf("array \"source_ids\" has %d elements, want %d", a.Count, h.Nodes)
		}
		d.SourceIDs = view[int64](buf, a)
	}
	o, hasOffsets := byName["splits_offsets"]
	ids, hasIDs := byName["splits"]
	if hasOffsets != hasIDs {
		return "arrays \"splits_offsets\" and \"splits\" come together"
	}
	if hasOffsets {
		splits, err := unflattenSplits(view[int64](buf, o), view[int32](buf, ids))
		if err != nil {
			return err.Error()
		}
		d.Splits = splits
	}
	return ""
}
