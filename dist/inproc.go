package dist

// The in-process backend: p goroutine ranks that share memory. Collectives
// meet at a rendezvous in two steps: every rank deposits its contribution
// and waits for the others, reads what it needs from the deposits, and
// waits again so that no rank reuses its buffers while another still reads
// them. Point-to-point messages are copied into per-(source, destination,
// tag) queues. An abort, or a rank's cancelled context, closes the job:
// every pending and later call of every rank returns an error.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"unsafe"
)

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
	return &group{job: j, id: j.groups, n: n, release: make(chan struct{}), slots: make([]any, n), splits: make(map[int]map[int]*group)}
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
	release chan struct{}
	slots   []any
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
	if g.arrived == g.n {
		g.arrived = 0
		g.release = make(chan struct{})
		close(ch)
	}
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-g.job.aborted:
		return g.job.abortErr()
	case <-ctx.Done():
		g.job.abort(fmt.Errorf("rank %d: %w", r.me, ctx.Err()))
		return ctx.Err()
	}
}

// collective deposits contrib, waits, calls read with every deposit, waits
// again, then calls after (which may modify this rank's buffers).
func (r *inproc) collective(ctx context.Context, contrib any, read func(slots []any) error, after func()) error {
	select {
	case <-r.g.job.aborted:
		return r.g.job.abortErr()
	default:
	}
	r.g.slots[r.me] = contrib
	if err := r.wait(ctx); err != nil {
		return err
	}
	var rerr error
	if read != nil {
		rerr = read(r.g.slots)
	}
	if err := r.wait(ctx); err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	if after != nil {
		after()
	}
	return nil
}

func (r *inproc) barrier(ctx context.Context) error { return r.collective(ctx, nil, nil, nil) }

func (r *inproc) bcast(ctx context.Context, root int, t dtype, buf []byte) error {
	return r.collective(ctx, buf, func(s []any) error {
		src := s[root].([]byte)
		if len(src) != len(buf) {
			return fmt.Errorf("root %d broadcasts %d elements, rank %d expects %d", root, len(src)/dtypeSize[t], r.me, len(buf)/dtypeSize[t])
		}
		if r.me != root {
			copy(buf, src)
		}
		return nil
	}, nil)
}

func (r *inproc) allreduce(ctx context.Context, t dtype, op Op, buf []byte) error {
	tmp := make([]byte, len(buf))
	return r.collective(ctx, buf, func(s []any) error {
		for q := range s {
			if len(s[q].([]byte)) != len(buf) {
				return fmt.Errorf("rank %d reduces %d elements, rank %d %d", q, len(s[q].([]byte))/dtypeSize[t], r.me, len(buf)/dtypeSize[t])
			}
		}
		copy(tmp, s[0].([]byte))
		for q := 1; q < len(s); q++ {
			reduceInto(t, op, tmp, s[q].([]byte))
		}
		return nil
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
	return r.collective(ctx, send, func(s []any) error {
		for q := range s {
			b := s[q].([]byte)
			if len(b) != counts[q]*sz {
				return fmt.Errorf("rank %d sends %d elements, rank %d expects %d", q, len(b)/sz, r.me, counts[q])
			}
			copy(recv[displs[q]*sz:], b)
		}
		return nil
	}, nil)
}

type a2aDeposit struct {
	buf            []byte
	counts, displs []int
}

func (r *inproc) alltoallv(ctx context.Context, t dtype, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	sz := dtypeSize[t]
	return r.collective(ctx, a2aDeposit{send, scounts, sdispls}, func(s []any) error {
		for q := range s {
			d := s[q].(a2aDeposit)
			if d.counts[r.me] != rcounts[q] {
				return fmt.Errorf("rank %d sends %d elements to rank %d, which expects %d", q, d.counts[r.me], r.me, rcounts[q])
			}
			o := d.displs[r.me] * sz
			copy(recv[rdispls[q]*sz:], d.buf[o:o+rcounts[q]*sz])
		}
		return nil
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
	err := r.collective(ctx, [2]int{color, key}, func(s []any) error {
		var members []int
		for q := range s {
			if s[q].([2]int)[0] == color {
				members = append(members, q)
			}
		}
		slices.SortStableFunc(members, func(a, b int) int { return cmp.Compare(s[a].([2]int)[1], s[b].([2]int)[1]) })
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
		return nil
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

func (r *inproc) abort(err error) { r.g.job.abort(fmt.Errorf("rank %d of %d: %w", r.me, r.g.n, err)) }

func (r *inproc) close() error { return nil }

// threadMultiple: every communicator of an in-process job may be called
// from its own goroutine (ConcurrentComms).
func (r *inproc) threadMultiple() bool { return true }
