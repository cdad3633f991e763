package commtest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
)

// Run checks the ranks of one communicator. In-process, ranks holds every
// rank of the world and each runs on its own goroutine; under MPI it holds
// the one rank of this process, and every process runs Run. maxCount is the
// MaxCount the communicator was built with (0: the default); the checks of
// split messages use counts above it, so build one world with a small
// MaxCount (say 5) to exercise splitting.
func Run(t *testing.T, ranks []dist.Comm, maxCount int) {
	t.Helper()
	if maxCount == 0 {
		maxCount = dist.DefaultMaxCount
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			for _, c := range ranks {
				wg.Go(func() {
					if err := ck.run(ctx, c, maxCount); err != nil {
						err = fmt.Errorf("rank %d of %d: %s: %w", c.Rank(), c.Size(), ck.name, err)
						t.Error(err)
						// The other ranks may wait in a collective: end the
						// job (under MPI this exits, so say why first).
						fmt.Fprintln(os.Stderr, err)
						c.Abort(err)
					}
				})
			}
			wg.Wait()
		})
		if t.Failed() {
			return // an aborted job cannot run more checks
		}
	}
}

type check struct {
	name string
	run  func(ctx context.Context, c dist.Comm, maxCount int) error
}

var checks = []check{
	{"RankSize", checkRankSize},
	{"Barrier", func(ctx context.Context, c dist.Comm, _ int) error { return c.Barrier(ctx, dist.PhaseControl) }},
	{"Bcast", checkBcast},
	{"Allreduce", checkAllreduce},
	{"Allgatherv", checkAllgatherv},
	{"Alltoallv", checkAlltoallv},
	{"Exchange", checkExchange},
	{"SendRecv", checkSendRecv},
	{"Split", checkSplit},
	{"Counters", checkCounters},
	{"BadArguments", checkBadArguments},
	{"Close", checkCloseTwice},
}

func checkRankSize(ctx context.Context, c dist.Comm, _ int) error {
	all := make([]int64, c.Size())
	all[c.Rank()] = int64(c.Rank()) + 1
	if err := c.Allreduce(ctx, dist.PhaseControl, dist.OpSum, all); err != nil {
		return err
	}
	for r, v := range all {
		if v != int64(r)+1 {
			return fmt.Errorf("slot %d = %d after every rank set its own: ranks are not 0..%d", r, v, c.Size()-1)
		}
	}
	return nil
}

// sizes used for buffers: empty, small, and above maxCount when it is small.
func sizes(maxCount int) []int {
	s := []int{0, 1, 7}
	if maxCount < 100 {
		s = append(s, 3*maxCount+2)
	}
	return s
}

func checkBcast(ctx context.Context, c dist.Comm, maxCount int) error {
	for _, n := range sizes(maxCount) {
		for root := range c.Size() {
			b := make([]float64, n)
			if c.Rank() == root {
				for i := range b {
					b[i] = float64(root*1000 + i)
				}
			}
			if err := c.Bcast(ctx, dist.PhaseControl, root, b); err != nil {
				return err
			}
			for i, v := range b {
				if v != float64(root*1000+i) {
					return fmt.Errorf("dist.Bcast n=%d root %d: element %d = %v; want %v", n, root, i, v, root*1000+i)
				}
			}
			bb := make([]byte, n)
			if c.Rank() == root {
				for i := range bb {
					bb[i] = byte(root + i)
				}
			}
			if err := c.Bcast(ctx, dist.PhaseControl, root, bb); err != nil {
				return err
			}
			for i, v := range bb {
				if v != byte(root+i) {
					return fmt.Errorf("dist.Bcast []byte n=%d root %d: element %d = %d; want %d", n, root, i, v, byte(root+i))
				}
			}
		}
	}
	return nil
}

// val is the value rank r contributes at position i: small integers, so
// that float sums are exact in any order.
func val(r, i int) int64 { return int64((r*7+i*3)%11) - 5 }

