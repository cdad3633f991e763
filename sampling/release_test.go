package sampling_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestReleasedBulksSampleTheSame: bulks sampled into the arrays of released
// bulks, larger and smaller ones, equal the bulks of a fresh sampler, for
// every option that changes what the arrays hold (values, degrees,
// frontier mode), and a released bulk is emptied.
func TestReleasedBulksSampleTheSame(t *testing.T) {
	a := samplingtest.RandomGraph(400, 10, true, 3)
	ctx := context.Background()
	for _, opt := range []sampling.NodeWiseOptions{
		{Fanouts: []int{4, 3}, Seed: 1, Threads: 2},
		{Fanouts: []int{5, -1}, Seed: 2, Weighted: true, Degrees: true, Threads: 3},
		{Fanouts: []int{3, 2, 2}, Seed: 3, Replace: true, Frontier: sampling.FrontierNew, MaxBulkEdges: 30},
	} {
		name := samplingtest.CaseName(opt)
		reused, err := sampling.NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range []int{9, 2, 12, 1, 5} {
			seeds := samplingtest.RandomSeeds(a.Rows, k, 7+i, uint64(i))
			fresh, err := sampling.NewNodeWise(a, opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.SampleBulk(ctx, 1, 3*i, seeds)
			if err != nil {
				t.Fatal(err)
			}
			got, err := reused.SampleBulk(ctx, 1, 3*i, seeds)
			if err != nil {
				t.Fatal(err)
			}
			samplingtest.CompareBulks(t, name, got, want, 0)
			if g, w := samplingtest.BulkDigest(got), samplingtest.BulkDigest(want); g != w {
				t.Errorf("%s bulk %d (k=%d): digest %s after reuse, want %s", name, i, k, g, w)
			}
			got.Release()
			if got.Len() != -1 || got.Layers != nil || got.Seeds != nil {
				t.Errorf("%s: a released bulk still holds its arrays", name)
			}
			got.Release() // twice: nothing
		}
	}
	var none *sampling.Bulk
	none.Release()
}

// TestWarmNodeWiseAllocatesNothing: a warm sampler whose caller releases
// every bulk allocates per bulk only small objects of constant size (the
// Bulk header; per group of minibatches the closures and goroutines of its
// parallel passes, a few hundred bytes), nothing that grows with the bulk:
// no output array, no group buffer, no vertex map. Any of those would
// allocate tens of KiB here. The minibatches of 512 seeds make the output
// (1.9 MB) large enough that its 1% is well above the constant objects
// (10-12 KB; with 256 seeds the bound was 10.8 KB, and the test failed on a
// loaded machine), and large enough that layer 1's minibatches, one a
// group, are extracted split over the threads: their pieces are reused too.
func TestWarmNodeWiseAllocatesNothing(t *testing.T) {
	if testing.Short() {
		// The race pass (-race -short) would spend seconds on what the
		// full run measures; allocations are not what it checks.
		t.Skip("allocation bound: measured by the full run")
	}
	a := samplingtest.RandomGraph(20000, 16, false, 5)
	seeds := samplingtest.RandomSeeds(a.Rows, 8, 512, 6)
	ctx := context.Background()
	// A small cap makes several groups a layer: their buffers are reused too.
	s, err := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{10, 5}, Seed: 1, Threads: 2, MaxBulkEdges: 3000})
	if err != nil {
		t.Fatal(err)
	}
	var outBytes int64
	sample := func() {
		b, err := s.SampleBulk(ctx, 0, 0, seeds)
		if err != nil {
			t.Fatal(err)
		}
		outBytes = samplingtest.BulkBytes(b)
		b.Release()
	}
	for range 3 {
		sample()
	}
	allocs := testing.AllocsPerRun(10, sample)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 10
	for range runs {
		sample()
	}
	runtime.ReadMemStats(&after)
	perBulk := int64(after.TotalAlloc-before.TotalAlloc) / runs
	t.Logf("warm bulk: %.0f allocations, %d bytes allocated; output %d bytes", allocs, perBulk, outBytes)
	if perBulk > outBytes/100 {
		t.Errorf("a warm bulk allocates %d bytes (output %d bytes); want under 1%% of the output", perBulk, outBytes)
	}
	if allocs > 400 {
		t.Errorf("a warm bulk makes %.0f allocations; want a few small ones per group", allocs)
	}
}

// fetchRows is a RowSource that says it must fetch its rows (a RemoteRows)
// and serves them from memory: LayerWise samples through it layer by layer,
// as DistLayerWise does, without the ranks.
type fetchRows struct {
	sampling.CSRRows
	pullGroups
}

func (fetchRows) FetchRows(context.Context, []int32) error { return nil }

// lwCase is a layer-wise sampler of the release tests and its name.
type lwCase struct {
	name string
	mk   func() (*sampling.LayerWise, error)
}

