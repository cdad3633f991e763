// Package atomicfile writes output files so that a failure never leaves a
// torn file: the data goes to a temporary file in the destination's folder,
// which is synced and renamed over the destination only once complete. The
// dataset writers and the command line's other outputs share it. It also
// owns the lock files (Lock) by which a run claims a folder it writes, such
// as a checkpoint folder, for as long as it runs.
package atomicfile
