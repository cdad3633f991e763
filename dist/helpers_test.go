package dist_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dist"
)

// TestGatherAndExchange: on 3 ranks, Allgather and AllgatherWith
// concatenate the ranks' slices in rank order, and ExchangeInto delivers
// what Exchange does, in the given buffer when it is large enough.
func TestGatherAndExchange(t *testing.T) {
	err := dist.RunInProc(context.Background(), 3, dist.Options{}, func(ctx context.Context, c dist.Comm) error {
		r := c.Rank()
		mine := make([]int32, r) // rank r sends r copies of r
		for i := range mine {
			mine[i] = int32(r)
		}
		all, counts, err := dist.Allgather(ctx, c, dist.PhaseControl, mine)
		if err != nil {
			return err
		}
		if want := []int32{1, 2, 2}; !slices.Equal(all, want) || !slices.Equal(counts, []int{0, 1, 2}) {
			return fmt.Errorf("rank %d: Allgather = %v, %v; want %v, [0 1 2]", r, all, counts, want)
		}
		with, err := dist.AllgatherWith(ctx, c, dist.PhaseControl, mine, counts)
		if err != nil {
			return err
		}
		if !slices.Equal(with, all) {
			return fmt.Errorf("rank %d: AllgatherWith = %v; want %v", r, with, all)
		}
		// Rank r sends d+1 values 10r+d to rank d.
		var send []int64
		sendCounts := make([]int, 3)
		for d := range 3 {
			sendCounts[d] = d + 1
			for range d + 1 {
				send = append(send, int64(10*r+d))
			}
		}
		want, recvCounts, err := dist.Exchange(ctx, c, dist.PhaseControl, send, sendCounts)
		if err != nil {
			return err
		}
		buf := make([]int64, 0, 64)
		got, err := dist.ExchangeInto(ctx, c, dist.PhaseControl, send, sendCounts, recvCounts, buf)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) || &got[0] != &buf[:1][0] {
			return fmt.Errorf("rank %d: ExchangeInto = %v (in the buffer given: %v); want %v", r, got, &got[0] == &buf[:1][0], want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
