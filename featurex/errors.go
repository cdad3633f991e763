package featurex

import (
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// bufferError returns the spgemm.ShapeError (Pkg featurex) of op, whose
// result of rows x cols values does not fit a buffer of n values: A is the
// result, B the buffer as n x 1. It is the panic value of a kernel and the
// error of a gather.
func bufferError(op string, rows, cols, n int) spgemm.ShapeError {
	return spgemm.ShapeError{Pkg: "featurex", Op: op, ARows: rows, ACols: cols, BRows: n, BCols: 1}
}

// indexError returns the spgemm.IndexError (Pkg featurex) of op given the
// vertex id v outside [0, n).
func indexError(op string, v, n int) spgemm.IndexError {
	return spgemm.IndexError{Pkg: "featurex", Op: op, Index: v, Len: n}
}

// RowError is the error of NormalizeRows on features it refuses to
// normalise: the entry at (Row, Col) is Value, which is negative, NaN or
// infinite. Row counts from the first row of the slice given.
type RowError struct {
	Op       string
	Row, Col int
	Value    float32
}

func (e *RowError) Error() string {
	return fmt.Sprintf("featurex: %s: feature row %d has the value %v at column %d: row normalisation is for non-negative features (a row with negative entries can sum to about 0 and be blown up or flip sign)",
		e.Op, e.Row, e.Value, e.Col)
}
