package featurex

import (
	"fmt"
	"math"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/spgemm"
)

// NewLocalCSR returns a store of the n x f features x, a CSR matrix that
// the store shares (the caller must not modify it while the store is in
// use): features that are stored sparsely (bag-of-words, a dataset's
// SparseFeatures) and never made dense, so that their memory follows their
// nonzeros. GatherCSR copies rows of x; Gather expands them. It returns an
// error when x is not a valid matrix with at least one column, or when an
// option is invalid (Sparse must be SparseAuto or SparseAlways: the store
// has no dense array).
func NewLocalCSR(x *spgemm.CSR, opt LocalOptions) (*Local, error) {
	switch {
	case x == nil:
		return nil, fmt.Errorf("featurex: NewLocalCSR: no matrix")
	case x.Cols <= 0:
		return nil, fmt.Errorf("featurex: NewLocalCSR: %d features per vertex, want > 0", x.Cols)
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Sparse == SparseNever {
		return nil, option.Errorf("featurex", "LocalOptions", "Sparse", "SparseNever", "NewLocalCSR keeps only the CSR matrix")
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("featurex: NewLocalCSR: %w", err)
	}
	return &Local{n: x.Rows, f: x.Cols, threads: opt.Threads, csr: x}, nil
}

// CSR returns the CSR matrix the store keeps (not a copy): NewLocalCSR's
// matrix, the sparse copy NewLocal made of sparse features, or nil.
func (s *Local) CSR() *spgemm.CSR { return s.csr }

// NormalizeCSRRows is NormalizeRows for features stored as a CSR matrix:
// each row's values are scaled to sum 1, rows summing to 0 are left
// unchanged, and a negative, NaN or infinite value anywhere is a *RowError
// before any row is changed. The stored values of a row are the nonzeros
// of its dense form in the same column order, and zeros add nothing to a
// float64 sum, so the result is NormalizeRows' bit for bit.
func NormalizeCSRRows(x *spgemm.CSR) error {
	for r := range x.Rows {
		for q := x.Indptr[r]; q < x.Indptr[r+1]; q++ {
			if v := x.Data[q]; !(v >= 0) || math.IsInf(float64(v), 1) {
				return &RowError{Op: "NormalizeRows", Row: r, Col: int(x.Indices[q]), Value: v}
			}
		}
	}
	for r := range x.Rows {
		spgemm.NormalizeVec(x.Data[x.Indptr[r]:x.Indptr[r+1]])
	}
	return nil
}