func checkAllreduce(ctx context.Context, c dist.Comm, maxCount int) error {
	p, me := c.Size(), c.Rank()
	for _, n := range sizes(maxCount) {
		for _, op := range []dist.Op{dist.OpSum, dist.OpMax} {
			want := make([]int64, n)
			for i := range want {
				for r := range p {
					v := val(r, i)
					if r == 0 || (op == dist.OpSum) {
						if r == 0 {
							want[i] = v
						} else {
							want[i] += v
						}
					} else {
						want[i] = max(want[i], v)
					}
				}
			}
			i64 := make([]int64, n)
			f32 := make([]float32, n)
			f64 := make([]float64, n)
			for i := range n {
				i64[i], f32[i], f64[i] = val(me, i), float32(val(me, i)), float64(val(me, i))
			}
			for _, buf := range []any{i64, f32, f64} {
				if err := c.Allreduce(ctx, dist.PhaseGradients, op, buf); err != nil {
					return err
				}
			}
			for i := range n {
				if i64[i] != want[i] || f32[i] != float32(want[i]) || f64[i] != float64(want[i]) {
					return fmt.Errorf("dist.Allreduce %v n=%d: element %d = %d, %v, %v; want %d", op, n, i, i64[i], f32[i], f64[i], want[i])
				}
			}
		}
	}
	return nil
}

// gatherLen is the number of elements rank r contributes: one rank
// contributes nothing, and the largest part exceeds maxCount when it is
// small.
func gatherLen(r, maxCount int) int {
	if r == 1 {
		return 0
	}
	if maxCount < 100 && r == 0 {
		return 2*maxCount + 3
	}
	return r + 2
}

func checkAllgatherv(ctx context.Context, c dist.Comm, maxCount int) error {
	p := c.Size()
	counts := make([]int, p)
	total := 0
	for r := range p {
		counts[r] = gatherLen(r, maxCount)
		total += counts[r]
	}
	send := make([]int32, counts[c.Rank()])
	for i := range send {
		send[i] = int32(c.Rank()*100000 + i)
	}
	recv := make([]int32, total)
	if err := c.Allgatherv(ctx, dist.PhaseFeatures, send, recv, counts); err != nil {
		return err
	}
	o := 0
	for r := range p {
		for i := range counts[r] {
			if recv[o] != int32(r*100000+i) {
				return fmt.Errorf("dist.Allgatherv: element %d of rank %d's part = %d; want %d", i, r, recv[o], r*100000+i)
			}
			o++
		}
	}
	got, gc, err := dist.Allgather(ctx, c, dist.PhaseFeatures, send)
	if err != nil {
		return err
	}
	if !slices.Equal(got, recv) || !slices.Equal(gc, counts) {
		return fmt.Errorf("dist.Allgather differs from Allgatherv")
	}
	return nil
}

// pairLen is the number of elements rank s sends to rank d: zero for some
// pairs (self included for some ranks), above maxCount for one pair when
// maxCount is small.
func pairLen(s, d, maxCount int) int {
	if (s+2*d)%3 == 0 {
		return 0
	}
	if maxCount < 100 && s == 0 && d == 1 {
		return 4*maxCount + 1
	}
	return (s*5+d)%4 + 1
}

func pairVal(s, d, i int) int64 { return int64(s)<<40 | int64(d)<<20 | int64(i) }

func checkAlltoallv(ctx context.Context, c dist.Comm, maxCount int) error {
	p, me := c.Size(), c.Rank()
	sc, rc := make([]int, p), make([]int, p)
	var send []int64
	for d := range p {
		sc[d] = pairLen(me, d, maxCount)
		rc[d] = pairLen(d, me, maxCount)
		for i := range sc[d] {
			send = append(send, pairVal(me, d, i))
		}
	}
	total := 0
	for _, n := range rc {
		total += n
	}
	recv := make([]int64, total)
	if err := c.Alltoallv(ctx, dist.PhaseSample, send, sc, recv, rc); err != nil {
		return err
	}
	o := 0
	for s := range p {
		for i := range rc[s] {
			if recv[o] != pairVal(s, me, i) {
				return fmt.Errorf("dist.Alltoallv: element %d from rank %d = %#x; want %#x", i, s, recv[o], pairVal(s, me, i))
			}
			o++
		}
	}
	return nil
}

