package spgemm

import (
	"fmt"
	"runtime/debug"
)

// ShapeError is the panic value of a kernel called with operands whose shapes
// do not conform. It names the operation and both shapes.
type ShapeError struct {
	Op                         string
	ARows, ACols, BRows, BCols int
}

func (e ShapeError) Error() string {
	return fmt.Sprintf("spgemm: %s: shape mismatch: %d x %d and %d x %d", e.Op, e.ARows, e.ACols, e.BRows, e.BCols)
}

// IndexError is the panic value of a kernel given an index outside [0, Len).
type IndexError struct {
	Op         string
	Index, Len int
}

func (e IndexError) Error() string {
	return fmt.Sprintf("spgemm: %s: index %d out of range [0, %d)", e.Op, e.Index, e.Len)
}

// ArgError is the panic value of a kernel called with an argument that is
// wrong in a way other than its shape or an index: a destination that shares
// memory with an operand, or a column map that sends two columns of one row
// to the same new column.
type ArgError struct {
	Op  string
	Msg string
}

func (e ArgError) Error() string {
	return fmt.Sprintf("spgemm: %s: %s", e.Op, e.Msg)
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
