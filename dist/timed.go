package dist

import (
	"context"
	"sync/atomic"
	"time"
)

// CommTimes accumulates, per Phase, the wall time a rank spends inside
// communication calls: the transfer and the wait for the other ranks of
// the collective together (a rank that arrives first at an all-reduce
// waits there for the last). It is safe for concurrent use, so that
// communicators used from several goroutines can share it.
type CommTimes struct {
	ns [NumPhases]atomic.Int64
}

// Seconds returns the time accumulated in each phase.
func (t *CommTimes) Seconds() [NumPhases]float64 {
	var s [NumPhases]float64
	for i := range s {
		s[i] = time.Duration(t.ns[i].Load()).Seconds()
	}
	return s
}

func (t *CommTimes) since(ph Phase, start time.Time) {
	if ph < NumPhases {
		t.ns[ph].Add(int64(time.Since(start)))
	}
}

// NewTimed returns c with the wall time of each of its calls added to t
// under the call's phase. The communicators Split from it are timed into
// t too, so that a Grid built over it times all its traffic. Everything
// else (ranks, counters, Abort, Close) is c's.
func NewTimed(c Comm, t *CommTimes) Comm { return &timedComm{Comm: c, t: t} }

type timedComm struct {
	Comm
	t *CommTimes
}

func (c *timedComm) Barrier(ctx context.Context, ph Phase) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Barrier(ctx, ph)
}

func (c *timedComm) Bcast(ctx context.Context, ph Phase, root int, buf any) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Bcast(ctx, ph, root, buf)
}

func (c *timedComm) Allreduce(ctx context.Context, ph Phase, op Op, buf any) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Allreduce(ctx, ph, op, buf)
}

func (c *timedComm) Allgatherv(ctx context.Context, ph Phase, send, recv any, recvCounts []int) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Allgatherv(ctx, ph, send, recv, recvCounts)
}

func (c *timedComm) Alltoallv(ctx context.Context, ph Phase, send any, sendCounts []int, recv any, recvCounts []int) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Alltoallv(ctx, ph, send, sendCounts, recv, recvCounts)
}

func (c *timedComm) Send(ctx context.Context, ph Phase, dst, tag int, buf any) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Send(ctx, ph, dst, tag, buf)
}

func (c *timedComm) Recv(ctx context.Context, ph Phase, src, tag int, buf any) error {
	defer c.t.since(ph, time.Now())
	return c.Comm.Recv(ctx, ph, src, tag, buf)
}

func (c *timedComm) Split(ctx context.Context, color, key int) (Comm, error) {
	s, err := c.Comm.Split(ctx, color, key)
	if err != nil {
		return nil, err
	}
	return NewTimed(s, c.t), nil
}
