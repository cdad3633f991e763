package dist

// The in-process backend: p goroutine ranks that share memory. Collectives
// meet at a rendezvous in two steps: every rank deposits its contribution
// and waits for the others, reads what it needs from the deposits, and
// waits again so that no rank reuses its buffers while another still reads
// them. Point-to-point messages are copied into per-(source, destination,
// tag) queues. An abort, or a rank's cancelled context, closes the job:
// every pending and later call of every rank returns an error.
//
// A deposit says which collective the rank is in and with which
// arguments, and every rank checks, between the two waits, that all the
// deposits agree as MPI requires (match). Under MPI ranks in different
// collectives deadlock or read garbage; here they fail at once, so that an
// in-process test cannot pass where the real job would not.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// ErrMismatch is wrapped by the error that every rank of an in-process
// collective returns when its ranks did not make the same call: different
// collectives, element types, operators or roots, or counts that MPI
// requires to agree (the lengths of Bcast and Allreduce, what each rank of
// Allgatherv sends and the others expect, what rank i sends to rank j in
// Alltoallv and what j expects from i). The error names two ranks that
// disagree and what each called, and the job is aborted: every other
// pending and later call returns ErrAborted. The MPI backend does not
// check; there the same bug deadlocks or corrupts data. Where MaxCount
// splits a call into several messages, the counts named are those of the
// message.
var ErrMismatch = errors.New("dist: in-process collective mismatch")

// NewInProcWorld returns the world communicators of an in-process job of p
// ranks, one per rank; run each rank on its own goroutine. It returns an
// error for p < 1 or bad options.
func NewInProcWorld(p int, opt Options) ([]Comm, error) {
	if p < 1 {
		return nil, fmt.Errorf("dist: NewInProcWorld: %d ranks, want >= 1", p)
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	j := &job{aborted: make(chan struct{}), mail: make(map[mailKey]chan []byte)}
	g := j.newGroup(p)
	out := make([]Comm, p)
	for r := range p {
		out[r] = newComm(&inproc{g: g, me: r}, opt)
	}
	return out, nil
}

// job is shared by every communicator of one in-process run.
type job struct {
	once    sync.Once
	aborted chan struct{}
	err     error // why, set before aborted is closed

	mu     sync.Mutex
	groups int
	mail   map[mailKey]chan []byte
}

type mailKey struct{ group, src, dst, tag int }

// mailDepth is the number of messages a queue holds before Send blocks.
const mailDepth = 4096

func (j *job) newGroup(n int) *group {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.groups++
	return &group{job: j, id: j.groups, n: n, release: make(chan struct{}), slots: make([]call, n), here: make([]bool, n),
		splits: make(map[int]map[int]*group)}
}

func (j *job) abort(err error) {
	j.once.Do(func() {
		j.err = err
		close(j.aborted)
	})
}

func (j *job) abortErr() error { return fmt.Errorf("%w: %v", ErrAborted, j.err) }

func (j *job) queue(k mailKey) chan []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	q, ok := j.mail[k]
	if !ok {
		q = make(chan []byte, mailDepth)
		j.mail[k] = q
	}
	return q
}

// group is one communicator, shared by its ranks.
type group struct {
	job *job
	id  int
	n   int

	mu      sync.Mutex
	arrived int
	here    []bool // which ranks arrived at the current wait (missing)
	release chan struct{}
	slots   []call
	splits  map[int]map[int]*group // split sequence number -> color -> group
}

// inproc is one rank's handle on a group.
type inproc struct {
	g        *group
	me       int
	splitSeq int
}

var _ transport = (*inproc)(nil)

func (r *inproc) rank() int { return r.me }
func (r *inproc) size() int { return r.g.n }

// wait blocks until every rank of the group has arrived.
func (r *inproc) wait(ctx context.Context) error {
	g := r.g
	g.mu.Lock()
	ch := g.release
	g.arrived++
	g.here[r.me] = true
	if g.arrived == g.n {
		g.arrived = 0
		clear(g.here)
		g.release = make(chan struct{})
		close(ch)
	}
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-g.job.aborted:
		select {
		case <-ch:
			// Every rank arrived before the abort, which a rank that
			// found a mismatch in this rendezvous may have made: this one
			// must find it too.
			return nil
		default:
		}
		return g.job.abortErr()
	case <-ctx.Done():
		g.job.abort(fmt.Errorf("rank %d: %w", r.me, ctx.Err()))
		return ctx.Err()
	}
}

// callKind is the collective a rank is in.
type callKind uint8

const (
	callBarrier callKind = iota
	callBcast
	callAllreduce
	callAllgatherv
	callAlltoallv
	callSplit
)

var callNames = [...]string{"Barrier", "Bcast", "Allreduce", "Allgatherv", "Alltoallv", "Split"}

