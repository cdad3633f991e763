package gpu

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// TestSampleOnHeld: SampleOn's bulks hold what SampleBulk returns (host
// seeds, blocks' sources, input ids), stay valid across the sampler's
// later calls until their Release, at most two at once (a third is an
// error until one is released; a second Release does not free another
// bulk's slot), and refuse a backend on another device.
func TestSampleOnHeld(t *testing.T) {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 300, Classes: 3, Features: 4, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dev := NewEmulator(EmulatorOptions{Order: 4242, Exact: true})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ctx := context.Background()
	for _, so := range []sampling.SamplerOptions{{Fanouts: []int{3, 3}, Degrees: true}, {Method: sampling.MethodLADIES, Fanouts: []int{40, 40}}} {
		t.Run(so.Method, func(t *testing.T) {
			s, err := NewSampler(dev, ds.Adj, so)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if other := newEmulatorBackend(t); s.SamplesOn(other) || !s.SamplesOn(be) {
				t.Fatalf("SamplesOn: another device's backend %v, its own %v; want false, true", s.SamplesOn(other), s.SamplesOn(be))
			}
			seeds := func(off int) [][]int32 {
				return [][]int32{{int32(off), int32(off + 1), int32(off)}, {int32(off + 7), int32(off + 3)}}
			}
			b1, err := s.SampleOn(ctx, be, 0, 0, seeds(0))
			if err != nil {
				t.Fatal(err)
			}
			b2, err := s.SampleOn(ctx, be, 0, 2, seeds(20))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SampleOn(ctx, be, 0, 4, seeds(40)); err == nil || !strings.Contains(err.Error(), "held") {
				t.Fatalf("a third held bulk: error %v; want one saying two are held", err)
			}
			// Other calls reuse the sampler's own buffers, not the held bulks'.
			if _, err := s.SampleBulk(ctx, 0, 0, seeds(60)); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				b     gnn.DeviceBulk
				first int
				off   int
			}{{b1, 0, 0}, {b2, 2, 20}} {
				want, err := s.SampleBulk(ctx, 0, c.first, seeds(c.off))
				if err != nil {
					t.Fatal(err)
				}
				if c.b.Len() != want.Len() || c.b.First() != want.First || c.b.SampledEdges() != want.SampledEdges() {
					t.Fatalf("bulk %d: len %d first %d edges %d; want %d %d %d", c.first, c.b.Len(), c.b.First(), c.b.SampledEdges(), want.Len(), want.First, want.SampledEdges())
				}
				for m := range want.Len() {
					g, err := c.b.Minibatch(m)
					if err != nil {
						t.Fatal(err)
					}
					w := want.Minibatch(m)
					ids := make([]int32, g.Inputs.Len())
					if err := CopyToHost(dev, ids, g.Inputs.(Array[int32])); err != nil {
						t.Fatal(err)
					}
					if g.Index != w.Index || !slices.Equal(g.Seeds, w.Seeds) || !slices.Equal(ids, w.InputNodes()) || len(g.Blocks) != len(w.Blocks) {
						t.Errorf("bulk %d minibatch %d: index %d seeds %v inputs %v; want %d %v %v", c.first, m, g.Index, g.Seeds, ids, w.Index, w.Seeds, w.InputNodes())
					}
					for l, blk := range g.Blocks {
						if blk.Rows() != w.Blocks[l].Adj.Rows || blk.Cols() != w.Blocks[l].Adj.Cols {
							t.Errorf("minibatch %d block %d: %d x %d; want %d x %d", m, l, blk.Rows(), blk.Cols(), w.Blocks[l].Adj.Rows, w.Blocks[l].Adj.Cols)
						}
					}
				}
			}
			b1.Release()
			b3, err := s.SampleOn(ctx, be, 0, 4, seeds(40))
			if err != nil {
				t.Fatalf("after a Release: %v", err)
			}
			b1.Release() // idempotent: b3's slot stays held
			if _, err := s.SampleOn(ctx, be, 0, 6, seeds(60)); err == nil {
				t.Fatal("a second Release of a bulk freed another bulk's slot")
			}
			b2.Release()
			b3.Release()
		})
	}
}
