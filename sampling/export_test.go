package sampling

import "fmt"

// SetSplitPicks sets the fewest entries of a minibatch whose extraction
// nw may split over threads (splitExtractPicks by default), so that tests
// split the small minibatches of small graphs.
func SetSplitPicks(nw *NodeWise, n int64) { nw.splitPicks = n }

// SetDenseMapMax sets the most vertices for which the workers of s (a
// NodeWise or LayerWise, not yet used) keep dense vertex maps and
// accumulators (denseVertexMapMax by default); 0 makes every one a hash
// table. (Package distsample's tests reach the hash tables of its
// samplers through a source that reports more vertices.)
func SetDenseMapMax(s Sampler, n int) {
	switch s := s.(type) {
	case *NodeWise:
		s.denseMapMax = n
	case *LayerWise:
		s.setDenseMapMax(n)
	default:
		panic(fmt.Sprintf("SetDenseMapMax: %T is not a sampler of this package", s))
	}
}
