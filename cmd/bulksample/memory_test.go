package main

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestTrainReportsMemory: with -v every epoch line, and every record of
// the JSON's epochs array, give the resident set and the Go heap, the figures of the
// memory soak (scripts/soak.sh).
func TestTrainReportsMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm on this system")
	}
	code, stdout, stderr := runCLI(t, "train", "--data", smallSynthetic, "--fanout", "4,4", "--batch", "256", "--hidden", "8", "--epochs", "2", "--json", "-v")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^epoch \d+/2: .* \| RSS ([0-9.]+) MB, heap ([0-9.]+) MB$`).FindAllStringSubmatch(stdout, -1)
	if len(m) != 2 {
		t.Fatalf("%d epoch lines with memory figures; want 2\n%s", len(m), stdout)
	}
	s := lastJSON[trainSummary](t, stdout)
	if len(s.Epochs) != 2 {
		t.Fatalf("%d epoch records; want 2", len(s.Epochs))
	}
	// The Go heap may exceed the resident set (HeapAlloc counts allocated
	// pages never touched, and loaded graphs live outside the heap), so each
	// figure is checked on its own, and the progress line against the JSON.
	for i, e := range s.Epochs {
		if e.RSSBytes < 1<<20 || e.HeapBytes <= 0 {
			t.Errorf("epoch %d: rss_bytes %d, heap_bytes %d: want a resident set of at least 1 MiB and a positive heap", e.Epoch, e.RSSBytes, e.HeapBytes)
		}
		rss, _ := strconv.ParseFloat(m[i][1], 64)
		heap, _ := strconv.ParseFloat(m[i][2], 64)
		if math.Abs(rss-float64(e.RSSBytes)/1e6) > 0.051 || math.Abs(heap-float64(e.HeapBytes)/1e6) > 0.051 {
			t.Errorf("epoch %d: progress line RSS %v MB, heap %v MB; JSON %d and %d bytes", e.Epoch, rss, heap, e.RSSBytes, e.HeapBytes)
		}
	}
}
