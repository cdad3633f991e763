package gpu

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/cuda/kernels"
	"github.com/bulksample/bulksample/sampling"
)

// TestEmulatorStreams checks that the emulator's streams are as lazy as a
// GPU's may be: work on one stream that reads what another wrote without
// an event between them reads it unwritten; with the event it reads it
// written; a device sync runs every stream; a kernel's failure shows at
// the wait of its own stream, not another's; each call is counted.
func TestEmulatorStreams(t *testing.T) {
	dev := NewEmulator(EmulatorOptions{})
	defer dev.Close()
	buf, err := NewBuffer[int32](dev, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	m := buf.Array().m
	read := func(st stream, wait event) []int32 {
		t.Helper()
		got := make([]int32, 64)
		err := dev.doOn(st, func(ex executor) error {
			if wait != nil {
				if err := ex.wait(wait); err != nil {
					return err
				}
			}
			p := dev.newPipe(ex, nil)
			download(p, got, m)
			return p.err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	fill := func(st stream, v int64, ev event) {
		t.Helper()
		err := dev.doOn(st, func(ex executor) error {
			p := dev.newPipe(ex, nil)
			p.launch("fill_i32", 64, m, v)
			if ev != nil {
				p.setErr(ex.record(ev))
			}
			return p.err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	all := func(s []int32, v int32) bool { return !slices.ContainsFunc(s, func(x int32) bool { return x != v }) }

	fill(mainStream, 1, nil)
	if got := read(mainStream, nil); !all(got, 1) {
		t.Fatalf("the main stream's own fill: %v", got)
	}
	var ev event
	if err := dev.do(func(ex executor) (err error) { ev, err = ex.newEvent(); return err }); err != nil {
		t.Fatal(err)
	}
	dev.ResetCosts()
	fill(sideStream, 7, ev)
	if got := read(mainStream, nil); !all(got, 1) {
		t.Fatalf("without a wait the main stream read %v; want the side stream's fill not yet run (all 1)", got)
	}
	if got := read(mainStream, ev); !all(got, 7) {
		t.Fatalf("after waiting for the side stream's event the main stream read %v; want all 7", got)
	}
	fill(sideStream, 9, nil)
	if err := dev.do(func(ex executor) error { return ex.sync() }); err != nil {
		t.Fatal(err)
	}
	if got := read(mainStream, nil); !all(got, 9) {
		t.Fatalf("after a device sync the main stream read %v; want all 9", got)
	}
	c := dev.Costs()
	if c.EventRecords != 1 || c.EventWaits != 1 || c.Syncs != 1 || c.StreamSyncs != 0 || c.Launches != 2 || c.Downloads != 3 {
		t.Errorf("costs: %d records, %d waits, %d syncs, %d stream syncs, %d launches, %d downloads; want 1, 1, 1, 0, 2, 3",
			c.EventRecords, c.EventWaits, c.Syncs, c.StreamSyncs, c.Launches, c.Downloads)
	}

	// A launch that fails on the side stream (its thread count is not its
	// n) is accepted when issued and fails at the side stream's sync; the
	// main stream goes on.
	k := kernels.Table()["fill_i32"]
	if err := dev.doOn(sideStream, func(ex executor) error { return ex.launch(k, 64, []uint64{63, m.addr, 0}) }); err != nil {
		t.Fatalf("a launch whose failure shows when it runs failed when issued: %v", err)
	}
	if got := read(mainStream, nil); !all(got, 9) {
		t.Fatalf("the main stream after a failure queued on the side stream: %v", got)
	}
	err = dev.doOn(sideStream, func(ex executor) error { return ex.syncStream() })
	if !errors.Is(err, kernels.ErrParams) || !strings.Contains(err.Error(), "fill_i32") {
		t.Fatalf("the side stream's sync after a failing launch: %v; want the kernel's ErrParams", err)
	}
	if err := dev.doOn(sideStream, func(ex executor) error { return ex.syncStream() }); err != nil {
		t.Fatalf("a second sync reported the failure again: %v", err)
	}
}

// TestSampleOnWaitsForRelease checks the event a Release records: work
// the backend issued on a held bulk before its Release reads that bulk,
// though the next SampleOn samples into the same memory before that work
// has run (on the emulator, before it is waited for). Without the wait
// for the event the gather reads the next bulk's ids. The next bulk is
// smaller, so that it reuses the slot's buffers (a buffer that grows is
// freed, which waits for all the device's work).
func TestSampleOnWaitsForRelease(t *testing.T) {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 300, Classes: 3, Features: 4, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dev := NewEmulator(EmulatorOptions{Order: 99})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	s, err := NewSampler(dev, ds.Adj, sampling.SamplerOptions{Fanouts: []int{4, 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Feature row v is v: a gathered row is the id it was gathered by.
	x := make([]float32, ds.NumNodes())
	for v := range x {
		x[v] = float32(v)
	}
	feats, err := NewFeatures(dev, x, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer feats.Close()
	ctx := context.Background()
	b1, err := s.SampleOn(ctx, be, 0, 0, [][]int32{{1, 2, 3}, {4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := b1.Minibatch(0)
	if err != nil {
		t.Fatal(err)
	}
	ids := mb.Inputs.(Array[int32])
	want := make([]int32, ids.Len())
	if err := CopyToHost(dev, want, ids); err != nil {
		t.Fatal(err)
	}
	dst := be.Alloc(int(ids.Len()))
	be.GatherRows(dst, feats, ids)
	be.flush(nil) // issued, not waited for
	b1.Release()
	b2, err := s.SampleOn(ctx, be, 0, 2, [][]int32{{200}, {250}})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Release()
	if h := b2.(*heldBulk); h.slot != b1.(*heldBulk).slot {
		t.Fatal("the second bulk is not in the first's slot: the test checks nothing")
	}
	got := make([]float32, ids.Len())
	be.Download(got, dst)
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if int32(v) != want[i] {
			t.Fatalf("gathered row %d is %v, want %d: the gather issued before the Release read the next bulk", i, v, want[i])
		}
	}
}
