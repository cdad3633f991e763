// Package graphblas is a thin cgo binding to SuiteSparse:GraphBLAS, the peer
// that `make bench` compares bulksample's SpGEMM against. It is used only by
// the benchmark programs of benchmarks/ and is not part of the library.
//
// The binding exists only when the build tag graphblas is set (the library
// and its header come from Debian's libgraphblas-dev, which
// `scripts/deps.sh --bench` installs):
//
//	go run -tags graphblas ./benchmarks/spgemmbench
//
// Without the tag the package has the same API, and every function returns
// an error wrapping ErrNotBuilt, so `go build ./...` and `go test ./...` work
// on machines without GraphBLAS and callers can fall back to running
// bulksample alone.
//
// # Conventions
//
// Matrices are single precision (GrB_FP32), stored by row, and multiplied
// over the plus-times semiring, which is what spgemm.Mul computes. FromCSR
// copies a spgemm.CSR into memory allocated by C and hands that memory to
// GraphBLAS; C never holds a Go pointer. Mul returns a finished matrix: it
// waits for GraphBLAS's deferred work (sorting a jumbled result), so timing
// Mul measures the whole product, as timing spgemm.Mul does. MulUnfinished
// skips that wait, to measure what the deferred sort costs.
//
// # Resources
//
// A Matrix owns a GraphBLAS object. Free releases it explicitly and is
// idempotent; a finalizer releases forgotten matrices only as a backstop.
// A Matrix is not safe for concurrent use.
//
// # Errors
//
// Every GrB_Info status other than success becomes an *Error naming the
// GraphBLAS call that returned it and, where GraphBLAS gives one, its
// message.
package graphblas
