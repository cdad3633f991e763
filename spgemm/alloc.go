package spgemm

// Destination reuse and aliasing checks shared by the kernels that write
// into a receiver.

import (
	"unsafe"

	"github.com/bulksample/bulksample/internal/par"
)

// reset makes c an empty rows x cols matrix with room for nnz entries,
// reusing its arrays when their capacity suffices. Indptr is all zero.
func (c *CSR) reset(rows, cols int, nnz int) {
	c.Rows, c.Cols = rows, cols
	c.Indptr = par.Resize(c.Indptr, rows+1)
	clear(c.Indptr)
	c.Indices = par.Resize(c.Indices, nnz)
	c.Data = par.Resize(c.Data, nnz)
}

// checkNoAlias panics with an ArgError if the destination c is the operand x
// or shares memory with one of its arrays.
func checkNoAlias(op string, c *CSR, name string, x *CSR) {
	if c == x || overlaps(c.Indptr, x.Indptr) || overlaps(c.Indices, x.Indices) || overlaps(c.Data, x.Data) {
		panic(ArgError{Op: op, Msg: "destination aliases operand " + name})
	}
}

// overlaps reports whether the backing arrays of x and y, up to their
// capacities, share memory.
func overlaps[T any](x, y []T) bool {
	if cap(x) == 0 || cap(y) == 0 {
		return false
	}
	size := unsafe.Sizeof(x[:1][0])
	xs := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	ys := uintptr(unsafe.Pointer(unsafe.SliceData(y)))
	return xs < ys+uintptr(cap(y))*size && ys < xs+uintptr(cap(x))*size
}
