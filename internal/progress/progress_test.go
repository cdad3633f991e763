package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock that the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestBarLines: a counted bar draws its count, the elapsed and the left
// time, redraws at most every 200 ms (the last unit always), and Finish
// clears the line; a bar of unknown size draws the elapsed time; a nil bar
// does nothing.
func TestBarLines(t *testing.T) {
	var w bytes.Buffer
	c := &fakeClock{t: time.Unix(1000, 0)}
	b := start(&w, "epoch 1/3", 10, c.now, false)
	if !strings.Contains(w.String(), "epoch 1/3 [") || !strings.Contains(w.String(), " 0/10 0:00") {
		t.Errorf("first draw %q", w.String())
	}
	w.Reset()
	c.t = c.t.Add(100 * time.Millisecond)
	b.Set(1)
	if w.Len() != 0 {
		t.Errorf("redrawn after 100 ms: %q", w.String())
	}
	c.t = c.t.Add(4 * time.Second)
	b.Set(4)
	if got := w.String(); !strings.Contains(got, " 4/10 0:04, 0:06 left") || !strings.HasPrefix(got, "\r") || !strings.HasSuffix(got, "\x1b[K") {
		t.Errorf("draw at 4 of 10 after 4.1 s: %q", got)
	}
	w.Reset()
	b.Set(10)
	if !strings.Contains(w.String(), " 10/10 ") {
		t.Errorf("the last unit was not drawn: %q", w.String())
	}
	w.Reset()
	b.Finish()
	b.Finish()
	b.Set(3)
	if w.String() != "\r\x1b[K" {
		t.Errorf("Finish wrote %q; want one clearing of the line", w.String())
	}
	w.Reset()
	u := start(&w, "loading g.bsn", 0, c.now, false)
	c.t = c.t.Add(75 * time.Second)
	u.Describe("loading g.bsn (native)")
	if got := w.String(); !strings.Contains(got, "loading g.bsn (native) ... 1:15") {
		t.Errorf("unknown size: %q", got)
	}
	u.Finish()
	var nilBar *Bar
	nilBar.Set(1)
	nilBar.Describe("x")
	nilBar.Finish()
	if Start(nil, "x", 1) != nil {
		t.Error("Start(nil) returned a bar")
	}
}

// TestBarTicks: a bar of unknown size redraws itself while the work
// blocks, and stops when finished.
func TestBarTicks(t *testing.T) {
	var w syncBuffer
	b := Start(&w, "work", 0)
	time.Sleep(3 * time.Second)
	b.Finish()
	n := strings.Count(w.String(), "\r")
	if n < 3 { // the first draw, a tick (of about three), the clearing
		t.Errorf("%d draws in 3 s; want at least 3", n)
	}
	time.Sleep(1100 * time.Millisecond)
	if m := strings.Count(w.String(), "\r"); m != n {
		t.Errorf("drawn after Finish: %d draws, then %d", n, m)
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0:00", 61 * time.Second: "1:01", 3723 * time.Second: "1:02:03"} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q; want %q", d, got, want)
		}
	}
}
