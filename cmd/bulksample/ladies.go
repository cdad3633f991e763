package main

import (
	"flag"
)

// ladiesMatrixUsage is the help of --ladies-matrix (train and sample).
const ladiesMatrixUsage = "the matrix LADIES samples from and whose values its blocks carry: normalized, the LADIES\n" +
	"paper's D^-1/2 (A+I) D^-1/2 with D the degrees plus one, or raw, the adjacency as loaded\n" +
	"(p_v then grows with v's number of frontier neighbours); ladies only"

// checkLadiesMatrix returns a usage error when --ladies-matrix has a bad
// value, or was given for a method other than ladies.
func checkLadiesMatrix(fs *flag.FlagSet, value, method string) error {
	if value != "normalized" && value != "raw" {
		return usageError(fs, "--ladies-matrix %q: want normalized or raw", value)
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "ladies-matrix" })
	if set && method != "ladies" {
		return usageError(fs, "--ladies-matrix applies to ladies only, not %s", method)
	}
	return nil
}
