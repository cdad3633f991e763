package sampling

// SetSplitPicks sets the fewest entries of a minibatch whose extraction
// nw may split over threads (splitExtractPicks by default), so that tests
// split the small minibatches of small graphs.
func SetSplitPicks(nw *NodeWise, n int64) { nw.splitPicks = n }
