package dist

// The shared half of every backend: argument checks, byte counting and the
// splitting of large counts live here once; a backend only implements
// transport, whose calls never see a count or displacement above MaxCount.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// transport is what a backend implements. Counts and displacements are in
// elements of t and at most the comm's MaxCount; buffers are byte views.
type transport interface {
	rank() int
	size() int
	barrier(ctx context.Context) error
	bcast(ctx context.Context, root int, t dtype, buf []byte) error
	allreduce(ctx context.Context, t dtype, op Op, buf []byte) error
	allgatherv(ctx context.Context, t dtype, send, recv []byte, counts, displs []int) error
	alltoallv(ctx context.Context, t dtype, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error
	// exchange posts every send and receive at once and waits for all, so
	// that any set of matching pairs completes without deadlock.
	exchange(ctx context.Context, t dtype, sends, recvs []message) error
	split(ctx context.Context, color, key int) (transport, error)
	abort(err error)
	close() error
}

// message is one point-to-point message of exchange.
type message struct {
	peer, tag int
	buf       []byte
}

// comm implements Comm over a transport.
type comm struct {
	tr       transport
	maxCount int
	opt      Options

	mu     sync.Mutex // guards stats and closed: Stats may be read from another goroutine
	stats  Stats
	closed bool
	// stall is the StallError of a call the watchdog (watch) gave up on.
	stall atomic.Pointer[StallError]
}

// watch starts the stall watchdog of one call (Options.StallTimeout) and
// returns the function that ends it; it does nothing without a timeout.
func (c *comm) watch(call string, ph Phase) func() {
	d := c.opt.StallTimeout
	if d <= 0 {
		return func() {}
	}
	exit := func() {}
	if b, ok := c.tr.(interface{ board() *callBoard }); ok && b.board() != nil {
		exit = b.board().enter(call, ph)
	}
	start := time.Now()
	t := time.AfterFunc(d, func() { c.stalled(call, ph, time.Since(start)) })
	return func() { t.Stop(); exit() }
}

// stalled reports a call that waited past the timeout and aborts the job.
func (c *comm) stalled(call string, ph Phase, waited time.Duration) {
	e := &StallError{Rank: c.Rank(), Size: c.Size(), Call: call, Phase: ph, Waited: waited, Limit: c.opt.StallTimeout}
	if m, ok := c.tr.(interface{ missing() []int }); ok {
		e.Missing = m.missing()
	}
	if p, ok := c.tr.(interface {
		probe(wait time.Duration) (peerReport, bool)
	}); ok {
		var rep peerReport
		if rep, e.Probed = p.probe(probeWait); e.Probed {
			e.Silent, e.Elsewhere = rep.silent, rep.elsewhere(call, ph)
		}
	}
	c.stall.Store(e)
	w := c.opt.StallReport
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "rank %d: %v\n", e.Rank, e)
	c.tr.abort(e)
}

// stallOr returns the StallError of the call the watchdog gave up on, in
// place of err, the error the call ended with, if there is one.
func (c *comm) stallOr(err error) error {
	if s := c.stall.Load(); s != nil && err != nil {
		return s
	}
	return err
}

func newComm(tr transport, opt Options) *comm {
	return &comm{tr: tr, maxCount: opt.maxCount(), opt: opt}
}

// ConcurrentComms reports whether the communicators of c's job may be
// called from several goroutines at the same time, each communicator from
// one goroutine at a time and every rank calling each communicator's
// collectives in the same order: always on in-process ranks, and under MPI
// when MPI_Init_thread granted MPI_THREAD_MULTIPLE (Open MPI 4.1 built with
// thread support, Debian's, does). Two goroutines must never call one
// communicator at the same time on either backend. A Comm of another
// implementation reports false; a timed one (NewTimed) reports what the
// communicator it times does.
func ConcurrentComms(c Comm) bool {
	switch cc := c.(type) {
	case *timedComm:
		return ConcurrentComms(cc.Comm)
	case *comm:
		tm, ok := cc.tr.(interface{ threadMultiple() bool })
		return ok && tm.threadMultiple()
	}
	return false
}

// MaxTag is the largest tag of Send and Recv (MPI guarantees 32767; the
// MPI backend reserves a few tags below the user's).
const MaxTag = 32000

// tags of the messages that carry the parts of large collectives; user
// tags are >= 0.
const (
	tagSplitAlltoallv = -1 - iota
	tagSplitSend
)

func (c *comm) Rank() int { return c.tr.rank() }
func (c *comm) Size() int { return c.tr.size() }

func (c *comm) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *comm) count(ph Phase, bytes, msgs int64) {
	c.mu.Lock()
	c.stats.count(ph, bytes, msgs)
	c.mu.Unlock()
}

