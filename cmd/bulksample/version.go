package main

import (
	"runtime/debug"
	"strings"
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
