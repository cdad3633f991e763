package dist

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/internal/par"
)

// Elem is an element type that a Comm moves.
type Elem interface {
	byte | int32 | int64 | float32 | float64
}

// Exchange is the all-to-all of docs/design.md section 4 in its two phases:
// counts first (one int64 per pair), then the exact payload. send holds the
// segments for ranks 0..p-1 back to back, sendCounts[d] long. It returns
// what every rank sent to this one, in rank order, and the counts.
func Exchange[T Elem](ctx context.Context, c Comm, ph Phase, send []T, sendCounts []int) ([]T, []int, error) {
	recvCounts, err := ExchangeCounts(ctx, c, ph, sendCounts)
	if err != nil {
		return nil, nil, err
	}
	recv, err := ExchangeWith(ctx, c, ph, send, sendCounts, recvCounts)
	return recv, recvCounts, err
}

// ExchangeWith is the payload phase of Exchange when the receive counts
// are already known.
func ExchangeWith[T Elem](ctx context.Context, c Comm, ph Phase, send []T, sendCounts, recvCounts []int) ([]T, error) {
	recv := make([]T, sumCounts(recvCounts))
	if err := c.Alltoallv(ctx, ph, asBuf(send), sendCounts, asBuf(recv), recvCounts); err != nil {
		return nil, err
	}
	return recv, nil
}

// ExchangeInto is ExchangeWith receiving into recv's array when it is
// large enough, or else into a new one with room to grow (par.Resize), so
// that a loop of exchanges (a generation's batches) reuses one buffer.
func ExchangeInto[T Elem](ctx context.Context, c Comm, ph Phase, send []T, sendCounts, recvCounts []int, recv []T) ([]T, error) {
	recv = par.Resize(recv, sumCounts(recvCounts))
	if err := c.Alltoallv(ctx, ph, asBuf(send), sendCounts, asBuf(recv), recvCounts); err != nil {
		return nil, err
	}
	return recv, nil
}

// sumCounts returns the sum of counts.
func sumCounts(counts []int) int {
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}

// ExchangeCounts sends sendCounts[d] to rank d and returns what each rank
// sent to this one.
func ExchangeCounts(ctx context.Context, c Comm, ph Phase, sendCounts []int) ([]int, error) {
	p := c.Size()
	if len(sendCounts) != p {
		return nil, fmt.Errorf("dist: ExchangeCounts on rank %d: %d counts for %d ranks", c.Rank(), len(sendCounts), p)
	}
	s, r := make([]int64, p), make([]int64, p)
	for i, n := range sendCounts {
		s[i] = int64(n)
	}
	ones := make([]int, p)
	for i := range ones {
		ones[i] = 1
	}
	if err := c.Alltoallv(ctx, ph, s, ones, r, ones); err != nil {
		return nil, err
	}
	out := make([]int, p)
	for i, n := range r {
		out[i] = int(n)
	}
	return out, nil
}

// Allgather concatenates every rank's send in rank order (lengths may
// differ) and returns it with each rank's length.
func Allgather[T Elem](ctx context.Context, c Comm, ph Phase, send []T) ([]T, []int, error) {
	n := make([]int64, c.Size())
	n[c.Rank()] = int64(len(send))
	if err := c.Allreduce(ctx, ph, OpSum, n); err != nil {
		return nil, nil, err
	}
	counts := make([]int, len(n))
	for i, x := range n {
		counts[i] = int(x)
	}
	recv, err := AllgatherWith(ctx, c, ph, send, counts)
	if err != nil {
		return nil, nil, err
	}
	return recv, counts, nil
}

// AllgatherWith is the payload phase of Allgather when every rank's length
// is already known: counts[r] is rank r's.
func AllgatherWith[T Elem](ctx context.Context, c Comm, ph Phase, send []T, counts []int) ([]T, error) {
	recv := make([]T, sumCounts(counts))
	if err := c.Allgatherv(ctx, ph, asBuf(send), asBuf(recv), counts); err != nil {
		return nil, err
	}
	return recv, nil
}

// asBuf returns s as the buffer type a Comm takes.
func asBuf[T Elem](s []T) any { return any(s) }

// ReduceStats returns the sum and the element-wise maximum over the ranks
// of c of every rank's counters on comms (for example the world and its
// sub-communicators, which count separately). It is collective on c, and
// its own traffic is not included.
func ReduceStats(ctx context.Context, c Comm, comms ...Comm) (sum, most Stats, err error) {
	var mine Stats
	for _, x := range comms {
		mine.Add(x.Stats())
	}
	flat := func(s Stats) []int64 {
		out := make([]int64, 0, 2*NumPhases)
		out = append(out, s.Bytes[:]...)
		return append(out, s.Messages[:]...)
	}
	unflat := func(v []int64) Stats {
		var s Stats
		copy(s.Bytes[:], v[:NumPhases])
		copy(s.Messages[:], v[NumPhases:])
		return s
	}
	a, b := flat(mine), flat(mine)
	if err := c.Allreduce(ctx, PhaseControl, OpSum, a); err != nil {
		return sum, most, err
	}
	if err := c.Allreduce(ctx, PhaseControl, OpMax, b); err != nil {
		return sum, most, err
	}
	return unflat(a), unflat(b), nil
}

// BlockRange returns the i-th of parts contiguous, balanced ranges of
// [0, n): [i·n/parts, (i+1)·n/parts). Vertex blocks and the runs of
// minibatches that ranks take are both cut this way (par.Range). It
// panics unless n >= 0, parts > 0 and 0 <= i < parts.
func BlockRange(n, parts, i int) (lo, hi int) { return par.Range(n, parts, i) }

// BlockOf returns the block i of BlockRange(n, parts, ·) holding x,
// 0 <= x < n.
func BlockOf(n, parts, x int) int {
	if uint(x) >= uint(n) {
		panic(fmt.Sprintf("dist: BlockOf(%d, %d, %d): x outside [0, n)", n, parts, x))
	}
	// (i+1)·n/parts > x  <=>  i >= (x+1)·parts/n - 1 rounded; start from
	// the estimate and correct by at most one step either way.
	i := int(int64(x) * int64(parts) / int64(n))
	for i > 0 {
		if lo, _ := BlockRange(n, parts, i); lo <= x {
			break
		}
		i--
	}
	for i < parts-1 {
		if _, hi := BlockRange(n, parts, i); x < hi {
			break
		}
		i++
	}
	return i
}

// Chain accumulates in rank order: rank r receives bufs from rank r-1,
// calls add (which adds its own contribution to bufs), and passes them to
// rank r+1; the last rank then broadcasts the result, which every rank
// gets in bufs. A floating-point sum built this way is bit-identical to
// one process adding the same contributions in the same order, which an
// Allreduce does not promise. It costs p-1 sequential steps, for sums
// computed once (column norms of a graph, say). It is collective on c.
func Chain(ctx context.Context, c Comm, ph Phase, bufs []any, add func() error) error {
	const tag = 3
	me, p := c.Rank(), c.Size()
	if me > 0 {
		for _, b := range bufs {
			if err := c.Recv(ctx, ph, me-1, tag, b); err != nil {
				return err
			}
		}
	}
	if err := add(); err != nil {
		return err
	}
	if me < p-1 {
		for _, b := range bufs {
			if err := c.Send(ctx, ph, me+1, tag, b); err != nil {
				return err
			}
		}
	}
	for _, b := range bufs {
		if err := c.Bcast(ctx, ph, p-1, b); err != nil {
			return err
		}
	}
	return nil
}
