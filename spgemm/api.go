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
