package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{nil, true},
		{[]string{"--scale", "14", "--select-rows", "16384"}, true},
		{[]string{"--scale", "14"}, false}, // 32768 rows of Q exceed 2^14
		{[]string{"--rounds", "0"}, false},
		{[]string{"--reps", "1"}, false},        // no warm product
		{[]string{"--sample-reps", "1"}, false}, // no warm pass
		{[]string{"--aa-scale", "40"}, false},
		{[]string{"extra"}, false},
	} {
		_, err := parseArgs(tc.args, io.Discard)
		if (err == nil) != tc.ok {
			t.Errorf("parseArgs(%q): error %v; want ok %v", tc.args, err, tc.ok)
		}
	}
}

func TestMetric(t *testing.T) {
	out := []byte("Q·A: ... warm: median of 9 products 0.0018 s\n{\"seconds\":0.002,\"seps\":1.5e7}\n")
	if v, err := metric(out, "seconds"); err != nil || v != 0.002 {
		t.Errorf("metric = %v, %v; want 0.002", v, err)
	}
	if _, err := metric(out, "nope"); err == nil {
		t.Error("a missing field gave no error")
	}
	if _, err := metric([]byte("no json\n"), "seps"); err == nil {
		t.Error("output without a JSON summary gave no error")
	}
}

// TestReport: the ratio is a slowdown whichever way the figure points, and
// one over the goal is marked.
func TestReport(t *testing.T) {
	cfg, err := parseArgs(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cases := cfg.cases()
	results := []result{
		{native: []float64{0.002, 0.003, 0.002}, npz: []float64{0.002, 0.002, 0.0021}}, // Q·A: 1.00
		{native: []float64{0.010}, npz: []float64{0.020}},                              // A·A: 2.00
		{native: []float64{30e6}, npz: []float64{15e6}},                                // SEPS halved: 2.00
	}
	text := report(cfg, cases, results, [3]string{"1", "2", "3"}, [3]string{"4", "5", "6"})
	for _, want := range []string{
		"| 2.00 (2.00-3.00) | 2.00 (2.00-2.10) | 1.00 |",
		"| 10.00 (10.00-10.00) | 20.00 (20.00-20.00) | 2.00 (over the goal) |",
		"| 30.00 (30.00-30.00) | 15.00 (15.00-15.00) | 2.00 (over the goal) |",
		"1 2 3 at the start, 4 5 6 at the end",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}
