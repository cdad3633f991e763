// Package spgemm owns the CSR sparse matrix type and the single-process,
// multithreaded sparse kernels that every other part of bulksample is built on:
// sparse times sparse products (SpGEMM), sparse times dense products (SpMM),
// transposition, row and column extraction, element-wise operations, row sums
// and row normalisation.
//
// It imports nothing else from bulksample; distributed products live in
// package dist and only move blocks between ranks.
//
// # Conventions
//
// A CSR holds Rows x Cols values. Row i's column ids are
// Indices[Indptr[i]:Indptr[i+1]] and its values the same range of Data.
// Row offsets are int64 (graphs of more than 2^31 edges), column ids int32
// (vertex ids, DESIGN.md section 6), values float32. The invariant, checked
// by Validate, is: len(Indptr) == Rows+1, Indptr[0] == 0, Indptr is
// non-decreasing, len(Indices) == len(Data) == Indptr[Rows], and the column
// ids of every row are strictly increasing (sorted, no duplicates) and lie in
// [0, Cols). The zero value CSR{} is a valid 0 x 0 matrix and a valid
// destination.
//
// Functions that leave their inputs unchanged are functions; operations
// that fill a result are methods on the destination, whose arrays are reused
// when their capacity suffices.
//
// # Errors and panics
//
// Data that come from outside (files, users) are checked by Validate, which
// returns an error naming the problem. A shape mismatch or an index out of
// range in a kernel call is a caller bug and panics with a ShapeError or an
// IndexError, in the manner of gonum's mat package; Maybe converts such
// panics into errors at an API boundary.
//
// # Determinism
//
// Every kernel returns the same bits for any thread count: work is split
// into contiguous row ranges and each output row is computed by exactly one
// goroutine in a fixed order.
package spgemm
