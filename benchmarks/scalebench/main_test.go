package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCases(t *testing.T) {
	got, err := parseCases(defaultTableCases)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || got[0].ranks != 0 || got[0].threads != 16 || got[1].ranks != 4 || !slices.Equal(got[1].flags, []string{"--fetch", "pull"}) ||
		got[6].name != "np 16, replicated" || !slices.Equal(got[6].flags, []string{"--replicate-graph"}) {
		t.Errorf("the issue's table parsed as %+v", got)
	}
	for _, bad := range []string{"", "x", "a=1:2", "a=-1:1:", "a=1:0:", "=1:1:", "a=x:1:"} {
		if _, err := parseCases(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestReport: the digest column names the reference and flags a run that
// differs; ratios are to the one process; a failed run says why.
func TestReport(t *testing.T) {
	b := &bench{c: &config{batch: 1024, bulk: 64, fanout: "15,10,5", args: []string{"--scale", "10"}}}
	one := map[string]any{"seps": 2e6, "ranks": 0.0, "digest": "aa"}
	same := map[string]any{"seps": 1e6, "ranks": 4.0, "digest": "aa", "traffic": map[string]any{"sample": map[string]any{"bytes_sent_max": 5e6}}}
	other := map[string]any{"seps": 4e6, "ranks": 4.0, "digest": "bb"}
	b.results = []result{
		{Part: "table", Graph: "g", Relabel: "none", Case: "one", Summary: one},
		{Part: "table", Graph: "g", Relabel: "none", Case: "pull", Summary: same},
		{Part: "table", Graph: "g", Relabel: "none", Case: "push", Summary: other},
		{Part: "table", Graph: "g", Relabel: "none", Case: "bad", Error: "exit status 1: rank 2: out of memory\nmore"},
	}
	text := b.report()
	for _, want := range []string{
		"| one | 2.0 | 1.00 |", "| the reference |",
		"| pull | 1.0 | 0.50 |", "| 5.0 |", "| = one |",
		"| push | 4.0 | 2.00 |", "| DIFFERS from one |",
		"| bad | failed: rank 2: out of memory |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}
