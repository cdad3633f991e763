// Package readme holds the tests that keep the repository's README.md
// true: one builds and runs every Go code block, so that the documented
// library use stays true, and one runs every mpirun line as printed. It
// has no other code.
package readme
