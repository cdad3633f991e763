// Package spgemm owns the CSR sparse matrix type and the single-process,
// multithreaded sparse kernels that every other part of bulksample is built on:
// sparse times sparse products (SpGEMM: Mul, with masks, a structure-only
// variant and an accumulating C = Add + A·B), sparse times dense products (SpMM: MulDense, MulDenseT),
// transposition, row and column extraction (GatherRows, ExtractColumns),
// element-wise operations (Scale, Square), row sums and row normalisation,
// building from coordinates (FromCOO, or CSRBuilder in two passes over
// a stream of entries too large to hold) and conversion to and from gonum's mat
// types (*CSR is a mat.Matrix; ToDense, FromMatrix).
//
// It imports nothing else from bulksample; distributed products live in
// package dist and only move blocks between ranks.
//
// # Conventions
//
// A CSR holds Rows x Cols values. Row i's column ids are
// Indices[Indptr[i]:Indptr[i+1]] and its values the same range of Data.
// Row offsets are int64 (graphs of more than 2^31 edges), column ids int32
// (vertex ids, docs/design.md section 6), values float32. The invariant, checked
// by Validate, is: len(Indptr) == Rows+1, Indptr[0] == 0, Indptr is
// non-decreasing, len(Indices) == len(Data) == Indptr[Rows], and the column
// ids of every row are strictly increasing (sorted, no duplicates) and lie in
// [0, Cols). The zero value CSR{} is a valid 0 x 0 matrix and a valid
// destination. Every kernel assumes valid operands and returns valid results.
//
// Functions that leave their inputs unchanged are functions; operations
// that fill a result are methods on the destination, whose arrays are reused
// when their capacity suffices (c.Mul(a, b, opt), c.Square(a, threads)).
// Every kernel takes a thread count; 0 or less means GOMAXPROCS.
//
// # Aliasing
//
// The destination of Mul must not be an operand or share an array with one
// (the mask included); Mul panics with an ArgError if it does. Element-wise
// methods may work in place (a.Scale(2, a, 0)). Results of the functions
// share no arrays with their inputs. Row returns views, not copies.
//
// # Errors and panics
//
// Data that come from outside (files, users) are checked by Validate, which
// returns an error wrapping ErrInvalid and naming the problem. A shape
// mismatch, an index out of range or illegal aliasing in a kernel call is a
// caller bug and panics with a ShapeError, IndexError or ArgError, in the
// manner of gonum's mat package; Maybe converts such panics into errors at an
// API boundary. The packages above that panic on caller bugs (featurex) use
// the same types, naming themselves in their Pkg field, so that one Maybe
// converts theirs too.
//
// # Determinism
//
// Every kernel returns the same bits for any thread count, by the argument
// of internal/par's documentation: work is split into contiguous row ranges
// of equal cost (par.ForWork) and each output row is computed by exactly one
// goroutine, adding its terms in a fixed order (for Mul, the order of A's
// row; see mul.go). Mul's result also does not depend on the accumulator
// chosen.
package spgemm
