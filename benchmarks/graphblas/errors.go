package graphblas

import (
	"errors"
	"fmt"
)

// ErrNotBuilt is wrapped by every error of a build without the graphblas tag.
var ErrNotBuilt = errors.New("graphblas: built without the graphblas tag; run make bench (or go run -tags graphblas ...) on a machine with libgraphblas-dev")

// Error is a GraphBLAS call that returned a status other than GrB_SUCCESS.
type Error struct {
	Call   string // the GraphBLAS function, e.g. "GrB_mxm"
	Info   int    // the GrB_Info status code
	Name   string // the status's name, e.g. "GrB_OUT_OF_MEMORY"
	Detail string // GraphBLAS's own message (GrB_error), if any
}

func (e *Error) Error() string {
	s := fmt.Sprintf("graphblas: %s: %s (%d)", e.Call, e.Name, e.Info)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}
