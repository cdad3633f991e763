// Package atomicfile writes output files so that a failure never leaves a
// torn file: the data goes to a temporary file in the destination's folder,
// which is synced and renamed over the destination only once complete. The
// dataset writers and the command line's other outputs share it.
package atomicfile
