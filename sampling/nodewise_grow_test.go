package sampling_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// TestReleasedArraysFitLargerBulk: a bulk a little larger than the released
// one before it (2% more seeds a minibatch, as the bulks of an epoch differ)
// is sampled into the released arrays: nothing that grows with the bulk is
// allocated (under 1% of its output), so that the cold pass of an epoch
// does not leave an array of each new record size as garbage on faulted-in
// pages. With arrays sized exactly, the row offsets alone moved (a fifth of
// the output).
func TestReleasedArraysFitLargerBulk(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation bound: measured by the full run")
	}
	a := samplingtest.RandomGraph(20000, 16, false, 5)
	small := samplingtest.RandomSeeds(a.Rows, 8, 500, 6)
	large := samplingtest.RandomSeeds(a.Rows, 8, 510, 7)
	ctx := context.Background()
	for _, opt := range []sampling.NodeWiseOptions{
		{Fanouts: []int{10, 5}, Seed: 1, Threads: 2, MaxBulkEdges: 3000},
		{Fanouts: []int{10, 5}, Seed: 1, Threads: 1, Degrees: true},
	} {
		s, err := sampling.NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		// Three small bulks fill the worker pools (vertex maps: the
		// threads of a pass may take turns differently from call to
		// call), as a warm sampler's are; the arrays are the small bulk's.
		for range 3 {
			b, err := s.SampleBulk(ctx, 0, 0, small)
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b, err := s.SampleBulk(ctx, 0, 8, large)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		out, got := samplingtest.BulkBytes(b), int64(after.TotalAlloc-before.TotalAlloc)
		b.Release()
		t.Logf("%s: the larger bulk allocated %d bytes; output %d bytes", samplingtest.CaseName(opt), got, out)
		if got > out/100 {
			t.Errorf("%s: a bulk 2%% larger than the released one allocates %d bytes (output %d bytes); want under 1%% of the output",
				samplingtest.CaseName(opt), got, out)
		}
	}
}
