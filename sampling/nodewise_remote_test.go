package sampling

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// badRemote is a RemoteRows over a whole graph that pulls every layer and
// answers PlanLayer with batches (nil: a batch a group) and PullParts with
// parts (nil: one part).
type badRemote struct {
	CSRRows
	batches, parts []int
}

func (b *badRemote) FetchRows(context.Context, []int32) error { return nil }

func (b *badRemote) PlanLayer(d LayerDemand, dst []int) LayerPlan {
	dst = dst[:0]
	if b.batches != nil {
		return LayerPlan{Batches: append(dst, b.batches...)}
	}
	for j := range len(d.Groups) {
		dst = append(dst, j)
	}
	return LayerPlan{Batches: dst}
}

func (b *badRemote) PullParts(_ context.Context, vs, deg []int32, parts []int) ([]int, error) {
	if b.parts != nil {
		if err := b.Degrees(context.Background(), vs, deg); err != nil {
			return parts, err
		}
		return append(parts[:0], b.parts...), nil
	}
	return append(parts[:0], len(vs)), nil
}

func (b *badRemote) FetchPicks(context.Context, *PickRequest) error {
	return errors.New("badRemote pulls every layer")
}

func (b *badRemote) StartPicks(ctx context.Context, req *PickRequest) func() error {
	err := b.FetchPicks(ctx, req)
	return func() error { return err }
}

// TestRemotePlanChecked: batch boundaries from PlanLayer that do not cut
// the layer's groups from 0 to their number, and part ends from PullParts
// that do not rise to the number of vertices, end SampleBulk with an error
// naming the method, not a panic or a wrong sample; well-formed ones
// sample what the local sampler samples.
func TestRemotePlanChecked(t *testing.T) {
	a := lcgGraph(t, 200, 8, 3, 1)
	mbs := make([][]int32, 6)
	for i := range mbs {
		mbs[i] = []int32{int32(i * 31), int32(i*31 + 7), int32(i*31 + 13)}
	}
	opt := NodeWiseOptions{Fanouts: []int{3, 2}, Seed: 5, MaxBulkEdges: 12} // a group a minibatch
	one, err := NewNodeWise(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := one.SampleBulk(context.Background(), 0, 0, mbs)
	if err != nil {
		t.Fatal(err)
	}
	want := bulkDigestOf(b)
	for _, tc := range []struct {
		name           string
		batches, parts []int
		err            string // "" for a good plan
	}{
		{"a batch a group", nil, nil, ""},
		{"one batch", []int{0, 6}, nil, ""},
		{"empty batches", []int{0, 0, 3, 3, 6}, nil, ""},
		{"no boundaries", []int{}, nil, "PlanLayer"},
		{"short", []int{0, 3}, nil, "PlanLayer"},
		{"not from 0", []int{1, 6}, nil, "PlanLayer"},
		{"falling", []int{0, 4, 2, 6}, nil, "PlanLayer"},
		{"past the groups", []int{0, 7}, nil, "PlanLayer"},
		{"parts short", nil, []int{1}, "PullParts"},
		{"parts from 0", nil, []int{0, 1, 100}, "PullParts"},
	} {
		nw, err := NewNodeWiseFrom(&badRemote{CSRRows: CSRRows{A: a}, batches: tc.batches, parts: tc.parts}, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := nw.SampleBulk(context.Background(), 0, 0, mbs)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && bulkDigestOf(got) != want:
			t.Errorf("%s: digest %s; want %s", tc.name, bulkDigestOf(got), want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v; want one naming %s", tc.name, err, tc.err)
		}
	}
}
