package sampling

import (
	"context"
	"fmt"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// rowsOnly is a RowSource and nothing else: neither PackedRows, nor a
// DegreeSource, nor RemoteRows.
type rowsOnly struct{ a *spgemm.CSR }

func (r rowsOnly) NumVertices() int                 { return r.a.Rows }
func (r rowsOnly) Row(v int32) ([]int32, []float32) { return r.a.Row(int(v)) }

// TestLocalSamplingStaysLocal: a one-process NodeWise over a RowSource that
// is only a RowSource, and over a CSRRows, samples what NewNodeWise and the
// per-minibatch Baseline sample, for every law, both frontier modes,
// groups of one minibatch and several threads, and never enters the remote
// paths (nodewise_remote.go): the sampler holds no RemoteRows, and none of
// its calls made their scratch space for them (nwCall.remote, made on a
// remote path's first layer) or sampled a group in parts.
func TestLocalSamplingStaysLocal(t *testing.T) {
	const n = 300
	var src, dst []int32
	var w []float32
	x := uint64(11)
	for range n * 9 {
		x = x*6364136223846793005 + 1442695040888963407
		src, dst, w = append(src, int32(x>>33%n)), append(dst, int32(x>>13%n)), append(w, float32(x>>40%5+1))
	}
	a, err := spgemm.FromCOO(n, n, src, dst, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	mbs := make([][]int32, 9)
	for i := range mbs {
		for j := range 7 {
			mbs[i] = append(mbs[i], int32((i*41+j*97)%n))
		}
	}
	ctx := context.Background()
	for _, opt := range []NodeWiseOptions{
		{Fanouts: []int{3, 2}, Seed: 1},
		{Fanouts: []int{4, -1, 2}, Frontier: FrontierNew, Seed: 2, MaxBulkEdges: 20, Threads: 3},
		{Fanouts: []int{5, 3}, Weighted: true, Replace: true, Seed: 3, Threads: 1},
		{Fanouts: []int{2, 2}, Weighted: true, Seed: 4, MaxBulkEdges: 1, Threads: 2},
	} {
		name := fmt.Sprintf("fanouts %v seed %d", opt.Fanouts, opt.Seed)
		one, err := NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := one.SampleBulk(ctx, 1, 5, mbs)
		if err != nil {
			t.Fatal(err)
		}
		want := bulkDigestOf(b)
		bl, err := NewBaseline(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		if b, err = bl.SampleBulk(ctx, 1, 5, mbs); err != nil {
			t.Fatal(err)
		} else if d := bulkDigestOf(b); d != want {
			t.Fatalf("%s: the baseline's digest %s; NewNodeWise's %s", name, d, want)
		}
		for _, rs := range []RowSource{rowsOnly{a}, CSRRows{A: a}} {
			nw, err := NewNodeWiseFrom(rs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if nw.remote != nil {
				t.Errorf("%s, %T: the sampler holds a RemoteRows", name, rs)
			}
			for range 2 {
				got, err := nw.SampleBulk(ctx, 1, 5, mbs)
				if err != nil {
					t.Fatal(err)
				}
				if d := bulkDigestOf(got); d != want {
					t.Errorf("%s, %T: digest %s; want %s", name, rs, d, want)
				}
				got.Release()
			}
			calls := 0
			for {
				c, ok := nw.scratch.calls.Get()
				if !ok {
					break
				}
				calls++
				if c.remote != nil || c.g.parted {
					t.Errorf("%s, %T: a call entered the remote paths (scratch %v, parted %v)", name, rs, c.remote != nil, c.g.parted)
				}
			}
			if calls == 0 {
				t.Errorf("%s, %T: no call's scratch space kept", name, rs)
			}
		}
	}
}
