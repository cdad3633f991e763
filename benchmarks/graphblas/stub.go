//go:build !graphblas

package graphblas

import (
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// Built reports whether this build links SuiteSparse:GraphBLAS.
const Built = false

// Init returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func Init(threads int) error { return ErrNotBuilt }

// Version returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func Version() (string, error) { return "", ErrNotBuilt }

// Matrix is a GraphBLAS matrix; in this build none can be made.
type Matrix struct {
	rows, cols int
}

// FromCSR returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func FromCSR(a *spgemm.CSR) (*Matrix, error) { return nil, fmt.Errorf("FromCSR: %w", ErrNotBuilt) }

// Mul returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func Mul(a, b *Matrix) (*Matrix, error) { return nil, fmt.Errorf("Mul: %w", ErrNotBuilt) }

// MulUnfinished returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func MulUnfinished(a, b *Matrix) (*Matrix, error) {
	return nil, fmt.Errorf("MulUnfinished: %w", ErrNotBuilt)
}

// Dims returns the number of rows and columns.
func (m *Matrix) Dims() (rows, cols int) { return m.rows, m.cols }

// NVals returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func (m *Matrix) NVals() (int64, error) { return 0, fmt.Errorf("NVals: %w", ErrNotBuilt) }

// ToCSR returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func (m *Matrix) ToCSR() (*spgemm.CSR, error) { return nil, fmt.Errorf("ToCSR: %w", ErrNotBuilt) }

// Free does nothing: this build has no GraphBLAS objects.
func (m *Matrix) Free() error { return nil }

// View returns an error wrapping ErrNotBuilt: this build has no GraphBLAS.
func (m *Matrix) View(fn func(indptr, indices []uint64, data []float32) error) error {
	return fmt.Errorf("View: %w", ErrNotBuilt)
}
