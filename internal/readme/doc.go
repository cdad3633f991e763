// Package readme holds the test that builds and runs every Go code block of
// the repository's README.md, so that the documented library use stays
// true. It has no other code.
package readme
