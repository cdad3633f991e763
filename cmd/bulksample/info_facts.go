package main

// What `bulksample info` says of a graph beyond its sizes: what the
// reader did to the file's data (dataset.ReadReport), whether the graph is
// symmetric, its self loops and components (dataset.Facts), and the
// sparse features, class names and stored splits a file may have.

import (
	"fmt"
	"io"
	"strings"

	"github.com/bulksample/bulksample/dataset"
)

// dataFacts is the part of info's summary that this file fills.
type dataFacts struct {
	// Read is what the reader did (nil for formats read as stored).
	Read *dataset.ReadReport `json:"read,omitempty"`
	// Facts says whether the graph's facts below were computed (--facts).
	Facts bool `json:"facts"`
	// Symmetric: every entry has its reverse; AsymmetricEntries counts
	// those without.
	Symmetric         bool  `json:"symmetric"`
	AsymmetricEntries int64 `json:"asymmetric_entries"`
	SelfLoops         int64 `json:"self_loops"`
	// Components are the weakly connected components.
	Components       int `json:"components"`
	LargestComponent int `json:"largest_component"`
	Isolated         int `json:"isolated"`
	// SourceIDs: the reader renumbered the vertices and kept the file's ids.
	SourceIDs bool `json:"source_ids"`
	// SparseFeatures: the features are kept sparse, FeatureEntries values.
	SparseFeatures bool     `json:"sparse_features"`
	FeatureEntries int64    `json:"feature_entries,omitempty"`
	ClassNames     []string `json:"class_names,omitempty"`
	// StoredSplits is the number of splits the file stores when it stores
	// several; SplitIndex the one in use (--split-index).
	StoredSplits int `json:"stored_splits,omitempty"`
	SplitIndex   int `json:"split_index"`
}

// factsOf returns the facts of d, loaded with opt; the graph's structure
// (dataset.Facts) when facts is set.
func factsOf(d *dataset.Dataset, opt dataset.LoadOptions, facts bool) dataFacts {
	s := dataFacts{Read: d.Report, Facts: facts,
		SourceIDs: d.SourceIDs != nil, ClassNames: d.ClassNames, StoredSplits: len(d.Splits), SplitIndex: opt.SplitIndex}
	if facts {
		f := dataset.Facts(d.Adj)
		s.Symmetric, s.AsymmetricEntries, s.SelfLoops = f.Symmetric, f.Asymmetric, f.SelfLoops
		s.Components, s.LargestComponent, s.Isolated = f.Components, f.LargestComponent, f.Isolated
	}
	if d.SparseFeatures != nil {
		s.SparseFeatures, s.FeatureEntries = true, d.SparseFeatures.NNZ()
	}
	return s
}

// printGraph prints the lines of what was read and of the graph's
// structure.
func (s *dataFacts) printGraph(w io.Writer) {
	if r := s.Read; r != nil {
		fmt.Fprintf(w, "  read      %d edges", r.Edges)
		if r.SelfLoops > 0 {
			fmt.Fprintf(w, ", %d self loops", r.SelfLoops)
			if r.SelfLoopsDropped {
				fmt.Fprint(w, " (dropped)")
			}
		}
		fmt.Fprintf(w, "; %d duplicate entries merged\n", r.Merged)
		if r.Reversed {
			fmt.Fprintf(w, "  reverse   added: %s\n", r.ReversedWhy)
		}
		if r.IDs != "" {
			fmt.Fprintf(w, "  ids       %s\n", r.IDs)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  note      %s\n", n)
		}
	}
	switch {
	case !s.Facts:
		fmt.Fprintf(w, "  symmetric not checked (--facts=false), nor self loops and components\n")
		return
	case s.Symmetric:
		fmt.Fprintf(w, "  symmetric yes (undirected)\n")
	default:
		fmt.Fprintf(w, "  symmetric no: %d entries without their reverse (directed; --symmetry symmetrize adds them)\n", s.AsymmetricEntries)
	}
	fmt.Fprintf(w, "  loops     %d self loops\n", s.SelfLoops)
	fmt.Fprintf(w, "  components %d (largest %d vertices, %d isolated)\n", s.Components, s.LargestComponent, s.Isolated)
}

// featureNote describes sparse features.
func (s *dataFacts) featureNote() string {
	if !s.SparseFeatures {
		return ""
	}
	return fmt.Sprintf(" (sparse: %d stored values, %s as CSR)", s.FeatureEntries, formatBytes(8*s.FeatureEntries))
}

// classNote names the classes.
func (s *dataFacts) classNote() string {
	if len(s.ClassNames) == 0 {
		return ""
	}
	return ": " + truncate(strings.Join(s.ClassNames, ", "), 120)
}

// splitsNote says which of the stored splits is in use.
func (s *dataFacts) splitsNote() string {
	if s.StoredSplits == 0 {
		return ""
	}
	return fmt.Sprintf(" (split %d of the %d stored; --split-index 0..%d chooses)", s.SplitIndex, s.StoredSplits, s.StoredSplits-1)
}

// truncate shortens s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
