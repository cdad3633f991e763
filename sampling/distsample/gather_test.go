package distsample

import (
	"context"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// TestGatherDigestChunks: gathering the ranks' parts in messages of any
// size, smaller than one word, than a minibatch or than a rank's part,
// and with ranks that sampled nothing, gives the digest of the whole bulk
// on one process.
func TestGatherDigestChunks(t *testing.T) {
	// A 6-cycle; every vertex a seed of its own minibatch.
	n := 6
	var src, dst []int32
	for v := range n {
		src, dst = append(src, int32(v), int32(v)), append(dst, int32((v+1)%n), int32((v+n-1)%n))
	}
	a, err := spgemm.FromCOO(n, n, src, dst, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([][]int32, n)
	for v := range n {
		seeds[v] = []int32{int32(v)}
	}
	opt := sampling.NodeWiseOptions{Fanouts: []int{2, 1}, Seed: 3}
	one, err := sampling.NewNodeWise(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := one.SampleBulk(context.Background(), 0, 0, seeds)
	if err != nil {
		t.Fatal(err)
	}
	want := sampling.NewDigest()
	want.AddBulk(b)
	for _, tc := range []struct {
		ranks, chunk int
	}{
		{1, 1}, {2, 1}, {3, 3}, {3, 8}, {4, 100}, {8, 5}, {4, DigestChunkBytes},
	} {
		var got string
		err := dist.RunInProc(context.Background(), tc.ranks, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
			// Rank r's contiguous run of the minibatches (none past n).
			per := (n + tc.ranks - 1) / tc.ranks
			lo, hi := min(w.Rank()*per, n), min((w.Rank()+1)*per, n)
			s, err := sampling.NewNodeWise(a, opt)
			if err != nil {
				return err
			}
			part, err := s.SampleBulk(ctx, 0, lo, seeds[lo:hi])
			if err != nil {
				return err
			}
			var d *sampling.Digest
			if w.Rank() == 0 {
				d = sampling.NewDigest()
			}
			if err := gatherDigest(ctx, w, d, part, tc.chunk); err != nil {
				return err
			}
			if d != nil {
				got = d.Sum()
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%d ranks, chunks of %d: %v", tc.ranks, tc.chunk, err)
		}
		if got != want.Sum() {
			t.Errorf("%d ranks, chunks of %d bytes: digest %s; want %s", tc.ranks, tc.chunk, got, want.Sum())
		}
	}
}
