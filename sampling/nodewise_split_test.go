package sampling_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
)

// TestSplitExtractionMatchesSerial: minibatches whose extraction is split
// over 2, 3 and 8 threads (every minibatch of a bulk of one, the last ones
// of larger bulks and groups) give the blocks of the serial extraction bit
// for bit, on a power-law graph (hubs make unequal pieces) and, unless
// -short, a uniform one with self loops, for every option that changes the
// extraction, with the workers' vertex maps dense and hashed (what a
// graph of more than denseVertexMapMax vertices gets). It takes 0.8 s
// (6 s under -race, 4 s with -short).
func TestSplitExtractionMatchesSerial(t *testing.T) {
	rmat, err := dataset.RMAT(dataset.RMATOptions{Scale: 11, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	graphs := map[string]*spgemm.CSR{"rmat11": rmat, "uniform": samplingtest.RandomGraph(1500, 12, true, 4)}
	if testing.Short() { // -race -short: the power-law graph, whose hubs make unequal pieces
		delete(graphs, "uniform")
	}
	opts := []sampling.NodeWiseOptions{
		{Fanouts: []int{10, 5, 3}, Seed: 1},
		{Fanouts: []int{6, -1}, Seed: 2, Weighted: true},
		{Fanouts: []int{8, 4}, Seed: 3, Replace: true, Frontier: sampling.FrontierNew},
		{Fanouts: []int{5, 5, 2}, Seed: 4, Frontier: sampling.FrontierNew, MaxBulkEdges: 700},
	}
	ctx := context.Background()
	for gname, a := range graphs {
		for _, opt := range opts {
			for _, k := range []int{1, 5} {
				seeds := samplingtest.RandomSeeds(a.Rows, k, 48, uint64(k))
				serial := opt
				serial.Threads = 1
				ref, err := sampling.NewNodeWise(a, serial)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ref.SampleBulk(ctx, 2, 7, seeds)
				if err != nil {
					t.Fatal(err)
				}
				for _, tc := range []struct {
					threads int
					maps    string
				}{{1, "dense"}, {2, "dense"}, {3, "dense"}, {8, "dense"}, {1, "hashed"}, {3, "hashed"}} {
					o := opt
					o.Threads = tc.threads
					nw, err := sampling.NewNodeWise(a, o)
					if err != nil {
						t.Fatal(err)
					}
					sampling.SetSplitPicks(nw, 1)
					if tc.maps == "hashed" {
						sampling.SetDenseMapMax(nw, 0)
					}
					name := fmt.Sprintf("%s %s k=%d threads=%d %s maps", gname, samplingtest.CaseName(o), k, tc.threads, tc.maps)
					for rep := range 2 { // the second reuses the vertex maps and lists
						got, err := nw.SampleBulk(ctx, 2, 7, seeds)
						if err != nil {
							t.Fatal(err)
						}
						samplingtest.CompareBulks(t, name, got, want, 0)
						if g, w := samplingtest.BulkDigest(got), samplingtest.BulkDigest(want); g != w {
							t.Errorf("%s rep %d: digest %s, want %s", name, rep, g, w)
						}
						samplingtest.CheckBulk(t, a, o, got)
						got.Release()
					}
				}
			}
		}
	}
}