// call is one rank's deposit at a rendezvous: the collective, the
// arguments every rank must agree on (zero where they do not apply) and
// the data.
type call struct {
	kind callKind
	t    dtype
	op   Op
	root int
	// buf is Bcast's and Allreduce's buffer, and what this rank sends in
	// Allgatherv and Alltoallv.
	buf []byte
	// counts are Allgatherv's counts of every rank and Alltoallv's send
	// counts, displs Alltoallv's send displacements, rcounts its receive
	// counts.
	counts, displs, rcounts []int
	color, key              int // Split's
}

// elems returns the number of elements of buf.
func (c *call) elems() int { return len(c.buf) / dtypeSize[c.t] }

// String describes the call as the mismatch error shows it, for example
// "Allreduce(float32, sum, 12 elements)".
func (c *call) String() string {
	t := strings.TrimPrefix(c.t.String(), "[]")
	switch c.kind {
	case callBcast:
		return fmt.Sprintf("Bcast(%s, root %d, %s)", t, c.root, elements(c.elems()))
	case callAllreduce:
		return fmt.Sprintf("Allreduce(%s, %v, %s)", t, c.op, elements(c.elems()))
	case callAllgatherv:
		return fmt.Sprintf("Allgatherv(%s, sends %s)", t, elements(c.elems()))
	case callAlltoallv:
		return fmt.Sprintf("Alltoallv(%s, sends %s)", t, elements(c.elems()))
	}
	return callNames[c.kind]
}

// pair describes a v-collective by one count of it: what the rank sends
// to or expects from peer.
func (c *call) pair(verb string, n int, prep string, peer int) string {
	return fmt.Sprintf("%s(%s, %s %s %s rank %d)", callNames[c.kind], strings.TrimPrefix(c.t.String(), "[]"), verb, elements(n), prep, peer)
}

func elements(n int) string {
	if n == 1 {
		return "1 element"
	}
	return fmt.Sprintf("%d elements", n)
}

// mismatch returns the error naming ranks a and b and what each called,
// the lower rank first.
func mismatch(a int, da string, b int, db string) error {
	if b < a {
		a, da, b, db = b, db, a, da
	}
	return fmt.Errorf("%w: rank %d called %s, rank %d called %s", ErrMismatch, a, da, b, db)
}

// match returns nil if every deposit of a rendezvous is the same
// collective with arguments that agree as MPI requires, and otherwise the
// error (ErrMismatch) for the first disagreement found. Every rank checks
// the same deposits in the same order, so all return the same error. It
// costs O(p) per rank, O(p²) for the v-collectives, whose counts are
// checked pair by pair.
func match(s []call) error {
	a := &s[0]
	for q := 1; q < len(s); q++ {
		b := &s[q]
		if b.kind != a.kind || b.t != a.t || b.op != a.op || b.root != a.root {
			return mismatch(0, a.String(), q, b.String())
		}
	}
	switch a.kind {
	case callBcast, callAllreduce:
		for q := 1; q < len(s); q++ {
			if len(s[q].buf) != len(a.buf) {
				return mismatch(0, a.String(), q, s[q].String())
			}
		}
	case callAllgatherv:
		for q := range s {
			for j := range s {
				if n := s[j].elems(); s[q].counts[j] != n {
					return mismatch(q, s[q].pair("expects", s[q].counts[j], "from", j), j, s[j].String())
				}
			}
		}
	case callAlltoallv:
		for i := range s {
			for j := range s {
				if n, m := s[i].counts[j], s[j].rcounts[i]; n != m {
					return mismatch(i, s[i].pair("sends", n, "to", j), j, s[j].pair("expects", m, "from", i))
				}
			}
		}
	}
	return nil
}

// collective deposits c, waits, checks that every rank's deposit matches,
// calls read with every deposit, waits again, then calls after (which may
// modify this rank's buffers). A mismatch aborts the job: every rank of
// the rendezvous finds it and returns it, and no rank waits again.
func (r *inproc) collective(ctx context.Context, c call, read func(slots []call), after func()) error {
	select {
	case <-r.g.job.aborted:
		return r.g.job.abortErr()
	default:
	}
	r.g.slots[r.me] = c
	if err := r.wait(ctx); err != nil {
		return err
	}
	if err := match(r.g.slots); err != nil {
		r.g.job.abort(err)
		return err
	}
	if read != nil {
		read(r.g.slots)
	}
	if err := r.wait(ctx); err != nil {
		return err
	}
	if after != nil {
		after()
	}
	return nil
}

func (r *inproc) barrier(ctx context.Context) error {
	return r.collective(ctx, call{kind: callBarrier}, nil, nil)
}

func (r *inproc) bcast(ctx context.Context, root int, t dtype, buf []byte) error {
	return r.collective(ctx, call{kind: callBcast, t: t, root: root, buf: buf}, func(s []call) {
		if r.me != root {
			copy(buf, s[root].buf)
		}
	}, nil)
}

