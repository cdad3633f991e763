package dist_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
)

// rankCalls runs call on every rank of a fresh in-process world of p
// ranks, each on its own goroutine, and returns each rank's error and, for
// each, the error of a Barrier called afterwards. It fails the test if the
// ranks have not all returned within a minute (a hang) or if goroutines
// are left behind.
func rankCalls(t *testing.T, p, maxCount int, call func(ctx context.Context, c dist.Comm) error) (errs, after []error) {
	t.Helper()
	before := runtime.NumGoroutine()
	ranks, err := dist.NewInProcWorld(p, dist.Options{MaxCount: maxCount})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	errs, after = make([]error, p), make([]error, p)
	var wg sync.WaitGroup
	for r, c := range ranks {
		wg.Go(func() {
			errs[r] = call(ctx, c)
			after[r] = c.Barrier(ctx, dist.PhaseControl)
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the ranks did not all return within a minute")
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the ranks returned, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
	return errs, after
}

// TestInProcMismatch: ranks of an in-process collective that make
// different calls (the last rank differs from the others) all fail with
// ErrMismatch naming both ranks and what each called, and the job is
// aborted; never a hang, never a silent result.
func TestInProcMismatch(t *testing.T) {
	// odd is the last rank; the cases compare it with rank 0, except where
	// a count names another pair.
	type rankCall func(ctx context.Context, c dist.Comm, odd bool) error
	// Each rank makes its own buffer, make(T, n) of the type of buf.
	alloc := func(buf any) any {
		return reflect.MakeSlice(reflect.TypeOf(buf), reflect.ValueOf(buf).Len(), reflect.ValueOf(buf).Len()).Interface()
	}
	allreduce := func(op dist.Op, buf any) func(context.Context, dist.Comm) error {
		return func(ctx context.Context, c dist.Comm) error {
			return c.Allreduce(ctx, dist.PhaseControl, op, alloc(buf))
		}
	}
	bcast := func(root int, buf any) func(context.Context, dist.Comm) error {
		return func(ctx context.Context, c dist.Comm) error { return c.Bcast(ctx, dist.PhaseControl, root, alloc(buf)) }
	}
	barrier := func(ctx context.Context, c dist.Comm) error { return c.Barrier(ctx, dist.PhaseControl) }
	split := func(ctx context.Context, c dist.Comm) error {
		s, err := c.Split(ctx, 0, c.Rank())
		if err == nil {
			s.Close()
		}
		return err
	}
	// gather: every rank sends n(rank) float32 and expects n(q) from rank
	// q, except that the odd rank sends (and so expects from itself) one
	// element more.
	gather := func(ctx context.Context, c dist.Comm, odd bool) error {
		p := c.Size()
		counts := make([]int, p)
		for q := range counts {
			counts[q] = 3
		}
		if odd {
			counts[p-1] = 4
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		return c.Allgatherv(ctx, dist.PhaseControl, make([]float32, counts[c.Rank()]), make([]float32, total), counts)
	}
	// alltoall sends 2 int64 to every rank and expects 2 from each, but
	// the odd rank expects 1 from rank 0.
	alltoall := func(ctx context.Context, c dist.Comm, odd bool) error {
		p := c.Size()
		sc, rc := make([]int, p), make([]int, p)
		for q := range p {
			sc[q], rc[q] = 2, 2
		}
		if odd {
			rc[0] = 1
		}
		rtotal := 0
		for _, n := range rc {
			rtotal += n
		}
		return c.Alltoallv(ctx, dist.PhaseControl, make([]int64, 2*p), sc, make([]int64, rtotal), rc)
	}
	same := func(f func(context.Context, dist.Comm) error) rankCall {
		return func(ctx context.Context, c dist.Comm, _ bool) error { return f(ctx, c) }
	}
	either := func(even, odd func(context.Context, dist.Comm) error) rankCall {
		return func(ctx context.Context, c dist.Comm, isOdd bool) error {
			if isOdd {
				return odd(ctx, c)
			}
			return even(ctx, c)
		}
	}
	for _, tc := range []struct {
		name     string
		maxCount int
		call     rankCall
		// want is the error's text after "rank 0 called ", with L for the
		// last rank and 2P for twice the number of ranks; empty where the
		// calls match.
		want string
	}{
		{"allreduce/match", 0, same(allreduce(dist.OpSum, make([]float32, 12))), ""},
		{"allreduce/type-op-length", 0, either(allreduce(dist.OpSum, make([]float32, 12)), allreduce(dist.OpMax, make([]int64, 1))),
			"Allreduce(float32, sum, 12 elements), rank L called Allreduce(int64, max, 1 element)"},
		// The same bytes: without the check both ranks return silently.
		{"allreduce/type-same-bytes", 0, either(allreduce(dist.OpSum, make([]float32, 2)), allreduce(dist.OpSum, make([]int64, 1))),
			"Allreduce(float32, sum, 2 elements), rank L called Allreduce(int64, sum, 1 element)"},
		{"allreduce/type", 0, either(allreduce(dist.OpSum, make([]float32, 2)), allreduce(dist.OpSum, make([]float64, 2))),
			"Allreduce(float32, sum, 2 elements), rank L called Allreduce(float64, sum, 2 elements)"},
		{"allreduce/op", 0, either(allreduce(dist.OpSum, make([]int64, 2)), allreduce(dist.OpMax, make([]int64, 2))),
			"Allreduce(int64, sum, 2 elements), rank L called Allreduce(int64, max, 2 elements)"},
		{"allreduce/length", 0, either(allreduce(dist.OpSum, make([]int64, 3)), allreduce(dist.OpSum, make([]int64, 2))),
			"Allreduce(int64, sum, 3 elements), rank L called Allreduce(int64, sum, 2 elements)"},
		// MaxCount splits rank 0's call: the first messages disagree.
		{"allreduce/length-split", 5, either(allreduce(dist.OpSum, make([]float32, 12)), allreduce(dist.OpSum, make([]float32, 1))),
			"Allreduce(float32, sum, 5 elements), rank L called Allreduce(float32, sum, 1 element)"},
		{"allreduce/barrier", 0, either(allreduce(dist.OpSum, make([]int64, 1)), barrier),
			"Allreduce(int64, sum, 1 element), rank L called Barrier"},
		{"bcast/match", 0, same(bcast(0, make([]byte, 5))), ""},
		{"bcast/root", 0, either(bcast(0, make([]int32, 4)), bcast(1, make([]int32, 4))),
			"Bcast(int32, root 0, 4 elements), rank L called Bcast(int32, root 1, 4 elements)"},
		{"bcast/length", 0, either(bcast(0, make([]int32, 4)), bcast(0, make([]int32, 5))),
			"Bcast(int32, root 0, 4 elements), rank L called Bcast(int32, root 0, 5 elements)"},
		{"bcast/type", 0, either(bcast(0, make([]byte, 8)), bcast(0, make([]int64, 1))),
			"Bcast(byte, root 0, 8 elements), rank L called Bcast(int64, root 0, 1 element)"},
		{"bcast/allreduce", 0, either(bcast(0, make([]int64, 1)), allreduce(dist.OpSum, make([]int64, 1))),
			"Bcast(int64, root 0, 1 element), rank L called Allreduce(int64, sum, 1 element)"},
		{"allgatherv/match", 0, func(ctx context.Context, c dist.Comm, _ bool) error { return gather(ctx, c, false) }, ""},
		{"allgatherv/counts", 0, gather,
			"Allgatherv(float32, expects 3 elements from rank L), rank L called Allgatherv(float32, sends 4 elements)"},
		{"allgatherv/type", 0, either(
			func(ctx context.Context, c dist.Comm) error {
				return c.Allgatherv(ctx, dist.PhaseControl, []int64{1}, make([]int64, c.Size()), ones(c.Size()))
			},
			func(ctx context.Context, c dist.Comm) error {
				return c.Allgatherv(ctx, dist.PhaseControl, []float64{1}, make([]float64, c.Size()), ones(c.Size()))
			}),
			"Allgatherv(int64, sends 1 element), rank L called Allgatherv(float64, sends 1 element)"},
		{"alltoallv/match", 0, func(ctx context.Context, c dist.Comm, _ bool) error { return alltoall(ctx, c, false) }, ""},
		{"alltoallv/counts", 0, alltoall,
			"Alltoallv(int64, sends 2 elements to rank L), rank L called Alltoallv(int64, expects 1 element from rank 0)"},
		{"alltoallv/allgatherv", 0, either(
			func(ctx context.Context, c dist.Comm) error { return alltoall(ctx, c, false) },
			func(ctx context.Context, c dist.Comm) error { return gather(ctx, c, false) }),
			"Alltoallv(int64, sends 2P elements), rank L called Allgatherv(float32, sends 3 elements)"},
		{"split/match", 0, same(split), ""},
		{"split/barrier", 0, either(split, barrier), "Split, rank L called Barrier"},
	} {
		for _, p := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/p=%d", tc.name, p), func(t *testing.T) {
				errs, after := rankCalls(t, p, tc.maxCount, func(ctx context.Context, c dist.Comm) error {
					return tc.call(ctx, c, c.Rank() == p-1)
				})
				if tc.want == "" {
					for r := range p {
						if errs[r] != nil || after[r] != nil {
							t.Errorf("rank %d: %v, then %v; want no error", r, errs[r], after[r])
						}
					}
					return
				}
				want := "dist: in-process collective mismatch: rank 0 called " +
					strings.NewReplacer("rank L", fmt.Sprintf("rank %d", p-1), "2P", fmt.Sprint(2*p)).Replace(tc.want)
				for r := range p {
					if !errors.Is(errs[r], dist.ErrMismatch) || !strings.Contains(errs[r].Error(), want) {
						t.Errorf("rank %d: err %v; want one containing %q", r, errs[r], want)
					}
					if !errors.Is(after[r], dist.ErrAborted) || !strings.Contains(after[r].Error(), want) {
						t.Errorf("rank %d: the Barrier after: err %v; want ErrAborted with the mismatch", r, after[r])
					}
				}
			})
		}
	}
}

func ones(p int) []int {
	out := make([]int, p)
	for i := range out {
		out[i] = 1
	}
	return out
}
