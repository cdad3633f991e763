package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressRate: the progress bar shows no rate after the first
// minibatch (which would be one minibatch over a few microseconds), and from
// the second on the rate of the minibatches after the first.
func TestProgressRate(t *testing.T) {
	var buf bytes.Buffer
	p := newEpochProgress(&buf, 3)
	p.tty = true
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	p.now = func() time.Time { return clock }
	p.minibatch(0, 1, 100)
	if out := buf.String(); strings.Contains(out, "/s") || !strings.Contains(out, "1/100") {
		t.Errorf("first tick %q; want the count and no rate", out)
	}
	clock = t0.Add(500 * time.Millisecond)
	if got, want := p.rate(2, 100), ", 2 minibatches/s, 49s left"; got != want {
		t.Errorf("after 2 of 100 minibatches, the second 0.5 s after the first: %q; want %q", got, want)
	}
	clock = t0.Add(2 * time.Second)
	if got, want := p.rate(11, 100), ", 5 minibatches/s, 18s left"; got != want {
		t.Errorf("after 11 of 100 minibatches in 2 s after the first: %q; want %q", got, want)
	}
}
