package gpu

import (
	"fmt"
	"math"

	"github.com/bulksample/bulksample/sampling"
)

// BulkDiff returns nil if got and want are the same bulk bit for bit, and
// otherwise an error describing the first difference: which minibatch,
// layer and array, the position, and both values (what a first run on a
// new GPU should print when it disagrees with the CPU).
func BulkDiff(got, want *sampling.Bulk) error {
	if got.First != want.First || got.Len() != want.Len() {
		return fmt.Errorf("bulk of %d minibatches from %d, want %d from %d", got.Len(), got.First, want.Len(), want.First)
	}
	if err := diffSlices("seed offsets", got.SeedStart, want.SeedStart); err != nil {
		return err
	}
	if err := diffSlices("seeds", got.Seeds, want.Seeds); err != nil {
		return err
	}
	if len(got.Layers) != len(want.Layers) {
		return fmt.Errorf("%d layers, want %d", len(got.Layers), len(want.Layers))
	}
	for l := range got.Layers {
		g, w := &got.Layers[l], &want.Layers[l]
		for _, c := range []error{
			diffSlices("row offset starts", g.PtrStart, w.PtrStart),
			diffSlices("edge starts", g.EdgeStart, w.EdgeStart),
			diffSlices("source starts", g.SrcStart, w.SrcStart),
		} {
			if c != nil {
				return fmt.Errorf("layer %d: %w", l, c)
			}
		}
		for m := range got.Len() {
			loc := func(what string, i int) string {
				return fmt.Sprintf("layer %d minibatch %d (global %d): %s[%d]", l, m, got.First+m, what, i)
			}
			p0, p1 := g.PtrStart[m], g.PtrStart[m+1]
			for i := p0; i < p1; i++ {
				if g.Indptr[i] != w.Indptr[i] {
					return fmt.Errorf("%s = %d, want %d", loc("row offset", i-p0), g.Indptr[i], w.Indptr[i])
				}
			}
			e0, e1 := g.EdgeStart[m], g.EdgeStart[m+1]
			for e := e0; e < e1; e++ {
				if g.Indices[e] != w.Indices[e] {
					return fmt.Errorf("%s = %d, want %d", loc("column", int(e-e0)), g.Indices[e], w.Indices[e])
				}
				if math.Float32bits(g.Data[e]) != math.Float32bits(w.Data[e]) {
					return fmt.Errorf("%s = %v (%#x), want %v (%#x)", loc("value", int(e-e0)), g.Data[e], math.Float32bits(g.Data[e]), w.Data[e], math.Float32bits(w.Data[e]))
				}
			}
			s0, s1 := g.SrcStart[m], g.SrcStart[m+1]
			for i := s0; i < s1; i++ {
				if g.Src[i] != w.Src[i] {
					return fmt.Errorf("%s = %d, want %d", loc("source", i-s0), g.Src[i], w.Src[i])
				}
			}
		}
		if (g.Deg == nil) != (w.Deg == nil) && len(g.Deg)+len(w.Deg) > 0 {
			return fmt.Errorf("layer %d: degrees present %v, want %v", l, g.Deg != nil, w.Deg != nil)
		}
		if err := diffSlices("degrees", g.Deg, w.Deg); err != nil {
			return fmt.Errorf("layer %d: %w", l, err)
		}
		if len(g.Indptr) != len(w.Indptr) || len(g.Indices) != len(w.Indices) || len(g.Src) != len(w.Src) {
			return fmt.Errorf("layer %d: array lengths %d/%d/%d, want %d/%d/%d", l, len(g.Indptr), len(g.Indices), len(g.Src), len(w.Indptr), len(w.Indices), len(w.Src))
		}
	}
	return nil
}

func diffSlices[T comparable](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
	return nil
}
