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
	if len(got) != 11 || got[0].ranks != 0 || got[0].threads != 16 || got[1].ranks != 4 || !slices.Equal(got[1].flags, []string{"--fetch", "pull"}) ||
		got[3].name != "np 4, auto" || !slices.Equal(got[3].flags, []string{"--fetch", "auto"}) ||
		got[5].name != "np 4, push, overlap" || !slices.Equal(got[5].flags, []string{"--fetch", "push", "--overlap", "on"}) ||
		got[9].name != "np 16, replicated" || !slices.Equal(got[9].flags, []string{"--replicate-graph"}) ||
		!slices.Equal(got[10].flags, []string{"--fetch", "pull", "--pull-batch", "64MiB"}) {
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
	same := map[string]any{"seps": 1e6, "ranks": 4.0, "digest": "aa", "traffic": map[string]any{"sample": map[string]any{"bytes_sent_max": 5e6}},
		"fetch_layers":   []any{map[string]any{"pull": 4.0, "push": 0.0}, map[string]any{"pull": 1.0, "push": 3.0}},
		"rank_spread":    map[string]any{"work_seconds": map[string]any{"max": 1.5}, "work_max_over_mean": 1.25, "exchange_seconds": map[string]any{"max": 0.75}, "idle_seconds": map[string]any{"max": 0.25}},
		"digest_seconds": 0.5}
	other := map[string]any{"seps": 4e6, "ranks": 4.0, "digest": "bb"}
	repl := map[string]any{"seps": 2e6, "ranks": 4.0, "digest": "aa", "fetch": "replicated"}
	b.results = []result{
		{Part: "table", Graph: "g", Relabel: "none", Case: "one", Summary: one},
		{Part: "table", Graph: "g", Relabel: "none", Case: "pull", Summary: same},
		{Part: "table", Graph: "g", Relabel: "none", Case: "push", Summary: other},
		{Part: "table", Graph: "g", Relabel: "none", Case: "bad", Error: "exit status 1: rank 2: out of memory\nmore"},
		{Part: "table", Graph: "g", Relabel: "none", Case: "repl", Summary: repl},
	}
	text := b.report()
	for _, want := range []string{
		"| one | 2.0 | 1.00 |", "| the reference |",
		"| pull | 1.0 | 0.50 | 0.50 |", "| 5.0 |", "| = one |", "| pull,mixed | 1.50 (1.25) | 0.75 | 0.25 | 0.50 |",
		"| push | 4.0 | 2.00 |", "| DIFFERS from one |",
		"| bad | failed: rank 2: out of memory |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}
