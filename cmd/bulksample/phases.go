package main

import (
	"fmt"
	"io"

	"github.com/bulksample/bulksample/internal/procstat"
)

// notePhase prints on w, as a progress line, the costs that hid inside a
// phase of a command (page faults, GC) when they exceed 5% of its time
// (procstat.Cost.Note); it prints nothing otherwise.
func notePhase(w io.Writer, command, phase string, c procstat.Cost) {
	if n := c.Note(); n != "" {
		fmt.Fprintf(w, "%s: %s %.3f s: %s\n", command, phase, c.Seconds, n)
	}
}
