// Package readme holds the tests that keep the repository's README.md and
// the files of docs/ true: one builds and runs every Go code block, so
// that the documented library use stays true, and one runs every mpirun
// line as printed. A block fenced as another language than go, and a
// command line that does not begin with `mpirun `, is documentation only
// (it needs a GPU, a cluster or a file the test does not make). It has no
// other code.
package readme
