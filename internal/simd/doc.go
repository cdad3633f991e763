// Package simd holds the vector kernels of gnn's element-wise passes and of
// the random draws of its dropout masks (Mix64Seq): amd64 assembly where the
// CPU has AVX2 (AVX-512 for Mix64Seq's 64-bit lane multiplies), and Go
// loops elsewhere, which compute
// the same values with the same roundings in the same order, so that the
// results have the same bits on every path. (gnn itself cannot hold Go
// assembly: it uses cgo in builds with OpenBLAS.)
package simd
