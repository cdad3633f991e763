package main

import (
	"slices"
	"testing"

	"github.com/bulksample/bulksample/internal/cliout"
)

// TestSummarySchema: the distributed sample's JSON, which the benchmarks
// decode through internal/cliout, has its promoted, nested and mapped
// fields (cliout.Fields is what the benchmarks' decoders rely on).
func TestSummarySchema(t *testing.T) {
	if f := cliout.Fields(cliout.DistSample{}); !slices.Contains(f, "traffic.bytes_sent") || !slices.Contains(f, "seps") || !slices.Contains(f, "peak_rss.median") {
		t.Errorf("cliout.Fields(DistSample) = %v; want the promoted, nested and mapped fields", f)
	}
}
