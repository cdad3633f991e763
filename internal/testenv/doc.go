// Package testenv holds what the project's tests share: where the data
// sets of ../shared/data are, how a test that needs them reacts when they
// are absent, and the bit-for-bit comparison of float32 results
// (SameBits) that the determinism tests of several packages make.
package testenv
