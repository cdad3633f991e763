package main

import (
	"slices"
	"testing"

	"github.com/bulksample/bulksample/internal/cliout"
)

// TestSummarySchema: the summary types the command declares itself (in
// files that have not yet been moved to the schema) write exactly the
// JSON fields of their schema in internal/cliout, which the benchmarks
// decode.
func TestSummarySchema(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cmd, want any
	}{
		{"distSummary", distSummary{}, cliout.DistSample{}},
		{"phaseJSON", phaseJSON{}, cliout.Traffic{}},
	} {
		if got, want := cliout.Fields(tc.cmd), cliout.Fields(tc.want); !slices.Equal(got, want) {
			t.Errorf("%s writes the fields\n%v\nwant those of its schema\n%v", tc.name, got, want)
		}
	}
	if f := cliout.Fields(cliout.DistSample{}); !slices.Contains(f, "traffic.bytes_sent") || !slices.Contains(f, "seps") || !slices.Contains(f, "peak_rss.median") {
		t.Errorf("cliout.Fields(DistSample) = %v; want the promoted, nested and mapped fields", f)
	}
}
