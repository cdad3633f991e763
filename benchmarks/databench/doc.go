// Command databench measures the dataset package on an R-MAT graph: the
// time and peak memory to generate it, to write it as a scipy .npz and as a
// native file, and to load each back, with the ratio of the load times.
//
// Each phase runs in its own process (this program re-executed with
// -phase), so that each peak resident set (VmHWM) belongs to that phase
// alone; loads are repeated -reps times and the median is reported. The
// files stay in the page cache between phases, so loads are warm-cache
// loads for both formats alike.
//
// Usage:
//
//	databench [-scale 22] [-edge-factor 16] [-reps 3] [-dir DIR] [-out benchmarks/results/dataset.md]
package main
