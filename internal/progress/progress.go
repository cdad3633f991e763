package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Terminal reports whether w is a terminal (an *os.File whose descriptor
// is a terminal device).
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// redraw is the most often a bar redraws: more often cannot be read and
// costs the terminal's time.
const redraw = 200 * time.Millisecond

// Bar is one line of progress on a writer. Its methods are safe for
// concurrent use, and do nothing on a nil *Bar.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	desc  string
	total int64
	done  int64
	start time.Time
	drawn time.Time // when the line was last drawn
	width int       // columns of the line
	shown bool      // the line holds a bar
	stop  chan struct{}
	ended bool
	now   func() time.Time
}

// Start returns a bar on w, described by desc, for work of total units
// (total <= 0: unknown; the bar then shows the elapsed time, redrawn every
// second by a goroutine of its own until Finish). It returns nil when w is
// nil.
func Start(w io.Writer, desc string, total int64) *Bar {
	return start(w, desc, total, time.Now, true)
}

func start(w io.Writer, desc string, total int64, now func() time.Time, tick bool) *Bar {
	if w == nil {
		return nil
	}
	b := &Bar{w: w, desc: desc, total: total, start: now(), width: 80, now: now}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			b.width = cols - 1
		}
	}
	b.draw(true)
	if total <= 0 && tick {
		b.stop = make(chan struct{})
		go b.tick()
	}
	return b
}

func (b *Bar) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.mu.Lock()
			b.draw(true)
			b.mu.Unlock()
		}
	}
}

// Set records that n units of the work are done.
func (b *Bar) Set(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = n
	b.draw(n >= b.total && b.total > 0)
}

// Describe replaces the bar's description.
func (b *Bar) Describe(desc string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.desc = desc
	b.draw(false)
}

// Finish clears the bar's line and stops its redrawing; the bar draws
// nothing afterwards.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return
	}
	b.ended = true
	if b.stop != nil {
		close(b.stop)
	}
	if b.shown {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.shown = false
	}
}

// draw redraws the line, at most every redraw unless force. b.mu is held.
func (b *Bar) draw(force bool) {
	now := b.now()
	if b.ended || !force && b.shown && now.Sub(b.drawn) < redraw {
		return
	}
	b.drawn, b.shown = now, true
	fmt.Fprint(b.w, "\r"+b.line(now)+"\x1b[K")
}

// line is the bar's text at now, at most b.width columns.
func (b *Bar) line(now time.Time) string {
	el := now.Sub(b.start)
	if b.total <= 0 {
		return clip(fmt.Sprintf("%s ... %s", b.desc, clock(el)), b.width)
	}
	done := min(max(b.done, 0), b.total)
	tail := fmt.Sprintf(" %d/%d %s", done, b.total, clock(el))
	if done > 0 && done < b.total && el > 0 {
		left := time.Duration(float64(el) * float64(b.total-done) / float64(done))
		tail += ", " + clock(left) + " left"
	}
	room := b.width - len([]rune(b.desc)) - len(tail) - 3
	if room < 10 {
		return clip(b.desc+tail, b.width)
	}
	fill := int(int64(room) * done / b.total)
	return b.desc + " [" + strings.Repeat("=", fill) + strings.Repeat(" ", room-fill) + "]" + tail
}

// clock formats d as m:ss (h:mm:ss from an hour).
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
