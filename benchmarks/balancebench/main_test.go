package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBalanceBench runs the benchmark on a small graph: a table row per
// labelling and block count, the heaviest-first labelling far out of
// balance and the degree relabelling within a few percent of the mean.
func TestBalanceBench(t *testing.T) {
	out := filepath.Join(t.TempDir(), "balance.md")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--scale", "11", "--seeds", "2048", "--bulk", "8", "--batch", "256", "--blocks", "2,4", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (as generated|heaviest first|--relabel random|--relabel degree) \| (\d+) \| ([0-9.]+) / ([0-9.]+) \|`)
	rows := row.FindAllStringSubmatch(string(text), -1)
	if len(rows) != 8 {
		t.Fatalf("%d table rows; want 4 labellings x 2 block counts\n%s", len(rows), text)
	}
	for _, r := range rows {
		most, _ := strconv.ParseFloat(r[3], 64)
		switch {
		case r[1] == "heaviest first" && most < 1.5:
			t.Errorf("heaviest first, B = %s: stored max/mean %g; want far out of balance", r[2], most)
		case r[1] == "--relabel degree" && most > 1.05:
			t.Errorf("--relabel degree, B = %s: stored max/mean %g; want within 5%%", r[2], most)
		}
	}
	if !strings.Contains(stdout.String(), "Command: `go run ./benchmarks/balancebench --scale 11") {
		t.Errorf("the report does not give its command:\n%s", stdout.String())
	}
}
