package sampling

// SetSplitPicks sets the fewest entries of a minibatch whose extraction
// nw may split over threads (splitExtractPicks by default), so that tests
// split the small minibatches of small graphs.
func SetSplitPicks(nw *NodeWise, n int64) { nw.splitPicks = n }

// SetDenseMapMax sets the most vertices for which the workers of s (a
// NodeWise or DistNodeWise not yet used) keep a dense vertex map
// (denseVertexMapMax by default); 0 makes every map a hash table.
func SetDenseMapMax(s Sampler, n int) {
	switch s := s.(type) {
	case *NodeWise:
		s.denseMapMax = n
	case *DistNodeWise:
		s.nw.denseMapMax = n
	default:
		panic("SetDenseMapMax: not a node-wise sampler")
	}
}
