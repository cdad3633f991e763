package sampling

import (
	"context"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/spgemm"
)

// cycleCSR is the directed cycle on n vertices, v -> v+1, with weights 1:
// the cheapest graph with n large enough for mapped scratch arrays.
func cycleCSR(n int) *spgemm.CSR {
	a := &spgemm.CSR{Rows: n, Cols: n, Indptr: make([]int64, n+1), Indices: make([]int32, n), Data: make([]float32, n)}
	for v := range n {
		a.Indptr[v+1] = int64(v + 1)
		a.Indices[v] = int32((v + 1) % n)
		a.Data[v] = 1
	}
	return a
}

// TestScratchOnHugePages checks where the samplers' n-entry scratch arrays
// live and when they go: for n at hugemem.MinBytes/4 vertices and more, the
// node-wise workers' vertex maps, and the layer-wise accumulators and column
// maps, are mappings of the sampler's arena, which is unmapped once the
// sampler is garbage; below that size they stay on the Go heap.
func TestScratchOnHugePages(t *testing.T) {
	ctx := context.Background()
	owned := func(a *hugemem.Arena, s []int32) bool { return a.Owns(unsafe.Pointer(unsafe.SliceData(s))) }
	for _, tc := range []struct {
		name   string
		n      int
		mapped bool
	}{
		{"mapped", hugemem.MinBytes / 4, true},
		{"heap", hugemem.MinBytes/4 - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := cycleCSR(tc.n)
			seeds := [][]int32{{0, 5, 9}, {3, int32(tc.n - 1)}}
			// In a function of its own, so that nothing of the samplers
			// stays reachable from this frame when the arenas are checked.
			arenas := func() []*hugemem.Arena {
				nw, err := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{2, 2}, Seed: 1, Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := nw.SampleBulk(ctx, 0, 0, seeds); err != nil {
					t.Fatal(err)
				}
				lw, err := NewLayerWise(a, LayerWiseOptions{Budgets: []int{2, 2}, Seed: 1, Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := lw.SampleBulk(ctx, 0, 0, seeds); err != nil {
					t.Fatal(err)
				}
				if len(nw.scratch.workers) == 0 {
					t.Fatal("node-wise sampler kept no worker")
				}
				for i, w := range nw.scratch.workers {
					if got := owned(nw.maps.arena, w.ids); got != tc.mapped {
						t.Errorf("node-wise worker %d: vertex map mapped %v, want %v", i, got, tc.mapped)
					}
				}
				w, ok := lw.workers.Get()
				if !ok {
					t.Fatal("layer-wise sampler kept no worker")
				}
				if got := lw.colMaps.arena.Owns(unsafe.Pointer(unsafe.SliceData(w.acc))); got != tc.mapped {
					t.Errorf("layer-wise accumulator mapped %v, want %v", got, tc.mapped)
				}
				m := lw.colMaps.get(tc.n)
				if got := owned(lw.colMaps.arena, m); got != tc.mapped {
					t.Errorf("layer-wise column map mapped %v, want %v", got, tc.mapped)
				}
				lw.colMaps.put(m)
				lw.workers.Put(w)
				return []*hugemem.Arena{nw.maps.arena, lw.colMaps.arena}
			}()
			if !tc.mapped {
				return
			}
			for i, ar := range arenas {
				if ar.Bytes() == 0 {
					t.Fatalf("arena %d holds nothing while its sampler lives", i)
				}
			}
			// The samplers are unreachable: their cleanups unmap the
			// arenas after a collection or two (run on another goroutine).
			deadline := time.Now().Add(5 * time.Second)
			for {
				runtime.GC()
				if arenas[0].Bytes() == 0 && arenas[1].Bytes() == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("arenas still hold %d and %d bytes 5 s after their samplers became garbage", arenas[0].Bytes(), arenas[1].Bytes())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