func (r *inproc) allreduce(ctx context.Context, t dtype, op Op, buf []byte) error {
	tmp := make([]byte, len(buf))
	return r.collective(ctx, call{kind: callAllreduce, t: t, op: op, buf: buf}, func(s []call) {
		copy(tmp, s[0].buf)
		for q := 1; q < len(s); q++ {
			reduceInto(t, op, tmp, s[q].buf)
		}
	}, func() { copy(buf, tmp) })
}

// reduceInto sets acc = op(acc, x) element-wise.
func reduceInto(t dtype, op Op, acc, x []byte) {
	switch t {
	case tInt64:
		reduceTyped(op, castBytes[int64](acc), castBytes[int64](x))
	case tFloat32:
		reduceTyped(op, castBytes[float32](acc), castBytes[float32](x))
	case tFloat64:
		reduceTyped(op, castBytes[float64](acc), castBytes[float64](x))
	}
}

func reduceTyped[T int64 | float32 | float64](op Op, acc, x []T) {
	for i, v := range x {
		if op == OpSum {
			acc[i] += v
		} else if v > acc[i] {
			acc[i] = v
		}
	}
}

func castBytes[T int64 | float32 | float64](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

func (r *inproc) allgatherv(ctx context.Context, t dtype, send, recv []byte, counts, displs []int) error {
	sz := dtypeSize[t]
	return r.collective(ctx, call{kind: callAllgatherv, t: t, buf: send, counts: counts}, func(s []call) {
		for q := range s {
			copy(recv[displs[q]*sz:], s[q].buf)
		}
	}, nil)
}

func (r *inproc) alltoallv(ctx context.Context, t dtype, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	sz := dtypeSize[t]
	c := call{kind: callAlltoallv, t: t, buf: send, counts: scounts, displs: sdispls, rcounts: rcounts}
	return r.collective(ctx, c, func(s []call) {
		for q := range s {
			o := s[q].displs[r.me] * sz
			copy(recv[rdispls[q]*sz:], s[q].buf[o:o+rcounts[q]*sz])
		}
	}, nil)
}

func (r *inproc) exchange(ctx context.Context, t dtype, sends, recvs []message) error {
	j := r.g.job
	for _, m := range sends {
		q := j.queue(mailKey{r.g.id, r.me, m.peer, m.tag})
		select {
		case q <- slices.Clone(m.buf):
		case <-j.aborted:
			return j.abortErr()
		case <-ctx.Done():
			j.abort(fmt.Errorf("rank %d: %w", r.me, ctx.Err()))
			return ctx.Err()
		}
	}
	for _, m := range recvs {
		q := j.queue(mailKey{r.g.id, m.peer, r.me, m.tag})
		select {
		case b := <-q:
			if len(b) != len(m.buf) {
				return fmt.Errorf("message from rank %d tag %d has %d elements, want %d", m.peer, m.tag, len(b)/dtypeSize[t], len(m.buf)/dtypeSize[t])
			}
			copy(m.buf, b)
		case <-j.aborted:
			return j.abortErr()
		case <-ctx.Done():
			j.abort(fmt.Errorf("rank %d: %w", r.me, ctx.Err()))
			return ctx.Err()
		}
	}
	return nil
}

func (r *inproc) split(ctx context.Context, color, key int) (transport, error) {
	seq := r.splitSeq
	r.splitSeq++
	var out *inproc
	err := r.collective(ctx, call{kind: callSplit, color: color, key: key}, func(s []call) {
		var members []int
		for q := range s {
			if s[q].color == color {
				members = append(members, q)
			}
		}
		slices.SortStableFunc(members, func(a, b int) int { return cmp.Compare(s[a].key, s[b].key) })
		g := r.g
		g.mu.Lock()
		byColor := g.splits[seq]
		if byColor == nil {
			byColor = make(map[int]*group)
			g.splits[seq] = byColor
		}
		sub := byColor[color]
		if sub == nil {
			sub = g.job.newGroup(len(members))
			byColor[color] = sub
		}
		g.mu.Unlock()
		out = &inproc{g: sub, me: slices.Index(members, r.me)}
	}, func() {
		r.g.mu.Lock()
		delete(r.g.splits, seq-1) // every rank is past the previous split
		r.g.mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// missing returns the ranks of the group that have not arrived at the
// wait in progress (the stall watchdog names them).
func (r *inproc) missing() []int {
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.arrived == 0 {
		return nil
	}
	var out []int
	for q, ok := range g.here {
		if !ok {
			out = append(out, q)
		}
	}
	return out
}

func (r *inproc) abort(err error) { r.g.job.abort(fmt.Errorf("rank %d of %d: %w", r.me, r.g.n, err)) }

func (r *inproc) close() error { return nil }

// threadMultiple: every communicator of an in-process job may be called
// from its own goroutine (ConcurrentComms).
func (r *inproc) threadMultiple() bool { return true }
