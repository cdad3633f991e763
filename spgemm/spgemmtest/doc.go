// Package spgemmtest is the conformance kit of sparse matrix products: the
// dense reference product and the checks that every implementation of
// C = A·B (the local spgemm.Mul, the distributed 1.5D and 2D products of
// package dist) passes on the same seeded inputs.
package spgemmtest
