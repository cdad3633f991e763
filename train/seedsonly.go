package train

import (
	"context"

	"github.com/bulksample/bulksample/sampling"
)

// SeedsOnly is the Sampler of minibatches without blocks: each minibatch is
// just its seeds. It feeds the Linear (features-only) baseline, which reads
// no edge, without the cost of sampling neighbourhoods.
type SeedsOnly struct{}

// NumLayers returns 0.
func (SeedsOnly) NumLayers() int { return 0 }

// SampleBulk returns the bulk of minibatches first..first+len(seeds)-1 with
// their seeds and no blocks. It returns ctx's error if ctx is done.
func (SeedsOnly) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := &sampling.Bulk{First: first, SeedStart: make([]int, len(seeds)+1)}
	for m, s := range seeds {
		b.Seeds = append(b.Seeds, s...)
		b.SeedStart[m+1] = len(b.Seeds)
	}
	return b, nil
}

var _ sampling.Sampler = SeedsOnly{}
