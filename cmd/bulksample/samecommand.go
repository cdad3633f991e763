package main

// Every rank of a distributed run parses its own command line. mpirun and
// srun normally give them all the same one, but an MPMD launch
// (`mpirun -np 1 A : -np 3 B`), a job script that builds the flags per
// node, or a wrapper that adds one, can give ranks other flags. The ranks
// then sampled other fanouts or seeds and printed a wrong digest with exit
// status 0, or failed deep inside a collective with an error naming none of
// the flags (`--replication 2` on two of four ranks: "Alltoallv on rank 2
// of 3: 4 sendCounts and 3 recvCounts"). checkSameCommand compares them
// once, before any work.

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/bulksample/bulksample/dist"
)

// perRankFlag reports whether the flag may differ between the ranks of one
// job: the thread count (nodes may have other core counts) and the
// profile, which each rank writes to its own file.
func perRankFlag(name string) bool {
	switch name {
	case "threads", "profile", "profile-dir":
		return true
	}
	return false
}

// commandLine returns what every rank of a distributed run must share of
// fs, parsed (and any preset applied): the command's name, then one
// "--name=value" line per flag, given or defaulted, in name order, but the
// perRankFlag ones.
func commandLine(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		if !perRankFlag(f.Name) {
			fmt.Fprintf(&b, "\n--%s=%s", f.Name, f.Value)
		}
	})
	return b.String()
}

// checkSameCommand is collective: it broadcasts rank 0's command line
// (commandLine) and returns, on every rank whose own line differs, an error
// naming each flag that differs with both values. The other ranks return
// nil and go on to the next collective, where the failing rank's abort
// ends them.
func checkSameCommand(ctx context.Context, world dist.Comm, line string) error {
	root, err := dist.BcastString(ctx, world, 0, line)
	if err != nil {
		return fmt.Errorf("compare the command line with rank 0's: %w", err)
	}
	if root == line {
		return nil
	}
	return fmt.Errorf("this rank's command line differs from rank 0's: %s (every rank must run the same command; only %s may differ)",
		commandDiff(line, root), "--threads, --profile and --profile-dir")
}

// commandDiff describes how the command line here (commandLine) differs
// from rank 0's.
func commandDiff(here, root string) string {
	h, r := strings.Split(here, "\n"), strings.Split(root, "\n")
	if h[0] != r[0] {
		return fmt.Sprintf("command %q here, %q on rank 0", h[0], r[0])
	}
	values := func(lines []string) map[string]string {
		m := make(map[string]string, len(lines))
		for _, l := range lines[1:] {
			name, value, _ := strings.Cut(l, "=")
			m[name] = value
		}
		return m
	}
	hv, rv := values(h), values(r)
	var diffs []string
	for _, l := range h[1:] { // in name order
		name, value, _ := strings.Cut(l, "=")
		switch rootValue, ok := rv[name]; {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is unknown to rank 0 (another bulksample build?)", name))
		case rootValue != value:
			diffs = append(diffs, fmt.Sprintf("%s is %q here, %q on rank 0", name, value, rootValue))
		}
	}
	for _, l := range r[1:] {
		if name, _, _ := strings.Cut(l, "="); !has(hv, name) {
			diffs = append(diffs, fmt.Sprintf("rank 0 has %s, unknown here (another bulksample build?)", name))
		}
	}
	return strings.Join(diffs, "; ")
}

func has(m map[string]string, key string) bool {
	_, ok := m[key]
	return ok
}
