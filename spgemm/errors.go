package spgemm

import (
	"fmt"
	"runtime/debug"
)

// The panic values of this file are shared by the packages above spgemm
// that follow its convention (featurex's kernels): such a package sets Pkg,
// its messages start with its name, and Maybe converts its panics too.

// ShapeError is the panic value of a kernel called with operands whose shapes
// do not conform. It names the operation and both shapes.
type ShapeError struct {
	// Pkg is the package of the kernel; "" means spgemm.
	Pkg                        string
	Op                         string
	ARows, ACols, BRows, BCols int
}

func (e ShapeError) Error() string {
	return fmt.Sprintf("%s: %s: shape mismatch: %d x %d and %d x %d", pkgName(e.Pkg), e.Op, e.ARows, e.ACols, e.BRows, e.BCols)
}

// IndexError is the panic value of a kernel given an index outside [0, Len).
type IndexError struct {
	// Pkg is the package of the kernel; "" means spgemm.
	Pkg        string
	Op         string
	Index, Len int
}

func (e IndexError) Error() string {
	return fmt.Sprintf("%s: %s: index %d out of range [0, %d)", pkgName(e.Pkg), e.Op, e.Index, e.Len)
}

func pkgName(pkg string) string {
	if pkg == "" {
		return "spgemm"
	}
	return pkg
}

// ArgError is the panic value of a kernel called with an argument that is
// wrong in a way other than its shape or an index: a destination that shares
// memory with an operand, or a column map that sends two columns of one row
// to the same new column.
type ArgError struct {
	// Pkg is the package of the kernel; "" means spgemm.
	Pkg string
	Op  string
	Msg string
}

func (e ArgError) Error() string {
	return fmt.Sprintf("%s: %s: %s", pkgName(e.Pkg), e.Op, e.Msg)
}

// Maybe calls fn and turns a ShapeError, IndexError or ArgError panic into a
// returned error carrying the stack. Other panics propagate.
func Maybe(fn func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch e := r.(type) {
		case ShapeError, IndexError, ArgError:
			err = fmt.Errorf("%w\n%s", e.(error), debug.Stack())
		default:
			panic(r)
		}
	}()
	fn()
	return nil
}
