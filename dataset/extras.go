package dataset

// The parts of a Dataset that only some sources have: sparse features,
// several stored splits, the source's vertex ids and class names, and the
// report of what a reader did to the source's data.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bulksample/bulksample/spgemm"
)

// Split is one train/valid/test split: vertex ids, each sorted ascending.
type Split struct {
	Train, Valid, Test []int32
}

// ReadReport says what a reader did to a source's data on the way to a
// Dataset (Dataset.Report), so that `info` and users can tell what they
// train on from what the file holds.
type ReadReport struct {
	// Edges is the number of edges the source stores: edge lines, pairs of
	// an edge array, entries of a METIS file's adjacency lists.
	Edges int64 `json:"edges"`
	// SelfLoops counts the self loops among them; SelfLoopsDropped says
	// whether Adj leaves them out.
	SelfLoops        int64 `json:"self_loops"`
	SelfLoopsDropped bool  `json:"self_loops_dropped"`
	// Reversed says whether the reverse of every edge was added, and
	// ReversedWhy why: the option, or the format's convention.
	Reversed    bool   `json:"reversed"`
	ReversedWhy string `json:"reversed_why,omitempty"`
	// Merged counts the entries merged into another of the same (row,
	// column): duplicate edges of the source, and edges stored in both
	// directions whose reverse met them. Unweighted entries are dropped,
	// weighted ones summed.
	Merged int64 `json:"merged"`
	// IDs says how the source's vertex ids became 0..n-1: "" when they are
	// 0..n-1 as stored; otherwise a phrase such as "1-based: the file's ids
	// 1..n are vertices 0..n-1" (Dataset.SourceIDs keeps the mapping).
	IDs string `json:"ids,omitempty"`
	// Notes are further facts a user should know (columns not read,
	// vertex weights not kept, a header whose counts disagree).
	Notes []string `json:"notes,omitempty"`
}

// merged sets r.Merged from the entries handed to a CSR builder (emitted,
// before its reverse entries and self-loop removal) and the result's
// stored entries.
func (r *ReadReport) merged(emitted int64, adj *spgemm.CSR) {
	entries := emitted
	if r.SelfLoopsDropped {
		entries -= r.SelfLoops
	}
	if r.Reversed {
		entries += emitted - r.SelfLoops
	}
	r.Merged = entries - adj.NNZ()
}

// symmetrized returns r (a new report when r is nil) updated for the
// symmetrisation of old into adj (reverse entries added, self loops
// dropped), asked for or the format's default.
func (r *ReadReport) symmetrized(old, adj *spgemm.CSR, asked bool) *ReadReport {
	var loops int64
	for i := range old.Rows {
		cols, _ := old.Row(i)
		if _, ok := slices.BinarySearch(cols, int32(i)); ok {
			loops++
		}
	}
	if r == nil {
		r = &ReadReport{Edges: old.NNZ(), SelfLoops: loops}
	}
	r.Reversed, r.SelfLoopsDropped, r.ReversedWhy = true, true, "the format's default"
	if asked {
		r.ReversedWhy = "symmetrize was asked for"
	}
	r.Merged += 2*(old.NNZ()-loops) - adj.NNZ()
	return r
}

// String is the report as one paragraph.
func (r *ReadReport) String() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d edges read", r.Edges)
	if r.SelfLoops > 0 {
		fmt.Fprintf(&b, ", %d self loops", r.SelfLoops)
		if r.SelfLoopsDropped {
			b.WriteString(" (dropped)")
		}
	}
	if r.Reversed {
		fmt.Fprintf(&b, "; reverse edges added (%s)", r.ReversedWhy)
	}
	fmt.Fprintf(&b, "; %d duplicate entries merged", r.Merged)
	if r.IDs != "" {
		fmt.Fprintf(&b, "; ids %s", r.IDs)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "; %s", n)
	}
	return b.String()
}

