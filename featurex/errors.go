package featurex

import "fmt"

// ShapeError is the panic value of a featurex kernel called with a buffer
// of the wrong length, and the error of a gather into one: Op's result has
// Rows x Cols values but the buffer has Len.
type ShapeError struct {
	Op         string
	Rows, Cols int
	Len        int
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("featurex: %s: a %d x %d result does not fit a buffer of %d values", e.Op, e.Rows, e.Cols, e.Len)
}

// IndexError is the panic value of a featurex kernel given a vertex id
// outside [0, Len).
type IndexError struct {
	Op         string
	Index, Len int
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("featurex: %s: vertex id %d out of range [0, %d)", e.Op, e.Index, e.Len)
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
