package spgemm

// The options of the sparse product. The kernels live in mul.go (SpGEMM),
// spmm.go (sparse times dense), transpose.go, extract.go (rows and columns),
// ewise.go (element-wise operations, row sums) and dense.go (gonum interop).

import "fmt"

// MulOptions modify C = A·B. The zero value (or nil) means a plain
// plus-times product on GOMAXPROCS threads with the accumulator chosen per
// row.
type MulOptions struct {
	// Threads is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	// The result does not depend on it.
	Threads int
	// Mask, when non-nil, restricts C to the pattern of Mask (C<M> = A·B):
	// only entries (i, j) stored in Mask are computed, whatever their value.
	// It must have the shape of C, a.Rows x b.Cols.
	Mask *CSR
	// ComplementMask computes C<¬M> = A·B instead: only entries outside
	// Mask's pattern. As in GraphBLAS, complementing an absent mask (Mask
	// nil) gives an empty C.
	ComplementMask bool
	// StructureOnly computes only the pattern of C; every value is 1 and no
	// arithmetic is done.
	StructureOnly bool
	// Accumulator forces one accumulator for every row; the zero value,
	// AutoAccumulator, chooses per row. The result does not depend on it.
	Accumulator Accumulator
	// Add, when non-nil, is added to the product: C = Add + A·B (GraphBLAS'
	// accumulator, with plus). The sum of C(i,j) starts from Add(i,j) (from 0
	// when Add stores no (i,j)) and adds the product's terms in their usual
	// order, so that a product cut along A's columns and B's rows into
	// pieces A_s·B_s, each added onto the sum of the previous ones, has the
	// bits of the whole product, apart from the sign of zero entries (a row
	// of A with a single entry gives that term exactly, -0 included, while
	// longer rows start their sums from +0). Sparse SUMMA (package dist)
	// accumulates its stages this way. C's pattern is the union of Add's
	// and the product's; a row of Add whose row of A is empty is copied. Add
	// must have the shape of C and cannot be combined with Mask or
	// ComplementMask; with StructureOnly, C is the union of the patterns.
	Add *CSR
}

// Accumulator names the way Mul gathers the contributions to one row of C.
type Accumulator int

const (
	// AutoAccumulator chooses per row: a hash accumulator when the row's
	// hash table would be small next to b.Cols, a dense one otherwise (see
	// mul.go).
	AutoAccumulator Accumulator = iota
	// DenseAccumulator uses a dense array of b.Cols values per thread
	// (Gustavson's sparse accumulator).
	DenseAccumulator
	// HashAccumulator uses an open-addressing hash table sized to the row's
	// flop count.
	HashAccumulator
)

func (m Accumulator) String() string {
	switch m {
	case AutoAccumulator:
		return "auto"
	case DenseAccumulator:
		return "dense"
	case HashAccumulator:
		return "hash"
	}
	return fmt.Sprintf("Accumulator(%d)", int(m))
}