func (c *comm) errorf(call string, err error) error {
	return fmt.Errorf("dist: %s on rank %d of %d: %w", call, c.Rank(), c.Size(), c.stallOr(err))
}

func (c *comm) check(ctx context.Context, call string, ph Phase) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return c.errorf(call, errors.New("communicator is closed"))
	}
	if ph >= NumPhases {
		return c.errorf(call, fmt.Errorf("phase %d out of range", ph))
	}
	if err := ctx.Err(); err != nil {
		return c.errorf(call, err)
	}
	return nil
}

func (c *comm) Barrier(ctx context.Context, ph Phase) error {
	if err := c.check(ctx, "Barrier", ph); err != nil {
		return err
	}
	defer c.watch("Barrier", ph)()
	if err := c.tr.barrier(ctx); err != nil {
		return c.errorf("Barrier", err)
	}
	return nil
}

// chunks calls f on consecutive pieces [lo, hi) of n elements, at most
// c.maxCount each; f runs once for n = 0.
func (c *comm) chunks(n int, f func(lo, hi int) error) error {
	if n == 0 {
		return f(0, 0)
	}
	for lo := 0; lo < n; lo += c.maxCount {
		if err := f(lo, min(lo+c.maxCount, n)); err != nil {
			return err
		}
	}
	return nil
}

func (c *comm) rootOK(call string, root int) error {
	if uint(root) >= uint(c.Size()) {
		return c.errorf(call, fmt.Errorf("root %d outside [0, %d)", root, c.Size()))
	}
	return nil
}

func (c *comm) Bcast(ctx context.Context, ph Phase, root int, buf any) error {
	if err := c.check(ctx, "Bcast", ph); err != nil {
		return err
	}
	defer c.watch("Bcast", ph)()
	if err := c.rootOK("Bcast", root); err != nil {
		return err
	}
	b, t, n, err := view(buf)
	if err != nil {
		return c.errorf("Bcast", err)
	}
	sz := dtypeSize[t]
	err = c.chunks(n, func(lo, hi int) error {
		if c.Rank() == root && hi > lo {
			c.count(ph, int64((hi-lo)*sz*(c.Size()-1)), int64(c.Size()-1))
		}
		return c.tr.bcast(ctx, root, t, b[lo*sz:hi*sz])
	})
	if err != nil {
		return c.errorf("Bcast", err)
	}
	return nil
}

func (c *comm) Allreduce(ctx context.Context, ph Phase, op Op, buf any) error {
	if err := c.check(ctx, "Allreduce", ph); err != nil {
		return err
	}
	defer c.watch("Allreduce", ph)()
	b, t, n, err := view(buf)
	if err != nil {
		return c.errorf("Allreduce", err)
	}
	if t != tInt64 && t != tFloat32 && t != tFloat64 {
		return c.errorf("Allreduce", fmt.Errorf("buffer of type %v, want []int64, []float32 or []float64", t))
	}
	if op != OpSum && op != OpMax {
		return c.errorf("Allreduce", fmt.Errorf("operator %v", op))
	}
	sz := dtypeSize[t]
	err = c.chunks(n, func(lo, hi int) error {
		if hi > lo {
			c.count(ph, int64((hi-lo)*sz*(c.Size()-1)), int64(c.Size()-1))
		}
		return c.tr.allreduce(ctx, t, op, b[lo*sz:hi*sz])
	})
	if err != nil {
		return c.errorf("Allreduce", err)
	}
	return nil
}

