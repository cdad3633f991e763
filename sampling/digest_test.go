package sampling_test

import (
	"context"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// TestDigestCoversDegrees: the digest of a bulk whose blocks carry the
// graph's degrees differs from the same bulk without them and from the
// same bulk with one degree changed, and equals itself recomputed.
func TestDigestCoversDegrees(t *testing.T) {
	a := samplingtest.RandomGraph(200, 6, false, 3)
	mbs := samplingtest.RandomSeeds(a.Rows, 3, 8, 4)
	s, err := sampling.NewNodeWise(a, sampling.NodeWiseOptions{Fanouts: []int{3, 2}, Seed: 5, Degrees: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SampleBulk(context.Background(), 0, 0, mbs)
	if err != nil {
		t.Fatal(err)
	}
	sum := func() string {
		d := sampling.NewDigest()
		d.AddBulk(b)
		return d.Sum()
	}
	with := sum()
	if again := sum(); again != with {
		t.Fatalf("the same bulk digests to %s and %s", with, again)
	}
	deg := b.Layers[1].Deg
	if len(deg) == 0 {
		t.Fatal("the bulk carries no degrees")
	}
	deg[len(deg)-1]++
	if changed := sum(); changed == with {
		t.Errorf("one degree changed: the digest %s did not", changed)
	}
	deg[len(deg)-1]--
	for l := range b.Layers {
		b.Layers[l].Deg = nil
	}
	if without := sum(); without == with {
		t.Errorf("without degrees the digest %s is that of the bulk with them", without)
	}
}
