package main

import (
	"runtime/debug"
	"strings"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
)

// version returns the version of this binary from its build information:
// the main module's version ("(devel)" for a build from a checkout), then
// the VCS revision with "+dirty" when the working tree had changes, e.g.
// "(devel) 32e2f50e1a2b+dirty". Every --json summary carries it.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return formatVersion(bi)
}

// formatVersion formats the module version and VCS revision of bi.
func formatVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// A pseudo-version (v0.0.0-20261123183823-32e2f50e1a2b+dirty, which Go
	// stamps on builds from a checkout) already holds the revision.
	if strings.Contains(v, rev) {
		return v
	}
	if dirty {
		rev += "+dirty"
	}
	return v + " " + rev
}

// buildReport returns what this binary was built with, as `bulksample
// --version` prints it below the version line: the build tags as the
// binary records them, the BLAS it runs (gnn.BLAS) and whether it can join
// an MPI job (dist.MPIAvailable). scripts/run.sh prints its BLAS line, so
// that what `make run` reports comes from the binary, not from whether
// OpenBLAS links on the machine now.
func buildReport() string {
	tags := "none"
	if bi, ok := debug.ReadBuildInfo(); ok {
		tags = buildTags(bi)
	}
	return formatBuildReport(tags, gnn.BLAS, dist.MPIAvailable)
}

// buildTags returns the -tags setting recorded in bi, "none" without one.
func buildTags(bi *debug.BuildInfo) string {
	for _, s := range bi.Settings {
		if s.Key == "-tags" && s.Value != "" {
			return strings.ReplaceAll(s.Value, ",", " ")
		}
	}
	return "none"
}

// formatBuildReport formats the lines of buildReport.
func formatBuildReport(tags, blas string, mpi bool) string {
	b := "BLAS: OpenBLAS through cgo"
	if blas != "openblas" {
		b = "BLAS: pure-Go gonum (built without the openblas tag: dense products about 4x slower; install libopenblas-dev and rebuild with `make build`)"
	}
	m := "MPI: yes (runs under mpirun and srun)"
	if !mpi {
		m = "MPI: no (built without the mpi tag: refuses mpirun and srun; install libopenmpi-dev and rebuild with `make build`)"
	}
	return "build tags: " + tags + "\n" + b + "\n" + m + "\n"
}