func checkExchange(ctx context.Context, c dist.Comm, maxCount int) error {
	p, me := c.Size(), c.Rank()
	sc := make([]int, p)
	var send []float32
	for d := range p {
		sc[d] = pairLen(me, d, maxCount)
		for i := range sc[d] {
			send = append(send, float32(me*1000+d*10+i%10))
		}
	}
	recv, rc, err := dist.Exchange(ctx, c, dist.PhaseSample, send, sc)
	if err != nil {
		return err
	}
	o := 0
	for s := range p {
		if rc[s] != pairLen(s, me, maxCount) {
			return fmt.Errorf("dist.Exchange: count from rank %d = %d; want %d", s, rc[s], pairLen(s, me, maxCount))
		}
		for i := range rc[s] {
			if want := float32(s*1000 + me*10 + i%10); recv[o] != want {
				return fmt.Errorf("dist.Exchange: element %d from rank %d = %v; want %v", i, s, recv[o], want)
			}
			o++
		}
	}
	if o != len(recv) {
		return fmt.Errorf("dist.Exchange: %d elements received, counts sum to %d", len(recv), o)
	}
	return nil
}

func checkSendRecv(ctx context.Context, c dist.Comm, maxCount int) error {
	p, me := c.Size(), c.Rank()
	if p == 1 {
		return nil // a ring of one rank would send to itself with blocking calls
	}
	for _, n := range sizes(maxCount) {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(me*1000 + i)
		}
		in := make([]int64, n)
		to, from := (me+1)%p, (me+p-1)%p
		// Even ranks send first, odd ranks receive first: no cycle of
		// blocked sends whatever the backend buffers.
		if me%2 == 0 {
			if err := c.Send(ctx, dist.PhaseControl, to, 7, out); err != nil {
				return err
			}
			if err := c.Recv(ctx, dist.PhaseControl, from, 7, in); err != nil {
				return err
			}
		} else {
			if err := c.Recv(ctx, dist.PhaseControl, from, 7, in); err != nil {
				return err
			}
			if err := c.Send(ctx, dist.PhaseControl, to, 7, out); err != nil {
				return err
			}
		}
		for i, v := range in {
			if v != int64(from*1000+i) {
				return fmt.Errorf("dist.Recv n=%d from rank %d: element %d = %d; want %d", n, from, i, v, from*1000+i)
			}
		}
	}
	return nil
}

func checkSplit(ctx context.Context, c dist.Comm, _ int) error {
	p, me := c.Size(), c.Rank()
	// Colour by parity; key -rank reverses the order within a colour.
	sub, err := c.Split(ctx, me%2, -me)
	if err != nil {
		return err
	}
	defer sub.Close()
	var members []int
	for r := p - 1; r >= 0; r-- {
		if r%2 == me%2 {
			members = append(members, r)
		}
	}
	if sub.Size() != len(members) || sub.Rank() != slices.Index(members, me) {
		return fmt.Errorf("dist.Split: rank %d/%d in the sub-communicator; want %d/%d", sub.Rank(), sub.Size(), slices.Index(members, me), len(members))
	}
	ids := make([]int64, sub.Size())
	ids[sub.Rank()] = int64(me)
	if err := sub.Allreduce(ctx, dist.PhaseControl, dist.OpSum, ids); err != nil {
		return err
	}
	for i, r := range members {
		if ids[i] != int64(r) {
			return fmt.Errorf("dist.Split: sub-rank %d is world rank %d; want %d", i, ids[i], r)
		}
	}
	return nil
}