func (c *comm) Allgatherv(ctx context.Context, ph Phase, send, recv any, recvCounts []int) error {
	if err := c.check(ctx, "Allgatherv", ph); err != nil {
		return err
	}
	defer c.watch("Allgatherv", ph)()
	sb, t, sn, err := view(send)
	if err != nil {
		return c.errorf("Allgatherv", err)
	}
	rb, rt, rn, err := view(recv)
	if err != nil {
		return c.errorf("Allgatherv", err)
	}
	p := c.Size()
	switch {
	case rt != t:
		return c.errorf("Allgatherv", fmt.Errorf("send is %v, recv is %v", t, rt))
	case len(recvCounts) != p:
		return c.errorf("Allgatherv", fmt.Errorf("%d recvCounts for %d ranks", len(recvCounts), p))
	case recvCounts[c.Rank()] != sn:
		return c.errorf("Allgatherv", fmt.Errorf("recvCounts[%d] = %d, but this rank sends %d", c.Rank(), recvCounts[c.Rank()], sn))
	}
	displs, total, err := offsets(recvCounts)
	if err != nil {
		return c.errorf("Allgatherv", fmt.Errorf("recvCounts: %w", err))
	}
	if total != rn {
		return c.errorf("Allgatherv", fmt.Errorf("recv has %d elements, recvCounts sum to %d", rn, total))
	}
	sz := dtypeSize[t]
	if sn > 0 {
		c.count(ph, int64(sn*sz*(p-1)), int64(p-1)*int64((sn+c.maxCount-1)/c.maxCount))
	}
	if total <= c.maxCount {
		if err := c.tr.allgatherv(ctx, t, sb, rb, recvCounts, displs); err != nil {
			return c.errorf("Allgatherv", err)
		}
		return nil
	}
	// Rounds: round j moves elements [j·L, (j+1)·L) of every rank's part,
	// L = MaxCount/p, through packed buffers. Every rank knows every count,
	// so all agree on the number of rounds.
	lim := max(c.maxCount/p, 1)
	most := 0
	for _, n := range recvCounts {
		most = max(most, n)
	}
	cnt, dsp := make([]int, p), make([]int, p)
	tmp := make([]byte, lim*p*sz)
	for lo := 0; lo < most; lo += lim {
		off := 0
		for r, n := range recvCounts {
			cnt[r] = max(0, min(lim, n-lo))
			dsp[r] = off
			off += cnt[r]
		}
		mlo := min(lo, sn)
		if err := c.tr.allgatherv(ctx, t, sb[mlo*sz:(mlo+cnt[c.Rank()])*sz], tmp[:off*sz], cnt, dsp); err != nil {
			return c.errorf("Allgatherv", err)
		}
		for r := range p {
			if cnt[r] > 0 {
				copy(rb[(displs[r]+lo)*sz:], tmp[dsp[r]*sz:(dsp[r]+cnt[r])*sz])
			}
		}
	}
	return nil
}

// offsets returns the exclusive prefix sums of counts and their total.
func offsets(counts []int) ([]int, int, error) {
	d := make([]int, len(counts))
	s := 0
	for i, n := range counts {
		if n < 0 {
			return nil, 0, fmt.Errorf("count[%d] = %d < 0", i, n)
		}
		d[i] = s
		s += n
	}
	return d, s, nil
}

func (c *comm) Alltoallv(ctx context.Context, ph Phase, send any, sendCounts []int, recv any, recvCounts []int) error {
	if err := c.check(ctx, "Alltoallv", ph); err != nil {
		return err
	}
	defer c.watch("Alltoallv", ph)()
	sb, t, sn, err := view(send)
	if err != nil {
		return c.errorf("Alltoallv", err)
	}
	rb, rt, rn, err := view(recv)
	if err != nil {
		return c.errorf("Alltoallv", err)
	}
	p, me := c.Size(), c.Rank()
	if rt != t {
		return c.errorf("Alltoallv", fmt.Errorf("send is %v, recv is %v", t, rt))
	}
	if len(sendCounts) != p || len(recvCounts) != p {
		return c.errorf("Alltoallv", fmt.Errorf("%d sendCounts and %d recvCounts for %d ranks", len(sendCounts), len(recvCounts), p))
	}
	sdispls, stotal, err := offsets(sendCounts)
	if err != nil {
		return c.errorf("Alltoallv", fmt.Errorf("sendCounts: %w", err))
	}
	rdispls, rtotal, err := offsets(recvCounts)
	if err != nil {
		return c.errorf("Alltoallv", fmt.Errorf("recvCounts: %w", err))
	}
	if stotal != sn || rtotal != rn {
		return c.errorf("Alltoallv", fmt.Errorf("send has %d and recv %d elements, counts sum to %d and %d", sn, rn, stotal, rtotal))
	}
	sz := dtypeSize[t]
	// Every pair moves its first L = MaxCount/p elements in the collective
	// and the rest in point-to-point messages of at most MaxCount: the
	// split depends only on the pair's own count, which both ends know.
	lim := max(c.maxCount/p, 1)
	var bytes, msgs int64
	for d, n := range sendCounts {
		if d != me && n > 0 {
			bytes += int64(n * sz)
			msgs += 1 + int64((max(n-lim, 0)+c.maxCount-1)/c.maxCount)
		}
	}
	c.count(ph, bytes, msgs)
	fits := stotal <= lim*p && rtotal <= lim*p
	for r := range p {
		fits = fits && sendCounts[r] <= lim && recvCounts[r] <= lim
	}
	if fits {
		if err := c.tr.alltoallv(ctx, t, sb, sendCounts, sdispls, rb, recvCounts, rdispls); err != nil {
			return c.errorf("Alltoallv", err)
		}
		return nil
	}
	scnt, sdsp, rcnt, rdsp := make([]int, p), make([]int, p), make([]int, p), make([]int, p)
	so, ro := 0, 0
	for r := range p {
		scnt[r], rcnt[r] = min(sendCounts[r], lim), min(recvCounts[r], lim)
		sdsp[r], rdsp[r] = so, ro
		so += scnt[r]
		ro += rcnt[r]
	}
	stmp, rtmp := make([]byte, so*sz), make([]byte, ro*sz)
	for r := range p {
		copy(stmp[sdsp[r]*sz:], sb[sdispls[r]*sz:(sdispls[r]+scnt[r])*sz])
	}
	if err := c.tr.alltoallv(ctx, t, stmp, scnt, sdsp, rtmp, rcnt, rdsp); err != nil {
		return c.errorf("Alltoallv", err)
	}
	for r := range p {
		copy(rb[rdispls[r]*sz:], rtmp[rdsp[r]*sz:(rdsp[r]+rcnt[r])*sz])
	}
	var sends, recvs []message
	for r := range p {
		for lo := lim; lo < sendCounts[r]; lo += c.maxCount {
			hi := min(lo+c.maxCount, sendCounts[r])
			sends = append(sends, message{r, tagSplitAlltoallv, sb[(sdispls[r]+lo)*sz : (sdispls[r]+hi)*sz]})
		}
		for lo := lim; lo < recvCounts[r]; lo += c.maxCount {
			hi := min(lo+c.maxCount, recvCounts[r])
			recvs = append(recvs, message{r, tagSplitAlltoallv, rb[(rdispls[r]+lo)*sz : (rdispls[r]+hi)*sz]})
		}
	}
	if len(sends)+len(recvs) > 0 {
		if err := c.tr.exchange(ctx, t, sends, recvs); err != nil {
			return c.errorf("Alltoallv", err)
		}
	}
	return nil
}

