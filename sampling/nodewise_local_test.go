package sampling

import (
	"context"
	"fmt"
	"go/build"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// rowsOnly is a RowSource and nothing else: neither PackedRows, nor a
// DegreeSource, nor RemoteRows.
type rowsOnly struct{ a *spgemm.CSR }

func (r rowsOnly) NumVertices() int                 { return r.a.Rows }
func (r rowsOnly) Row(v int32) ([]int32, []float32) { return r.a.Row(int(v)) }

// lcgGraph returns a random n-vertex graph of about perVertex edges a
// vertex, weights 1 to maxWeight, drawn with a linear congruential
// generator from seed (the internal tests cannot import samplingtest,
// which imports this package).
func lcgGraph(t *testing.T, n, perVertex int, seed, maxWeight uint64) *spgemm.CSR {
	t.Helper()
	var src, dst []int32
	var w []float32
	x, un := seed, uint64(n)
	for range n * perVertex {
		x = x*6364136223846793005 + 1442695040888963407
		src, dst, w = append(src, int32(x>>33%un)), append(dst, int32(x>>13%un)), append(w, float32(x>>40%maxWeight+1))
	}
	a, err := spgemm.FromCOO(n, n, src, dst, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestLocalSamplingStaysLocal: a one-process NodeWise over a RowSource that
// is only a RowSource, and over a CSRRows, samples what NewNodeWise and the
// per-minibatch Baseline sample, for every law, both frontier modes,
// groups of one minibatch and several threads, and never enters the remote
// paths (nodewise_remote.go): the sampler holds no RemoteRows, and none of
// its calls made their scratch space for them (nwCall.remote, made on a
// remote path's first layer) or sampled a group in parts.
func TestLocalSamplingStaysLocal(t *testing.T) {
	const n = 300
	a := lcgGraph(t, n, 9, 11, 5)
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

// TestSamplingImportsNoDist: package sampling, and every package of the
// module it imports, directly or not, imports neither package dist nor the
// distributed samplers (sampling/distsample): a one-process sampler cannot
// enter the distributed code, which reaches the samplers only through
// RemoteRows.
func TestSamplingImportsNoDist(t *testing.T) {
	const module = "github.com/bulksample/bulksample/"
	seen := map[string]bool{}
	var visit func(path, dir string)
	visit = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if rel == "dist" || strings.HasPrefix(rel, "dist/") || rel == "sampling/distsample" {
				t.Errorf("%s imports %s", path, imp)
			}
			visit(imp, filepath.Join("..", filepath.FromSlash(rel)))
		}
	}
	visit(module+"sampling", ".")
	if len(seen) < 3 {
		t.Errorf("visited only %v", seen)
	}
}
