package dataset

// The optional arrays that Save writes into a scipy-layout .npz beside
// features, labels and the split in use, and that the reader takes back
// (scipy.sparse.load_npz ignores them):
//
//	features_indptr, features_indices, features_data, features_shape,
//	features_format          SparseFeatures as a scipy CSR under the prefix
//	                         "features_" (scipy.sparse.csr_matrix((data,
//	                         indices, indptr), shape) rebuilds it)
//	source_ids               SourceIDs, int64
//	splits_offsets, splits   the stored splits, as in the native format
//	                         (native_extras.go)

import (
	"fmt"
	"io"
)

const (
	npzSparseFeatures = "features_" // prefix of the CSR members
	npzSourceIDs      = "source_ids"
	npzSplitsOffsets  = "splits_offsets"
	npzSplits         = "splits"
)

// npzMemberOut is one member Save writes.
type npzMemberOut = struct {
	name  string
	write func(io.Writer) error
}

// npzExtraMembers returns the members of d's optional parts.
func npzExtraMembers(d *Dataset) []npzMemberOut {
	var out []npzMemberOut
	if sf := d.SparseFeatures; sf != nil {
		out = append(out,
			npzMemberOut{npzSparseFeatures + "indptr", func(w io.Writer) error { return writeNPY(w, []int64{int64(len(sf.Indptr))}, sf.Indptr) }},
			npzMemberOut{npzSparseFeatures + "indices", func(w io.Writer) error { return writeNPY(w, []int64{int64(len(sf.Indices))}, sf.Indices) }},
			npzMemberOut{npzSparseFeatures + "data", func(w io.Writer) error { return writeNPY(w, []int64{int64(len(sf.Data))}, sf.Data) }},
			npzMemberOut{npzSparseFeatures + "shape", func(w io.Writer) error {
				return writeNPY(w, []int64{2}, []int64{int64(sf.Rows), int64(sf.Cols)})
			}},
			npzMemberOut{npzSparseFeatures + "format", func(w io.Writer) error { return writeNPYString(w, "csr") }},
		)
	}
	if v := d.SourceIDs; v != nil {
		out = append(out, npzMemberOut{npzSourceIDs, func(w io.Writer) error { return writeNPY(w, []int64{int64(len(v))}, v) }})
	}
	if len(d.Splits) > 0 {
		offsets, ids := flattenSplits(d.Splits)
		out = append(out,
			npzMemberOut{npzSplitsOffsets, func(w io.Writer) error { return writeNPY(w, []int64{int64(len(offsets))}, offsets) }},
			npzMemberOut{npzSplits, func(w io.Writer) error { return writeNPY(w, []int64{int64(len(ids))}, ids) }},
		)
	}
	return out
}

// readNPZExtras reads the optional members above into d, whose Adj gives
// the node count.
func (z *npzArchive) readNPZExtras(d *Dataset) error {
	n := d.NumNodes()
	if z.has(npzSparseFeatures + "indptr") {
		if z.has(npzFeatures) {
			return fmt.Errorf("%s: %w: both %q and %q: a file holds dense or sparse features, not both", z.name, ErrFormat, npzFeatures, npzSparseFeatures+"indptr")
		}
		rows, _, err := z.shape2(npzSparseFeatures + "shape")
		if err != nil {
			return err
		}
		if rows != n {
			return z.errf(npzSparseFeatures+"shape", fmt.Errorf("%w: %d rows for %d nodes: refused before reading its arrays", ErrFormat, rows, n))
		}
		sf, err := z.readCSR(npzSparseFeatures, 0)
		if err != nil {
			return err
		}
		d.SparseFeatures, d.NumFeatures = sf, sf.Cols
	}
	if z.has(npzSourceIDs) {
		if err := z.atMost(npzSourceIDs, n); err != nil {
			return err
		}
		v, err := z.int64s(npzSourceIDs)
		if err != nil {
			return err
		}
		if len(v) != n {
			return z.errf(npzSourceIDs, fmt.Errorf("%w: %d ids for %d nodes", ErrFormat, len(v), n))
		}
		d.SourceIDs = v
	}
	return z.readStoredSplits(d)
}

// readStoredSplits reads splits_offsets and splits, when present, into
// d.Splits, checking them against d's node count.
func (z *npzArchive) readStoredSplits(d *Dataset) error {
	if !z.has(npzSplitsOffsets) && !z.has(npzSplits) {
		return nil
	}
	if !z.has(npzSplitsOffsets) || !z.has(npzSplits) {
		return fmt.Errorf("%s: %w: arrays %q and %q come together", z.name, ErrFormat, npzSplitsOffsets, npzSplits)
	}
	// Every split holds each node at most three times.
	oh, _, err := z.header(npzSplitsOffsets)
	if err != nil {
		return err
	}
	if err := z.atMost(npzSplits, int(min(int64(3*d.NumNodes())*max(oh.count()/3, 1), 1<<31))); err != nil {
		return err
	}
	offsets, err := z.int64s(npzSplitsOffsets)
	if err != nil {
		return err
	}
	ids, err := z.int32s(npzSplits)
	if err != nil {
		return err
	}
	splits, err := unflattenSplits(offsets, ids)
	if err != nil {
		return z.errf(npzSplitsOffsets, fmt.Errorf("%w: %w", ErrFormat, err))
	}
	for i, s := range splits {
		if err := checkSplit(fmt.Sprintf("stored split %d: ", i), s, d.NumNodes()); err != nil {
			return z.errf(npzSplits, fmt.Errorf("%w: %w", ErrFormat, err))
		}
	}
	d.Splits = splits
	return nil
}
