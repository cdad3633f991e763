// Package progress draws one-line progress bars for long work on a
// terminal: a bar with a count and the time left when the work's size is
// known, the elapsed time otherwise. A bar redraws at most a few times a
// second, and Finish clears its line, so that what the program prints
// after it is not mixed with it.
//
// Whether to draw at all is the caller's decision (Terminal says whether
// a writer is a terminal); a nil *Bar draws nothing, so that code that
// reports progress needs no condition of its own.
package progress