// checkCounters compares the counters' growth over each call with the
// definitions in package dist's documentation.
func checkCounters(ctx context.Context, c dist.Comm, maxCount int) error {
	p, me := c.Size(), c.Rank()
	lim := max(maxCount/p, 1)
	before := c.Stats()
	sc, rc := make([]int, p), make([]int, p)
	var wantBytes, wantMsgs int64
	n := 0
	for d := range p {
		sc[d], rc[d] = pairLen(me, d, maxCount), pairLen(d, me, maxCount)
		n += sc[d]
		if d != me && sc[d] > 0 {
			wantBytes += int64(4 * sc[d])
			wantMsgs += 1 + int64((max(sc[d]-lim, 0)+maxCount-1)/maxCount)
		}
	}
	m := 0
	for _, x := range rc {
		m += x
	}
	if err := c.Alltoallv(ctx, dist.PhaseFeatures, make([]float32, n), sc, make([]float32, m), rc); err != nil {
		return err
	}
	got := c.Stats()
	if db, dm := got.Bytes[dist.PhaseFeatures]-before.Bytes[dist.PhaseFeatures], got.Messages[dist.PhaseFeatures]-before.Messages[dist.PhaseFeatures]; db != wantBytes || dm != wantMsgs {
		return fmt.Errorf("dist.Alltoallv counted %d bytes in %d messages; want %d in %d", db, dm, wantBytes, wantMsgs)
	}
	if got.Bytes[dist.PhaseGradients] != before.Bytes[dist.PhaseGradients] {
		return fmt.Errorf("dist.Alltoallv under PhaseFeatures counted bytes under PhaseGradients")
	}
	before = got
	buf := make([]float64, 3)
	if err := c.Allreduce(ctx, dist.PhaseGradients, dist.OpSum, buf); err != nil {
		return err
	}
	got = c.Stats()
	if db := got.Bytes[dist.PhaseGradients] - before.Bytes[dist.PhaseGradients]; db != int64(24*(p-1)) {
		return fmt.Errorf("dist.Allreduce of 3 float64 counted %d bytes; want %d", db, 24*(p-1))
	}
	sum, most, err := dist.ReduceStats(ctx, c, c)
	if err != nil {
		return err
	}
	mine := c.Stats()
	for ph := range dist.PhaseControl { // ReduceStats itself counts under PhaseControl
		if sum.Bytes[ph] < most.Bytes[ph] || most.Bytes[ph] < mine.Bytes[ph] || sum.Messages[ph] < most.Messages[ph] {
			return fmt.Errorf("dist.ReduceStats phase %v: bytes sum %d, max %d, this rank %d", ph, sum.Bytes[ph], most.Bytes[ph], mine.Bytes[ph])
		}
	}
	return nil
}

// checkBadArguments makes the same bad call on every rank: each must get
// an error, and none may hang.
func checkBadArguments(ctx context.Context, c dist.Comm, _ int) error {
	p := c.Size()
	if err := c.Allreduce(ctx, dist.PhaseControl, dist.OpSum, []int32{1}); err == nil {
		return fmt.Errorf("dist.Allreduce of []int32: no error")
	}
	if err := c.Alltoallv(ctx, dist.PhaseControl, []int32{}, make([]int, p+1), []int32{}, make([]int, p)); err == nil {
		return fmt.Errorf("dist.Alltoallv with %d counts for %d ranks: no error", p+1, p)
	}
	if err := c.Alltoallv(ctx, dist.PhaseControl, []int32{1}, make([]int, p), []int32{}, make([]int, p)); err == nil {
		return fmt.Errorf("dist.Alltoallv of 1 element with counts summing to 0: no error")
	}
	if err := c.Bcast(ctx, dist.PhaseControl, p, []int64{1}); err == nil {
		return fmt.Errorf("dist.Bcast from root %d of %d ranks: no error", p, p)
	}
	if err := c.Send(ctx, dist.PhaseControl, 0, -1, []int64{1}); err == nil {
		return fmt.Errorf("dist.Send with tag -1: no error")
	}
	if err := c.Bcast(ctx, dist.PhaseControl, 0, []string{"x"}); err == nil {
		return fmt.Errorf("dist.Bcast of []string: no error")
	}
	return c.Barrier(ctx, dist.PhaseControl) // still usable
}

func checkCloseTwice(ctx context.Context, c dist.Comm, _ int) error {
	sub, err := c.Split(ctx, 0, c.Rank())
	if err != nil {
		return err
	}
	if err := sub.Close(); err != nil {
		return err
	}
	if err := sub.Close(); err != nil {
		return fmt.Errorf("second Close: %w", err)
	}
	if err := sub.Barrier(ctx, dist.PhaseControl); err == nil {
		return fmt.Errorf("dist.Barrier after Close: no error")
	}
	return nil
}
