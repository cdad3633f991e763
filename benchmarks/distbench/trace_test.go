package main

import (
	"math"
	"testing"
)

// TestSplitTimes: a call's transfer runs from the column's last arrival to
// each rank's exit, its wait from the rank's arrival to the last one; the
// skew from the rank's arrival at the barrier to the last arrival there,
// the barrier from that to the rank's entry; the bytes are the larger of
// sent and received, per column.
func TestSplitTimes(t *testing.T) {
	const ms = int64(1e6)
	// Ranks 0 and 1 form column 0, rank 2 column 1 alone. One exchange:
	// status, ids, rows.
	calls := [][]callRecord{
		{{In: 0, Out: 2 * ms, Sent: 16, Received: 16}, {In: 3 * ms, Out: 4 * ms, Sent: 40, Received: 80}, {Arrive: 5 * ms, In: 10 * ms, Out: 20 * ms, Sent: 1000, Received: 500, Run: 6 * ms, Queue: 3 * ms, Span: 11 * ms}},
		{{In: 1 * ms, Out: 2 * ms, Sent: 16, Received: 16}, {In: 3 * ms, Out: 5 * ms, Sent: 80, Received: 40}, {Arrive: 9 * ms, In: 12 * ms, Out: 22 * ms, Sent: 500, Received: 1000, Run: 8 * ms}},
		{{In: 0, Out: 1 * ms}, {In: 1 * ms, Out: 2 * ms}, {Arrive: 1 * ms, In: 2 * ms, Out: 3 * ms, Run: 1 * ms}},
	}
	got := splitTimes(calls, []int{0, 0, 1})
	near := func(name string, a, b float64) {
		t.Helper()
		if math.Abs(a-b) > 1e-12 {
			t.Errorf("%s = %g; want %g", name, a, b)
		}
	}
	// Rows: last arrival 12 ms; transfers 8 and 10 ms, and 1 ms on rank
	// 2; waits 2, 0 and 0 ms; averaged over the 3 ranks.
	near("rows transfer", got.Transfer[2], (8e-3+10e-3+1e-3)/3)
	near("rows wait", got.Wait[2], 2e-3/3)
	near("status wait", got.Wait[0], 1e-3/3)
	// Rows: last arrival at the barrier 9 ms in column 0; skews 4 and 0
	// ms, 0 on rank 2; barriers 1, 3 and 1 ms.
	near("rows skew", got.Skew[2], 4e-3/3)
	near("rows barrier", got.Barrier[2], (1e-3+3e-3+1e-3)/3)
	near("rows run", got.Run[2], (6e-3+8e-3+1e-3)/3)
	if len(got.RunPerCall[2]) != 1 {
		t.Fatalf("rows run per call: %v; want one call", got.RunPerCall[2])
	}
	near("rows run of the first call", got.RunPerCall[2][0], (6e-3+8e-3+1e-3)/3)
	near("rows queue", got.Queue[2], 1e-3)
	near("rows span", got.Span[2], 11e-3/3)
	near("ids skew (not recorded)", got.Skew[1], 0)
	near("ids transfer", got.Transfer[1], (1e-3+2e-3+1e-3)/3)
	// Column 0 (2 of 3 ranks): mean 1000 bytes, busiest 1000; column 1: 0.
	near("rows mean bytes", got.MeanBytes[2], 1000*2.0/3)
	near("ids busiest bytes", got.BusiestBytes[1], 80*2.0/3)
	if got.Calls != [3]int{1, 1, 1} {
		t.Errorf("calls %v; want one of each round", got.Calls)
	}
}