// lwCases returns layer-wise samplers of a that reach every path of
// SampleBulk: chunks through all layers (k >= threads), rows of P and
// blocks split over the threads (k < threads), layer by layer through a
// RemoteRows, FastGCN, and every normalisation.
func lwCases(a *spgemm.CSR) []lwCase {
	from := func(opt sampling.LayerWiseOptions) func() (*sampling.LayerWise, error) {
		return func() (*sampling.LayerWise, error) { return sampling.NewLayerWise(a, opt) }
	}
	fetched := func(opt sampling.LayerWiseOptions) func() (*sampling.LayerWise, error) {
		return func() (*sampling.LayerWise, error) {
			return sampling.NewLayerWiseFrom(fetchRows{CSRRows: sampling.CSRRows{A: a}}, opt, nil)
		}
	}
	return []lwCase{
		{"ladies", from(sampling.LayerWiseOptions{Budgets: []int{30, 20}, Seed: 1, Threads: 2})},
		{"ladies semibulk 3 replace", from(sampling.LayerWiseOptions{Budgets: []int{25, 25, 10}, Seed: 2, Threads: 3, Semibulk: 3, Replace: true})},
		{"ladies 5 threads rowmean", from(sampling.LayerWiseOptions{Budgets: []int{40, 10}, Seed: 3, Threads: 5, RowMean: true})},
		{"fastgcn unbiased", from(sampling.LayerWiseOptions{Method: sampling.FastGCN, Budgets: []int{20, 20}, Seed: 4, Threads: 2, Unbiased: true})},
		{"ladies fetched", fetched(sampling.LayerWiseOptions{Budgets: []int{30, 15}, Seed: 5, Threads: 2})},
	}
}

// TestReleasedLayerWiseBulksSampleTheSame: as
// TestReleasedBulksSampleTheSame, for LayerWise.
func TestReleasedLayerWiseBulksSampleTheSame(t *testing.T) {
	a := samplingtest.RandomGraph(400, 10, true, 3)
	ctx := context.Background()
	for _, c := range lwCases(a) {
		reused, err := c.mk()
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range []int{9, 1, 12, 2, 5} {
			seeds := samplingtest.RandomSeeds(a.Rows, k, 7+i, uint64(i))
			fresh, err := c.mk()
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.SampleBulk(ctx, 1, 3*i, seeds)
			if err != nil {
				t.Fatal(err)
			}
			got, err := reused.SampleBulk(ctx, 1, 3*i, seeds)
			if err != nil {
				t.Fatal(err)
			}
			samplingtest.CompareBulks(t, c.name, got, want, 0)
			if g, w := samplingtest.BulkDigest(got), samplingtest.BulkDigest(want); g != w {
				t.Errorf("%s bulk %d (k=%d): digest %s after reuse, want %s", c.name, i, k, g, w)
			}
			got.Release()
			if got.Len() != -1 || got.Layers != nil || got.Seeds != nil {
				t.Errorf("%s: a released bulk still holds its arrays", c.name)
			}
		}
	}
}

// TestWarmLayerWiseAllocatesNothing: as TestWarmNodeWiseAllocatesNothing,
// for LayerWise on each path of SampleBulk (k >= threads, k < threads,
// through a RemoteRows): a warm sampler whose caller releases every bulk
// allocates per bulk only small objects of constant size (the closures of
// its parallel passes and its team's goroutines, about 1.3 KB here),
// nothing that grows with the bulk. The outputs are small (29-240 KB), so
// the bound is 8 KiB plus 1% of the output: a per-minibatch array of k = 8
// would exceed it. (Piece r of a split row of P is the same piece on every
// call, so a warm piece does not grow; when pieces were paired with
// workers by scheduling, k < threads allocated 10-24 KB in 1 run of 4.)
// Before the samplers reused their arrays a warm bulk allocated 170-990 KB
// here.
func TestWarmLayerWiseAllocatesNothing(t *testing.T) {
	if testing.Short() {
		// The race pass (-race -short) would spend seconds on what the
		// full run measures; allocations are not what it checks.
		t.Skip("allocation bound: measured by the full run")
	}
	a := samplingtest.RandomGraph(20000, 16, false, 5)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		k    int
		src  sampling.RowSource
	}{
		{"k >= threads", 8, sampling.CSRRows{A: a}},
		{"k < threads", 1, sampling.CSRRows{A: a}},
		{"fetched", 4, fetchRows{CSRRows: sampling.CSRRows{A: a}}},
	} {
		seeds := samplingtest.RandomSeeds(a.Rows, c.k, 512, 6)
		s, err := sampling.NewLayerWiseFrom(c.src, sampling.LayerWiseOptions{Budgets: []int{512, 512}, Seed: 1, Threads: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var outBytes int64
		sample := func() {
			b, err := s.SampleBulk(ctx, 0, 0, seeds)
			if err != nil {
				t.Fatal(err)
			}
			outBytes = samplingtest.BulkBytes(b)
			b.Release()
		}
		for range 10 { // every worker's buffers grown
			sample()
		}
		allocs := testing.AllocsPerRun(10, sample)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 10
		for range runs {
			sample()
		}
		runtime.ReadMemStats(&after)
		perBulk := int64(after.TotalAlloc-before.TotalAlloc) / runs
		t.Logf("%s: warm bulk: %.0f allocations, %d bytes allocated; output %d bytes", c.name, allocs, perBulk, outBytes)
		if bound := 8<<10 + outBytes/100; perBulk > bound {
			t.Errorf("%s: a warm bulk allocates %d bytes (output %d bytes); want under %d", c.name, perBulk, outBytes, bound)
		}
		if allocs > 100 {
			t.Errorf("%s: a warm bulk makes %.0f allocations; want a few small ones per parallel pass", c.name, allocs)
		}
	}
}