// DenseFeatures returns the n x NumFeatures row-major feature matrix:
// Features itself when the features are dense (not a copy), else
// SparseFeatures made dense, in a new array of n·NumFeatures float32s
// (Facebook page-page's 22,470 x 4,714 binary features take 2 MB as CSR,
// 424 MB dense). It returns nil when the dataset has no features.
func (d *Dataset) DenseFeatures() []float32 {
	sf := d.SparseFeatures
	if d.Features != nil || sf == nil {
		return d.Features
	}
	return denseRows(sf, 0, sf.Rows)
}

// HasFeatures reports whether d has node features, dense or sparse.
func (d *Dataset) HasFeatures() bool {
	return d.NumFeatures > 0 && (d.Features != nil || d.SparseFeatures != nil)
}

// UseSplit makes stored split i the one in use: Train, Valid and Test
// become Splits[i]'s. A dataset that stores one split or none (Splits nil)
// has only index 0, which leaves it as it is; any other index is an error
// that says how many splits there are.
func (d *Dataset) UseSplit(i int) error {
	if len(d.Splits) == 0 {
		if i == 0 {
			return nil
		}
		what := "one split"
		if d.Train == nil && d.Valid == nil && d.Test == nil {
			what = "no split"
		}
		return fmt.Errorf("split index %d: the dataset stores %s (index 0 only)", i, what)
	}
	if i < 0 || i >= len(d.Splits) {
		return fmt.Errorf("split index %d outside [0, %d): the dataset stores %d splits", i, len(d.Splits), len(d.Splits))
	}
	s := d.Splits[i]
	d.Train, d.Valid, d.Test = s.Train, s.Valid, s.Test
	return nil
}

// checkSplit returns an error naming the first id of s outside [0, n) or
// out of order; prefix, if not "", starts the message ("split 3: ").
func checkSplit(prefix string, s Split, n int) error {
	for _, x := range []struct {
		name string
		ids  []int32
	}{{"train", s.Train}, {"valid", s.Valid}, {"test", s.Test}} {
		for i, v := range x.ids {
			if uint32(v) >= uint32(n) {
				return fmt.Errorf("%s%s split: entry %d: node %d outside [0, %d)", prefix, x.name, i, v, n)
			}
			if i > 0 && v <= x.ids[i-1] {
				return fmt.Errorf("%s%s split: not sorted and unique at entry %d", prefix, x.name, i)
			}
		}
	}
	return nil
}

// validateFeatures checks that d's features, dense or sparse, are n x
// NumFeatures.
func (d *Dataset) validateFeatures() error {
	n := d.Adj.Rows
	if d.NumFeatures < 0 {
		return fmt.Errorf("%d features", d.NumFeatures)
	}
	sf := d.SparseFeatures
	if sf == nil {
		if int64(len(d.Features)) != int64(n)*int64(d.NumFeatures) {
			return fmt.Errorf("%d feature values for %d nodes x %d features", len(d.Features), n, d.NumFeatures)
		}
		return nil
	}
	if d.Features != nil {
		return fmt.Errorf("both dense and sparse features; a dataset holds one of them")
	}
	if sf.Rows != n || sf.Cols != d.NumFeatures {
		return fmt.Errorf("sparse features are %d x %d for %d nodes x %d features", sf.Rows, sf.Cols, n, d.NumFeatures)
	}
	if err := sf.Validate(); err != nil {
		return fmt.Errorf("sparse features: %w", err)
	}
	return nil
}

// validateExtras checks the stored splits, the source's ids and the class
// names against the n nodes and the classes.
func (d *Dataset) validateExtras() error {
	n := d.Adj.Rows
	for i, s := range d.Splits {
		if err := checkSplit(fmt.Sprintf("stored split %d: ", i), s, n); err != nil {
			return err
		}
	}
	if d.SourceIDs != nil && len(d.SourceIDs) != n {
		return fmt.Errorf("%d source ids for %d nodes", len(d.SourceIDs), n)
	}
	if d.ClassNames != nil && len(d.ClassNames) != d.NumClasses {
		return fmt.Errorf("%d class names for %d classes", len(d.ClassNames), d.NumClasses)
	}
	return nil
}
