// Package distsample owns distributed sampling (docs/design.md section 4):
// the samplers of package sampling run by the ranks of a job (package
// dist) on a graph that each rank holds whole or by its block of rows, and
// what they need for it: the row source of a row-distributed graph, the
// choice between pulling rows and having their owners push back their
// picks, the byte model of that choice, and the gathering of the ranks'
// samples into one digest.
//
// # Overview
//
// NewDistSampler is sampling.NewSampler for one rank of a distributed run,
// on a graph that each rank holds whole (Replicated: the single-process
// sampler, no communication) or by its block of rows (Split, the 1.5D
// layout of dist.Grid: p/c blocks, each on the c ranks of a process row).
// On a Split graph the samplers are DistNodeWise and DistLayerWise: the
// ordinary sampling.NodeWise and sampling.LayerWise reading A through a
// DistRows, which implements sampling.RemoteRows, the one seam through
// which package sampling reads rows of other processes. A DistRows reads
// its own block in place and brings the other rows in from their owners
// inside its process column, pulled (the paper's 1.5D sparsity-aware
// product) or selected by the owners and pushed back (FetchMode), per
// layer of each bulk by the byte model with FetchAuto (PullSampleBytes,
// PushSampleBytes, SampleHeaderBytes); DistSamplerOptions bounds the
// rounds' batches and overlaps push rounds with the rank's own work.
//
// Every rank of the grid makes its sampler with the same options and
// calls SampleBulk once per bulk with its own run of the bulk's
// minibatches (dist.Grid.Minibatches), possibly none: SampleBulk and the
// constructors are collective on the process column. A rank gets, for its
// minibatches, the samples of sampling.NewSampler on the whole graph with
// the same options, bit for bit; GatherDigest digests the ranks' parts on
// rank 0 in the single process's order, so that this can be checked.
//
// DistStats (DistNodeWise.Stats, DistLayerWise.Stats) are a rank's figures:
// its bulks, its wall time, its row exchange's rounds and bytes by kind,
// how each node-wise layer was fetched and what the byte model predicted,
// and what overlapping hid.
//
// # Errors
//
// The constructors and DistSamplerOptions.Validate return errors naming
// the invalid option field (an *option.Error of package option),
// the rank, or the block that is not the rank's; an error of one rank's
// round ends that rank's SampleBulk, and the job's runner (dist.Run) ends
// the other ranks.
package distsample
