package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestTrainReportsMemory: every epoch line and every record of the JSON's
// epochs array give the resident set and the Go heap, the figures of the
// memory soak (scripts/soak.sh).
func TestTrainReportsMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm on this system")
	}
	code, stdout, stderr := runCLI(t, "train", "--data", smallSynthetic, "--fanout", "4,4", "--batch", "256", "--hidden", "8", "--epochs", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^epoch \d+/2: .* \| RSS ([0-9.]+) MB, heap ([0-9.]+) MB$`).FindAllStringSubmatch(stdout, -1)
	if len(m) != 2 {
		t.Fatalf("%d epoch lines with memory figures; want 2\n%s", len(m), stdout)
	}
	for _, l := range m {
		rss, _ := strconv.ParseFloat(l[1], 64)
		heap, _ := strconv.ParseFloat(l[2], 64)
		if rss < 1 || heap <= 0 || heap > rss {
			t.Errorf("RSS %v MB, heap %v MB: want a resident set above the heap", rss, heap)
		}
	}
	s := lastJSON[trainSummary](t, stdout)
	if len(s.Epochs) != 2 {
		t.Fatalf("%d epoch records; want 2", len(s.Epochs))
	}
	for _, e := range s.Epochs {
		if e.RSSBytes < 1<<20 || e.HeapBytes <= 0 || e.HeapBytes > e.RSSBytes {
			t.Errorf("epoch %d: rss_bytes %d, heap_bytes %d: want a resident set above the heap", e.Epoch, e.RSSBytes, e.HeapBytes)
		}
	}
}