func (c *comm) peerOK(call string, peer, tag int) error {
	if uint(peer) >= uint(c.Size()) {
		return c.errorf(call, fmt.Errorf("rank %d outside [0, %d)", peer, c.Size()))
	}
	if tag < 0 || tag > MaxTag {
		return c.errorf(call, fmt.Errorf("tag %d outside [0, %d]", tag, MaxTag))
	}
	return nil
}

func (c *comm) Send(ctx context.Context, ph Phase, dst, tag int, buf any) error {
	if err := c.check(ctx, "Send", ph); err != nil {
		return err
	}
	defer c.watch("Send", ph)()
	if err := c.peerOK("Send", dst, tag); err != nil {
		return err
	}
	b, t, n, err := view(buf)
	if err != nil {
		return c.errorf("Send", err)
	}
	return c.p2p(ctx, ph, "Send", dst, tag, t, b, n, true)
}

func (c *comm) Recv(ctx context.Context, ph Phase, src, tag int, buf any) error {
	if err := c.check(ctx, "Recv", ph); err != nil {
		return err
	}
	defer c.watch("Recv", ph)()
	if err := c.peerOK("Recv", src, tag); err != nil {
		return err
	}
	b, t, n, err := view(buf)
	if err != nil {
		return c.errorf("Recv", err)
	}
	return c.p2p(ctx, ph, "Recv", src, tag, t, b, n, false)
}

// p2p sends or receives n elements in messages of at most MaxCount (one
// empty message when n = 0, so that a Recv of nothing still matches).
func (c *comm) p2p(ctx context.Context, ph Phase, call string, peer, tag int, t dtype, b []byte, n int, send bool) error {
	sz := dtypeSize[t]
	var ms []message
	_ = c.chunks(n, func(lo, hi int) error {
		ms = append(ms, message{peer, tag, b[lo*sz : hi*sz]})
		return nil
	})
	var err error
	if send {
		if peer != c.Rank() {
			c.count(ph, int64(n*sz), int64(len(ms)))
		}
		err = c.tr.exchange(ctx, t, ms, nil)
	} else {
		err = c.tr.exchange(ctx, t, nil, ms)
	}
	if err != nil {
		return c.errorf(call, err)
	}
	return nil
}

func (c *comm) Split(ctx context.Context, color, key int) (Comm, error) {
	if err := c.check(ctx, "Split", PhaseControl); err != nil {
		return nil, err
	}
	defer c.watch("Split", PhaseControl)()
	if color < 0 {
		return nil, c.errorf("Split", fmt.Errorf("color %d < 0", color))
	}
	tr, err := c.tr.split(ctx, color, key)
	if err != nil {
		return nil, c.errorf("Split", err)
	}
	return newComm(tr, c.opt), nil
}

func (c *comm) Abort(err error) { c.tr.abort(err) }

func (c *comm) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if err := c.tr.close(); err != nil {
		return fmt.Errorf("dist: Close on rank %d: %w", c.Rank(), err)
	}
	return nil
}
