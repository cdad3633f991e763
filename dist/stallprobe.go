package dist

// What a stall report says of the other ranks under MPI, where a rank
// cannot see which of the others came to a collective (in-process it can:
// the ranks that never came, StallError.Missing). Every process of an MPI
// job with a stall timeout answers, from a goroutine of its own, the query
// of a rank whose collective stalled with what it is doing (callBoard's
// describe): the collective it waits in and for how long, or that it
// works outside any. The stalled rank asks every other one and names those
// that do not answer within probeWait (stopped by SIGSTOP, hung, their
// node lost) and those that are elsewhere than in its own collective.

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// probeWait is how long a stalled rank waits for the others' answers. The
// answering goroutine looks for queries every probePoll.
const (
	probeWait = time.Second
	probePoll = 50 * time.Millisecond
)

// callBoard records the calls of a communicator (and of those split from
// it) that this process is in, for the answer to a stall query.
type callBoard struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]boardCall
	last  boardCall // the last call that ended; since is its end
}

type boardCall struct {
	call  string
	ph    Phase
	since time.Time
}

// enter records that the process entered call of phase ph and returns the
// function that records its end.
func (b *callBoard) enter(call string, ph Phase) func() {
	b.mu.Lock()
	if b.calls == nil {
		b.calls = map[uint64]boardCall{}
	}
	id := b.next
	b.next++
	b.calls[id] = boardCall{call, ph, time.Now()}
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.calls, id)
		b.last = boardCall{call, ph, time.Now()}
		b.mu.Unlock()
	}
}

// describe says what the process is doing: "in Allreduce (phase
// gradients) for 21.3s", with the count of other calls in progress at
// once, or "in no collective for 25s since Allreduce (phase gradients)".
func (b *callBoard) describe(now time.Time) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.calls) > 0 {
		var oldest boardCall
		for _, c := range b.calls {
			if oldest.since.IsZero() || c.since.Before(oldest.since) {
				oldest = c
			}
		}
		s := fmt.Sprintf("in %s for %v", callName(oldest.call, oldest.ph), now.Sub(oldest.since).Round(100*time.Millisecond))
		if n := len(b.calls) - 1; n > 0 {
			s += fmt.Sprintf(" (and %d other call%s)", n, plural(n))
		}
		return s
	}
	if b.last.call == "" {
		return "in no collective yet"
	}
	return fmt.Sprintf("in no collective for %v since %s", now.Sub(b.last.since).Round(100*time.Millisecond), callName(b.last.call, b.last.ph))
}

// callName names a call and its phase as describe and the stall report do.
func callName(call string, ph Phase) string { return fmt.Sprintf("%s (phase %v)", call, ph) }

// peerReport is what a stall query learnt of the other ranks of the job:
// the ranks that did not answer, and what each one that did said.
type peerReport struct {
	silent  []int
	answers map[int]string
}

// elsewhere lists, as "rank R: what", the ranks that answered with
// something else than waiting in call of phase ph too.
func (p peerReport) elsewhere(call string, ph Phase) []string {
	same := "in " + callName(call, ph) + " "
	var ranks []int
	for r, a := range p.answers {
		if !strings.HasPrefix(a, same) {
			ranks = append(ranks, r)
		}
	}
	sort.Ints(ranks)
	out := make([]string, len(ranks))
	for i, r := range ranks {
		out[i] = fmt.Sprintf("rank %d: %s", r, p.answers[r])
	}
	return out
}
